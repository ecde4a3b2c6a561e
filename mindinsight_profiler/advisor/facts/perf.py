"""Facts: how far the run is from the hardware (the report's `perf_model` section).

MFU, the roof shares and the two GEMM habits that keep matrix work off the tensor cores'
fast path: shapes not aligned to the tile (cuBLAS pads or falls back to slower kernels when
a dimension is not a multiple of 8 for 16-bit types, 16 for 8-bit, 4 for TF32) and FP32
matrix work on a device with much faster TF32/BF16 matrix units. Per-step times divide the
trace's totals by its step count, like the other per-step operator facts. Every fact is
unavailable, with the section's own reason, when the device or its peaks are unknown.
"""

from __future__ import annotations

import json
from typing import Any

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.perf.calls import MATRIX_CATEGORIES

NEEDS = "operator input shapes (record_shapes=True) and a known device"
#: dtype -> the multiple every GEMM dimension should be for the tensor cores' full speed
TILE = {"fp16": 8, "bf16": 8, "fp8_e4m3": 16, "fp8_e5m2": 16, "int8": 16}
EVIDENCE_ROWS = 5


def section(ctx: Context) -> dict[str, Any]:
    model = ctx.report.get("perf_model")
    if not model:
        raise Unavailable("needs operator calls with recorded shapes (record_shapes=True)")
    return dict(model)


def with_peaks(ctx: Context) -> dict[str, Any]:
    model = section(ctx)
    if model.get("unavailable"):
        raise Unavailable(str(model["unavailable"]))
    return model


def _steps(ctx: Context) -> int:
    return max(int((ctx.report.get("steps") or {}).get("count") or 0), 1)


def _row_evidence(key: str, row: dict[str, Any], **extra: Any) -> Evidence:
    start, end = row["longest_call_ns"]
    return Evidence(
        kind="operator", page="roofline", name=row["name"], value=row["time_us"], unit="us",
        start_ns=start, end_ns=end,
        **label(key, name=row["name"], shapes=row["input_shapes"] or "-", **extra),
    )  # fmt: skip


@fact(
    "perf.mfu",
    "ratio",
    "Model FLOPs utilisation (0..1) of the averaged steps: matrix "
    "FLOPs less recomputation, at the device's peak for each dtype, over the step time.",
    NEEDS,
)
def mfu(ctx: Context) -> Observed:
    model = with_peaks(ctx)
    value = model["totals"]["mfu"]
    if value is None:
        raise Unavailable("no step holds modelled matrix work")
    evidence = Evidence(
        kind="metric",
        page="roofline",
        value=value,
        unit="ratio",
        **label("mfu", pct=100 * value, device=model["device"]["name"]),
    )
    return Observed(value, (evidence,))


@fact(
    "perf.hfu",
    "ratio",
    "Hardware FLOPs utilisation (0..1): as perf.mfu, with recomputed matrix work counted.",
    NEEDS,
)
def hfu(ctx: Context) -> float:
    value = with_peaks(ctx)["totals"]["hfu"]
    if value is None:
        raise Unavailable("no step holds modelled matrix work")
    return float(value)


@fact(
    "perf.gemm_pct_of_roof",
    "ratio",
    "GEMM calls' achieved share (0..1) of their roofline "
    "bound, weighted by time; evidence: the slowest GEMM shapes.",
    NEEDS,
)
def gemm_pct_of_roof(ctx: Context) -> Observed:
    model = with_peaks(ctx)
    rows = [r for r in model["shapes"] if r["category"] == "gemm" and r["pct_of_roof"] is not None]
    weight = sum(r["time_us"] for r in rows)
    if not weight:
        raise Unavailable("no GEMM call with shapes and time")
    value = sum(r["pct_of_roof"] * r["time_us"] for r in rows) / weight
    evidence = tuple(
        _row_evidence("gemm_roof", r, pct=100 * r["pct_of_roof"]) for r in rows[:EVIDENCE_ROWS]
    )
    return Observed(value, evidence)


def _low(model: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in model["shapes"] if r["pct_of_roof"] is not None and r["pct_of_roof"] < 0.2]


@fact(
    "perf.low_roof_share",
    "ratio",
    "Share (0..1) of compute device time in operator calls "
    "below 20 % of their roofline bound; evidence: the costliest such calls.",
    NEEDS,
)
def low_roof_share(ctx: Context) -> Observed:
    model = with_peaks(ctx)
    value = model["totals"]["low_roof_share"]
    if value is None:
        raise Unavailable("needs device time of modelled calls")
    evidence = tuple(
        _row_evidence("low_roof", r, pct=100 * r["pct_of_roof"])
        for r in _low(model)[:EVIDENCE_ROWS]
    )
    return Observed(value, evidence)


