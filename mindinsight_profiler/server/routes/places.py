"""Where each evidence item of the served advice lands on the dashboard.

The advice is the advisor's document (`mindinsight advise --format json`); the advice route
adds to its evidence what only the served trace and the run's other workers know: for a
time range its window from the timeline's origin, the timeline event that is the range and
the tracks that hold its work (`analysis/timeline/locate.py`), for a rank the worker that
holds it. All optional fields of `server/answers/advice.py:ServedEvidence`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindinsight_profiler.analysis.timeline.locate import EvidenceLocator
from mindinsight_profiler.server import access
from mindinsight_profiler.server.errors import ApiError


def add_places(findings: list[dict[str, Any]], target: access.Target) -> None:
    """Give each time-range evidence where it lands on the timeline: `window_ns` (relative to
    the timeline's origin), the `event` that is the range and the `tracks` that hold its work.

    Evidence keeps absolute trace ns (as the CLI prints it); epoch nanoseconds do not survive
    a browser's doubles, and the timeline API takes times from the trace's origin. The
    locator is built once per trace and kept with it.
    """
    ranges = [ev for f in findings for ev in f["evidence"] if "start_ns" in ev and "end_ns" in ev]
    if not ranges:
        return
    zero = access.origin_ns(target)
    memo = access.derived(target, "evidence_locator")
    if "locator" not in memo:
        memo["locator"] = EvidenceLocator(access.trace(target))
    locator: EvidenceLocator = memo["locator"]
    for ev in ranges:
        ev["window_ns"] = [ev["start_ns"] - zero, ev["end_ns"] - zero]
        place = locator.place(ev["start_ns"], ev["end_ns"], ev.get("name"))
        if place.event is not None:
            ev["event"] = place.event
        if place.tracks:
            ev["tracks"] = place.tracks


def add_workers(findings: list[dict[str, Any]], cluster: Callable[[], dict[str, Any]]) -> None:
    """Give each evidence that names a rank the `worker` holding that rank (the `cluster`
    view's, asked for only when a rank is named), so a link opens that worker's
    communication or timeline; none when the view is not ready or lacks the rank."""
    ranked = [ev for f in findings for ev in f["evidence"] if ev.get("rank") is not None]
    if not ranked:
        return
    try:
        view = cluster()
    except ApiError:  # a rank's report not ready: the evidence still names the rank
        return
    workers = {r["rank"]: r["worker"] for r in view["stages"] if r.get("worker")}
    for ev in ranked:
        if ev["rank"] in workers:
            ev["worker"] = workers[ev["rank"]]
