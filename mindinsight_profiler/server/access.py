"""From a run id and worker/span to cached results, never parsing anything in a request.

A request resolves its input through the registry (opaque id, worker and span checked
against the run's own) and then reads only the workspace cache: the report, the
memory-mapped trace, the timeline index, the stored advice. When the background analysis
has not written them yet the answer is 409 `not_ready`, so no request ever waits for a
multi-second parse (MindInsight re-read the files on every request). A damaged or edited
entry (its checksums do not match, `store.integrity`) is never served: it is logged,
invalidated (so the scheduler sees the input as not analysed and queues it again) and
answered `not_ready` until the background analysis has rebuilt it. An input whose analysis
failed (for its current content) answers 422 `analysis_failed` with the reason, never
"not yet"; so does the advice or the timeline index of a ready input when that stage failed
(`server.stages`), while its other answers are served.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from threading import Lock
from typing import Any

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.analysis.memory.ledger import Ledger, memory_ledgers
from mindinsight_profiler.analysis.schema import report_builtins
from mindinsight_profiler.analysis.timeline.index import (
    TimelineIndex,
    has_timeline_index,
    timeline_index,
)
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import stored_advice
from mindinsight_profiler.pipeline.keys import advice_name
from mindinsight_profiler.pipeline.reports import stored_report
from mindinsight_profiler.pipeline.summaries import entry_summary, keep_summary, named
from mindinsight_profiler.server.entries import cache_entry, workspace
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.registry import RunEntry
from mindinsight_profiler.server.services import services
from mindinsight_profiler.server.stages import (
    ADVICE,
    TIMELINE,
    failed_for,
    stage_of,
    stages_of,
)
from mindinsight_profiler.server.state import FAILED, QUEUED, READY
from mindinsight_profiler.store.cache import CacheEntry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Target:
    """One worker's input of a run, and its cache entry."""

    run: RunEntry
    file: TraceFile
    cache: CacheEntry

    def where(self) -> dict[str, str]:
        return {"run": self.run.id, "worker": self.file.worker, "span": self.file.span}


def _not_ready(
    target: Target, what: str, stage: str | None = None, rules: str | None = None
) -> ApiError:
    """409 `not_ready` while it may yet come, 422 `analysis_failed` once it cannot.

    `stage`: what is missing is one of the stages after the overview (`server.stages`); once
    the overview is ready the 409 names it (`stage`), so the dashboard can say what it waits
    for, and a failed stage is a 422 with its reason while the overview stays served.
    `rules`: the advice file's name now (a failure under other rules does not count).
    """
    rec = services().states.read(target.file)
    current = rec is not None and rec.get("fingerprint") in ("", target.cache.key)
    where = {"run": target.run.id, "worker": target.file.worker}
    if rec is not None and current and rec["state"] == FAILED:
        reason = str(rec.get("error") or "analysis failed")
        return ApiError(
            422, "analysis_failed",
            f"the analysis of run {target.run.name} worker {target.file.worker} failed: {reason}",
            **where, state=FAILED, reason=reason,
        )  # fmt: skip
    if stage is None or not current or rec is None or rec["state"] != READY:
        return ApiError(
            409, "not_ready",
            f"{what} of run {target.run.name} worker {target.file.worker} is not analysed yet",
            **where,
        )  # fmt: skip
    lost = failed_for(rec, stage, rules)
    if lost is not None:
        return ApiError(
            422, "analysis_failed",
            f"{what} of run {target.run.name} worker {target.file.worker} failed: {lost}",
            **where, state=FAILED, stage=stage, reason=lost,
        )  # fmt: skip
    found = stage_of(rec, stage)
    if found is not None and found["state"] == READY:  # built, and gone since (an entry
        # rewritten without its index, stored advice removed): queued for the scheduler
        queued = {**stages_of(rec), stage: {"state": QUEUED}}
        services().states.update(target.file, rec, stages=queued)
    return ApiError(
        409, "not_ready",
        f"{what} of run {target.run.name} worker {target.file.worker} is being built",
        **where, stage=stage,
    )  # fmt: skip


