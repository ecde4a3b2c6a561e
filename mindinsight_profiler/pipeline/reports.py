"""The one path from an input file to its analysed report, through the workspace cache.

The CLI (and later the server) call these functions; they never parse or analyse
themselves. A cache problem never fails a request: a damaged, edited or older-format entry
(its checksums, `store.integrity`) is a miss, logged, invalidated and rebuilt from the input
under the entry's lock; an unwritable workspace only costs the speed-up.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import msgspec

from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.report import REPORT_VERSION, build_report
from mindinsight_profiler.analysis.schema import (
    Report,
    decode_report,
    encode_report,
    report_builtins,
    to_report,
)
from mindinsight_profiler.analysis.timeline.index import (
    TimelineIndex,
    has_timeline_index,
    timeline_index,
)
from mindinsight_profiler.errors import CacheError, InputError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.sources import RemoteInput, Source
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.keys import SUMMARY_NAME, cache_variant
from mindinsight_profiler.store.cache import CacheEntry, Workspace

log = logging.getLogger(__name__)


def _read(source: Source, fmt: str, worker: str, progress: ProgressFn | None) -> tuple[Trace, Path]:
    """(trace, the local path it was read from): a local input, or a remote one staged
    first (with its probe file) and read there; errors name the URL."""
    if not isinstance(source, RemoteInput):
        return read_trace(source, fmt, worker, progress), source
    from mindinsight_profiler.store.staging import stage

    try:
        local = stage(source, progress)
        return read_trace(local, fmt, worker, progress), local
    except InputError as exc:
        raise InputError(source.url_of(exc.path), exc.problem) from None


def _report(trace: Trace, path: Path, worker: str, options: Options) -> Report:
    """The report, with the Profiler's DataLoader probe file of this worker when present
    (beside the local trace file `path`), checked against its contract as it is built."""
    probe_file = path.parent / f"{worker}.dataloader_probe.json"
    probe = None
    if path.is_file() and probe_file.is_file():
        try:
            probe = json.loads(probe_file.read_text())
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable probe file %s: %s", probe_file, exc)
    return to_report(build_report(trace, probe=probe, options=options))


def stored_report(entry: CacheEntry) -> Report | None:
    """The cached report if present, of the current version and of the declared contract
    (decoded typed: a file another version wrote is a miss); CacheError when its checksum,
    or its manifest's, does not match (damaged or edited)."""
    raw = entry.load_report()
    if raw is None:
        return None
    try:
        report = decode_report(raw)
    except msgspec.DecodeError as exc:  # another contract (an older version's): rebuilt
        log.warning("rebuilding cache: %s: a report of another contract: %s", entry.dir, exc)
        return None
    if report.report_version != REPORT_VERSION:
        log.warning("rebuilding cache: %s: report version %d, not %d", entry.dir,
                    report.report_version, REPORT_VERSION)  # fmt: skip
        return None
    return report


def _cached_report(entry: CacheEntry, repair: bool = True) -> Report | None:
    """`stored_report`, a damaged entry a miss; with `repair` (the caller holds the entry's
    lock and rebuilds it) the damage is logged and the entry invalidated."""
    try:
        return stored_report(entry)
    except CacheError as exc:
        if repair:
            log.warning("rebuilding cache: %s", exc)
            entry.invalidate()
        return None


def _cached_trace(entry: CacheEntry, repair: bool = True) -> Trace | None:
    """`entry.load_trace()` (every column's checksum verified), as `_cached_report`."""
    try:
        return entry.load_trace()
    except CacheError as exc:
        if repair:
            log.warning("rebuilding cache: %s", exc)
            entry.invalidate()
        return None


def analyse_file(
    path: Source,
    workspace: Workspace | None = None,
    progress: ProgressFn | None = None,
    fmt: str = FormatTag.KINETO,
    worker: str = "",
    options: Options = DEFAULT_OPTIONS,
) -> tuple[Report, bool]:
    """(report, served_from_cache) for one worker's input (a trace file or a folder).

    `options`: what the user configured (FP/BP points, device spec), read where settings
    enter (part of the cache key).
    """

    def read() -> tuple[Trace, Report]:
        trace, local = _read(path, fmt, worker, progress)
        return trace, _report(trace, local, worker, options)

    if workspace is None:
        return read()[1], False
    entry = workspace.entry(path, cache_variant(fmt, worker, options))
    report = _cached_report(entry, repair=False)  # a damaged entry is repaired under the lock
    if report is not None:
        return report, True
    try:
        with workspace.lock(entry):
            report = _cached_report(entry)  # built by another process while we waited
            if report is not None:
                return report, True
            trace, report = read()
            _save(entry, trace, report)
    except OSError as exc:  # unwritable workspace: analyse without caching
        log.warning("workspace %s not usable (%s); not caching", workspace.root, exc)
        report = read()[1]
    return report, False


def load_trace(
    path: Source,
    workspace: Workspace | None = None,
    progress: ProgressFn | None = None,
    fmt: str = FormatTag.KINETO,
    worker: str = "",
    options: Options = DEFAULT_OPTIONS,
) -> Trace:
    """The model of one worker's input, memory-mapped from the cache when possible."""
    if workspace is None:
        return _read(path, fmt, worker, progress)[0]
    entry = workspace.entry(path, cache_variant(fmt, worker, options))
    trace = _cached_trace(entry, repair=False)  # a damaged entry is repaired under the lock
    if trace is not None:
        return trace
    try:
        with workspace.lock(entry):
            trace = _cached_trace(entry)  # written by another process while we waited
            if trace is None:
                trace, local = _read(path, fmt, worker, progress)
                _save(entry, trace, _report(trace, local, worker, options))
    except OSError as exc:  # unwritable workspace: read without caching
        log.warning("workspace %s not usable (%s); not caching", workspace.root, exc)
        trace = _read(path, fmt, worker, progress)[0]
    return trace


def load_timeline(
    path: Source,
    workspace: Workspace | None = None,
    progress: ProgressFn | None = None,
    fmt: str = FormatTag.KINETO,
    worker: str = "",
    options: Options = DEFAULT_OPTIONS,
) -> tuple[Trace, TimelineIndex]:
    """The trace and its timeline index; a cached trace gains the index in its entry once.

    Building the index costs about a second per million events; writing it into the cache
    entry means every later process (any server worker) reopens it memory-mapped instead.
    """
    trace = load_trace(path, workspace, progress, fmt, worker, options)
    if has_timeline_index(trace):
        return trace, timeline_index(trace)
    index = timeline_index(trace)
    if workspace is not None:
        from mindinsight_profiler.store.staging import local_path  # staged already: no download

        entry = workspace.entry(path, cache_variant(fmt, worker, options))
        try:
            with workspace.lock(entry):
                report = _cached_report(entry) or _report(trace, local_path(path), worker, options)
                _save(entry, trace, report)
        except OSError as exc:
            log.warning(
                "workspace %s not usable (%s); timeline index not cached", workspace.root, exc
            )
    return trace, index


def summary_bytes(report: Report) -> bytes:
    """The report's `rank_summary` as its cache entry stores it: no worker or span (an entry
    describes an input; whoever reads it names the worker), see pipeline/summaries.py."""
    return msgspec.json.encode(rank_summary(report_builtins(report)))


def _save(entry: CacheEntry, trace: Trace, report: Report) -> None:
    try:
        entry.save(trace, {"report": encode_report(report), SUMMARY_NAME: summary_bytes(report)})
    except OSError as exc:
        log.warning("could not write cache %s: %s", entry.dir, exc)
