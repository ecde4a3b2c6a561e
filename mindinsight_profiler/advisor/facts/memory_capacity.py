"""Facts: device memory against the device's capacity, and what the caching allocator holds.

The peaks come from the report's memory section (`[memory]` records of profile_memory=True:
allocated and reserved totals after every allocation); the capacity from the trace's device
properties (Kineto `deviceProperties.totalGlobalMem`, CUDA and ROCm). A run whose reserved
memory is near the capacity gains nothing from speed-ups that need memory (a larger batch,
more activations kept) and is one allocation away from an out-of-memory error; when the
allocator reserves far more than the tensors need at that moment, the difference is blocks
it cannot reuse (fragmentation), and a run near capacity can fail with memory to spare.
Runs whose device memory size is not recorded (Ascend exports, old Kineto traces without
device properties) leave these facts unavailable.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

NEEDS = "memory records (profile_memory=True) and the device's memory size (GPU traces)"
_GIB = float(1 << 30)
_ZH = {"reserved": "预留内存", "allocated": "已分配内存"}


def _device_id(name: str) -> int | None:
    """`CUDA:0` -> 0; host memory (`CPU`) and devices without an id -> None."""
    kind, _, index = name.partition(":")
    return int(index) if kind.upper() in ("CUDA", "HIP", "GPU") and index.isdigit() else None


def _devices(ctx: Context) -> list[dict[str, Any]]:
    """Per device with memory records and a known size: peaks and capacity (memoised);
    the device with the highest share first."""
    if "memory.capacity" in ctx.memo:
        return list(ctx.memo["memory.capacity"])
    gpu = ctx.report.get("gpu") or {}
    sizes = {
        d.get("device"): d.get("memory_bytes")
        for d in gpu.get("devices") or []
        if isinstance(d.get("memory_bytes"), int) and d["memory_bytes"] > 0
    }
    if not sizes:
        raise Unavailable("the trace does not record the device's memory size")
    memory = ctx.report.get("memory") or {}
    out = []
    for device in memory.get("devices") or []:
        index = _device_id(str(device.get("device") or ""))
        allocated, reserved = device.get("peak_allocated"), device.get("peak_reserved")
        if index not in sizes or allocated is None:
            continue
        peak = reserved if reserved is not None else allocated
        out.append({
            "device": device["device"], "capacity": sizes[index], "peak": peak,
            "allocated": allocated, "reserved": reserved,
            "share": peak["bytes"] / sizes[index],
        })  # fmt: skip
    if not out:
        raise Unavailable(f"needs {NEEDS}")
    out.sort(key=lambda d: -d["share"])
    ctx.memo["memory.capacity"] = out
    return out


def _evidence(device: dict[str, Any], what: str, peak: dict[str, Any]) -> Evidence:
    return Evidence(
        kind="time_range",
        **label(
            "memory_peak_at" if peak.get("operator") else "memory_peak",
            device=device["device"], what=what, what_zh=_ZH[what],
            gib=peak["bytes"] / _GIB,
            total=device["capacity"] / _GIB, name=peak.get("operator") or "-",
        ),
        page="memory",
        value=round(peak["bytes"] / _GIB, 3),
        unit="GiB",
        name=peak.get("operator"),
        start_ns=int(peak["ts_ns"]),
        end_ns=int(peak["ts_ns"]) + 1,
    )  # fmt: skip


@fact(
    "memory.peak_share",
    "ratio",
    "Highest share (0..1) of a device's memory that the process held at once: peak reserved "
    "bytes (the caching allocator's, what other allocations cannot use) or, without "
    "reserved totals, peak allocated, divided by the device's total memory. Evidence: the "
    "peak, with the operator that reached it.",
    NEEDS,
)
def peak_share(ctx: Context) -> Observed:
    top = _devices(ctx)[0]
    what = "reserved" if top["reserved"] is not None else "allocated"
    return Observed(float(top["share"]), (_evidence(top, what, top["peak"]),))


@fact(
    "memory.unused_reserved_share",
    "ratio",
    "On the device of memory.peak_share: the share (0..1) of its peak reserved memory that "
    "no tensor used even at the allocated peak, 1 - peak allocated / peak reserved (cached "
    "blocks too fragmented to serve the allocations that came). Evidence: both peaks.",
    "memory records with reserved totals (PyTorch 1.10 or later) and the device's memory size",
)
def unused_reserved_share(ctx: Context) -> Observed:
    top = _devices(ctx)[0]
    reserved = top["reserved"]
    if reserved is None or reserved["bytes"] <= 0:
        raise Unavailable("the memory records carry no reserved totals")
    share = max(0.0, 1.0 - top["allocated"]["bytes"] / reserved["bytes"])
    evidence = (_evidence(top, "reserved", reserved), _evidence(top, "allocated", top["allocated"]))
    return Observed(share, evidence)
