"""Timeline windows: at most a few thousand drawable items for any zoom, and name search.

`timeline_window` answers "tracks T in [t0, t1) at W pixels" from the level-of-detail index:
the pixel is rounded up to a power of two q (the bucket, 1 to 2 pixels); events lasting at
least q are returned as themselves, shorter ones are merged per (track, depth) into busy
blocks of whole buckets, with their count and busy time (a block of one event is returned
as that event). If that is still more than `max_items`, q doubles until it fits. Every time
in a response is in ns relative to `origin_ns` (the trace's first start), because absolute
epoch nanoseconds lose precision in a browser's doubles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.memory.ledger import Ledger
from mindinsight_profiler.analysis.timeline.counters import window_counters
from mindinsight_profiler.analysis.timeline.index import CLASSES, TimelineIndex, bucket_bits
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

RESPONSE_VERSION = 1
KIND_NAMES = [k.name.lower() for k in Kind]
_EMPTY = np.zeros(0, dtype=np.int64)


def _spans(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """All positions of the half-open ranges [lo[i], hi[i]), concatenated, without a loop."""
    lens = np.maximum(hi - lo, 0)
    total = int(lens.sum())
    if total == 0:
        return _EMPTY
    first = np.cumsum(lens) - lens
    return np.repeat(lo - first, lens) + np.arange(total)


def _by_class(
    index: TimelineIndex, tracks: np.ndarray, classes: range, t0: int, t1: int, lookback: bool
) -> np.ndarray:
    """Positions in `timeline_events` of the events of `classes` on `tracks` near [t0, t1).

    With `lookback`, an event of class c may start up to 2**(c+1) ns before t0 (its longest
    possible duration); without, it must start at or after t0.
    """
    ev = index["timeline_events"]
    if len(classes) == 0 or len(tracks) == 0:
        return _EMPTY
    cls = np.arange(classes.start, classes.stop, dtype=np.int64)
    groups = (tracks[:, None] * CLASSES + cls[None, :]).ravel()
    g_lo = np.searchsorted(ev["group"], groups, side="left")
    g_hi = np.searchsorted(ev["group"], groups, side="right")
    lows, highs = [], []
    for g in np.flatnonzero(g_hi > g_lo).tolist():  # one binary search per (track, class)
        lo, hi = int(g_lo[g]), int(g_hi[g])
        starts = ev["start_ns"][lo:hi]
        c = int(groups[g] % CLASSES)
        after = t0 - (1 << min(c + 1, 62)) if lookback else t0 - 1
        lows.append(lo + int(np.searchsorted(starts, after, side="right")))
        highs.append(lo + int(np.searchsorted(starts, t1, side="left")))
    return _spans(np.array(lows, dtype=np.int64), np.array(highs, dtype=np.int64))


def _reduce_cells(row: np.ndarray, bucket: np.ndarray, count: np.ndarray, busy: np.ndarray,
                  first: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Sum cells with equal (row, bucket); the input is sorted by (row, bucket)."""
    if len(row) == 0:
        return row, bucket, count, busy, first
    new = np.ones(len(row), dtype=bool)
    new[1:] = (row[1:] != row[:-1]) | (bucket[1:] != bucket[:-1])
    h = np.flatnonzero(new)
    return row[h], bucket[h], np.add.reduceat(count, h), np.add.reduceat(busy, h), first[h]


