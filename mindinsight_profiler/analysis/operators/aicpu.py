"""MindSpore's AI CPU operators, per type and per op, as MindInsight's AI CPU tables.

Ops the AI Core cannot run (data queue ops such as GetNext, some dtypes and shapes) run on
the Ascend AI CPU, which is far slower; MindInsight listed them apart from the AI Core
types because their time is split in two: dispatch (getting the task to the AI CPU) and
execution. The file (`aicpu_intermediate_<rank>.csv`, side table `aicpu`) gives per call
the op (`kernel_type`, e.g. `GetNext` or `GetNext-op7`), the total, dispatch and execution
time; they are summed as written (a total need not be dispatch + execution).

As MindInsight 2.3.1 (`AicpuTypeAnalyser`, `AicpuDetailAnalyser`): an op's type is its name
up to the first "-"; the type table has calls, total time and its percent of all AI CPU
time; the op table has calls and the mean total and dispatch time per call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

TIMES = {"total_us": "total_ns", "dispatch_us": "dispatch_ns", "execution_us": "execution_ns"}


def _grouped(t: dict[str, np.ndarray], names: list[str]) -> list[dict[str, Any]]:
    """Per distinct name: calls and the sums of the time columns the file has (None where
    it lacks one), most total time first."""
    uniq, inv = np.unique(np.array(names, dtype=object), return_inverse=True)
    inv = inv.ravel()
    g = len(uniq)
    calls = np.bincount(inv, minlength=g)
    sums = {
        key: np.bincount(inv, weights=t[col].astype(np.float64), minlength=g) / 1000.0
        for key, col in TIMES.items()
        if col in t
    }
    order = np.argsort(-sums["total_us"], kind="stable")
    return [
        {
            "name": str(uniq[i]),
            "calls": int(calls[i]),
            **{k: round(float(sums[k][i]), 3) if k in sums else None for k in TIMES},
        }
        for i in order.tolist()
    ]


def aicpu_section(trace: Trace) -> dict[str, Any] | None:
    """{"call_count", "types": per op type, "ops": per op name}, most total time first;
    None when the input has no AI CPU file."""
    t = trace.tables.get("aicpu")
    if t is None:
        return None
    names = trace.strings.lookup(t["op_type"])
    whole = float(t["total_ns"].sum()) / 1000.0
    types = [
        {
            "type": row.pop("name"),
            **row,
            "percent": round(100.0 * row["total_us"] / whole, 4) if whole else 0.0,
        }
        for row in _grouped(t, [n.split("-")[0] for n in names])
    ]
    ops = []
    for row in _grouped(t, names):
        n = max(row["calls"], 1)
        ops.append(
            {
                "name": row["name"],
                "type": row["name"].split("-")[0],
                **{k: row[k] for k in ("calls", *TIMES)},
                "mean_us": round(row["total_us"] / n, 3),
                "mean_dispatch_us": None
                if row["dispatch_us"] is None
                else round(row["dispatch_us"] / n, 3),
            }
        )
    return {"call_count": len(names), "types": types, "ops": ops}
