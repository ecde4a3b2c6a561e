"""The collective calls of a MindSpore run timed only by its step trace, with their sizes.

A legacy MindSpore Ascend profile (`step_trace_raw_*_detail_time.csv`, `hccl_raw_*.csv`)
has no kernel timeline, but its step trace times every collective stage of every step
(`stream_<s>_<i>_AllReduce-op<n>` columns: start and end on the device clock), and
`hccl_raw`'s `communication_operator_cost` gives the same calls, named alike, with the
bytes each moved over each link. Joined by name they give what the NCCL kernels' message
sizes give on a GPU: per call in the steps its size and its device duration. HCCL's own
cost column is not the duration: it counts the transfer only, and a call of a few KB
spends most of its time in the per-call overhead that fusing removes.

Point-to-point stages (pipeline Send / Receive) are left out: their time is a stage
waiting for another, not a message's cost. A call whose name `hccl_raw` does not list has
no known size and is left out rather than guessed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of
from mindinsight_profiler.advisor.facts.registry import Context
from mindinsight_profiler.analysis.communication.naming import collective_type
from mindinsight_profiler.analysis.steps.stages import REDUCE_TABLE

#: hccl_raw's link sizes are KB of 1000 bytes (4.096 for a 4,096-byte transfer).
KB = 1000.0

#: Point-to-point stages: a pipeline stage waiting for its peer, not a collective.
POINT_TO_POINT = ("Send", "Receive")


def _sizes(ctx: Context) -> dict[str, int]:
    """Bytes of each collective `hccl_raw` names (the largest it moved over one link in
    any step), by op name."""
    trace = ctx.trace
    ops = trace.tables.get("hccl_ops") if trace is not None else None
    if trace is None or ops is None or "size_kb" not in ops or not len(ops["op"]):
        return {}
    out: dict[str, int] = {}
    for name, kb in zip(trace.strings.lookup(ops["op"]), ops["size_kb"].tolist(), strict=True):
        if kb >= 0:
            out[name] = max(out.get(name, 0), round(kb * KB))
    return out


def step_trace_calls(ctx: Context) -> dict[str, Any] | None:
    """Per sized collective stage of the step trace inside the steps: bytes, duration (ns),
    step index, collective, start (the shape of comm_messages' calls); None when the run
    has no step-trace collective stage that hccl_raw sizes."""
    trace = ctx.trace
    red = trace.tables.get(REDUCE_TABLE) if trace is not None else None
    if trace is None or red is None or not len(red["step"]):
        return None
    sizes = _sizes(ctx)
    if not sizes:
        return None
    names = trace.strings.lookup(red["stage"])
    size = np.array([sizes.get(n, -1) for n in names], dtype=np.int64)
    kinds = [collective_type(n) for n in names]
    p2p = np.array([k in POINT_TO_POINT for k in kinds], dtype=bool)
    keep = (size >= 0) & ~p2p & (red["end_ns"] > red["start_ns"]) & (red["start_ns"] > 0)
    rows = np.flatnonzero(keep)
    step = step_of(ctx, red["start_ns"][rows])
    rows, step = rows[step >= 0], step[step >= 0]
    if not len(rows):
        return None
    return {
        "bytes": size[rows],
        "ns": red["end_ns"][rows] - red["start_ns"][rows],
        "step": step,
        "name": [kinds[i] for i in rows.tolist()],
        "start_ns": red["start_ns"][rows],
        "steps": len(ctx.report.get("steps", {}).get("names") or []) or 1,
    }