def _small_cells(
    trace: Trace, index: TimelineIndex, tracks: np.ndarray, k: int, t0: int, t1: int
) -> tuple[np.ndarray, ...]:
    """(row, bucket, count, busy_ns, first event) of events shorter than 2**k per bucket."""
    meta = index["timeline_meta"]
    origin, span, k_max = (int(meta[c][0]) for c in ("origin_ns", "span_ns", "k_max"))
    b_lo = max(t0 - origin, 0) >> k
    b_hi = max(t1 - 1 - origin, 0) >> k
    rows = index["timeline_rows"]
    summary = index["timeline_summary"]
    levels = summary["level"]
    level = min(k, k_max)
    if len(levels) and int(levels[0]) <= level:  # the summary holds this level
        ls, le = np.searchsorted(levels, [level, level + 1])
        keys = summary["key"][ls:le]
        shift = k - level
        row_ids = np.flatnonzero(np.isin(rows["track"], tracks)).astype(np.int64)
        bits = bucket_bits(span, level)
        top = (1 << bits) - 1  # clamp, or a range would run into the next row's keys
        lo_b, hi_b = min(b_lo << shift, top), min(((b_hi + 1) << shift) - 1, top)
        lo = np.searchsorted(keys, (row_ids << bits) | lo_b, side="left")
        hi = np.searchsorted(keys, (row_ids << bits) | hi_b, side="right")
        pos = ls + _spans(lo, hi)
        key = summary["key"][pos]
        cells = (key >> bits, (key & ((1 << bits) - 1)) >> shift, summary["count"][pos],
                 summary["busy_ns"][pos], summary["first"][pos])  # fmt: skip
        return _reduce_cells(*cells) if shift else cells
    # Finer than the finest level: the window holds few events; aggregate them directly.
    edges = (origin + (b_lo << k), origin + ((b_hi + 1) << k))  # whole buckets, as above
    pos = _by_class(index, tracks, range(0, k), *edges, lookback=False)
    event = index["timeline_events"]["event"][pos]
    start = index["timeline_events"]["start_ns"][pos]
    depth = index["timeline_events"]["depth"][pos].astype(np.int64)
    row_key = rows["track"].astype(np.int64) * 65536 + rows["depth"]
    row = np.searchsorted(row_key, trace.events["track"][event].astype(np.int64) * 65536 + depth)
    bucket = (start - origin) >> k
    order = np.lexsort((start, bucket, row))
    dur = trace.events["end_ns"][event] - start
    cells = (row[order], bucket[order], np.ones(len(order), dtype=np.int64),
             np.maximum(dur[order], 0), event[order])  # fmt: skip
    return _reduce_cells(*cells)


def _blocks(cells: tuple[np.ndarray, ...], k: int, origin: int) -> dict[str, np.ndarray]:
    """Merge runs of adjacent non-empty buckets of one row into busy blocks."""
    row, bucket, count, busy, first = cells
    if len(row) == 0:
        return {"row": row, "start": row, "end": row, "count": row, "busy": row, "first": row}
    new = np.ones(len(row), dtype=bool)
    new[1:] = (row[1:] != row[:-1]) | (bucket[1:] != bucket[:-1] + 1)
    h = np.flatnonzero(new)
    last = np.append(h[1:], len(row)) - 1
    return {
        "row": row[h],
        "start": origin + (bucket[h] << k),
        "end": origin + ((bucket[last] + 1) << k),
        "count": np.add.reduceat(count, h).astype(np.int64),
        "busy": np.add.reduceat(busy, h).astype(np.int64),
        "first": first[h].astype(np.int64),
    }


def _long_events(
    trace: Trace, index: TimelineIndex, tracks: np.ndarray, k: int, t0: int, t1: int
) -> tuple[np.ndarray, np.ndarray]:
    """(event, depth) of events at least 2**k ns long overlapping [t0, t1), by track, start."""
    pos = _by_class(index, tracks, range(k, CLASSES), t0, t1, lookback=True)
    event = index["timeline_events"]["event"][pos].astype(np.int64)
    keep = trace.events["end_ns"][event] > t0
    event, pos = event[keep], pos[keep]
    order = np.lexsort((trace.events["start_ns"][event], trace.events["track"][event]))
    return event[order], index["timeline_events"]["depth"][pos[order]].astype(np.int64)


