"""Derived links of the model: nesting by time containment and launch correlations.

- `parent`: the innermost range on the same thread that contains an operator-tree range
  (ops, annotations, steps); python frames get parents among python frames.
- `caller` of a runtime call: its operator, by External id when that operator is on the same
  thread and the call starts inside it, else by time containment. The fallback matters for
  traces whose runtimes carry their correlation id as External id (seen in HTA's data).
- `caller` of device work (kernel, memcpy, memset): the runtime call with its correlation id.

Everything is vectorised: nesting is a "nearest preceding range that still covers me" query,
answered for all ranges at once with a sparse max-table and binary lifting, O(n log n).
A range that overlaps a sibling without nesting (malformed input) simply gets the nearest
range that does contain it, instead of aborting the whole trace.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import rows_by_group
from mindinsight_profiler.util.heap import release_free_memory

#: Sparse tables are built per block of this many ranges: memory O(n + B log B), not O(n log n)
#: (a 7 M-event trace would need 1.3 GB for one global table).
BLOCK = 1 << 16
#: Ranges are linked a block of this many at a time (see `_Containers`).
SWEEP = 1 << 18


def _covering_in(ends: np.ndarray, pos: np.ndarray, need: np.ndarray) -> np.ndarray:
    """For each query q: the largest j < pos[q] with ends[j] >= need[q], else -1.

    A sparse max-table over `ends` and a descent from the widest level: O(len log len)
    memory, so callers keep `ends` to one block.
    """
    n = len(ends)
    result = np.full(len(pos), -1, dtype=np.int64)
    if n == 0 or len(pos) == 0:
        return result
    table = [ends]
    step = 1
    while step * 2 <= n:
        prev = table[-1]
        table.append(np.maximum(prev[:-step], prev[step:]))
        step *= 2
    cur = pos.astype(np.int64).copy()
    for k in range(len(table) - 1, -1, -1):
        width = 1 << k
        cand = cur - width
        ok = cand >= 0
        level = table[k]
        block_max = level[np.clip(cand, 0, len(level) - 1)]
        move = ok & (block_max < need)
        cur = np.where(move, cand, cur)
    found = cur > 0
    j = cur - 1
    found &= ends[np.clip(j, 0, n - 1)] >= need
    result[found] = j[found]
    return result


def _nearest_covering(ends: np.ndarray, pos: np.ndarray, need: np.ndarray) -> np.ndarray:
    """For each query q: the largest j < pos[q] with ends[j] >= need[q], else -1.

    Blocked, for bounded memory: first within the query's own block (before pos), else in
    the nearest earlier block whose maximum reaches `need` (found the same way over the
    blocks' maxima), searched from its end. The answers are those of one global search.
    """
    n = len(ends)
    if n <= BLOCK:
        return _covering_in(ends, pos, need)
    pos = pos.astype(np.int64)
    result = np.full(len(pos), -1, dtype=np.int64)
    count = -(-n // BLOCK)
    has = pos > 0
    own = np.where(has, (pos - 1) // BLOCK, 0)
    for b, q in enumerate(rows_by_group(own, count)):
        q = q[has[q]]
        if len(q):
            lo = b * BLOCK
            j = _covering_in(ends[lo : lo + BLOCK], pos[q] - lo, need[q])
            result[q] = np.where(j >= 0, j + lo, -1)
    rest = np.flatnonzero(has & (result < 0))
    if len(rest) == 0:
        return result
    maxima = np.maximum.reduceat(ends, np.arange(0, n, BLOCK))
    earlier = _covering_in(maxima, own[rest], need[rest])
    rest, earlier = rest[earlier >= 0], earlier[earlier >= 0]
    for b, q in enumerate(rows_by_group(earlier, count)):
        if len(q):
            lo = b * BLOCK
            block = ends[lo : lo + BLOCK]
            j = _covering_in(block, np.full(len(q), len(block)), need[rest[q]])
            result[rest[q]] = j + lo  # the block's maximum reaches need: always found
    return result


def _staircase(ends: np.ndarray) -> np.ndarray:
    """Positions of the strict suffix maxima of `ends` (each larger than every later one):
    the only ranges that can still be the nearest cover of anything after them."""
    if len(ends) == 0:
        return np.zeros(0, dtype=np.int64)
    later = np.maximum.accumulate(ends[::-1])[::-1]
    keep = np.append(ends[:-1] > later[1:], True)
    return np.flatnonzero(keep)


class _Containers:
    """Ranges sorted by (track, start, -end, index), searched a block at a time.

    Only the sorted order is kept at full length (int32 positions where they fit); the
    track-offset keys of a covering query are computed per block of `SWEEP` ranges, and
    what earlier blocks can still answer is carried as their staircase (`_staircase`): the
    nearest earlier range covering a query is always on it. So linking millions of ranges
    holds a few bytes per range, not the ~100 of full-length key arrays and their searches.
    """

    def __init__(self, idx: np.ndarray, track: np.ndarray, start: np.ndarray, end: np.ndarray):
        """`idx`: positions of the ranges in the columns `track`, `start`, `end` (which may be
        longer: the trace's own columns)."""
        self.track, self.start, self.end = track, start, end
        idx = idx.astype(np.int32 if len(start) < 2**31 else np.int64, copy=False)
        self.t0 = int(start[idx].min()) if len(idx) else 0
        self.span = (int(end[idx].max()) - self.t0 + 2) if len(idx) else 1
        self.idx = idx[np.lexsort((idx, -end[idx], start[idx], track[idx]))]
        self.bounds = np.arange(0, len(self.idx), SWEEP)
        self.firsts = self.key(track[self.idx[self.bounds]], start[self.idx[self.bounds]])

    def key(self, track: np.ndarray, t: np.ndarray) -> np.ndarray:
        return track.astype(np.int64) * self.span + (t - self.t0)

    def _blocks(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
        """Per block: (positions of its carry + its ranges, their end keys, the block's
        start keys, the number carried), in order."""
        carry_idx = np.zeros(0, dtype=self.idx.dtype)
        carry_end = np.zeros(0, dtype=np.int64)
        for lo in self.bounds.tolist():
            idx = self.idx[lo : lo + SWEEP]
            track = self.track[idx]
            start_key = self.key(track, self.start[idx])
            end_key = self.key(track, self.end[idx])
            ext_idx = np.concatenate([carry_idx, idx])
            ext_end = np.concatenate([carry_end, end_key])
            yield ext_idx, ext_end, start_key, len(carry_idx)
            keep = _staircase(ext_end)
            carry_idx, carry_end = ext_idx[keep], ext_end[keep]

    def parents_of_self(self, out: np.ndarray) -> None:
        """Write each container's parent (position in the columns, or -1) into out[idx]."""
        for ext_idx, ext_end, start_key, carried in self._blocks():
            # A zero-length range at its parent's end belongs to the next range, not that parent.
            need = np.maximum(ext_end[carried:], start_key + 1)
            j = _nearest_covering(ext_end, np.arange(carried, len(ext_end)), need)
            out[ext_idx[carried:]] = np.where(j >= 0, ext_idx[np.clip(j, 0, None)], -1)

    def enclosing(self, track: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Innermost container (position in the columns, or -1) covering each query range."""
        result = np.full(len(start), -1, dtype=np.int64)
        if len(self.idx) == 0:  # e.g. a device-only export: no operators to be inside
            return result
        s = self.key(track, start)
        block = np.searchsorted(self.firsts, s, side="right") - 1  # -1: before every range
        groups = rows_by_group(block, len(self.bounds))
        for (ext_idx, ext_end, start_key, carried), q in zip(self._blocks(), groups, strict=True):
            if len(q) == 0:
                continue
            e = np.maximum(self.key(track[q], end[q]), s[q] + 1)
            pos = carried + np.searchsorted(start_key, s[q], side="right")
            j = _nearest_covering(ext_end, pos, e)
            result[q] = np.where(j >= 0, ext_idx[np.clip(j, 0, None)], -1)
        return result


def nesting_parents(track: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Innermost range on the same track containing each range (position in the input, or -1).

    The same rule as `parent`, but over any set of ranges (the timeline nests every kind).
    """
    out = np.full(len(start), -1, dtype=np.int64)
    if len(start):
        _Containers(np.arange(len(start)), track, start, end).parents_of_self(out)
    return out


def _nest(trace: Trace, mask: np.ndarray) -> _Containers:
    ev = trace.events
    c = _Containers(np.flatnonzero(mask), ev["track"], ev["start_ns"], ev["end_ns"])
    c.parents_of_self(ev["parent"])
    return c


def _join_unique(keys: np.ndarray, rows: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """rows[k] for the first k with keys[k] == wanted[q], else -1 (vectorised lookup)."""
    out = np.full(len(wanted), -1, dtype=np.int64)
    if len(keys) == 0 or len(wanted) == 0:
        return out
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    pos = np.searchsorted(sk, wanted, side="left")
    pos_c = np.clip(pos, 0, len(sk) - 1)
    hit = (pos < len(sk)) & (sk[pos_c] == wanted)
    out[hit] = rows[order[pos_c[hit]]]
    return out


def _link_runtimes(trace: Trace, ops: _Containers, op_mask: np.ndarray) -> None:
    ev = trace.events
    rt = np.flatnonzero(ev["kind"] == Kind.RUNTIME)
    if len(rt) == 0:
        return
    op_idx = np.flatnonzero(op_mask & (ev["ext_id"] > 0))
    by_ext = _join_unique(ev["ext_id"][op_idx], op_idx, ev["ext_id"][rt])
    ok = by_ext >= 0
    cand = np.clip(by_ext, 0, None)
    # An External id link is trusted only if the operator is on the same thread and the call
    # starts inside it; otherwise the id is not an operator id (it may be a correlation id).
    ok &= ev["track"][cand] == ev["track"][rt]
    ok &= (ev["start_ns"][cand] <= ev["start_ns"][rt]) & (ev["start_ns"][rt] <= ev["end_ns"][cand])
    caller = np.where(ok, by_ext, -1)
    missing = ~ok
    if missing.any():
        r = rt[missing]
        caller[missing] = ops.enclosing(ev["track"][r], ev["start_ns"][r], ev["end_ns"][r])
    ev["caller"][rt] = caller


def _link_device_work(trace: Trace) -> None:
    ev = trace.events
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & (ev["corr"] >= 0))
    rt = np.flatnonzero((ev["kind"] == Kind.RUNTIME) & (ev["corr"] >= 0))
    if len(dev) and len(rt):
        ev["caller"][dev] = _join_unique(ev["corr"][rt], rt, ev["corr"][dev])


def build_links(trace: Trace) -> None:
    """Fill `parent` and `caller` in place (idempotent)."""
    ev = trace.events
    ev["parent"][:] = -1
    ev["caller"][:] = -1
    op_mask = is_kind(ev["kind"], OP_TREE_KINDS)
    ops = _nest(trace, op_mask)
    _nest(trace, ev["kind"] == Kind.PYTHON_FUNCTION)
    release_free_memory()  # the sorts' pages, before the joins' (util.heap)
    _link_runtimes(trace, ops, op_mask)
    _link_device_work(trace)


def innermost_enclosing(trace: Trace, containers: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """For each event index in `queries`: the innermost event of `containers` (indices) on
    the same track whose time range covers it, or -1 (e.g. operators inside nn.Modules)."""
    ev = trace.events
    if len(containers) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    c = _Containers(containers, ev["track"], ev["start_ns"], ev["end_ns"])
    return c.enclosing(ev["track"][queries], ev["start_ns"][queries], ev["end_ns"][queries])
