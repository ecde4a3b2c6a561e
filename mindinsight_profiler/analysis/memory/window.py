"""Memory in a time window [t0, t1): the curve at a resolution for it, its peaks and summary,
the allocations made (or alive) in it, and per-operator statistics.

Inputs are a device's `Ledger` (analysis/memory/ledger.py) and absolute ns; answers give
times relative to `origin` (the timeline's zero: epoch ns do not survive a browser's
doubles). The value of the curve at t0 is the last sample at or before t0, so a window that
opens on a plateau still has its level and its peak.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.memory.ledger import Ledger
from mindinsight_profiler.analysis.memory.records import operator_stats
from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.model.strings import StringTable

#: Sortable columns of the events table (numbers; `operator` sorts by name).
EVENT_SORTS = ("bytes", "alloc_ns", "release_ns", "duration_ns", "operator")
EVENT_MODES = ("allocated", "live")
OPERATOR_SORTS = ("allocated_bytes", "allocations", "frees", "freed_bytes", "increase_bytes",
                  "largest_bytes", "peak_held_bytes")  # fmt: skip


def _bucket_argmax(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Index of the last maximum of each bucket [starts[i], starts[i + 1]); linear time."""
    top = np.maximum.reduceat(values, starts)
    sizes = np.diff(np.append(starts, len(values)))
    hits = np.flatnonzero(values == np.repeat(top, sizes))
    bucket = np.repeat(np.arange(len(starts)), sizes)[hits]
    return hits[np.concatenate([bucket[1:] != bucket[:-1], [True]])]


