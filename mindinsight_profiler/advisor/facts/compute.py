"""Facts: GPU device compute (utilization, occupancy, tensor cores, idle gaps).

Summary numbers come from the report's GPU section (the plugin's definitions, checked against
its golden data); event-level facts read the Trace. Every fact here is unavailable when the
input has no GPU kernels, so a CPU-only or NPU run lists the GPU rules as "not evaluated"
rather than "checked and fine". Shared helpers (step windows, device timeline) live here too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import sorted_distinct

NEEDS_GPU = "a GPU trace (device kernels)"
#: An idle gap at least this long is the host doing something else, not launch latency
#: (a launch costs ~5-20 us, so 1 ms is the time of 50+ launches).
LONG_GAP_NS = 1_000_000


def gpu_section(ctx: Context) -> dict[str, Any]:
    """The report's GPU summary; unavailable when the run has no GPU kernels."""
    gpu = ctx.report.get("gpu")
    if not gpu or not gpu.get("devices"):
        raise Unavailable(f"needs {NEEDS_GPU}")
    return dict(gpu)


def gpu_trace(ctx: Context) -> Trace:
    """The trace, when it has device kernels (else Unavailable)."""
    gpu_section(ctx)
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    return trace


def step_windows(ctx: Context) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Step names and [start, end) in absolute trace ns, from the report."""
    steps = ctx.report.get("steps") or {}
    names = [str(n) for n in steps.get("names") or []]
    starts = steps.get("start_ns")
    if not names or not starts:
        raise Unavailable("needs at least one step with its start time")
    start = np.asarray(starts, dtype=np.int64)
    end = start + np.round(np.asarray(steps["durations_us"], dtype=np.float64) * 1000).astype(
        np.int64
    )
    return names, start, end


def step_of(ctx: Context, t_ns: np.ndarray) -> np.ndarray:
    """Index of the step each time falls in, or -1 outside every step."""
    _, start, end = step_windows(ctx)
    i = np.searchsorted(start, t_ns, side="right") - 1
    ok = (i >= 0) & (t_ns < end[np.clip(i, 0, None)])
    return np.where(ok, i, -1)


def device_timeline(ctx: Context) -> dict[str, np.ndarray]:
    """Device work (kernels, memcpy, memset) of the busiest device, sorted by start, with
    `idle_before` = ns the device was fully idle (no stream busy) just before each item.

    Cached in ctx.memo: the short-kernel and idle-gap facts share it.
    """
    if "gpu.timeline" in ctx.memo:
        return dict(ctx.memo["gpu.timeline"])
    trace = gpu_trace(ctx)
    ev = trace.events
    work = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & (ev["device"] >= 0))
    if not len(work):
        raise Unavailable(f"needs {NEEDS_GPU}")
    dur = ev["end_ns"][work] - ev["start_ns"][work]
    devices = ev["device"][work]
    busiest = int(np.argmax(np.bincount(devices - devices.min(), weights=dur))) + devices.min()
    work = work[devices == busiest]
    work = work[np.argsort(ev["start_ns"][work], kind="stable")]
    start, end = ev["start_ns"][work], ev["end_ns"][work]
    reach = np.maximum.accumulate(end)
    idle = np.zeros(len(work), dtype=np.int64)
    idle[1:] = np.maximum(start[1:] - reach[:-1], 0)
    out = {"index": work, "start": start, "end": end, "idle_before": idle, "reach": reach}
    ctx.memo["gpu.timeline"] = out
    return dict(out)


@fact(
    "gpu.utilization",
    "ratio",
    "Share of the steps' span (0..1) with at least one kernel running, averaged over devices "
    "(the PyTorch profiler plugin's GPU Utilization).",
    NEEDS_GPU,
)
def utilization(ctx: Context) -> float:
    value = gpu_section(ctx).get("utilization")
    if value is None:
        raise Unavailable(f"needs {NEEDS_GPU}")
    return float(value) / 100.0


@fact(
    "gpu.occupancy",
    "percent",
    "Estimated achieved occupancy, percent: kernels' 'est. achieved occupancy %' weighted by "
    "their time in the steps (evidence: the kernels with the most low-occupancy time).",
    "a GPU trace whose kernels carry 'est. achieved occupancy %' (CUDA)",
)
def occupancy(ctx: Context) -> Observed:
    value = gpu_section(ctx).get("occupancy")
    if value is None and ctx.report.get("device_type") == "npu":
        raise Unavailable("warp occupancy is a GPU notion (Ascend: see block_dim)")
    if value is None:
        raise Unavailable("the kernels carry no 'est. achieved occupancy %' (e.g. ROCm traces)")
    rows = [k for k in ctx.report.get("kernels") or [] if k.get("occupancy") is not None]
    rows.sort(key=lambda k: -k["total_us"] * (100.0 - float(k["occupancy"])))
    evidence = tuple(
        Evidence(
            kind="kernel",
            **label(
                "kernel_occupancy", name=k["name"][:80], occupancy=k["occupancy"], us=k["total_us"]
            ),
            page="kernels",
            value=round(float(k["occupancy"]), 2),
            unit="percent",
            name=k["name"],
        )
        for k in rows[:10]
    )
    return Observed(float(value), evidence)


@fact(
    "gpu.compute_capability",
    "number",
    "Lowest CUDA compute capability of the devices that ran kernels, as major.minor "
    "(7.0 = Volta, the first with tensor cores).",
    "device properties in the trace (Kineto 'deviceProperties')",
)
def compute_capability(ctx: Context) -> float:
    if ctx.report.get("device_type") == "npu":
        # the real cause, not "no device properties": Ascend's Cube unit runs every MatMul and
        # Conv2D (there is no FP32 path that skips it), so the question does not arise
        raise Unavailable("tensor cores are a GPU notion: Ascend runs matrix work on the Cube")
    values = [d.get("compute_capability") for d in gpu_section(ctx)["devices"]]
    known = [float(v) for v in values if v]
    if not known:
        raise Unavailable("the trace has no device properties (compute capability unknown)")
    if "AMD" in str(gpu_section(ctx)["devices"][0].get("name") or ""):
        raise Unavailable("not an NVIDIA device (tensor-core kernel names are CUDA's)")
    return min(known)


def _kernel_total_us(ctx: Context) -> float:
    total = sum(float(k["total_us"]) for k in ctx.report.get("kernels") or [])
    if total <= 0:
        raise Unavailable(f"needs {NEEDS_GPU}")
    return total


@fact(
    "gpu.tc_kernel_share",
    "ratio",
    "Share of all kernel time (0..1) in kernels that run on tensor cores, recognised by name "
    "(hmma, 884, 1688, 16816, xmma, cutlass tensorop ...; the plugin's 'Kernel Time using "
    "Tensor Cores').",
    NEEDS_GPU,
)
def tc_kernel_share(ctx: Context) -> float:
    total = _kernel_total_us(ctx)
    tc = sum(float(k["total_us"]) for k in ctx.report.get("kernels") or [] if k.get("tc_used"))
    return tc / total


@fact(
    "gpu.tc_eligible_share",
    "ratio",
    "Share of all kernel time (0..1) launched by operators tensor cores can accelerate "
    "(matmul/convolution family; the plugin's 'kernels with N% time are launched by Tensor "
    "Cores eligible operators'). Evidence: those operators by device time.",
    NEEDS_GPU,
)
def tc_eligible_share(ctx: Context) -> Observed:
    total = _kernel_total_us(ctx)
    rows = [o for o in ctx.report.get("operators") or [] if o.get("tc_eligible")]
    rows.sort(key=lambda o: -float(o["device_self_us"]))
    eligible = sum(float(o["device_self_us"]) for o in rows)
    evidence = tuple(
        Evidence(
            kind="operator",
            **label(
                "tc_operator", name=o["name"], us=o["device_self_us"], ratio=o["tc_self_ratio"]
            ),
            page="operators",
            value=float(o["device_self_us"]),
            unit="us",
            name=o["name"],
        )
        for o in rows[:10]
        if o["device_self_us"] > 0
    )
    return Observed(eligible / total, evidence)


def _long_gaps(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, step index) of the device's idle gaps >= LONG_GAP_NS inside the steps.

    Idle = the steps' time minus the union of device work; a gap that crosses a step
    boundary is cut there, so each piece belongs to one step.
    """
    tl = device_timeline(ctx)
    _, start, end = step_windows(ctx)
    busy = iv.union(tl["start"], tl["end"])
    idle = iv.subtract(iv.union(start, end), busy)
    pts = sorted_distinct(np.concatenate([idle.start, idle.end, start, end]))
    lo, hi = pts[:-1], pts[1:]
    in_idle = iv.contains(idle, lo)
    step = step_of(ctx, lo)
    keep = in_idle & (step >= 0) & (hi - lo >= LONG_GAP_NS)
    return lo[keep], hi[keep], step[keep]


