"""Level-of-detail index of one worker's timeline, built once and cached with the trace.

A window query must not scan a million events. The index answers it from three sorted
structures, all plain numpy columns so the workspace cache stores them as side tables:

- `timeline_events`: every event sorted by (track, duration class, start), with its nesting
  depth. The duration class is floor(log2(duration)); an event of class c lasts less than
  2**(c+1) ns, so "events at least q ns long in [t0, t1)" is one binary search per
  (track, class) from t0 - 2**(c+1): no scan, no interval tree.
- `timeline_summary`: for each power-of-two bucket width 2**k (a level), per (track, depth)
  row and bucket, the count and busy time of the events shorter than 2**k that start in it.
  Rows are keyed `row << bits | bucket`, sorted, so a window is one search per row.
  Fine levels are built only while they stay much smaller than the events themselves; a
  window finer than the finest level holds few events and is aggregated from them directly.
- `timeline_rows` (track, depth, count) names the rows; `timeline_flows` pairs the flow
  table's start and finish records; `timeline_meta` holds the origin and the levels.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.model.links import nesting_parents
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.store.columns import is_mapped
from mindinsight_profiler.util.spill import T, spill_large

INDEX_VERSION = 1
#: Duration classes per track in the `group` key (2**63 ns is the longest possible event).
CLASSES = 64
#: Flow categories that duplicate the launch links `caller` already holds.
LAUNCH_FLOW_CATS = ("ac2g", "async")
#: Stop adding finer levels once one holds more rows than this fraction of the events.
LEVEL_BUDGET = 0.25

#: The side tables of the index, by name (see the module docstring).
INDEX_TABLES = (
    "timeline_events",
    "timeline_summary",
    "timeline_rows",
    "timeline_flows",
    "timeline_meta",
)

TimelineIndex = dict[str, dict[str, np.ndarray]]


def duration_class(dur: np.ndarray) -> np.ndarray:
    """floor(log2(dur)) per event, 0 for empty events; exact for durations below 2**53 ns."""
    exponent = np.frexp(np.maximum(dur, 1).astype(np.float64))[1]
    return (exponent - 1).astype(np.int32)


def nesting_depth(track: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Depth of each range among all ranges of its track, by pointer doubling (O(n log d)).

    int32 positions and depths (a trace has fewer than 2**31 events; int16 at the end)."""
    jump = nesting_parents(track, start, end).astype(np.int32)
    depth = (jump >= 0).astype(np.int32)
    while True:
        live = np.flatnonzero(jump >= 0)
        if len(live) == 0:
            return depth.astype(np.int16)
        target = jump[live]
        depth[live] += depth[target]
        jump[live] = jump[target]


def bucket_bits(span_ns: int, level: int) -> int:
    """Bits of the bucket part of a summary key at `level` (buckets of the whole span fit)."""
    return max(1, int((span_ns >> level) + 2).bit_length())


