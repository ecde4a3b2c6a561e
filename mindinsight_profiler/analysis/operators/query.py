"""Operator types and a fast sort / filter / paginate over operator instances.

The dashboard pages through tables of up to millions of operator instances; a request must
answer in milliseconds. So the instance table is columnar, each sortable column's order is
computed once (`argsort`, cached on the table), and a query is a mask over rows (name
filters are evaluated once per distinct name, not per row) gathered in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.categories import op_type
from mindinsight_profiler.analysis.operators.stats import OpTree
from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.model.trace import Trace

SORTABLE = ("start_ns", "host_self_ns", "host_total_ns", "device_self_ns", "device_total_ns")
MAX_PAGE = 1000


@dataclass
class InstanceTable:
    """One row per operator call, with cached sort orders."""

    columns: dict[str, np.ndarray]
    names: list[str]  # name code -> name (codes are the trace's string codes)
    types: list[str]  # type code -> type
    _orders: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.columns["name"])

    def order(self, key: str) -> np.ndarray:
        """Row order ascending by `key` (stable), computed once."""
        if key not in self._orders:
            self._orders[key] = np.argsort(self.columns[key], kind="stable")
        return self._orders[key]


def instance_table(trace: Trace, tree: OpTree, mask: np.ndarray | None = None) -> InstanceTable:
    """Operator calls (tree rows, optionally filtered by the Profiler's filters) as columns."""
    rows = np.flatnonzero(tree.is_row if mask is None else tree.is_row & mask)
    idx = tree.index[rows]
    name = trace.events["name"][idx]
    names = trace.strings.to_list()
    used = np.unique(name)
    type_of_code = np.full(len(names), -1, dtype=np.int32)
    types: list[str] = []
    type_ids: dict[str, int] = {}
    for code in used.tolist():
        t = op_type(names[code])
        type_of_code[code] = type_ids.setdefault(t, len(types))
        if len(types) < len(type_ids):
            types.append(t)
    columns = {
        "event": idx.astype(np.int64),
        "name": name,
        "type": type_of_code[name],
        "start_ns": trace.events["start_ns"][idx],
        "host_self_ns": tree.host_self_ns[rows],
        "host_total_ns": tree.host_total_ns[rows],
        "device_self_ns": tree.device_self_ns[rows],
        "device_total_ns": tree.device_total_ns[rows],
    }
    return InstanceTable(columns, names, types)


def _name_mask(table: InstanceTable, contains: str | None, types_in: list[str] | None,
               types_not_in: list[str] | None) -> np.ndarray | None:  # fmt: skip
    """Row mask from name/type filters, evaluated once per distinct name or type."""
    mask: np.ndarray | None = None
    matches = name_matcher(contains)
    if matches is not None:
        hit = np.array([matches(n) for n in table.names], dtype=bool)
        mask = hit[table.columns["name"]]
    for wanted, keep in ((types_in, True), (types_not_in, False)):
        if wanted is None:
            continue
        hit = np.isin(np.array(table.types, dtype=object), list(wanted))
        row = hit[table.columns["type"]] if len(hit) else np.zeros(len(table), bool)
        row = row if keep else ~row
        mask = row if mask is None else mask & row
    return mask


def query_instances(
    table: InstanceTable,
    sort: str = "device_self_ns",
    descending: bool = True,
    name_contains: str | None = None,
    types_in: list[str] | None = None,
    types_not_in: list[str] | None = None,
    offset: int = 0,
    limit: int = 50,
) -> dict[str, Any]:
    """One page of operator instances; `total` counts all rows matching the filters."""
    if sort not in SORTABLE:
        raise ValueError(f"sort must be one of {SORTABLE}")
    if offset < 0 or not 0 < limit <= MAX_PAGE:
        raise ValueError(f"need offset >= 0 and 0 < limit <= {MAX_PAGE}")
    order = table.order(sort)
    if descending:
        order = order[::-1]
    mask = _name_mask(table, name_contains, types_in, types_not_in)
    if mask is not None:
        order = order[mask[order]]
    page = order[offset : offset + limit]
    c = table.columns
    rows = [
        {
            "name": table.names[int(c["name"][i])],
            "type": table.types[int(c["type"][i])],
            "start_us": int(c["start_ns"][i]) / 1000.0,
            "host_self_us": int(c["host_self_ns"][i]) / 1000.0,
            "host_total_us": int(c["host_total_ns"][i]) / 1000.0,
            "device_self_us": int(c["device_self_ns"][i]) / 1000.0,
            "device_total_us": int(c["device_total_ns"][i]) / 1000.0,
        }
        for i in page.tolist()
    ]
    return {"total": len(order), "offset": offset, "rows": rows}


def _top_with_others(rows: list[dict[str, Any]], top: int) -> list[dict[str, Any]]:
    """The first `top` rows (sorted by time), the rest summed into one "others" row."""
    head, rest = rows[:top], rows[top:]
    if rest:
        total = sum(r["total_us"] for r in rest)
        calls = sum(r["calls"] for r in rest)
        head.append(
            {
                "type": "others",
                "calls": calls,
                "total_us": total,
                "mean_us": total / max(calls, 1),
                "percent": sum(r["percent"] for r in rest),
            }
        )
    return head


def op_type_summary(
    table: InstanceTable, top: int = 10, by: str = "device_self_ns"
) -> dict[str, Any]:
    """Time, count, share and mean per operator type; the top N, the rest as "others"."""
    t = table.columns["type"]
    g = len(table.types)
    total = np.bincount(t, weights=table.columns[by], minlength=g)
    if not total.any() and by == "device_self_ns":  # host-only traces: rank by host time
        by = "host_self_ns"
        total = np.bincount(t, weights=table.columns[by], minlength=g)
    count = np.bincount(t, minlength=g)
    grand = float(total.sum())
    rows = [
        {
            "type": table.types[i],
            "calls": int(count[i]),
            "total_us": float(total[i]) / 1000.0,
            "mean_us": float(total[i]) / max(int(count[i]), 1) / 1000.0,
            "percent": 100.0 * float(total[i]) / grand if grand else 0.0,
        }
        for i in np.argsort(-total, kind="stable").tolist()
    ]
    return {"by": by, "types": _top_with_others(rows, top)}


def _npu_op_types(trace: Trace, top: int) -> dict[str, Any] | None:
    """An Ascend input's kernel op types (`MatMulV2`, `TransData`; op_statistic.csv's, all
    cores summed), ranked by kernel time: the framework's operator names (`aten::conv2d`)
    would hide the device's own work, e.g. the format conversions."""
    from mindinsight_profiler.analysis.steps.npu_section import npu_op_types

    rows = npu_op_types(trace)
    if not rows:
        return None
    by_type: dict[str, dict[str, Any]] = {}
    for r in rows:
        t = by_type.setdefault(r["op_type"], {"type": r["op_type"], "calls": 0, "total_us": 0.0})
        t["calls"] += r["calls"]
        t["total_us"] += r["total_us"]
    grand = sum(t["total_us"] for t in by_type.values()) or 1.0
    merged = sorted(by_type.values(), key=lambda t: -t["total_us"])
    for t in merged:
        t["mean_us"] = t["total_us"] / max(t["calls"], 1)
        t["percent"] = 100.0 * t["total_us"] / grand
    return {"by": "kernel_ns", "types": _top_with_others(merged, top)}


def op_types_section(trace: Trace, tree: OpTree, top: int = 10) -> dict[str, Any] | None:
    """Operator types for the report: an Ascend input's kernel op types, MindSpore's
    per-instance operator table when the input has one (legacy AI Core), else the operator
    calls of the trace; None if none."""
    from mindinsight_profiler.analysis.operators.by_type import OPERATORS_TABLE, op_type_table

    npu = _npu_op_types(trace, top)
    if npu is not None:
        return npu
    side = trace.tables.get(OPERATORS_TABLE)
    if side is not None and len(side["name"]):
        t = op_type_table(trace)
        keys = ("op_type", "calls", "total_us", "mean_us", "percent")
        names = ("type", *keys[1:])  # the row's keys in `OpTypeRow`'s order
        rows = [dict(zip(names, v, strict=True)) for v in zip(*(t[k] for k in keys), strict=True)]
        return {"by": "total_ns", "types": _top_with_others(rows, top)}
    table = instance_table(trace, tree)
    return op_type_summary(table, top) if len(table) else None
