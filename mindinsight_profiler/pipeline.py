"""The one path from an input file to its analysed report, through the workspace cache.

The CLI (and later the server) call these functions; they never parse or analyse
themselves. A cache problem never fails a request: a corrupt entry is rebuilt, an unwritable
workspace only costs the speed-up.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.store.cache import CacheEntry, Workspace

log = logging.getLogger(__name__)


def _cached_report(entry: CacheEntry) -> dict[str, Any] | None:
    try:
        return entry.load_report()
    except CacheError as exc:
        log.warning("rebuilding cache: %s", exc)
        entry.discard()
        return None


def analyse_file(
    path: Path, workspace: Workspace | None = None, progress: ProgressFn | None = None
) -> tuple[dict[str, Any], bool]:
    """(report, served_from_cache) for one trace file."""
    if workspace is None:
        return build_report(read_trace(path, progress)), False
    entry = workspace.entry(path)
    report = _cached_report(entry)
    if report is not None:
        return report, True
    try:
        with workspace.lock(entry):
            report = _cached_report(entry)  # built by another process while we waited
            if report is not None:
                return report, True
            trace = read_trace(path, progress)
            report = build_report(trace)
            _save(entry, trace, report)
    except OSError as exc:  # unwritable workspace: analyse without caching
        log.warning("workspace %s not usable (%s); not caching", workspace.root, exc)
        report = build_report(read_trace(path, progress))
    return report, False


def load_trace(
    path: Path, workspace: Workspace | None = None, progress: ProgressFn | None = None
) -> Trace:
    """The model of one trace file, memory-mapped from the cache when possible."""
    if workspace is not None:
        entry = workspace.entry(path)
        try:
            trace = entry.load_trace()
            if trace is not None:
                return trace
        except CacheError as exc:
            log.warning("rebuilding cache: %s", exc)
            entry.discard()
    trace = read_trace(path, progress)
    if workspace is not None:
        _save(workspace.entry(path), trace, build_report(trace))
    return trace


def _save(entry: CacheEntry, trace: Trace, report: dict[str, Any]) -> None:
    try:
        entry.save(trace, {"report": report})
    except OSError as exc:
        log.warning("could not write cache %s: %s", entry.dir, exc)