@fact(
    "perf.low_roof_us",
    "us",
    "Device time per step in calls below 20 % of their roof, microseconds.",
    NEEDS,
)
def low_roof_us(ctx: Context) -> float:
    return sum(r["time_us"] for r in _low(with_peaks(ctx))) / _steps(ctx)


@fact(
    "perf.memory_bound_share",
    "ratio",
    "Share (0..1) of modelled time in memory-bound calls "
    "(arithmetic intensity below the device's ridge point).",
    NEEDS,
)
def memory_bound_share(ctx: Context) -> float:
    value = with_peaks(ctx)["totals"]["memory_bound_share"]
    if value is None:
        raise Unavailable("needs bytes per call (input types) and the device's bandwidth")
    return float(value)


def misaligned_dims(input_shapes: str, dtype: str) -> list[int]:
    """Matrix dimensions of a GEMM's operands that are not multiples of the dtype's tile:
    the last dimension of every operand of rank 2 or more, and both of a 2-D one (a
    weight)."""
    tile = TILE.get(dtype)
    if tile is None:
        return []
    try:
        shapes = json.loads(input_shapes)
    except ValueError:
        return []
    dims: list[int] = []
    for shape in shapes if isinstance(shapes, list) else []:
        if isinstance(shape, list) and len(shape) >= 2 and all(isinstance(d, int) for d in shape):
            dims += shape if len(shape) == 2 else [shape[-1]]
    return sorted({d for d in dims if d % tile})


def _misaligned(ctx: Context) -> list[tuple[dict[str, Any], list[int]]]:
    if ctx.report.get("device_type") != "gpu":
        raise Unavailable("needs a GPU trace: tile alignment is a tensor-core matter")
    rows = [r for r in section(ctx)["shapes"] if r["category"] == "gemm"]
    if not rows:
        raise Unavailable("no GEMM call with recorded shapes")
    found = [(r, misaligned_dims(r["input_shapes"], r["dtype"])) for r in rows]
    return [(r, dims) for r, dims in found if dims]


@fact(
    "perf.unaligned_gemm_share",
    "ratio",
    "Share (0..1) of GEMM time in 16/8-bit GEMMs with "
    "a dimension not a multiple of the tensor-core tile (8 for FP16/BF16, 16 for FP8/INT8); "
    "evidence: those shapes and their dimensions.",
    "GEMM input shapes on a GPU",
)
def unaligned_gemm_share(ctx: Context) -> Observed:
    bad = _misaligned(ctx)
    total = sum(r["time_us"] for r in section(ctx)["shapes"] if r["category"] == "gemm")
    evidence = tuple(
        _row_evidence("unaligned_gemm", r, dims=", ".join(map(str, d)))
        for r, d in bad[:EVIDENCE_ROWS]
    )
    return Observed(sum(r["time_us"] for r, _ in bad) / total if total else 0.0, evidence)


@fact(
    "perf.unaligned_gemm_us",
    "us",
    "GEMM time per step in unaligned 16/8-bit GEMMs, microseconds.",
    "GEMM input shapes on a GPU",
)
def unaligned_gemm_us(ctx: Context) -> float:
    return sum(r["time_us"] for r, _ in _misaligned(ctx)) / _steps(ctx)


def _fp32_matrix(ctx: Context) -> tuple[list[dict[str, Any]], float]:
    model = with_peaks(ctx)
    peaks = model["device"]["peak_tflops"]
    faster = max(peaks.get("tf32", 0.0), peaks.get("bf16", 0.0), peaks.get("fp16", 0.0))
    fp32 = peaks.get("fp32_matrix") or peaks.get("fp32") or 0.0
    if not fp32 or faster < 2 * fp32:
        raise Unavailable(f"{model['device']['name']} has no matrix units much faster than FP32")
    matrix = [r for r in model["shapes"] if r["category"] in MATRIX_CATEGORIES]
    total = sum(r["time_us"] for r in matrix)
    if not total:
        raise Unavailable("no matrix work with shapes and time")
    return [r for r in matrix if r["dtype"] == "fp32"], total


@fact(
    "perf.fp32_matrix_share",
    "ratio",
    "Share (0..1) of matrix time (GEMM, convolution, "
    "attention) computed in FP32 on a device whose TF32/BF16/FP16 matrix units are at least "
    "twice as fast; evidence: the costliest FP32 shapes.",
    NEEDS,
)
def fp32_matrix_share(ctx: Context) -> Observed:
    rows, total = _fp32_matrix(ctx)
    evidence = tuple(_row_evidence("fp32_matrix", r) for r in rows[:EVIDENCE_ROWS])
    return Observed(sum(r["time_us"] for r in rows) / total, evidence)


@fact(
    "perf.fp32_matrix_us",
    "us",
    "FP32 matrix time per step (see perf.fp32_matrix_share), microseconds.",
    NEEDS,
)
def fp32_matrix_us(ctx: Context) -> float:
    return sum(r["time_us"] for r in _fp32_matrix(ctx)[0]) / _steps(ctx)