def resolve(run: str, worker: str | None = None, span: str | None = None) -> Target:
    """The run's worker/span (404 when not one of the run's) and its cache entry."""
    entry, file = services().registry.file(run, worker, span)
    return Target(entry, file, cache_entry(file))


def _rebuild(target: Target, seen: str, problem: str | None) -> None:
    """Log a damaged entry (unless `problem` was logged already) and invalidate it for the
    background analysis to rebuild, unless it was rewritten since it was read (`seen`, its
    identity then: a fresh entry is kept)."""
    if problem is not None:
        log.warning("not serving %s; queued for rebuilding", problem)
    if _identity(target) == seen:
        target.cache.invalidate()


def _identity(target: Target) -> str:
    """The cache entry as written: a rewrite (e.g. the timeline index added) changes it."""
    try:
        st = (target.cache.dir / "manifest.json").stat()
    except OSError:
        return f"{target.cache.dir}|missing"
    return f"{target.cache.dir}|{st.st_mtime_ns}|{st.st_size}|{st.st_ino}"


_reports: OrderedDict[str, dict[str, Any]] = OrderedDict()
_reports_lock = Lock()
#: Parsed reports kept per process (a large run's report is a few hundred KB of JSON).
REPORTS_KEPT = 32


def report(target: Target) -> dict[str, Any]:
    """The cached report of the target, as `mindinsight analyse --format json` prints it.

    Parsed once per process and entry version; callers get a shallow copy and must not
    change nested values.
    """
    key = _identity(target)
    with _reports_lock:
        found = _reports.get(key)
    if found is None:
        try:  # decoded with its type: another version's or contract's report is a miss
            typed = stored_report(target.cache)
        except CacheError as exc:
            _rebuild(target, key, str(exc))
            raise _not_ready(target, "the report") from None
        if typed is None:
            if not key.endswith("|missing"):  # a report of another version (logged)
                _rebuild(target, key, None)
            raise _not_ready(target, "the report")
        found = report_builtins(typed)
        with _reports_lock:
            _reports[key] = found
            while len(_reports) > REPORTS_KEPT:
                _reports.popitem(last=False)
    return dict(found, worker=target.file.worker, span=target.file.span)


class _Traces:
    """A few memory-mapped traces per process: reopening one costs a manifest read and
    checksums; keyed by the cache entry (its key changes when the input changes)."""

    def __init__(self, size: int = 8) -> None:
        self._items: OrderedDict[str, tuple[Trace, dict[str, Any]]] = OrderedDict()
        self._lock = Lock()
        self.size = size

    def get(self, target: Target) -> tuple[Trace, dict[str, Any]]:
        key = _identity(target)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        try:
            trace = target.cache.load_trace()
        except CacheError as exc:
            _rebuild(target, key, str(exc))
            trace = None
        if trace is None:
            raise _not_ready(target, "the trace")
        item: tuple[Trace, dict[str, Any]] = (trace, {})
        with self._lock:
            self._items[key] = item
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return item


_traces = _Traces()


def trace(target: Target) -> Trace:
    return _traces.get(target)[0]


def derived(target: Target, name: str) -> dict[str, Any]:
    """Per-trace memo of things computed from the cached trace (operator tree, tables)."""
    return _traces.get(target)[1].setdefault(name, {})


def origin_ns(target: Target) -> int:
    """The trace's first start: the zero of every timeline time (kept with the trace)."""
    memo = derived(target, "origin")
    if "ns" not in memo:
        start = trace(target).events["start_ns"]
        memo["ns"] = int(start.min()) if len(start) else 0
    value: int = memo["ns"]
    return value


def memory_ledgers_of(target: Target) -> list[Ledger]:
    """Every memory device's ledger of the trace, built once per process and kept with it
    (the Memory page and the timeline's memory counters read the same)."""
    memo = derived(target, "memory_ledgers")
    if "all" not in memo:
        memo["all"] = memory_ledgers(trace(target))
    found: list[Ledger] = memo["all"]
    return found


