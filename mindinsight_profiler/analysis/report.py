"""The overview report of one worker: steps, breakdown, GPU summary, operator and kernel tables.

A plain, JSON-ready dict (microseconds, percentages) that the CLI prints, the cache stores
and the server will serve; it is the contract checked against the reference plugin's data.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from mindinsight_profiler.analysis.communication.parallel import parallel_section
from mindinsight_profiler.analysis.communication.section import communication_section
from mindinsight_profiler.analysis.data_pipeline.section import data_pipeline_section
from mindinsight_profiler.analysis.gpu import device_metrics
from mindinsight_profiler.analysis.memory.section import memory_section
from mindinsight_profiler.analysis.operators.modules import module_section
from mindinsight_profiler.analysis.operators.query import op_types_section
from mindinsight_profiler.analysis.operators.stats import OpTree, op_tree
from mindinsight_profiler.analysis.operators.tables import Table, kernel_table, operator_table
from mindinsight_profiler.analysis.steps.boundaries import averaged_from, find_steps
from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES, step_breakdown
from mindinsight_profiler.analysis.steps.step_trace import (
    AUTO_POINTS,
    StepPoints,
    step_trace_section,
)
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.heap import release_free_memory

#: Bump when the report gains or changes fields: cached reports of other versions are rebuilt.
REPORT_VERSION = 10

T = TypeVar("T")


def _lean(value: T) -> T:
    """`value`, once the pages its computation freed are back with the OS: on a trace of
    millions of events each stage frees hundreds of MB that would otherwise stay resident
    and add up (see `store.heap`)."""
    release_free_memory()
    return value


def rows(table: Table) -> list[dict[str, Any]]:
    keys = list(table)
    return [
        dict(zip(keys, values, strict=True))
        for values in zip(*(table[k] for k in keys), strict=True)
    ]


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100.0 * x, 4)


def _gpu_summary(trace: Trace, start_ns: int, end_ns: int) -> dict[str, Any] | None:
    metrics = device_metrics(trace, start_ns, end_ns)
    if not metrics:
        return None
    props = {
        p.get("id"): p for p in trace.meta.get("device_properties") or [] if isinstance(p, dict)
    }
    devices: list[dict[str, Any]] = []
    for m in metrics:
        p = props.get(m.device, {})
        devices.append(
            {
                "device": m.device,
                "name": p.get("name"),
                "memory_bytes": p.get("totalGlobalMem"),
                "compute_capability": (
                    f"{p['computeMajor']}.{p.get('computeMinor', 0)}"
                    if "computeMajor" in p
                    else None
                ),
                "utilization": _pct(m.utilization),
                "sm_efficiency": _pct(m.sm_efficiency),
                "occupancy": None if m.occupancy is None else round(m.occupancy, 4),
                "kernel_us": m.kernel_ns / 1000.0,
            }
        )

    def mean(key: str) -> float | None:
        vals = [float(d[key]) for d in devices if d[key] is not None]
        return round(float(np.mean(vals)), 4) if vals else None

    return {
        "utilization": mean("utilization"),
        "sm_efficiency": mean("sm_efficiency"),
        "occupancy": mean("occupancy"),
        "devices": devices,
    }


def grouped_tables(
    trace: Trace, operators_by: str = "name", kernels_by: str = "name"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Operator and kernel rows under another grouping (input shapes, call stacks, launch)."""
    tree = op_tree(trace)
    return (
        rows(operator_table(trace, tree, operators_by)),
        rows(kernel_table(trace, tree, kernels_by)),
    )


def _memory_summary(trace: Trace) -> dict[str, Any] | None:
    """The memory section without the per-allocation columns (large; served on request)."""
    section = memory_section(trace)
    if section is not None:
        for device in section["devices"]:
            pairs = device.get("pairs")
            if isinstance(pairs, dict):
                device["pairs"] = {"count": pairs.get("count"), "live": pairs.get("live")}
    return section


#: The framework that wrote each input format (for badges and grouping in the dashboard).
FRAMEWORKS = {
    "kineto": "pytorch",
    "ascend_pt": "pytorch",
    "mindspore2": "mindspore",
    "mindspore_legacy": "mindspore",
}


def device_type(trace: Trace) -> str:
    """`gpu`, `npu` or `cpu`: what the reader saw, else whether the trace holds device work."""
    named = str(trace.meta.get("device_type") or "").lower()
    if named:
        return "npu" if named in ("npu", "ascend") else named
    return "gpu" if bool(is_kind(trace.events["kind"], DEVICE_KINDS).any()) else "cpu"


def build_report(
    trace: Trace,
    top: int | None = None,
    probe: dict[str, Any] | None = None,
    fp_point: str | None = None,
    bp_point: str | None = None,
    tree: OpTree | None = None,
    points: StepPoints = AUTO_POINTS,
) -> dict[str, Any]:
    """Analyse a trace into the overview report (tables cut to `top` rows when given).

    `probe` is the Profiler's DataLoader probe file of this worker, when there is one;
    `fp_point`/`bp_point` override the step trace's points (else the configured `points`,
    else found automatically).
    `tree`: the operator tree, when the caller has built it already.
    """
    steps = _lean(find_steps(trace))
    breakdown = _lean(step_breakdown(trace, steps))
    tree = tree if tree is not None else _lean(op_tree(trace))
    ops = rows(operator_table(trace, tree))
    kernels = _lean(rows(kernel_table(trace, tree)))
    durations = (steps.duration_ns / 1000.0).tolist()
    first = averaged_from(trace, len(steps))
    avg = breakdown.average_ns(first)
    step_trace = _lean(step_trace_section(trace, fp_point, bp_point, points))
    gpu = _gpu_summary(trace, int(steps.start_ns[0]), int(steps.end_ns[-1])) if len(steps) else None
    gpu = _lean(gpu)
    return {
        "report_version": REPORT_VERSION,
        "source": trace.meta.get("source"),
        "format": trace.meta.get("format"),
        "framework": FRAMEWORKS.get(str(trace.meta.get("format")), "unknown"),
        "device_type": device_type(trace),
        "steps": {
            "count": len(steps),
            "names": steps.names,
            "from_profiler_steps": steps.from_profiler_steps,
            "start_ns": steps.start_ns.tolist(),
            "durations_us": durations,
            "averaged_from": first,
            "average_us": float(np.mean(durations[first:])) if durations else 0.0,
        },
        "breakdown_us": {c: avg[c] / 1000.0 for c in CATEGORIES},
        "breakdown_per_step_us": [
            {c: v / 1000.0 for c, v in zip(CATEGORIES, row, strict=True)}
            for row in breakdown.per_step_ns.tolist()
        ],
        "gpu": gpu,
        "op_types": _lean(op_types_section(trace, tree)),
        "step_trace": step_trace,
        "data_pipeline": data_pipeline_section(trace, probe, (steps, breakdown)),
        "memory": _lean(_memory_summary(trace)),
        "communication": communication_section(trace),
        "modules": module_section(trace, tree),
        "operators": ops[:top] if top else ops,
        "kernels": kernels[:top] if top else kernels,
        "distributed": trace.meta.get("distributed_info"),
        "parallel": parallel_section(trace, step_trace),
    }
