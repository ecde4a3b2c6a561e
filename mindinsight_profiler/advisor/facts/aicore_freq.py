"""Facts: the AI Core clock the kernels ran at (msprof-analyze's AI Core frequency check).

torch_npu's kernel_details.csv (db: TASK_PMU_INFO) gives each AI Core kernel's cycles summed
over its blocks and its core time: cycles / (time x block dim) is the clock it ran at (the
910B AlexNet job: 1,800 MHz for every kernel, e.g. 8,973,314 cycles in 311.6 us over 16
blocks). A kernel with more blocks than cores runs them in waves and would read low, so only
kernels that fit on any 910B at once count: block dim up to 20 on the Cube (aic) and 40 on
the Vector (aiv) cores. The reference is the fastest clock seen in the window, so a chip
capped for the whole window reads as no drop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

_NEEDS = "AI Core PMU cycles per kernel (torch_npu kernel_details aic/aiv_total_cycles)"
#: (PMU prefix, largest block dim that fits on the cores of every 910B variant)
_CORES = (("aic", 20), ("aiv", 40))


def _clocks(ctx: Context) -> dict[str, Any]:
    """Per usable kernel: name, clock (MHz) and core time (ns), inside the steps."""
    if "npu.clocks" in ctx.memo:
        return dict(ctx.memo["npu.clocks"])
    trace = ctx.trace
    kd = None if trace is None else trace.tables.get("kernel_details")
    if trace is None or kd is None or "block_dim" not in kd:
        raise Unavailable(f"needs {_NEEDS}")
    names: list[str] = []
    mhz: list[np.ndarray] = []
    weight: list[np.ndarray] = []
    inside = step_of(ctx, kd["start_ns"]) >= 0
    dims = kd["block_dim"].astype(np.float64)
    for core, most in _CORES:
        cycles, time = kd.get(f"pmu_{core}_total_cycles"), kd.get(f"pmu_{core}_total_time")
        if cycles is None or time is None:
            continue
        t = time.astype(np.float64)
        ok = inside & (cycles > 0) & (t > 0) & (dims > 0) & (dims <= most)
        rows = np.flatnonzero(ok)
        mhz.append(cycles[rows] / (t[rows] / 1000.0) / dims[rows])
        weight.append(t[rows])
        names += trace.strings.lookup(kd["name"][rows])
    if not names:
        raise Unavailable(f"needs {_NEEDS}: no AI Core kernel with cycles in the steps")
    out = {"names": names, "mhz": np.concatenate(mhz), "ns": np.concatenate(weight)}
    ctx.memo["npu.clocks"] = out
    return dict(out)


@fact(
    "npu.aicore_freq_drop",
    "ratio",
    "How far (0..1) the AI Core clock of the kernels in the steps falls below the fastest "
    "clock seen: 1 - time-weighted mean / maximum, with each kernel's clock from its PMU "
    "cycles / (core time x block dim). Evidence: the slowest kernels.",
    _NEEDS,
)
def aicore_freq_drop(ctx: Context) -> Observed:
    got = _clocks(ctx)
    mhz, ns = got["mhz"], got["ns"]
    top = float(mhz.max())
    mean = float((mhz * ns).sum() / ns.sum())
    slow = np.argsort(mhz, kind="stable")[:5]
    evidence = tuple(
        Evidence(
            kind="kernel",
            **label("kernel_clock", name=got["names"][i], mhz=float(mhz[i]), top=top),
            page="kernels",
            name=got["names"][i],
            value=round(float(mhz[i]), 1),
            unit="MHz",
        )
        for i in slow.tolist()
        if mhz[i] < 0.95 * top
    )
    return Observed(max(0.0, 1.0 - mean / top), evidence)


@fact(
    "npu.aicore_freq_mhz",
    "number",
    "The fastest AI Core clock of the kernels in the steps, MHz (the reference of "
    "npu.aicore_freq_drop).",
    _NEEDS,
)
def aicore_freq_mhz(ctx: Context) -> float:
    return float(_clocks(ctx)["mhz"].max())