def extremes(allocated: np.ndarray, reserved: np.ndarray, max_points: int) -> np.ndarray:
    """Sorted indices to draw: per bucket of consecutive samples, the lowest and highest
    allocated and highest reserved (analysis/memory.keep_extremes' choice, in linear time:
    each zoom asks again, and a wide window of a long trace holds millions of samples)."""
    n = len(allocated)
    if n <= max_points:
        return np.arange(n)
    buckets = max(max_points // 3, 1)
    starts = np.unique(-(-np.arange(buckets) * n // buckets))  # first i with i * B // n == b
    keep = [_bucket_argmax(v, starts) for v in (allocated, -allocated, reserved)]
    return np.unique(np.concatenate(keep))


def full_range(ledger: Ledger) -> tuple[int, int]:
    """[first, last] + 1 ns of the device's samples and changes (absolute)."""
    times = [a[[0, -1]] for a in (ledger.ts_ns, ledger.change_ns) if len(a)]
    if not times:
        return 0, 1
    both = np.concatenate(times)
    return int(both.min()), int(both.max()) + 1


def _name(strings: StringTable, code: int) -> str | None:
    return strings[code] if code >= 0 else None


def _level_rows(ts: np.ndarray, t0: int, t1: int) -> tuple[int, int]:
    """Rows [lo, hi) of the values the curve takes in [t0, t1): the samples in it, and the
    last one before t0 (the level in force when the window opens)."""
    lo = int(np.searchsorted(ts, t0, side="left"))
    return max(lo - 1, 0), int(np.searchsorted(ts, t1, side="left"))


def _peak(ledger: Ledger, values: np.ndarray, lo: int, hi: int, t0: int, origin: int,
          strings: StringTable) -> dict[str, Any] | None:  # fmt: skip
    if hi <= lo:
        return None
    seg = values[lo:hi]
    at = int(np.argmax(seg))  # the first time the maximum is reached
    if seg[at] < 0:
        return None
    row = lo + at
    return {"bytes": int(seg[at]), "ts_ns": max(int(ledger.ts_ns[row]), t0) - origin,
            "operator": _name(strings, int(ledger.curve_op[row]))}  # fmt: skip


def curve_window(
    ledger: Ledger, t0: int, t1: int, max_points: int, origin: int, strings: StringTable
) -> dict[str, Any]:
    """The curve in [t0, t1) cut to `max_points` (extremes kept), with the sample before and
    after the window so a line reaches its edges, and the window's exact peaks."""
    ts = ledger.ts_ns
    lo, hi = _level_rows(ts, t0, t1)
    end = min(hi + 1, len(ts))
    kept = extremes(ledger.allocated[lo:end], ledger.reserved[lo:end], max(max_points - 2, 3))
    idx = lo + np.union1d(kept, [0, end - lo - 1]) if end > lo else np.arange(0)  # edges kept
    return {
        "samples": hi - int(np.searchsorted(ts, t0, side="left")),
        "ts_ns": (ts[idx] - origin).tolist(),
        "allocated_bytes": [v if v >= 0 else None for v in ledger.allocated[idx].tolist()],
        "reserved_bytes": [v if v >= 0 else None for v in ledger.reserved[idx].tolist()],
        "peak_allocated": _peak(ledger, ledger.allocated, lo, hi, t0, origin, strings),
        "peak_reserved": _peak(ledger, ledger.reserved, lo, hi, t0, origin, strings),
    }


def _level_before(ledger: Ledger, values: np.ndarray, t: int) -> int | None:
    """The total in force just before `t` (last sample before it), None when unknown."""
    i = int(np.searchsorted(ledger.ts_ns, t, side="left")) - 1
    return int(values[i]) if i >= 0 and values[i] >= 0 else None


def window_summary(ledger: Ledger, t0: int, t1: int) -> dict[str, Any]:
    """Allocations and frees in [t0, t1), the allocated total at both edges, and how many of
    the window's allocations are still held at its end (None when releases are unknown)."""
    c0, c1 = np.searchsorted(ledger.change_ns, [t0, t1])
    b = ledger.change_bytes[c0:c1]
    a0, a1 = np.searchsorted(ledger.alloc_ns, [t0, t1])
    rel = ledger.release_ns[a0:a1]
    held = (rel < 0) | (rel >= t1)
    known = ledger.pairing != "none"
    return {
        "allocations": int((b > 0).sum()),
        "allocated_bytes": int(b[b > 0].sum()),
        "frees": int((b < 0).sum()),
        "freed_bytes": int(-b[b < 0].sum()),
        "start_allocated_bytes": _level_before(ledger, ledger.allocated, t0),
        "end_allocated_bytes": _level_before(ledger, ledger.allocated, t1),
        "held_at_end": int(held.sum()) if known else None,
        "held_at_end_bytes": int(ledger.alloc_bytes[a0:a1][held].sum()) if known else None,
    }


def window_allocations(ledger: Ledger, t0: int, t1: int, mode: str = "allocated") -> np.ndarray:
    """Allocation rows made in [t0, t1) (`allocated`), or alive at some time in it (`live`:
    made before t1 and released after t0 or never; an unknown release counts only in the
    window where the allocation was made)."""
    a1 = int(np.searchsorted(ledger.alloc_ns, t1))
    if mode == "allocated":
        return np.arange(int(np.searchsorted(ledger.alloc_ns, t0)), a1)
    if mode != "live":
        raise ValueError(f"mode must be one of {', '.join(EVENT_MODES)}")
    rel = ledger.release_ns[:a1]
    alive = rel > t0
    if ledger.pairing != "none":
        alive |= rel < 0
    alive |= ledger.alloc_ns[:a1] >= t0
    return np.flatnonzero(alive)


def _operator_rank(codes: np.ndarray, strings: StringTable) -> np.ndarray:
    """Sort keys of operator codes by name (no operator last)."""
    uniq, inv = np.unique(codes, return_inverse=True)
    names = [strings[c] if c >= 0 else "\uffff" for c in uniq.tolist()]
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inv]


def _matching(codes: np.ndarray, strings: StringTable, search: str) -> np.ndarray:
    matches = name_matcher(search) or (lambda _: True)
    uniq = np.unique(codes)
    hits = [c for c in uniq.tolist() if c >= 0 and matches(strings[c])]
    return np.isin(codes, np.array(hits, dtype=codes.dtype))


def events_page(
    ledger: Ledger, rows: np.ndarray, strings: StringTable, origin: int, *,
    sort: str = "bytes", desc: bool = True, search: str | None = None,
    offset: int = 0, limit: int = 50,
) -> dict[str, Any]:  # fmt: skip
    """One page of allocations (operator search, sort with unknown values last), and the
    count and bytes of all matching rows."""
    if sort not in EVENT_SORTS:
        raise ValueError(f"sort must be one of {', '.join(EVENT_SORTS)}")
    ops = ledger.alloc_op[rows]
    if search:
        keep = _matching(ops, strings, search)
        rows, ops = rows[keep], ops[keep]
    alloc, release = ledger.alloc_ns[rows], ledger.release_ns[rows]
    duration = np.where(release >= 0, release - alloc, -1)
    key = {"bytes": ledger.alloc_bytes[rows], "alloc_ns": alloc, "release_ns": release,
           "duration_ns": duration}.get(sort)  # fmt: skip
    if key is None:
        key, unknown = _operator_rank(ops, strings), ops < 0
    else:
        unknown = key < 0 if sort in ("release_ns", "duration_ns") else np.zeros(len(rows), bool)
    signed = -key if desc else key
    order = np.lexsort((alloc, signed, unknown))  # unknown last, then the key, then time
    page = rows[order[offset : offset + limit]]
    state = np.where(ledger.release_ns[page] >= 0, "freed",
                     "live" if ledger.pairing != "none" else "unknown")  # fmt: skip
    out = []
    for i, row in enumerate(page.tolist()):
        rel = int(ledger.release_ns[row])
        addr = int(ledger.addr[row])
        out.append({
            "operator": _name(strings, int(ledger.alloc_op[row])),
            "bytes": int(ledger.alloc_bytes[row]),
            "alloc_ns": int(ledger.alloc_ns[row]) - origin,
            "release_ns": rel - origin if rel >= 0 else None,
            "duration_ns": rel - int(ledger.alloc_ns[row]) if rel >= 0 else None,
            "state": str(state[i]),
            "addr": hex(addr) if addr >= 0 else None,
        })  # fmt: skip
    return {"total": len(rows), "total_bytes": int(ledger.alloc_bytes[rows].sum()),
            "rows": out}  # fmt: skip


def _peak_held(ledger: Ledger, t0: int, t1: int, groups: np.ndarray) -> np.ndarray:
    """Per operator (index into `groups`), the most bytes of its allocations held at once
    within [t0, t1): intervals [allocation, release) clipped to the window."""
    a1 = int(np.searchsorted(ledger.alloc_ns, t1))
    rel = np.where(ledger.release_ns[:a1] >= 0, ledger.release_ns[:a1], t1)
    start = np.maximum(ledger.alloc_ns[:a1], t0)
    end = np.minimum(rel, t1)
    # operator code -> its row in `groups` (-1: no row), by table lookup (codes are small ints)
    lut = np.full(int(max(groups.max(initial=-1), ledger.alloc_op[:a1].max(initial=-1))) + 2, -1)
    lut[groups + 1] = np.arange(len(groups))
    row = lut[ledger.alloc_op[:a1] + 1]
    keep = (start < end) & (row >= 0)
    op = row[keep]
    b = ledger.alloc_bytes[:a1][keep]
    times = np.concatenate([start[keep], end[keep]])
    delta = np.concatenate([b, -b])
    who = np.concatenate([op, op])
    # by operator, then time; at a tie, releases before allocations: one int64 key sorts
    # several times faster than lexsort when it fits (equal keys are interchangeable)
    span = 2 * (t1 - t0 + 1)
    if len(groups) * span < 2**62:
        order = np.argsort(who * span + (times - t0) * 2 + (delta > 0))
    else:
        order = np.lexsort((delta > 0, times, who))
    who, run = who[order], np.cumsum(delta[order])
    out = np.zeros(len(groups), dtype=np.int64)
    if len(who) == 0:
        return out
    first = np.flatnonzero(np.diff(who, prepend=-1))
    base = np.concatenate([[0], run[first[1:] - 1]])  # running total before each group
    level = run - np.repeat(base, np.diff(np.append(first, len(who))))
    out[who[first]] = np.maximum.reduceat(level, first)
    return out


def operators_window(
    ledger: Ledger, t0: int, t1: int, strings: StringTable
) -> list[dict[str, Any]]:
    """Per operator in [t0, t1): allocations, frees and net increase (operator_stats), the
    largest single allocation, and the most bytes its allocations held at once (None when
    releases are unknown)."""
    c0, c1 = np.searchsorted(ledger.change_ns, [t0, t1])
    ops, nbytes = ledger.change_op[c0:c1], ledger.change_bytes[c0:c1]
    rows = operator_stats(ops, nbytes, strings)
    groups = np.unique(ops)
    labels = [strings[int(c)] if c >= 0 else "(no operator)" for c in groups.tolist()]
    by_label = dict(zip(labels, range(len(groups)), strict=True))
    pos = nbytes > 0
    largest = np.zeros(len(groups), dtype=np.int64)
    np.maximum.at(largest, np.searchsorted(groups, ops[pos]), nbytes[pos])
    held = _peak_held(ledger, t0, t1, groups) if ledger.pairing != "none" else None
    for r in rows:
        i = by_label[r["name"]]
        r["largest_bytes"] = int(largest[i])
        r["peak_held_bytes"] = int(held[i]) if held is not None else None
    return rows