def _levels(
    rowid: np.ndarray, rel: np.ndarray, dur: np.ndarray, cls: np.ndarray, event: np.ndarray,
    span: int, k_max: int,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Summary rows for levels k_max down to the finest one within budget.

    The inputs are sorted by (row, start), so within a row every level's bucket is
    non-decreasing: each level is a run detection over the events shorter than 2**k, O(n)
    with no sort.
    """
    n = len(rowid)
    cols: dict[str, list[np.ndarray]] = {
        c: [] for c in ("level", "key", "count", "busy_ns", "first")
    }
    total = 0
    for k in range(k_max, -1, -1):
        small = np.flatnonzero(cls < k)
        r, b = rowid[small], rel[small] >> k
        new = np.ones(len(small), dtype=bool)
        new[1:] = (r[1:] != r[:-1]) | (b[1:] != b[:-1])
        heads = np.flatnonzero(new)
        rows = len(heads)
        if k < k_max and (rows > LEVEL_BUDGET * n or total + rows > n):
            break
        total += rows
        cols["level"].append(np.full(rows, k, dtype=np.int8))
        cols["key"].append((r[heads].astype(np.int64) << bucket_bits(span, k)) | b[heads])
        cols["count"].append(np.diff(np.append(heads, len(small))).astype(np.int32))
        cols["busy_ns"].append(np.add.reduceat(dur[small], heads) if rows else dur[:0])
        cols["first"].append(event[small][heads].astype(np.int32))
    # Sorted by (level, key) is the levels finest first: within a level the keys already
    # rise (rows in order, buckets non-decreasing, one head per run). Each column is joined
    # and its pieces dropped before the next.
    return {c: np.concatenate(cols.pop(c)[::-1]) for c in list(cols)}


def _flow_pairs(trace: Trace) -> dict[str, np.ndarray]:
    """Start -> finish pairs of the flow table (forward -> backward and the like).

    A start pairs with the first finish of its id in its category; launch categories are
    left out because `caller` already links every launch to its device work.
    """
    fl = trace.flows
    launch = trace.strings.codes_where(lambda c: c in LAUNCH_FLOW_CATS)
    keep = ~np.isin(fl["cat"], launch)
    pairs = []
    for cat in np.unique(fl["cat"][keep]).tolist():  # a handful of categories
        mine = keep & (fl["cat"] == cat)
        starts = np.flatnonzero(mine & (fl["phase"] == ord("s")))
        ends = np.flatnonzero(mine & (fl["phase"] == ord("f")))
        if len(starts) and len(ends):
            order = ends[np.argsort(fl["flow_id"][ends], kind="stable")]
            ids = fl["flow_id"][order]
            pos = np.minimum(np.searchsorted(ids, fl["flow_id"][starts]), len(ids) - 1)
            hit = ids[pos] == fl["flow_id"][starts]
            pairs.append((starts[hit], order[pos[hit]]))
    s = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
    e = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
    return {
        "src_ns": fl["ts_ns"][s].astype(np.int64),
        "src_track": fl["track"][s].astype(np.int32),
        "dst_ns": fl["ts_ns"][e].astype(np.int64),
        "dst_track": fl["track"][e].astype(np.int32),
        "cat": fl["cat"][s].astype(np.int32),
    }


def build_timeline_index(trace: Trace) -> TimelineIndex:
    """The index tables of `trace`; `trace.tables.update(...)` makes the cache keep them.

    Memory: the narrowest dtype for each temporary (int32 tracks and row ids, int16 depths,
    int8 classes) and each full-length one freed once used; on 22.7 M events every byte
    per event is 23 MB. On a trace read from files (a large trace's spilled columns, a
    cached trace) each finished table goes to spill files at once (`util.spill`): the
    index is written to the cache next, and the heap holds only the table being built
    (10 GB trace: 1.41 -> 0.9 GB).
    """
    ev = trace.events
    keep = spill_large if is_mapped(ev["start_ns"]) else _as_is
    start = np.asarray(ev["start_ns"], dtype=np.int64)
    end = np.maximum(np.asarray(ev["end_ns"], dtype=np.int64), start)
    track = np.asarray(ev["track"], dtype=np.int32)
    depth = nesting_depth(track, start, end)
    origin = int(start.min()) if len(start) else 0
    span = int(end.max()) - origin + 1 if len(start) else 1
    k_max = max(1, span.bit_length())  # every event is shorter than 2**k_max
    end -= start  # the durations, in place
    dur = end
    del end
    cls = duration_class(dur).astype(np.int8)  # at most 63

    by_class = np.lexsort((start, cls, track))
    group = track[by_class].astype(np.int64) * CLASSES
    group += cls[by_class]
    events: dict[str, np.ndarray] = {
        "event": keep(by_class.astype(np.int32)),
        "start_ns": keep(start[by_class]),
        "group": keep(group.astype(np.int32)),
        "depth": keep(depth[by_class]),
    }
    del by_class, group
    by_row = np.lexsort((start, depth, track))
    row_track, row_depth = track[by_row], depth[by_row]
    del track, depth
    new_row = np.ones(len(by_row), dtype=bool)
    new_row[1:] = (row_track[1:] != row_track[:-1]) | (row_depth[1:] != row_depth[:-1])
    heads = np.flatnonzero(new_row)
    rows: dict[str, np.ndarray] = {
        "track": row_track[heads],
        "depth": row_depth[heads],
        "count": np.diff(np.append(heads, len(by_row))).astype(np.int64),
    }
    del row_track, row_depth, heads
    rowid = np.cumsum(new_row, dtype=np.int32)
    rowid -= 1
    del new_row
    rel = start[by_row]
    rel -= origin
    row_dur = dur[by_row]
    del dur
    row_cls = cls[by_row]
    del cls
    summary = keep(_levels(rowid, rel, row_dur, row_cls, by_row, span, k_max))
    meta = {
        "version": np.array([INDEX_VERSION], dtype=np.int64),
        "origin_ns": np.array([origin], dtype=np.int64),
        "span_ns": np.array([span], dtype=np.int64),
        "k_max": np.array([k_max], dtype=np.int64),
    }
    return {
        "timeline_events": events,
        "timeline_summary": summary,
        "timeline_rows": rows,
        "timeline_flows": _flow_pairs(trace),
        "timeline_meta": meta,
    }


def _as_is(value: T) -> T:
    return value


def has_timeline_index(trace: Trace) -> bool:
    """Whether `trace` carries an index of the current version (e.g. reopened from the cache)."""
    meta = trace.tables.get("timeline_meta")
    return meta is not None and int(meta["version"][0]) == INDEX_VERSION


def timeline_index(trace: Trace) -> TimelineIndex:
    """The trace's stored index when current, else a new one attached to `trace.tables`."""
    if has_timeline_index(trace):
        return {name: trace.tables[name] for name in INDEX_TABLES}
    index = build_timeline_index(trace)
    trace.tables.update(index)
    return index
