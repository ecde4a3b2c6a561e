"""Raw events of a time window as a DataFrame (`Run.timeline`): the notebook's view of the
trace, where the dashboard draws the same window from its level-of-detail index."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

_KIND_NAMES = np.array([k.name.lower() for k in Kind], dtype=object)


def track_label(pid: str, tid: str) -> str:
    return f"{pid}/{tid}"


def _track_codes(trace: Trace, tracks: list[str]) -> np.ndarray:
    """Codes of the tracks named by `"pid/tid"`, thread name or process name."""
    wanted = set(tracks)
    codes = [
        i for i, t in enumerate(trace.tracks)
        if {track_label(t.pid, t.tid), t.thread_name, t.process_name} & wanted
    ]  # fmt: skip
    if not codes:
        known = sorted({track_label(t.pid, t.tid) for t in trace.tracks})
        raise ValueError(f"tracks: none of {sorted(wanted)} is a track; tracks: {known}")
    return np.array(codes, dtype=np.int64)


def events_in(
    trace: Trace,
    start_ns: int | None,
    end_ns: int | None,
    tracks: list[str] | None,
    min_duration_ns: int,
    limit: int,
) -> pd.DataFrame:
    """Events overlapping [start_ns, end_ns) on `tracks`, at least `min_duration_ns` long,
    sorted by start; a window of more than `limit` events is refused (ValueError) rather
    than cut, since a cut window would look complete."""
    if limit < 1 or min_duration_ns < 0:
        raise ValueError("limit must be at least 1 and min_duration_ns at least 0")
    start, end = trace.start_ns, trace.end_ns
    keep = np.ones(len(start), dtype=bool)
    if start_ns is not None:
        keep &= end > start_ns
    if end_ns is not None:
        keep &= start < end_ns
    if min_duration_ns:
        keep &= (end - start) >= min_duration_ns
    if tracks is not None:
        keep &= np.isin(trace.events["track"], _track_codes(trace, tracks))
    rows = np.flatnonzero(keep)
    if len(rows) > limit:
        raise ValueError(
            f"{len(rows):,} events in this window, more than limit={limit:,}: narrow the "
            "window or the tracks, raise min_duration_ns, or raise the limit"
        )
    rows = rows[np.argsort(start[rows], kind="stable")]
    ev = trace.events
    # one more entry, "", for events of no track (code -1)
    labels = np.array([*(track_label(t.pid, t.tid) for t in trace.tracks), ""], dtype=object)
    thread = np.array([*(t.thread_name or t.process_name for t in trace.tracks), ""], dtype=object)
    names = np.array(trace.strings.lookup(ev["name"][rows]), dtype=object)
    cats = np.array(trace.strings.lookup(ev["cat"][rows]), dtype=object)
    track = ev["track"][rows]
    return pd.DataFrame(
        {
            "start_ns": start[rows].astype(np.int64),
            "end_ns": end[rows].astype(np.int64),
            "duration_us": (end[rows] - start[rows]) / 1000.0,
            "name": names,
            "category": cats,
            "kind": _KIND_NAMES[ev["kind"][rows]],
            "track": labels[track],
            "thread": thread[track],
        }
    )
