"""Advice for one worker of a run, stored beside its cached analysis.

The advice is a pure function of the report, the trace, the other ranks' reports and the
rules, so it is stored in the worker's cache entry under a name that includes the rules'
fingerprint and the package version (a changed rule or fact recomputes it). It is written
atomically; an unreadable stored copy is recomputed, never served.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.advisor import advise_report
from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.analysis.steps.step_trace import AUTO_POINTS, StepPoints
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.atomic import write_json_atomic
from mindinsight_profiler.store.cache import Workspace

log = logging.getLogger(__name__)


def run_reports(
    run: Run, workspace: Workspace | None, points: StepPoints = AUTO_POINTS
) -> list[dict[str, Any]]:
    """Every worker's `rank_summary` (first span of each), for the cluster facts.

    Summaries, not reports: the cluster facts read only the summary's keys, and a run of
    hundreds of ranks would otherwise hold every full report in this process at once;
    here one report at a time is read and cut down.
    """
    summaries = []
    for worker in run.workers:
        file = run.select(worker)
        report, _ = analyse_file(file.source, workspace, None, file.format, file.worker, points)
        summaries.append(rank_summary(report_for(report, file.worker, file.span)))
    return summaries


def advise_file(
    file: TraceFile,
    run: Run | None = None,
    workspace: Workspace | None = None,
    rules_dirs: Sequence[str | Path] = (),
    points: StepPoints = AUTO_POINTS,
) -> Advice:
    """The advice of one worker (computed once per rules version, then read back)."""
    typed, _ = analyse_file(file.source, workspace, None, file.format, file.worker, points)
    report = report_for(typed, file.worker, file.span)
    stored = None
    if workspace is not None:
        entry = workspace.entry(file.source, cache_variant(file.format, file.worker, points))
        stored = entry.dir / advice_name(rules_dirs, run)
        try:
            return msgspec.json.decode(stored.read_bytes(), type=Advice)
        except FileNotFoundError:
            pass
        except (OSError, msgspec.DecodeError) as exc:
            log.warning("recomputing advice: %s: %s", stored, exc)

    def trace() -> Trace | None:
        return load_trace(file.source, workspace, None, file.format, file.worker, points)

    def others() -> list[dict[str, Any]]:
        return run_reports(run, workspace, points) if run is not None else [report]

    advice = advise_report(report, trace, others, rules_dirs)
    if stored is not None and stored.parent.is_dir():
        try:
            write_json_atomic(stored, msgspec.to_builtins(advice))
            for old in stored.parent.glob("advice-*.json"):  # advice of older rules or runs
                if old != stored:
                    old.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not store advice %s: %s", stored, exc)
    return advice
