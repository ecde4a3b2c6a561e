"""Operator and kernel tables: per-call statistics grouped by name (and more).

Returned as plain columns (lists of equal length, times in microseconds) so they can be
cached, filtered, sorted and paginated without knowing where they came from.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.operators.npu_kernels import npu_kernel_columns
from mindinsight_profiler.analysis.operators.shapes import shape_list
from mindinsight_profiler.analysis.operators.stats import OpTree
from mindinsight_profiler.analysis.operators.tensor_cores import is_tc_kernel
from mindinsight_profiler.model.kinds import COMMUNICATION_PROCESS, Kind
from mindinsight_profiler.model.trace import Trace

Table = dict[str, list[Any]]
OPERATOR_GROUPS = ("name", "name_input", "name_stack")
KERNEL_GROUPS = ("name", "name_op_launch")


def _dense(code: np.ndarray) -> np.ndarray:
    """Renumber non-negative integer codes 0..g-1 (order kept), without sorting if small."""
    top = int(code.max(initial=0))
    if top > 8 * len(code) + 4096:
        return np.unique(code, return_inverse=True)[1].ravel()
    present = np.zeros(top + 1, dtype=bool)
    present[code] = True
    return (np.cumsum(present) - 1)[code]


def _group(keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each group, group id of each row) for rows keyed by integer columns.

    Keys are string codes and small integers (-1 = absent), so they combine into one
    integer per row and renumber densely; this avoids `np.unique(axis=0)`, a slow row sort.
    """
    n = len(keys[0])
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    code = _dense(keys[0].astype(np.int64) + 1)
    for key in keys[1:]:
        k = _dense(key.astype(np.int64) + 1)
        code = _dense(code * (int(k.max()) + 1) + k)
    first = np.full(int(code.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, code, np.arange(n))
    return first, code


def _sum(inverse: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    return np.bincount(inverse, weights=values, minlength=groups)


def _us(ns: np.ndarray) -> list[float]:
    return [round(v, 3) for v in (np.asarray(ns, dtype=np.float64) / 1000.0).tolist()]


def operator_table(
    trace: Trace, tree: OpTree, group_by: str = "name", rows_mask: np.ndarray | None = None
) -> Table:
    """Operators grouped by name, name + input shapes, or name + call stack.

    `rows_mask` (per tree node) restricts the rows, e.g. to the Profiler's filters.
    """
    if group_by not in OPERATOR_GROUPS:
        raise ValueError(f"group_by must be one of {OPERATOR_GROUPS}")
    ev = trace.events
    rows = np.flatnonzero(tree.is_row if rows_mask is None else rows_mask & tree.is_row)
    idx = tree.index[rows]
    keys = [ev["name"][idx]]
    if group_by == "name_input":
        keys.append(ev["input_dims"][idx])
    if group_by == "name_stack":
        keys.append(ev["call_stack"][idx])
    first, inv = _group(keys)
    g = len(first)
    dev_self = _sum(inv, tree.device_self_ns[rows], g)
    dev_total = _sum(inv, tree.device_total_ns[rows], g)
    tc_self = _sum(inv, tree.tc_self_ns[rows], g)
    tc_total = _sum(inv, tree.tc_total_ns[rows], g)
    has_stack = _sum(inv, (ev["call_stack"][idx] >= 0).astype(np.float64), g) > 0
    table: Table = {
        "name": trace.strings.lookup(ev["name"][idx[first]]),
        "calls": np.bincount(inv, minlength=g).tolist(),
        "host_self_us": _us(_sum(inv, tree.host_self_ns[rows], g)),
        "host_total_us": _us(_sum(inv, tree.host_total_ns[rows], g)),
        "device_self_us": _us(dev_self),
        "device_total_us": _us(dev_total),
        "tc_eligible": tree.tc_eligible[rows[first]].tolist(),
        "tc_self_ratio": np.where(dev_self > 0, tc_self / np.maximum(dev_self, 1), 0.0).tolist(),
        "tc_total_ratio": np.where(
            dev_total > 0, tc_total / np.maximum(dev_total, 1), 0.0
        ).tolist(),
        "has_call_stack": has_stack.tolist(),
    }
    if group_by == "name_input":
        table["input_shape"] = [
            shape_list(t) for t in trace.strings.lookup(ev["input_dims"][idx[first]])
        ]
    if group_by == "name_stack":
        table["call_stack"] = trace.strings.lookup(ev["call_stack"][idx[first]])
    return _sorted(table, "device_self_us" if dev_self.any() else "host_self_us")


def _sorted(table: Table, key: str) -> Table:
    order = np.argsort(-np.asarray(table[key], dtype=np.float64), kind="stable").tolist()
    return {k: [v[i] for i in order] for k, v in table.items()}


def _weighted(inv: np.ndarray, values: np.ndarray, weights: np.ndarray, g: int) -> np.ndarray:
    """Duration-weighted mean per group; missing values count as 0 (as the plugin does)."""
    num = _sum(inv, np.nan_to_num(values, nan=0.0) * weights, g)
    den = _sum(inv, weights, g)
    return np.where(den > 0, num / np.maximum(den, 1e-300), 0.0)


def _metric(inv: np.ndarray, values: np.ndarray, weights: np.ndarray, g: int) -> list[Any]:
    """Weighted metric per group; all None when no kernel of the trace has the metric at all
    (e.g. Ascend NPUs have no "blocks per SM"): a format that cannot provide it gets null."""
    if len(values) and np.isnan(values).all():
        return [None] * g
    return list(_weighted(inv, values, weights, g).tolist())


def kernel_table(trace: Trace, tree: OpTree | None = None, group_by: str = "name") -> Table:
    """Kernels grouped by name, or by name + operator + grid + block + registers + smem."""
    if group_by not in KERNEL_GROUPS:
        raise ValueError(f"group_by must be one of {KERNEL_GROUPS}")
    ev = trace.events
    kernel = ev["kind"] == Kind.KERNEL
    ranges = [i for i, t in enumerate(trace.tracks) if t.process_name == COMMUNICATION_PROCESS]
    if ranges:  # MindSpore's communication rows are op ranges (waits included), not kernels
        kernel &= ~np.isin(ev["track"], ranges)
    k = np.flatnonzero(kernel)
    keys = [ev["name"][k]]
    op_name = np.full(len(k), -1, dtype=np.int64)
    if group_by == "name_op_launch":
        rt = ev["caller"][k]
        op = np.where(rt >= 0, ev["caller"][np.clip(rt, 0, None)], -1)
        op_name = np.where(op >= 0, ev["name"][np.clip(op, 0, None)], -1)
        keys += [op_name, ev["grid"][k], ev["block"][k], ev["regs"][k], ev["smem"][k]]
    first, inv = _group(keys)
    g = len(first)
    dur = (ev["end_ns"][k] - ev["start_ns"][k]).astype(np.float64)
    total = _sum(inv, dur, g)
    calls = np.bincount(inv, minlength=g)
    mins = np.full(g, np.inf)
    maxs = np.zeros(g)
    np.minimum.at(mins, inv, dur)
    np.maximum.at(maxs, inv, dur)
    names = trace.strings.lookup(ev["name"][k[first]])
    table: Table = {
        "name": names,
        "tc_used": [is_tc_kernel(n) for n in names],
        "calls": calls.tolist(),
        "total_us": _us(total),
        "mean_us": _us(total / np.maximum(calls, 1)),
        "min_us": _us(np.where(calls > 0, mins, 0)),
        "max_us": _us(maxs),
        "blocks_per_sm": _metric(inv, ev["blocks_per_sm"][k], dur, g),
        "occupancy": _metric(inv, ev["occupancy"][k], dur, g),
    }
    if group_by == "name_op_launch":
        fk = k[first]
        table["operator"] = [s or "N/A" for s in trace.strings.lookup(op_name[first])]
        table["grid"] = trace.strings.lookup(ev["grid"][fk])
        table["block"] = trace.strings.lookup(ev["block"][fk])
        table["registers_per_thread"] = ev["regs"][fk].tolist()
        table["shared_memory"] = ev["smem"][fk].tolist()
    table.update(npu_kernel_columns(trace, k, inv, g))
    return _sorted(table, "total_us")


def rows(table: Table) -> list[dict[str, Any]]:
    """A column table as JSON-ready rows (one dict per row, keys in column order)."""
    keys = list(table)
    return [
        dict(zip(keys, values, strict=True))
        for values in zip(*(table[k] for k in keys), strict=True)
    ]
