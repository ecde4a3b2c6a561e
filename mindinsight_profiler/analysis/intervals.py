"""Vectorised interval algebra on sets of half-open ranges [start, end) in nanoseconds.

A set is a pair of sorted, disjoint, non-touching int64 arrays. Breakdowns subtract and
intersect sets with hundreds of thousands of ranges, which a per-range Python loop cannot
do at the speed this product promises.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Ranges(NamedTuple):
    """Sorted disjoint half-open ranges."""

    start: np.ndarray
    end: np.ndarray

    def total(self) -> int:
        return int((self.end - self.start).sum())

    def __len__(self) -> int:
        return len(self.start)


EMPTY = Ranges(np.zeros(0, np.int64), np.zeros(0, np.int64))


def union(start: np.ndarray, end: np.ndarray) -> Ranges:
    """Merge arbitrary (possibly overlapping) ranges into a set; empty ranges vanish."""
    keep = end > start
    start, end = start[keep], end[keep]
    if len(start) == 0:
        return EMPTY
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    # A new group starts where a range begins after everything before it has ended.
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    group = np.cumsum(new) - 1
    out_end = np.zeros(group[-1] + 1, dtype=np.int64)
    np.maximum.at(out_end, group, e)
    return Ranges(s[new].astype(np.int64), out_end)


def _inside(r: Ranges, t: np.ndarray) -> np.ndarray:
    """Whether each (sorted) time lies in the set: more ranges started than ended by then."""
    return np.searchsorted(r.start, t, side="right") > np.searchsorted(r.end, t, side="right")


def contains(r: Ranges, t: np.ndarray) -> np.ndarray:
    """Whether each time (in any order) lies in one of the ranges, [start, end)."""
    return _inside(r, np.asarray(t))


def _combine(a: Ranges, b: Ranges, want_b: bool) -> Ranges:
    """Segments of `a` inside `b` (want_b) or outside it, by sweeping all boundaries.

    The four boundary arrays are each sorted already, so a stable sort (timsort) merges
    them in near-linear time; no general sort or unique is needed.
    """
    pts = np.sort(np.concatenate([a.start, a.end, b.start, b.end]), kind="stable")
    keep = np.empty(len(pts), dtype=bool)
    keep[0] = True
    keep[1:] = pts[1:] != pts[:-1]
    pts = pts[keep]
    lo = pts[:-1]
    sel = _inside(a, lo) & (_inside(b, lo) == want_b)
    if not sel.any():
        return EMPTY
    return union(lo[sel], pts[1:][sel])


def intersect(a: Ranges, b: Ranges) -> Ranges:
    """Points in both sets."""
    if len(a) == 0 or len(b) == 0:
        return EMPTY
    return _combine(a, b, want_b=True)


def subtract(a: Ranges, b: Ranges) -> Ranges:
    """Points of `a` not in `b`."""
    if len(a) == 0 or len(b) == 0:
        return a
    return _combine(a, b, want_b=False)


def covered_before(r: Ranges, t: np.ndarray) -> np.ndarray:
    """For each time in `t`: total length of `r` that lies before it."""
    if len(r) == 0:
        return np.zeros(len(t), dtype=np.int64)
    lengths = r.end - r.start
    cum = np.concatenate([[0], np.cumsum(lengths)])
    k = np.searchsorted(r.start, t, side="right")  # ranges starting at or before t
    last = np.clip(k - 1, 0, len(r) - 1)
    partial = np.where(k > 0, np.minimum(t, r.end[last]) - r.start[last], 0)
    return np.asarray(cum[np.maximum(k - 1, 0)] + np.maximum(partial, 0), dtype=np.int64)


def overlap_per_window(r: Ranges, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Length of `r` inside each window [start[i], end[i])."""
    return covered_before(r, end) - covered_before(r, start)


def covered_per_group(
    group: np.ndarray, start: np.ndarray, end: np.ndarray, groups: int
) -> np.ndarray:
    """Length (ns) of the union of each group's ranges, for groups 0..groups-1.

    Overlapping ranges count once: the time a parent spends in its children is not the sum
    of their durations when two of them overlap (malformed or duplicated input), and a sum
    would make the parent's self time negative.
    """
    out = np.zeros(groups, dtype=np.int64)
    if len(group) == 0:
        return out
    order = np.lexsort((start, group))
    g, s = group[order].astype(np.int64), start[order]
    e = np.maximum(end[order], s)
    # Running maximum of the ends within each group: ends as ranks, offset by group, so that
    # one global accumulate never carries a value across groups (and cannot overflow).
    values = np.unique(e)
    width = len(values)
    rank = np.searchsorted(values, e)
    reach = values[np.maximum.accumulate(g * width + rank) - g * width]
    first = np.ones(len(g), dtype=bool)
    first[1:] = g[1:] != g[:-1]
    before = np.empty_like(reach)
    before[0] = s[0]
    before[1:] = reach[:-1]
    before = np.where(first, s, before)
    new = np.maximum(e - np.maximum(s, before), 0)
    np.add.at(out, g, new)
    return out