def _flows(trace: Trace, index: TimelineIndex, drawn: np.ndarray, tracks: np.ndarray,
           t0: int, t1: int) -> dict[str, np.ndarray]:  # fmt: skip
    """Launch -> device-work links of drawn events, then flow-table pairs touching the window."""
    ev = trace.events
    dev = drawn[is_kind(ev["kind"][drawn], DEVICE_KINDS) & (ev["caller"][drawn] >= 0)]
    src = ev["caller"][dev].astype(np.int64)
    keep = np.isin(ev["track"][src], tracks)
    dev, src = dev[keep], src[keep]
    fl = index["timeline_flows"]
    touch = ((fl["src_ns"] >= t0) & (fl["src_ns"] < t1)) | (
        (fl["dst_ns"] >= t0) & (fl["dst_ns"] < t1)
    )
    touch &= np.isin(fl["src_track"], tracks) & np.isin(fl["dst_track"], tracks)
    return {
        "src_track": np.concatenate([ev["track"][src], fl["src_track"][touch]]),
        "src_ns": np.concatenate([ev["start_ns"][src], fl["src_ns"][touch]]),
        "dst_track": np.concatenate([ev["track"][dev], fl["dst_track"][touch]]),
        "dst_ns": np.concatenate([ev["start_ns"][dev], fl["dst_ns"][touch]]),
        "cat": np.concatenate([np.full(len(dev), -1, np.int64), fl["cat"][touch]]),
    }


def _track_info(trace: Trace, index: TimelineIndex, tracks: np.ndarray) -> list[dict[str, Any]]:
    rows = index["timeline_rows"]
    depth = np.zeros(len(trace.tracks), dtype=np.int64)
    np.maximum.at(depth, rows["track"], rows["depth"].astype(np.int64) + 1)
    count = np.bincount(rows["track"], weights=rows["count"], minlength=len(trace.tracks))
    out = []
    for t in tracks.tolist():
        tr = trace.tracks[t]
        out.append({"id": t, "pid": tr.pid, "tid": tr.tid, "process_name": tr.process_name,
                    "thread_name": tr.thread_name, "is_device": tr.is_device,
                    "depth": int(depth[t]), "events": int(count[t])})  # fmt: skip
    return out


def _event_columns(trace: Trace, events: np.ndarray, depth: np.ndarray | None, origin: int,
                   names: dict[int, int]) -> dict[str, list[Any]]:  # fmt: skip
    """Columns of drawn events; `name` indexes the response's own short `names` list."""
    ev = trace.events
    codes = ev["name"][events].astype(np.int64)
    uniq, inverse = np.unique(codes, return_inverse=True)
    local = np.array([names.setdefault(c, len(names)) for c in uniq.tolist()], dtype=np.int64)
    start = ev["start_ns"][events].astype(np.int64)
    out = {
        "index": events.tolist(),
        "track": ev["track"][events].tolist(),
        "start_ns": (start - origin).tolist(),
        "dur_ns": (ev["end_ns"][events] - start).tolist(),
        "name": local[inverse].tolist() if len(events) else [],
        "kind": ev["kind"][events].tolist(),
    }
    if depth is not None:
        out["depth"] = depth.tolist()
    return out


