"""Memory records tied to operators: which operator allocated, and alloc/free pairs by address.

A memory record carries no operator; the operator is the innermost range on the same thread
open at the record's time (the PyTorch profiler plugin's rule). With proper nesting that range
is an ancestor of (or equal to) the last range that started at or before the record, so one
binary search plus a walk up the model's `parent` links answers all records at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.categories import host_range_mask
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import Trace


def innermost_op(trace: Trace, track: np.ndarray, ts_ns: np.ndarray) -> np.ndarray:
    """Event index of the innermost operator-tree range on `track` open at `ts_ns`, else -1."""
    ev = trace.events
    ops = np.flatnonzero(host_range_mask(trace))
    out = np.full(len(ts_ns), -1, dtype=np.int64)
    if len(ops) == 0 or len(ts_ns) == 0:
        return out
    t0 = min(int(ev["start_ns"][ops].min()), int(ts_ns.min()))
    span = max(int(ev["end_ns"][ops].max()), int(ts_ns.max())) - t0 + 2
    op_key = ev["track"][ops].astype(np.int64) * span + (ev["start_ns"][ops] - t0)
    order = np.argsort(op_key, kind="stable")
    ops, op_key = ops[order], op_key[order]
    q_key = track.astype(np.int64) * span + (ts_ns - t0)
    pos = np.searchsorted(op_key, q_key, side="right") - 1
    cand = np.where(pos >= 0, ops[np.clip(pos, 0, None)], -1)
    cand = np.where((cand >= 0) & (ev["track"][np.clip(cand, 0, None)] == track), cand, -1)
    # Walk up while the candidate closed before the record; depth bounds the iterations.
    while True:
        c = np.clip(cand, 0, None)
        closed = (cand >= 0) & (ev["end_ns"][c] < ts_ns)
        if not closed.any():
            return cand
        cand = np.where(closed, ev["parent"][c], cand)


def alloc_free_pairs(
    addr: np.ndarray, nbytes: np.ndarray, ts_ns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(allocation rows, matching free row or -1) by address, in one sort.

    Records of one address alternate allocation, free; an allocation is paired with the next
    record of its address when that one is a free. Frees with no allocation before them were
    allocated before profiling began and are left out; allocations never freed stay live.
    """
    rows = np.flatnonzero(addr >= 0)
    if len(rows) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows = rows[np.lexsort((rows, ts_ns[rows], addr[rows]))]
    a, b = addr[rows], nbytes[rows]
    allocs = np.flatnonzero(b > 0)
    nxt = np.minimum(allocs + 1, len(rows) - 1)
    freed = (allocs + 1 < len(rows)) & (a[nxt] == a[allocs]) & (b[nxt] < 0)
    return rows[allocs], np.where(freed, rows[nxt], -1)


def operator_stats(
    names: np.ndarray, nbytes: np.ndarray, strings: StringTable
) -> list[dict[str, Any]]:
    """Per operator (self): allocation count and bytes, free count and bytes, net increase.

    `names` are string codes of the charged operator (-1: none, shown as "(no operator)").
    Sorted by bytes allocated, largest first, as users look for the hungriest operators.
    """
    if len(names) == 0:
        return []
    uniq, inv = np.unique(names, return_inverse=True)
    pos = nbytes > 0
    k = len(uniq)
    alloc_n = np.bincount(inv, weights=pos, minlength=k)
    alloc_b = np.bincount(inv, weights=np.where(pos, nbytes, 0), minlength=k)
    free_n = np.bincount(inv, weights=nbytes < 0, minlength=k)
    free_b = np.bincount(inv, weights=np.where(nbytes < 0, -nbytes, 0), minlength=k)
    labels = [strings[int(c)] if c >= 0 else "(no operator)" for c in uniq.tolist()]
    out: list[dict[str, Any]] = [
        {
            "name": labels[i],
            "allocations": int(alloc_n[i]),
            "allocated_bytes": int(alloc_b[i]),
            "frees": int(free_n[i]),
            "freed_bytes": int(free_b[i]),
            "increase_bytes": int(alloc_b[i] - free_b[i]),
        }
        for i in range(k)
    ]
    out.sort(key=lambda r: (-r["allocated_bytes"], r["name"]))
    return out


def operator_memory_rows(trace: Trace) -> dict[str, np.ndarray] | None:
    """Ascend `operator_memory` rows that say something: a size and an allocation time
    (cells the reader read as absent leave their row out)."""
    opm = trace.tables.get("operator_memory")
    if opm is None:
        return None
    keep = np.isfinite(opm["size_kb"]) & (opm["alloc_ns"] >= 0)
    return opm if keep.all() else {c: v[keep] for c, v in opm.items()}
