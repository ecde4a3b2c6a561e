"""Advice for one worker of a run, stored beside its cached analysis.

The advice is a pure function of the report, the trace, the other ranks' reports and the
rules, so it is stored in the worker's cache entry under a name that includes the rules'
fingerprint and the package version (a changed rule or fact recomputes it). It is written
atomically and sealed with the SHA-256 of its JSON (`store.integrity`): a stored copy that
is damaged, edited (a severity changed by hand), of an older format or undecodable is
recomputed, with a log line, never served.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.advisor import advise_report
from mindinsight_profiler.advisor.model import ADVICE_VERSION, Advice
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.pipeline.summaries import summary_of
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.integrity import read_sealed, write_sealed

log = logging.getLogger(__name__)


#: The kind named in a stored advice file's checksum header.
ADVICE_KIND = "advice"


def stored_advice(path: Path) -> Advice | None:
    """The advice stored at `path`, verified and decoded typed; None when there is none;
    CacheError naming the file when it is damaged, edited, of another format or version."""
    payload = read_sealed(path, ADVICE_KIND)
    if payload is None:
        return None
    try:
        advice = msgspec.json.decode(payload, type=Advice)
    except msgspec.DecodeError as exc:
        raise CacheError(f"{path}: undecodable advice: {exc}") from None
    if advice.advice_version != ADVICE_VERSION:
        raise CacheError(f"{path}: advice version {advice.advice_version}, not {ADVICE_VERSION}")
    return advice


def store_advice(path: Path, advice: Advice) -> None:
    """Write the advice sealed, atomically (a reader sees the old file or the new one)."""
    write_sealed(path, ADVICE_KIND, msgspec.json.encode(advice))


#: Stored advice files kept per cache entry: the server, the CLI and notebooks may each ask
#: with other rules folders or another view of the run (a trace file or its folder), and
#: each one's copy must survive the others' writes.
ADVICE_KEPT = 8
#: A copy younger than this is never pruned: another process may have just written it and
#: be about to serve it.
ADVICE_GRACE_S = 600.0


def prune_advice(current: Path, now: float | None = None) -> list[Path]:
    """Remove stored advice beside `current` that nobody is likely to read again.

    Before, writing one copy removed every other one: a `mindinsight advise` on a trace file
    (a one-file run, so another name) deleted the server's copy of the same worker, and the
    dashboard answered "not ready" until its scheduler noticed. Now only copies beyond the
    ADVICE_KEPT most recent, and older than ADVICE_GRACE_S, go. Returns what was removed.
    """
    now = time.time() if now is None else now
    found = []
    for path in current.parent.glob("advice-*.json"):
        try:
            found.append((path.stat().st_mtime, path))
        except OSError:
            continue
    found.sort(reverse=True)
    removed = []
    for mtime, path in found[ADVICE_KEPT:]:
        if path != current and now - mtime > ADVICE_GRACE_S:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def run_reports(
    run: Run, workspace: Workspace | None, options: Options = DEFAULT_OPTIONS
) -> list[dict[str, Any]]:
    """Every worker's `rank_summary` (first span of each), for the cluster facts.

    Summaries, not reports: the cluster facts read only the summary's keys, and a run of
    hundreds of ranks would otherwise hold every full report in this process at once;
    here each rank's stored summary is read (pipeline/summaries.py), not its report.
    """
    return [
        summary_of(file.source, workspace, file.format, file.worker, file.span, options)
        for file in run.by_worker().values()
    ]


def advise_file(
    file: TraceFile,
    run: Run | None = None,
    workspace: Workspace | None = None,
    rules_dirs: Sequence[str | Path] = (),
    options: Options = DEFAULT_OPTIONS,
) -> Advice:
    """The advice of one worker (computed once per rules version, then read back)."""
    typed, _ = analyse_file(file.source, workspace, None, file.format, file.worker, options)
    report = report_for(typed, file.worker, file.span)
    stored = None
    if workspace is not None:
        entry = workspace.entry(file.source, cache_variant(file.format, file.worker, options))
        stored = entry.dir / advice_name(rules_dirs, run)
        try:
            found = stored_advice(stored)
            if found is not None:
                return found
        except CacheError as exc:
            log.warning("recomputing advice: %s", exc)

    def trace() -> Trace | None:
        return load_trace(file.source, workspace, None, file.format, file.worker, options)

    def others() -> list[dict[str, Any]]:
        return run_reports(run, workspace, options) if run is not None else [report]

    advice = advise_report(report, trace, others, rules_dirs)
    if stored is not None and stored.parent.is_dir():
        try:
            store_advice(stored, advice)
            prune_advice(stored)
        except OSError as exc:
            log.warning("could not store advice %s: %s", stored, exc)
    return advice
