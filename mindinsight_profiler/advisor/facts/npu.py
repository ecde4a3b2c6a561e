"""Facts: device free time and AI CPU operators (Ascend NPU first, GPU where it applies).

Free time is msprof-analyze's "free": step time in which the device runs neither compute
nor communication. Ascend exports state it per step (`step_trace_time.csv`, column Free,
over Stage), and that figure of the tool's is used as it is. Elsewhere it is the step-time
breakdown's share outside kernel, memcpy, memset and communication (device idle), which
only means something when the trace has device activity at all.

AI CPU operators run on the NPU's general-purpose cores, far slower than the AI Core; the
Ascend export names the core of each kernel (`kernel_details.csv`, Accelerator Core) and
MindSpore's legacy export lists them (`aicpu_intermediate_*.csv`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_windows
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

#: Breakdown categories in which the device is busy.
_BUSY = ("kernel", "memcpy", "memset", "communication")
#: msprof-analyze's AI CPU check flags operators of at least this duration.
AICPU_MIN_NS = 20_000
#: MindSpore's data-queue ops run on the AI CPU by design in dataset-sink mode (they feed
#: the device from the host queue); no dtype or operator change moves them, and their time
#: is the data pipeline's (the data rules judge it), so the AI CPU check leaves them out.
DATA_QUEUE_OPS = frozenset(
    {"GetNext", "DynamicGetNext", "DynamicGetNextV2", "InitData", "InitDataSetQueue"}
    | {"EndOfSequence", "QueueData", "GetNextFromQueue"}
)


def _free(ctx: Context) -> tuple[float, float, list[float] | None, str]:
    """(free us, step us, free us per step, source) averaged over steps."""
    trace = ctx.trace
    table = None if trace is None else trace.tables.get("step_trace_time")
    if table is not None and len(table["step"]) and table["stage_ns"].sum() > 0:
        free = table["free_ns"].astype(np.float64) / 1000.0
        stage = table["stage_ns"].astype(np.float64) / 1000.0
        return float(free.mean()), float(stage.mean()), free.tolist(), "step_trace_time.csv"
    if ctx.report.get("device_type") == "cpu":
        # a CPU-only run has no device to be idle: its "communication" is host collectives
        # (gloo), which the breakdown counts as communication all the same
        raise Unavailable("a CPU-only run has no device (kernels, copies) in its trace")
    breakdown = ctx.report.get("breakdown_us") or {}
    steps = ctx.report.get("steps") or {}
    if not steps.get("count") or not breakdown:
        raise Unavailable("needs steps and a step-time breakdown")
    if sum(float(breakdown.get(c) or 0.0) for c in _BUSY) <= 0:
        raise Unavailable("needs device activity (kernels, copies or communication) in the trace")
    rows = ctx.report.get("breakdown_per_step_us") or []
    durations = steps.get("durations_us") or []
    per_step = [
        max(0.0, float(d) - sum(float(row.get(c) or 0.0) for c in _BUSY))
        for d, row in zip(durations, rows, strict=False)
    ]
    step = float(steps["average_us"])
    busy = sum(float(breakdown.get(c) or 0.0) for c in _BUSY)
    return max(0.0, step - busy), step, per_step, "breakdown"


@fact(
    "free_time.share",
    "ratio",
    "Share of the step (0..1) the device runs neither compute nor communication (free/idle): "
    "Ascend's own Free / Stage from step_trace_time.csv when present, else the step-time "
    "breakdown outside kernel, memcpy, memset and communication; evidence: free time per step.",
    "device activity in the trace",
)
def free_share(ctx: Context) -> Observed:
    free, step, per_step, _ = _free(ctx)
    evidence = step_evidence(ctx.report, per_step, "free_time_step") if per_step else ()
    return Observed(free / step if step > 0 else 0.0, evidence)


@fact(
    "free_time.us",
    "us",
    "Average free (device idle) time per step, microseconds (same source as free_time.share).",
    "device activity in the trace",
)
def free_us(ctx: Context) -> float:
    return _free(ctx)[0]


def _aicpu_ops(ctx: Context) -> list[dict[str, Any]]:
    """AI CPU operator executions (name, start, end ns) from whichever export names them."""
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace")
    kd = trace.tables.get("kernel_details")
    if kd is not None and "core_type" in kd:
        cores = trace.strings.lookup(kd["core_type"])
        if all(c in ("", "N/A", "HCCL") for c in cores):
            raise Unavailable("kernel_details.csv names no accelerator cores (profiler level 0)")
        names = trace.strings.lookup(kd["name"])
        start, dur = kd["start_ns"], kd["duration_ns"]
        return [
            {"name": names[i], "start_ns": int(start[i]), "end_ns": int(start[i] + dur[i])}
            for i, c in enumerate(cores)
            if c == "AI_CPU"
        ]
    aicpu = trace.tables.get("aicpu")
    if aicpu is not None:
        names = trace.strings.lookup(aicpu["op_type"])
        return [
            {"name": n, "start_ns": int(s), "end_ns": int(e)}
            for n, s, e in zip(names, aicpu["start_ns"], aicpu["end_ns"], strict=True)
        ]
    raise Unavailable("needs an Ascend export that names each kernel's core (AI CPU or not)")


def _steps(ctx: Context) -> list[tuple[int, int]]:
    """The profiled steps as [start, end) ns (empty when the report names none)."""
    try:
        _, start, end = step_windows(ctx)
    except Unavailable:
        return []
    return list(zip(start.tolist(), end.tolist(), strict=True))


def _in_steps(op: dict[str, Any], steps: list[tuple[int, int]]) -> int:
    """ns of the op inside the steps (all of it when the steps are unknown)."""
    if not steps:
        return int(op["end_ns"] - op["start_ns"])
    return sum(max(0, min(op["end_ns"], e) - max(op["start_ns"], s)) for s, e in steps)


def _slow_aicpu(ctx: Context) -> list[dict[str, Any]]:
    """AI CPU executions of at least 20 us that fall in the steps (`in_step_ns`), data-queue
    ops left out: a saving must be step time an action can remove."""
    steps = _steps(ctx)
    ops = []
    for op in _aicpu_ops(ctx):
        if op["name"].split("-")[0] in DATA_QUEUE_OPS:
            continue
        inside = _in_steps(op, steps)
        if op["end_ns"] - op["start_ns"] >= AICPU_MIN_NS and inside > 0:
            ops.append({**op, "in_step_ns": inside})
    return sorted(ops, key=lambda op: op["start_ns"] - op["end_ns"])


@fact(
    "npu.aicpu_count",
    "count",
    "Number of operator executions on the AI CPU lasting at least 20 us (msprof-analyze's "
    "AI CPU check) inside the profiled steps, MindSpore's data-queue ops (GetNext, "
    "InitData, EndOfSequence...) left out; evidence: those executions, longest first.",
    "an Ascend export that names each kernel's core",
)
def aicpu_count(ctx: Context) -> Observed:
    ops = _slow_aicpu(ctx)
    evidence = tuple(
        Evidence(
            kind="kernel",
            **label("aicpu_op", name=op["name"]),
            page="kernels",
            value=(op["end_ns"] - op["start_ns"]) / 1000.0,
            unit="us",
            name=op["name"],
            start_ns=op["start_ns"],
            end_ns=op["end_ns"],
        )
        for op in ops
    )
    return Observed(len(ops), evidence)


@fact(
    "npu.aicpu_us",
    "us",
    "Time per step in AI CPU operator executions of at least 20 us, the part inside the "
    "steps only, microseconds.",
    "an Ascend export that names each kernel's core",
)
def aicpu_us(ctx: Context) -> float:
    total = sum(op["in_step_ns"] for op in _slow_aicpu(ctx)) / 1000.0
    return total / max(int((ctx.report.get("steps") or {}).get("count") or 1), 1)
