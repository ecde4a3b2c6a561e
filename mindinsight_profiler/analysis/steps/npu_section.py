"""The report's `npu` section: Ascend's own step view and operator types, for NPU inputs.

Users of Ascend compare what a dashboard says with the files their tools wrote
(`step_trace_time.csv`, `op_statistic.csv`, MindStudio Insight's overview). The figures are
computed from the events (`npu_steps`, `operators.npu_types`), which those files summarise,
so an export without the CSVs (the SQLite-only one) gets the same view; tests hold them to
the files within 0.1 %. The average covers the report's step set (`x.first`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.operators.npu_types import op_type_statistics
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.analysis.steps.npu_steps import FIELDS, npu_step_times
from mindinsight_profiler.model.trace import Trace


def _us(name: str) -> str:
    return name.removesuffix("_ns") + "_us"


def npu_op_types(trace: Trace) -> list[dict[str, Any]] | None:
    """op_statistic.csv's rows from the kernels, most time first (None: no op types)."""
    stats = op_type_statistics(trace)
    if stats is None:
        return None
    grand = float(sum(stats["total_ns"])) or 1.0
    columns = ("op_type", "core_type", "count", "total_ns", "avg_ns", "min_ns", "max_ns")
    out = []
    for t, c, n, tot, avg, lo, hi in zip(*(stats[k] for k in columns), strict=True):
        out.append({"op_type": t, "core_type": c, "calls": n, "total_us": tot / 1000.0,
                    "mean_us": avg / 1000.0, "min_us": lo / 1000.0, "max_us": hi / 1000.0,
                    "percent": 100.0 * tot / grand})  # fmt: skip
    return out


def npu_section(trace: Trace, steps: Steps, first: int) -> dict[str, Any] | None:
    """The section for an NPU input with kernels; None for any other device."""
    if str(trace.meta.get("device_type") or "").lower() not in ("npu", "ascend") or not len(steps):
        return None
    times = npu_step_times(trace, steps)
    if not times.values.any():
        return None
    values = times.values / 1000.0
    rows = [
        {**{_us(f): float(v) for f, v in zip(FIELDS, row, strict=True)}, "step": name}
        for name, row in zip(times.names, values.tolist(), strict=True)
    ]
    counted = values[first:] if len(values) > first else values
    return {
        "steps": rows,
        "average": {
            _us(f): float(v) for f, v in zip(FIELDS, np.mean(counted, axis=0), strict=True)
        },
        "average_steps": times.names[first:] if len(values) > first else times.names,
        "op_types": npu_op_types(trace),
    }
