"""Per-operator-type totals: the "operator type" ranking MindInsight shows.

Two sources, chosen by what the trace holds:
- `operators` side table (legacy Ascend AI Core detail: one row per operator instance with
  its total time and calls; no start times exist for these, so they are not events);
- events whose name has a type in the `op_type_of_name` table (MindSpore 2.x CPU ops,
  Ascend timeline kernels), or, failing that, whose name reads `<Type>-op<N>`.
Both give the same columns: type, calls, total, mean and share of the grand total.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis.categories import op_type
from mindinsight_profiler.analysis.operators.tables import Table
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

OPERATORS_TABLE = "operators"
OP_TYPE_TABLE = "op_type_of_name"


def _aggregate(
    types: list[str], type_id: np.ndarray, total_ns: np.ndarray, calls: np.ndarray
) -> Table:
    """Sum time and calls per type id (`types[id]` is its name); sorted by total time."""
    g = len(types)
    total = np.bincount(type_id, weights=total_ns.astype(np.float64), minlength=g)
    count = np.bincount(type_id, weights=calls.astype(np.float64), minlength=g)
    order = np.argsort(-total, kind="stable")
    grand = float(total.sum())
    share = 100.0 * total / grand if grand > 0 else np.zeros(g)
    return {
        "op_type": [types[i] for i in order.tolist()],
        "calls": count[order].astype(np.int64).tolist(),
        "total_us": (total[order] / 1000.0).tolist(),
        "mean_us": (total[order] / np.maximum(count[order], 1) / 1000.0).tolist(),
        "percent": share[order].tolist(),
    }


def _dense_types(trace: Trace, type_codes: np.ndarray) -> tuple[list[str], np.ndarray]:
    codes, inv = np.unique(type_codes, return_inverse=True)
    return trace.strings.lookup(codes), inv.ravel()


def op_type_table(trace: Trace, engine: str | None = None) -> Table:
    """Operator types by total time, descending (from the `operators` table if present).

    `engine` restricts the side-table source to one engine (e.g. "AI Core").
    """
    table = trace.tables.get(OPERATORS_TABLE)
    if table is not None and len(table["name"]):
        keep = np.ones(len(table["name"]), dtype=bool)
        if engine is not None:
            keep &= np.array(trace.strings.lookup(table["engine"])) == engine
        types, type_id = _dense_types(trace, table["op_type"][keep])
        return _aggregate(types, type_id, table["total_ns"][keep], table["calls"][keep])
    return op_type_table_from_events(trace)


def type_of_name(trace: Trace, name_codes: np.ndarray) -> list[str]:
    """Operator type of each name code: from `op_type_of_name`, else `<Type>` of
    `<scope>/<Type>-op<N>` (how MindSpore names operator instances)."""
    known: dict[int, int] = {}
    table = trace.tables.get(OP_TYPE_TABLE)
    if table is not None:
        known = dict(zip(table["name"].tolist(), table["op_type"].tolist(), strict=True))
    out = []
    for code, name in zip(name_codes.tolist(), trace.strings.lookup(name_codes), strict=True):
        t = known.get(code)
        out.append(trace.strings[t] if t is not None else op_type(name))
    return out


def op_type_table_from_events(
    trace: Trace, kinds: tuple[Kind, ...] = (Kind.CPU_OP, Kind.KERNEL)
) -> Table:
    """Operator types of operator/kernel events, their durations summed per type."""
    ev = trace.events
    idx = np.flatnonzero(np.isin(ev["kind"], [int(k) for k in kinds]))
    names, name_inv = np.unique(ev["name"][idx], return_inverse=True)
    per_name = type_of_name(trace, names)
    types = list(dict.fromkeys(per_name))
    id_of = {t: i for i, t in enumerate(types)}
    name_type = np.array([id_of[t] for t in per_name], dtype=np.int64)
    dur = ev["end_ns"][idx] - ev["start_ns"][idx]
    return _aggregate(types, name_type[name_inv.ravel()], dur, np.ones(len(idx), dtype=np.int64))
