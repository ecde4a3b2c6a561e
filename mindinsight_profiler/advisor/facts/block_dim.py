"""Facts: Ascend matrix operators launched on a single AI Core (msprof-analyze's block-dim
check, on the Cube operators where it decides the GEMM's speed).

An AI Core operator runs as `block_dim` blocks spread over the chip's AI Cores (32 on the
Ascend 910, 20-25 on the 910B variants). A MatMul or convolution launched with block dim 1
uses one core and leaves the rest idle: a MindSpore AlexNet at batch 2 runs its fc6 MatMul
(2 x 9216 @ 9216 x 4096) with block dim 1 for 9.2 ms, about 16 GFLOPS. msprof-analyze
compares the block dim with the core count; the exports do not state the count (and the
910B's varies by variant), so only single-core launches are counted here: they are below
the count of every Ascend training chip.

Sources: MindSpore's `framework_raw_*.csv` (block_dim per operator instance, with the AI
Core totals of `aicore_intermediate_*_detail.csv`), torch_npu's `kernel_details.csv` /
COMPUTE_TASK_INFO (Block Dim per kernel).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of
from mindinsight_profiler.advisor.facts.operators import steps_count
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

_CUBE = re.compile(r"^(?:Batch)?MatMul|^Conv\d?D|^Gemm|^GEMM|^Deconvolution")
_NEEDS = "block dims of Ascend operators (framework_raw or kernel_details)"


def _rows(ctx: Context) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(op type, block dim, total ns inside the steps) of every operator or kernel."""
    trace = ctx.trace
    if trace is None or ctx.report.get("device_type") != "npu":
        raise Unavailable(f"needs {_NEEDS}")
    ops = trace.tables.get("operators")
    if ops is not None and "block_dim" in ops and (ops["block_dim"] >= 0).any():
        return trace.strings.lookup(ops["op_type"]), ops["block_dim"], ops["total_ns"]
    kd = trace.tables.get("kernel_details")
    if kd is not None and {"block_dim", "op_type", "duration_ns"} <= set(kd):
        inside = step_of(ctx, kd["start_ns"]) >= 0
        dur = np.where(inside, kd["duration_ns"], 0)
        return trace.strings.lookup(kd["op_type"]), kd["block_dim"], dur
    raise Unavailable(f"needs {_NEEDS}")


def _single_core(ctx: Context) -> dict[str, Any]:
    if "npu.single_core" in ctx.memo:
        return dict(ctx.memo["npu.single_core"])
    types, dims, ns = _rows(ctx)
    cube = np.array([bool(_CUBE.match(t)) for t in types], dtype=bool)
    if not (cube & (dims > 0)).any():
        raise Unavailable("no MatMul or convolution with a block dim")
    narrow = cube & (dims == 1)
    by_type: dict[str, float] = {}
    for t, v in zip([types[i] for i in np.flatnonzero(narrow)], ns[narrow].tolist(), strict=True):
        by_type[t] = by_type.get(t, 0.0) + v
    steps = steps_count(ctx)
    out = {
        "us": float(ns[narrow].sum()) / 1000.0 / steps,
        "cube_us": float(ns[cube].sum()) / 1000.0 / steps,
        "types": sorted(by_type.items(), key=lambda kv: -kv[1]),
        "steps": steps,
    }
    ctx.memo["npu.single_core"] = out
    return dict(out)


@fact(
    "npu.single_core_matmul_us",
    "us",
    "Time per step of MatMul / convolution operators launched with block dim 1 (on one AI "
    "Core), microseconds. Evidence: those operator types.",
    _NEEDS,
)
def single_core_matmul_us(ctx: Context) -> Observed:
    got = _single_core(ctx)
    evidence = tuple(
        Evidence(
            kind="operator_type",
            **label("single_core_op", op=t, us=v / 1000.0 / got["steps"]),
            page="operators",
            name=t,
            value=round(v / 1000.0 / got["steps"], 3),
            unit="us",
        )
        for t, v in got["types"][:5]
    )
    return Observed(got["us"], evidence)


step_share("npu.single_core_matmul_share", "npu.single_core_matmul_us", _NEEDS)


@fact(
    "npu.single_core_of_matmul",
    "ratio",
    "Share (0..1) of MatMul / convolution time in single-core (block dim 1) launches.",
    _NEEDS,
)
def single_core_of_matmul(ctx: Context) -> float:
    got = _single_core(ctx)
    return got["us"] / got["cube_us"] if got["cube_us"] else 0.0
