"""Facts: how well the device's compute runs while it runs (the `perf_model` section).

`perf.mfu` divides the ideal matrix time by the whole step, so a device idle for half the
step halves it: that is idle time, which other rules name. These facts divide by the time
the device computes instead (busy MFU), so a low value says the compute itself is
inefficient, and they judge GEMM and convolution calls against their own roofline bound.
Both need the perf model to cover most of the device's time: when the modelled calls
cover less than `MIN_COVERED` of it (no recorded shapes, unknown kernels), the rest of the
time is of unknown efficiency and the facts are unavailable with that figure.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.perf import EVIDENCE_ROWS, _row_evidence, with_peaks
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact

NEEDS = "a device trace with operator shapes (record_shapes=True) and a known device"
#: Modelled calls must cover this share of the device's time for a verdict on its compute.
MIN_COVERED = 0.6
#: A GEMM / convolution below this share of its roofline bound counts as slow.
SLOW_ROOF = 0.3
_MATRIX = ("gemm", "conv")


def _device_model(ctx: Context) -> dict[str, Any]:
    model = with_peaks(ctx)
    totals = model["totals"]
    if ctx.report.get("device_type") not in ("gpu", "npu") or totals["time_base"] != "device":
        raise Unavailable("needs device work (a GPU or NPU trace): on the host, see hot_operator")
    covered = totals["covered_share"] or 0.0
    if covered < MIN_COVERED:
        raise Unavailable(
            f"the performance model covers only {covered:.0%} of the device time (calls "
            f"without shapes or unknown kernels); below {MIN_COVERED:.0%} its efficiency "
            "cannot be judged"
        )
    return model


def _steps(ctx: Context) -> int:
    return max(int((ctx.report.get("steps") or {}).get("count") or 0), 1)


@fact(
    "perf.compute_us",
    "us",
    "Device compute time per step (device time less communication, from the performance "
    "model), microseconds.",
    NEEDS,
)
def compute_us(ctx: Context) -> float:
    totals = _device_model(ctx)["totals"]
    return float(totals["device_us"]) * float(totals["compute_share"] or 0.0) / _steps(ctx)


@fact(
    "perf.compute_step_share",
    "ratio",
    "Share (0..1) of the average step the device spends computing (perf.compute_us over "
    "step.average_us, at most 1).",
    NEEDS,
)
def compute_step_share(ctx: Context) -> float:
    average = ctx.value("step.average_us")
    if not average:
        raise Unavailable("needs steps")
    return min(compute_us(ctx) / float(average), 1.0)


@fact(
    "perf.busy_mfu",
    "ratio",
    "MFU while the device computes (0..1): the step's matrix work at the device's peak for "
    "its dtype over the device's compute time, not the whole step (idle time left out); "
    "evidence: the MFU over the step.",
    NEEDS,
)
def busy_mfu(ctx: Context) -> Observed:
    _device_model(ctx)
    mfu = ctx.get("perf.mfu")
    average, busy = ctx.value("step.average_us"), compute_us(ctx)
    if mfu is None or not average or busy <= 0:
        raise Unavailable("needs MFU and device compute time")
    return Observed(min(float(mfu.value) * float(average) / busy, 1.0), mfu.evidence)


def _slow_matrix(ctx: Context) -> tuple[list[dict[str, Any]], float]:
    model = _device_model(ctx)
    rows = [r for r in model["shapes"] if r["category"] in _MATRIX and r["pct_of_roof"] is not None]
    total = sum(r["time_us"] for r in rows)
    if not total:
        raise Unavailable("no GEMM or convolution call with shapes, time and a roof")
    return [r for r in rows if r["pct_of_roof"] < SLOW_ROOF], total


def _slow_evidence(row: dict[str, Any]) -> Any:
    pct = 100 * row["pct_of_roof"]
    key = "slow_gemm_small" if row["bound"] == "memory" else "slow_gemm_tiled"
    return _row_evidence(key, row, pct=pct, intensity=row.get("arithmetic_intensity") or 0.0)


@fact(
    "perf.slow_matrix_share",
    "ratio",
    f"Share (0..1) of GEMM and convolution time in calls below {SLOW_ROOF:.0%} of their "
    "roofline bound; evidence: the costliest such shapes, each marked small (memory-bound: "
    "too little work per byte) or badly tiled (compute-bound yet far from the peak).",
    NEEDS,
)
def slow_matrix_share(ctx: Context) -> Observed:
    slow, total = _slow_matrix(ctx)
    worst = sorted(slow, key=lambda r: -r["time_us"] * (1 - r["pct_of_roof"]))
    evidence = tuple(_slow_evidence(r) for r in worst[:EVIDENCE_ROWS])
    return Observed(sum(r["time_us"] for r in slow) / total, evidence)


@fact(
    "perf.slow_matrix_us",
    "us",
    "GEMM and convolution time per step in calls below the slow-roof mark, microseconds.",
    NEEDS,
)
def slow_matrix_us(ctx: Context) -> float:
    return sum(r["time_us"] for r in _slow_matrix(ctx)[0]) / _steps(ctx)


@fact(
    "perf.slow_matrix_small_share",
    "ratio",
    "Share (0..1) of the slow GEMM/convolution time in memory-bound (small, low arithmetic "
    "intensity) calls; the rest is compute-bound work run far from the peak.",
    NEEDS,
)
def slow_matrix_small_share(ctx: Context) -> float:
    slow, _ = _slow_matrix(ctx)
    total = sum(r["time_us"] for r in slow)
    if not total:
        return 0.0
    return sum(r["time_us"] for r in slow if r["bound"] == "memory") / total
