"""Vectorised interval algebra on sets of half-open ranges [start, end) in nanoseconds.

A set is a pair of sorted, disjoint, non-touching int64 arrays. Breakdowns subtract and
intersect sets with hundreds of thousands of ranges, which a per-range Python loop cannot
do at the speed this product promises.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from mindinsight_profiler.util.heap import release_free_memory


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
    return _handed_back(_union(start, end), len(start))


def _union(start: np.ndarray, end: np.ndarray) -> Ranges:
    keep = end > start
    if not keep.all():
        start, end = start[keep], end[keep]
    del keep
    if len(start) == 0:
        return EMPTY
    if not (start[1:] >= start[:-1]).all():  # most callers pass sorted starts: no sort then
        order = np.argsort(start, kind="stable")
        start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    # A new group starts where a range begins after everything before it has ended; the
    # group ends where the running maximum of the ends stands at its last range.
    new = np.empty(len(start), dtype=bool)
    new[0] = True
    np.greater(start[1:], reach[:-1], out=new[1:])
    return _groups(start, reach, new)


def union_where(start: np.ndarray, end: np.ndarray, mask: np.ndarray) -> Ranges:
    """`union(start[mask], end[mask])`, a block of `BLOCK_ROWS` rows at a time.

    A union of unions is the union, and each block's union is usually far smaller than its
    rows (nested operators merge into their outermost), so the working set is one block and
    the partial unions, not the selected rows' copies, sort order and running maxima: on a
    trace of 13 M events the operators' union alone was ~450 MB of temporaries.
    """
    n = len(mask)
    if n <= BLOCK_ROWS:
        return union(start[mask], end[mask])
    parts = []
    for lo in range(0, n, BLOCK_ROWS):
        m = mask[lo : lo + BLOCK_ROWS]
        parts.append(_union(start[lo : lo + BLOCK_ROWS][m], end[lo : lo + BLOCK_ROWS][m]))
    out = _union(np.concatenate([p.start for p in parts]), np.concatenate([p.end for p in parts]))
    return _handed_back(out, n)


def _handed_back(r: Ranges, size: int) -> Ranges:
    """`r`, once the pages its computation freed are handed back to the OS when the input
    was large (`size` rows or ranges, `BLOCK_ROWS` or more). glibc keeps freed heap pages
    until asked (util.heap), and after a read has grown the heap a breakdown's or ledger's
    sequence of unions and sweeps kept each one's freed temporaries resident: twice the
    live memory (x60 breakdown: +298 MB RSS for +128 MB of live allocations, +164 MB with
    this)."""
    if size >= BLOCK_ROWS:
        release_free_memory()
    return r


def _groups(start: np.ndarray, end: np.ndarray, new: np.ndarray) -> Ranges:
    """The set whose ranges run from each `start` marked `new` to the `end` just before
    the next marked one (the last to the final `end`)."""
    firsts = np.flatnonzero(new)
    lasts = np.empty_like(firsts)
    lasts[:-1] = firsts[1:] - 1
    lasts[-1] = len(start) - 1
    return Ranges(start[firsts].astype(np.int64), end[lasts].astype(np.int64))


def _inside(r: Ranges, t: np.ndarray) -> np.ndarray:
    """Whether each (sorted) time lies in the set: more ranges started than ended by then."""
    return np.searchsorted(r.start, t, side="right") > np.searchsorted(r.end, t, side="right")


def contains(r: Ranges, t: np.ndarray) -> np.ndarray:
    """Whether each time (in any order) lies in one of the ranges, [start, end)."""
    return _inside(r, np.asarray(t))


def _combine(a: Ranges, b: Ranges, want_b: bool) -> Ranges:
    """Segments of `a` inside `b` (want_b) or outside it, by sweeping all boundaries once.

    Each boundary carries its change of state (bit 0: inside `a`, bit 1: inside `b`; both
    sets are disjoint, so each bit is 0 or 1) and a running sum gives the state after every
    boundary. The four boundary arrays are each sorted already, so a stable sort (timsort)
    merges them in near-linear time; no search per point is needed.
    """
    na, nb = len(a), len(b)
    values = np.concatenate([a.start, a.end, b.start, b.end])
    order = np.argsort(values, kind="stable")
    change = np.repeat(np.array([1, -1, 2, -2], np.int8), [na, na, nb, nb])[order]
    points = values[order]
    state = np.cumsum(change, dtype=np.int8)
    # Where several boundaries share a time, the state after the last of them holds.
    last = np.empty(len(points), dtype=bool)
    last[-1] = True
    np.not_equal(points[1:], points[:-1], out=last[:-1])
    at = np.flatnonzero(last)
    lo, state = points[at], state[at]
    inside_b = (state & 2) != 0
    sel = ((state & 1) != 0)[:-1] & (inside_b[:-1] == want_b)
    if not sel.any():
        return EMPTY
    start, end = lo[:-1][sel], lo[1:][sel]
    new = np.empty(len(start), dtype=bool)  # segments that touch are one range
    new[0] = True
    np.not_equal(start[1:], end[:-1], out=new[1:])
    return _groups(start, end, new)


def _clipped(r: Ranges, lo: int, hi: int) -> Ranges:
    """The part of `r` in [lo, hi) (never empty ranges: `r` is disjoint and sorted)."""
    i, j = np.searchsorted(r.end, lo, side="right"), np.searchsorted(r.start, hi, side="left")
    return Ranges(np.maximum(r.start[i:j], lo), np.minimum(r.end[i:j], hi))


def _combine_blocked(a: Ranges, b: Ranges, want_b: bool) -> Ranges:
    """`_combine`, a window of time at a time: the windows start at every `BLOCK_RANGES`-th
    start of either set, and each combines the two sets clipped to it. Its temporaries
    (~40 bytes per boundary: 12 M boundaries for a 13 M-event trace's runtime calls against
    the free time of its steps) are those of one window.

    The windows' results need no joining: an edge is where a range of one set starts, the
    previous range of that set having ended strictly before (the sets are disjoint and do
    not touch), so the state of that set, and whether a point is kept, differs on the two
    sides: no kept segment crosses or touches an edge."""
    if len(a) + len(b) <= BLOCK_RANGES:
        return _combine(a, b, want_b)
    # the first cut is the earliest start of either set, the last their latest end
    cuts = np.union1d(a.start[::BLOCK_RANGES], b.start[::BLOCK_RANGES]).tolist()
    cuts.append(max(int(a.end[-1]), int(b.end[-1])))
    parts = []
    for lo, hi in itertools.pairwise(cuts):
        ca = _clipped(a, lo, hi)
        if len(ca) == 0:
            continue
        cb = _clipped(b, lo, hi)
        if len(cb):
            parts.append(_combine(ca, cb, want_b))
        elif not want_b:  # nothing of `b` here: all of `a` is outside it
            parts.append(ca)
    if not parts:
        return EMPTY
    out = Ranges(np.concatenate([p.start for p in parts]), np.concatenate([p.end for p in parts]))
    return _handed_back(out, len(a) + len(b))


def intersect(a: Ranges, b: Ranges) -> Ranges:
    """Points in both sets."""
    if len(a) == 0 or len(b) == 0:
        return EMPTY
    return _combine_blocked(a, b, want_b=True)


def subtract(a: Ranges, b: Ranges) -> Ranges:
    """Points of `a` not in `b`."""
    if len(a) == 0 or len(b) == 0:
        return a
    return _combine_blocked(a, b, want_b=False)


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


#: Ranges of both sets `intersect` and `subtract` sweep at a time (`_combine_blocked`).
BLOCK_RANGES = 1 << 19

#: Rows of `covered_per_group` (whole groups: a block ends where a group does) and of
#: `union_where` worked on at a time: their temporaries are a dozen arrays of this size,
#: not of the whole input.
BLOCK_ROWS = 1 << 20


def covered_per_group(
    group: np.ndarray, start: np.ndarray, end: np.ndarray, groups: int
) -> np.ndarray:
    """Length (ns) of the union of each group's ranges, for groups 0..groups-1.

    Overlapping ranges count once: the time a parent spends in its children is not the sum
    of their durations when two of them overlap (malformed or duplicated input), and a sum
    would make the parent's self time negative. Rows are taken in blocks of whole groups,
    so the working set is the sort order plus one block (10 M rows: hundreds of MB less).
    """
    out = np.zeros(groups, dtype=np.int64)
    if len(group) == 0:
        return out
    order = np.lexsort((start, group))
    sorted_groups = group[order]
    lo, n = 0, len(order)
    while lo < n:
        hi = min(lo + BLOCK_ROWS, n)
        if hi < n:  # not inside a group: up to the end of the group at the cut
            hi = int(np.searchsorted(sorted_groups, sorted_groups[hi - 1], side="right"))
        rows = order[lo:hi]
        g = sorted_groups[lo:hi].astype(np.int64)
        s = start[rows]
        e = np.maximum(end[rows], s)
        first = np.ones(len(g), dtype=bool)
        first[1:] = g[1:] != g[:-1]
        reach = _running_max_per_group(s, e, first)
        before = np.empty_like(reach)
        before[0] = s[0]
        before[1:] = reach[:-1]
        before = np.where(first, s, before)
        np.add.at(out, g, np.maximum(e - np.maximum(s, before), 0))
        lo = hi
    return out


def _running_max_per_group(s: np.ndarray, e: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Running maximum of `e` within each group of consecutive rows (`first` marks where a
    group starts; `s` <= `e`, `s` ascending within a group), never carried across groups.

    Each group's values are moved into a band of their own, above the previous group's
    band, so that one global accumulate cannot carry a value into the next group. When
    the bands would not fit int64, the ends are replaced by their ranks first (a sort).
    """
    starts = np.flatnonzero(first)
    low = s[starts]
    band = np.maximum.reduceat(e, starts) - low + 1
    if float(band.sum(dtype=np.float64)) < 2.0**62:
        offset = np.cumsum(band) - band - low
        shift = np.repeat(offset, np.diff(np.append(starts, len(e))))
        return np.asarray(np.maximum.accumulate(e + shift) - shift)
    values = np.unique(e)
    group = np.cumsum(first) - 1
    rank = np.searchsorted(values, e) + group * len(values)
    return np.asarray(values[np.maximum.accumulate(rank) - group * len(values)])
