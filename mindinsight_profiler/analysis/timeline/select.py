"""Raw events of a time window, for programs (the Python API's `Run.timeline`, the MCP
server's `timeline_window` and `find_events`), where the dashboard draws the same window
from its level-of-detail index: the rows themselves, by start, or a clear refusal."""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.errors import BadArgument
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

KIND_NAMES = np.array([k.name.lower() for k in Kind], dtype=object)


class WindowTooLarge(ValueError):
    """More events match than the caller's limit: a cut window would look complete."""


def track_label(pid: str, tid: str) -> str:
    return f"{pid}/{tid}"


def track_codes(trace: Trace, tracks: list[str]) -> np.ndarray:
    """Codes of the tracks named by `"pid/tid"`, thread name or process name."""
    wanted = set(tracks)
    codes = [
        i for i, t in enumerate(trace.tracks)
        if {track_label(t.pid, t.tid), t.thread_name, t.process_name} & wanted
    ]  # fmt: skip
    if not codes:
        known = sorted({track_label(t.pid, t.tid) for t in trace.tracks})
        raise BadArgument("tracks", f"none of {sorted(wanted)} is a track; tracks: {known}")
    return np.array(codes, dtype=np.int64)


def window_rows(
    trace: Trace,
    start_ns: int | None = None,
    end_ns: int | None = None,
    tracks: list[str] | None = None,
    min_duration_ns: int = 0,
    name: str | None = None,
    limit: int | None = 100_000,
) -> np.ndarray:
    """Rows of the events overlapping [start_ns, end_ns) on `tracks`, at least
    `min_duration_ns` long, whose name matches `name` (a part in any case, or a "quoted"
    exact name), sorted by start. More than `limit` (None: no limit) raises
    `WindowTooLarge`; a bad argument `BadArgument` naming it."""
    if limit is not None and limit < 1:
        raise BadArgument("limit", "must be at least 1")
    if min_duration_ns < 0:
        raise BadArgument("min_duration_ns", "must be at least 0")
    start, end = trace.start_ns, trace.end_ns
    keep = np.ones(len(start), dtype=bool)
    if start_ns is not None:
        keep &= end > start_ns
    if end_ns is not None:
        keep &= start < end_ns
    if min_duration_ns:
        keep &= (end - start) >= min_duration_ns
    if tracks is not None:
        keep &= np.isin(trace.events["track"], track_codes(trace, tracks))
    matches = name_matcher(name)
    if matches is not None:
        keep &= trace.names_matching(matches)
    rows = np.flatnonzero(keep)
    if limit is not None and len(rows) > limit:
        raise WindowTooLarge(
            f"{len(rows):,} events match, more than limit={limit:,}: narrow the window, the "
            "tracks or the name, or raise min_duration_ns or the limit"
        )
    return rows[np.argsort(start[rows], kind="stable")]


def row_columns(trace: Trace, rows: np.ndarray) -> dict[str, Any]:
    """The rows' columns: times (ns), duration (us), name, category, kind, track, thread."""
    ev = trace.events
    # one more entry, "", for events of no track (code -1)
    labels = np.array([*(track_label(t.pid, t.tid) for t in trace.tracks), ""], dtype=object)
    thread = np.array([*(t.thread_name or t.process_name for t in trace.tracks), ""], dtype=object)
    track = ev["track"][rows]
    start, end = trace.start_ns[rows], trace.end_ns[rows]
    return {
        "start_ns": start.astype(np.int64),
        "end_ns": end.astype(np.int64),
        "duration_us": (end - start) / 1000.0,
        "name": np.array(trace.strings.lookup(ev["name"][rows]), dtype=object),
        "category": np.array(trace.strings.lookup(ev["cat"][rows]), dtype=object),
        "kind": KIND_NAMES[ev["kind"][rows]],
        "track": labels[track],
        "thread": thread[track],
    }
