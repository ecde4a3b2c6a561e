"""GPU utilization, estimated SM efficiency and estimated achieved occupancy per device.

All three are measured over the steps' span (first step start to last step end):
- utilization: share of the span with at least one kernel running;
- SM efficiency: at each instant min(1, sum of running kernels' blocks per SM), averaged
  over the span (a kernel with fewer blocks than SMs leaves SMs idle);
- occupancy: kernels' "est. achieved occupancy %" weighted by their time inside the span.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace


@dataclass(frozen=True)
class DeviceMetrics:
    device: int
    utilization: float  # fraction 0..1
    sm_efficiency: float | None
    occupancy: float | None  # percent
    kernel_ns: int


def _sm_efficiency(
    start: np.ndarray, end: np.ndarray, blocks: np.ndarray, lo: int, hi: int
) -> float | None:
    keep = blocks > 0
    if not keep.any():
        return None
    s, e, v = start[keep], end[keep], blocks[keep]
    times = np.concatenate([s, e])
    delta = np.concatenate([v, -v])
    is_end = np.concatenate([np.zeros(len(s), np.int8), np.ones(len(e), np.int8)])
    order = np.lexsort((is_end, times))
    times, level = times[order], np.cumsum(delta[order])
    seg_lo = np.clip(times[:-1], lo, hi)
    seg_hi = np.clip(times[1:], lo, hi)
    value = np.minimum(level[:-1], 1.0)
    active = level[:-1] > 0.0
    total = float(((seg_hi - seg_lo) * value)[active].sum())
    return total / (hi - lo)


def device_metrics(
    trace: Trace, span_start_ns: int, span_end_ns: int, busy_only: np.ndarray | None = None
) -> list[DeviceMetrics]:
    """Metrics for every device that ran kernels, over [span_start_ns, span_end_ns).

    `busy_only`: the kernels that count as busy for utilization (default: all)."""
    ev = trace.events
    k = np.flatnonzero((ev["kind"] == Kind.KERNEL) & (ev["device"] >= 0))
    out: list[DeviceMetrics] = []
    span = span_end_ns - span_start_ns
    if span <= 0:
        return out
    window = iv.Ranges(np.array([span_start_ns]), np.array([span_end_ns]))
    for dev in np.unique(ev["device"][k]).tolist():
        rows = k[ev["device"][k] == dev]
        s, e = ev["start_ns"][rows], ev["end_ns"][rows]
        counted = rows if busy_only is None else rows[busy_only[rows]]
        busy = iv.intersect(iv.union(ev["start_ns"][counted], ev["end_ns"][counted]), window)
        busy_ns = busy.total()
        occ = ev["occupancy"][rows]
        has = ~np.isnan(occ) & (occ >= 0)
        clipped = np.clip(e, span_start_ns, span_end_ns) - np.clip(s, span_start_ns, span_end_ns)
        w = clipped[has]
        occupancy = float((occ[has] * w).sum() / w.sum()) if has.any() and w.sum() > 0 else None
        bps = np.nan_to_num(ev["blocks_per_sm"][rows], nan=0.0)
        out.append(
            DeviceMetrics(
                device=int(dev),
                utilization=busy_ns / span,
                sm_efficiency=_sm_efficiency(s, e, bps, span_start_ns, span_end_ns),
                occupancy=occupancy,
                kernel_ns=int((e - s).sum()),
            )
        )
    return out


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100.0 * x, 4)


def gpu_summary(trace: Trace, start_ns: int, end_ns: int) -> dict[str, Any] | None:
    """The report's `gpu` section: each device's metrics over [start, end) and their means.

    On an NPU, utilization is the share of time a compute kernel runs: communication ops
    (HCCL) keep the device's queues busy while it computes nothing, and Ascend's own tools
    count them apart (computing vs communication, `npu` section). On a GPU every kernel
    counts, as in the PyTorch profiler plugin, whose figures the golden tests hold."""
    npu = str(trace.meta.get("device_type") or "").lower() in ("npu", "ascend")
    metrics = device_metrics(trace, start_ns, end_ns, ~comm_kernel_mask(trace) if npu else None)
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