def timeline(target: Target) -> tuple[Trace, TimelineIndex]:
    """The trace and its cached timeline index (built by the background analysis)."""
    found = trace(target)
    if not has_timeline_index(found):
        raise _not_ready(target, "the timeline index", TIMELINE)
    return found, timeline_index(found)


def advice(target: Target) -> Advice:
    """The stored advice for the server's rules; computed by the background analysis.

    Damaged or edited advice is removed (the scheduler then computes it again) and answered
    `not_ready`, never served."""
    settings = services().settings
    stored = target.cache.dir / advice_name(settings.rules_dirs, target.run.run)
    try:
        st = stored.stat()
    except OSError:
        raise _not_ready(target, "the advice", ADVICE, stored.name) from None
    key = f"{stored}|{st.st_mtime_ns}|{st.st_size}|{st.st_ino}"
    with _reports_lock:
        found = _advices.get(key)
    if found is not None:
        return found
    try:
        found = stored_advice(stored)
    except CacheError as exc:
        log.warning("not serving %s; queued for recomputing", exc)
        _remove_if_unchanged(stored, st)
        found = None
    if found is None:
        raise _not_ready(target, "the advice", ADVICE, stored.name)
    with _reports_lock:
        if len(_advices) >= REPORTS_KEPT:
            _advices.clear()
        _advices[key] = found
    return found


def _remove_if_unchanged(path: Path, seen: os.stat_result) -> None:
    """Remove a damaged file unless it was replaced since it was read (a fresh copy stays)."""
    try:
        now = path.stat()
        if (now.st_ino, now.st_mtime_ns, now.st_size) == (seen.st_ino, seen.st_mtime_ns,
                                                          seen.st_size):  # fmt: skip
            path.unlink()
    except OSError:
        pass


#: Decoded stored advice per process, by file version (callers must not change it).
_advices: dict[str, Advice] = {}


#: Answers computed from every worker of a run, per process, by the run's cache entries.
_run_views: OrderedDict[tuple[str, ...], Any] = OrderedDict()
RUN_VIEWS_KEPT = 16


def run_memo(run: str, span: str | None, name: str, build: Any) -> Any:
    """`build(entry, targets)` (every worker of the run) once per version of the run's cache
    entries, then kept. The key is each input's cache identity, so a re-analysed rank or a
    new one (the registry's worker list) gives a new answer."""
    entry = services().registry.get(run)
    files = entry.run.by_worker(span)
    for worker in entry.run.workers:
        if worker not in files:  # the same 404 as asking for that worker's span
            resolve(run, worker, span)
    targets = [Target(entry, files[w], cache_entry(files[w])) for w in entry.run.workers]
    key = (name, run, span or "", *(_identity(t) for t in targets))
    with _reports_lock:
        if key in _run_views:
            _run_views.move_to_end(key)
            return _run_views[key]
    value = build(entry, targets)
    with _reports_lock:
        _run_views[key] = value
        while len(_run_views) > RUN_VIEWS_KEPT:
            _run_views.popitem(last=False)
    return value


def summary(target: Target) -> dict[str, Any]:
    """The rank's `rank_summary`: the one stored in its cache entry (a small file, checked
    like the report), else cut from the verified report and added to the entry for the
    next reader (pipeline/summaries.py). A damaged summary is never served."""
    found = entry_summary(target.cache)
    if found is not None:
        return named(found, target.file.worker, target.file.span)
    cut = rank_summary(report(target))
    keep_summary(workspace(), target.cache, cut, wait=False)
    return cut


def run_view(run: str, span: str | None, name: str, build: Any) -> Any:
    """`build(entry, summaries)` once per version of the run's cache entries, then kept.

    A view over every rank (the cluster page) would otherwise read every rank's report on
    each request, and a run of hundreds of ranks has more reports than the per-process
    report cache holds. `build` gets each rank's `rank_summary` as its cache entry stores
    it (`summary`): no full report is decoded, so the first page of 1,000 ranks costs
    about a millisecond a rank, and no process holds every report at once.
    """
    return run_memo(
        run, span, name, lambda entry, targets: build(entry, [summary(t) for t in targets])
    )