def timeline_window(
    trace: Trace,
    index: TimelineIndex,
    tracks: list[int] | None,
    t0_ns: int,
    t1_ns: int,
    width_px: int,
    max_items: int = 5000,
    ledgers: Sequence[Ledger] = (),
) -> dict[str, Any]:
    """Drawable items of `tracks` (all when None) in [t0_ns, t1_ns) at `width_px` pixels,
    and the counters of their groups (counters.py; memory from `ledgers`) at its buckets."""
    if t1_ns <= t0_ns or width_px <= 0:
        raise ValueError("need t0_ns < t1_ns and a positive width_px")
    sel = np.arange(len(trace.tracks)) if tracks is None else np.unique(np.asarray(tracks))
    sel = sel[(sel >= 0) & (sel < len(trace.tracks))].astype(np.int64)
    origin = int(index["timeline_meta"]["origin_ns"][0])
    k_max = int(index["timeline_meta"]["k_max"][0])
    k = min(max(0, int(-(-(t1_ns - t0_ns) // width_px) - 1).bit_length()), 62)  # 2**k >= 1 px
    rows = index["timeline_rows"]
    while True:
        long_ev, long_depth = _long_events(trace, index, sel, k, t0_ns, t1_ns)
        blocks = _blocks(_small_cells(trace, index, sel, k, t0_ns, t1_ns), k, origin)
        if len(long_ev) + len(blocks["row"]) <= max_items or k > k_max:
            break
        k += 1
    lone = blocks["count"] == 1
    merged = {c: v[~lone] for c, v in blocks.items()}
    lone_ev = blocks["first"][lone]
    drawn = np.concatenate([long_ev, lone_ev])
    depth = np.concatenate([long_depth, rows["depth"][blocks["row"][lone]]]).astype(np.int64)
    truncated = len(drawn) + len(merged["row"]) > max_items
    names: dict[int, int] = {}
    flows = _flows(trace, index, drawn, sel, t0_ns, t1_ns)
    flow_cats = flows["cat"]
    n_flows = min(len(flow_cats), max_items)
    truncated |= n_flows < len(flow_cats)
    cats, cat_inverse = np.unique(flow_cats[:n_flows], return_inverse=True)
    cat_local = np.array([names.setdefault(c, len(names)) if c >= 0 else -1 for c in cats.tolist()])
    result: dict[str, Any] = {
        "version": RESPONSE_VERSION,
        "origin_ns": origin,
        "t0_ns": t0_ns - origin,
        "t1_ns": t1_ns - origin,
        "width_px": width_px,
        "bucket_ns": 1 << k,
        "truncated": bool(truncated),
        "tracks": _track_info(trace, index, sel),
        "kinds": KIND_NAMES,
        "events": _event_columns(trace, drawn, depth, origin, names),
        "blocks": {
            "track": rows["track"][merged["row"]].tolist(),
            "depth": rows["depth"][merged["row"]].tolist(),
            "start_ns": (merged["start"] - origin).tolist(),
            "dur_ns": (merged["end"] - merged["start"]).tolist(),
            "count": merged["count"].tolist(),
            "busy_ns": merged["busy"].tolist(),
        },
        "flows": {
            "src_track": flows["src_track"][:n_flows].tolist(),
            "src_ns": (flows["src_ns"][:n_flows] - origin).tolist(),
            "dst_track": flows["dst_track"][:n_flows].tolist(),
            "dst_ns": (flows["dst_ns"][:n_flows] - origin).tolist(),
            "cat": cat_local[cat_inverse].tolist() if n_flows else [],  # -1: a launch
        },
        "counters": window_counters(trace, index, ledgers, sel, t0_ns, t1_ns, k),
    }
    result["names"] = trace.strings.lookup(np.array(list(names), dtype=np.int64))
    return result


def search_events(trace: Trace, text: str, limit: int = 100) -> dict[str, Any]:
    """The first `limit` events (by start) whose name contains `text`, case-insensitively.

    Matching runs once over the string table (thousands of names), then one `isin` over the
    name codes of all events, so a million-event trace is searched in milliseconds.
    """
    table = np.array(trace.strings.to_list(), dtype=np.dtypes.StringDType())
    codes = np.flatnonzero(np.strings.find(np.strings.lower(table), text.lower()) >= 0)
    start = trace.events["start_ns"]
    hits = np.flatnonzero(np.isin(trace.events["name"], codes)) if len(codes) else _EMPTY
    first = hits[np.argsort(start[hits], kind="stable")[: max(limit, 0)]]
    origin = int(start.min()) if len(start) else 0
    names: dict[int, int] = {}
    events = _event_columns(trace, first.astype(np.int64), None, origin, names)
    return {
        "version": RESPONSE_VERSION,
        "origin_ns": origin,
        "total": len(hits),
        "kinds": KIND_NAMES,
        "events": events,
        "names": trace.strings.lookup(np.array(list(names), dtype=np.int64)),
    }