@fact(
    "gpu.long_idle_us",
    "us",
    "Average per step of the device's idle gaps of 1 ms or more (no kernel, copy or memset "
    "on any stream), microseconds. Evidence: the longest gaps as timeline ranges.",
    NEEDS_GPU,
)
def long_idle_us(ctx: Context) -> Observed:
    names, _, _ = step_windows(ctx)
    gap_start, gap_end, step = _long_gaps(ctx)
    length = gap_end - gap_start
    order = np.argsort(-length, kind="stable")[:10]
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("device_idle", us=length[i] / 1000, step=names[step[i]]),
            page="timeline",
            value=round(float(length[i]) / 1000.0, 3),
            unit="us",
            step=names[step[i]],
            start_ns=int(gap_start[i]),
            end_ns=int(gap_end[i]),
        )
        for i in order.tolist()
    )
    return Observed(float(length.sum()) / 1000.0 / len(names), evidence)


step_share("gpu.long_idle_share", "gpu.long_idle_us", NEEDS_GPU)


@fact(
    "gpu.long_idle_gaps",
    "count",
    "Number of device idle gaps of 1 ms or more inside the steps, per step.",
    NEEDS_GPU,
)
def long_idle_gaps(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(_long_gaps(ctx)[0]) / len(names)


__all__ = ["device_timeline", "gpu_section", "gpu_trace", "step_of", "step_windows"]
