"""Facts: device work that a setting would remove (layout transposes, the SDPA math path).

cuDNN runs its fastest convolution kernels (tensor cores, implicit GEMM) on NHWC data; a
model kept in PyTorch's default NCHW layout pays `nchwToNhwc` / `nhwcToNchw` transpose
kernels around those convolutions, which `channels_last` removes. And
`scaled_dot_product_attention` on a GPU falls back to its math path
(`aten::_scaled_dot_product_attention_math`: matmul, softmax, matmul, with the full score
matrix) when the flash and memory-efficient kernels are not picked; for the usual dtypes and
head sizes they could have been.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import gpu_trace
from mindinsight_profiler.advisor.facts.operators import _attention, steps_count, tree_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

_LAYOUT = re.compile(r"nchwToNhwc|nhwcToNchw|nchw2nhwc|nhwc2nchw", re.IGNORECASE)
_SDPA_MATH = "aten::_scaled_dot_product_attention_math"
#: Input dtypes the flash (16-bit) or memory-efficient (also fp32) kernels take.
_FAST_TYPES = ("c10::Half", "c10::BFloat16", "float")
#: Largest head size the fused kernels take (flash: 256; memory-efficient: any multiple of 8).
_MAX_HEAD = 256
EVIDENCE_ROWS = 5


def _device_ns(trace: Trace) -> float:
    ev = trace.events
    work = is_kind(ev["kind"], DEVICE_KINDS) & (ev["device"] >= 0)
    return float((ev["end_ns"][work] - ev["start_ns"][work]).sum())


def _layout(ctx: Context) -> dict[str, Any]:
    if "layout" in ctx.memo:
        return ctx.memo["layout"]
    trace = gpu_trace(ctx)
    if ctx.report.get("device_type") != "gpu":
        raise Unavailable("needs a GPU trace: the transposes are cuDNN kernels")
    ev = trace.events
    hits = np.flatnonzero(
        (ev["kind"] == Kind.KERNEL) & trace.names_matching(lambda s: _LAYOUT.search(s) is not None)
    )
    dur = (ev["end_ns"][hits] - ev["start_ns"][hits]).astype(np.float64)
    names = ev["name"][hits]
    rows = []
    for code in np.unique(names).tolist():
        mine = names == code
        rows.append((float(dur[mine].sum()), int(mine.sum()), trace.strings[int(code)]))
    rows.sort(reverse=True)
    total = _device_ns(trace)
    out = {
        "share": float(dur.sum()) / total if total else 0.0,
        "us": float(dur.sum()) / 1000.0 / steps_count(ctx),
        "evidence": tuple(
            Evidence(
                kind="kernel",
                page="kernels",
                name=name,
                value=ns / 1000.0,
                unit="us",
                **label("layout_kernel", name=name.split("(")[0][:80], us=ns / 1000.0, calls=calls),
            )
            for ns, calls, name in rows[:EVIDENCE_ROWS]
        ),
    }
    ctx.memo["layout"] = out
    return out


@fact(
    "kernel.layout_transpose_share",
    "ratio",
    "Share (0..1) of the device's time in NCHW<->NHWC transpose kernels (cuDNN "
    "nchwToNhwc / nhwcToNchw around convolutions); evidence: those kernels.",
    "a GPU trace (device kernels)",
)
def layout_transpose_share(ctx: Context) -> Observed:
    got = _layout(ctx)
    return Observed(got["share"], got["evidence"])


@fact(
    "kernel.layout_transpose_us",
    "us",
    "Time per step in NCHW<->NHWC transpose kernels, microseconds.",
    "a GPU trace (device kernels)",
)
def layout_transpose_us(ctx: Context) -> float:
    return float(_layout(ctx)["us"])


def fused_kernels_fit(dims_text: str, types_text: str) -> bool:
    """Whether the flash or memory-efficient SDPA kernels take these inputs: query, key and
    value in fp16/bf16/fp32 with a head size (the last dimension) of at most 256 and a
    multiple of 8."""
    try:
        dims, types = json.loads(dims_text or "[]"), json.loads(types_text or "[]")
    except ValueError:
        return False
    qkv = [d for d in dims[:3] if isinstance(d, list) and d]
    if len(qkv) < 3 or any(t not in _FAST_TYPES for t in types[:3]):
        return False
    head = qkv[0][-1]
    return isinstance(head, int) and 0 < head <= _MAX_HEAD and head % 8 == 0


def _sdpa_math(ctx: Context) -> dict[str, Any]:
    if "sdpa_math" in ctx.memo:
        return ctx.memo["sdpa_math"]
    trace = gpu_trace(ctx)
    if ctx.report.get("device_type") != "gpu":
        raise Unavailable("needs a GPU trace: the SDPA backends are CUDA kernels")
    ev = trace.events
    calls = np.flatnonzero(
        (ev["kind"] == Kind.CPU_OP) & trace.names_matching(lambda s: s == _SDPA_MATH)
    )
    tree = tree_of(ctx, trace)
    strings = trace.strings
    fit = [
        c
        for c in calls.tolist()
        if fused_kernels_fit(
            strings[int(ev["input_dims"][c])] if ev["input_dims"][c] >= 0 else "",
            strings[int(ev["input_types"][c])] if ev["input_types"][c] >= 0 else "",
        )
    ]
    local = np.searchsorted(tree.index, np.asarray(fit, dtype=np.int64))
    device = tree.device_total_ns[local].astype(np.float64)
    order = np.argsort(-device)[:EVIDENCE_ROWS]
    total = _device_ns(trace)
    out = {
        "calls": len(fit) / steps_count(ctx),
        "share": float(device.sum()) / total if total else 0.0,
        "us": float(device.sum()) / 1000.0 / steps_count(ctx),
        "evidence": tuple(
            Evidence(
                kind="operator",
                page="timeline",
                name=_SDPA_MATH,
                value=float(device[i]) / 1000.0,
                unit="us",
                start_ns=int(ev["start_ns"][fit[i]]),
                end_ns=int(ev["end_ns"][fit[i]]),
                **label(
                    "sdpa_math",
                    name=_SDPA_MATH,
                    us=float(device[i]) / 1000.0,
                    shapes=strings[int(ev["input_dims"][fit[i]])][:80],
                ),
            )
            for i in order.tolist()
        ),
    }
    ctx.memo["sdpa_math"] = out
    return out


@fact(
    "operator.sdpa_math_share",
    "ratio",
    "Share (0..1) of the device's time in scaled_dot_product_attention calls that ran the "
    "math path (aten::_scaled_dot_product_attention_math) although their dtypes and head "
    "size fit the flash / memory-efficient kernels; evidence: the costliest calls.",
    "a GPU trace with operator input shapes (record_shapes=True)",
)
def sdpa_math_share(ctx: Context) -> Observed:
    got = _sdpa_math(ctx)
    return Observed(got["share"], got["evidence"])


@fact(
    "operator.sdpa_math_us",
    "us",
    "Device time per step of those math-path SDPA calls, microseconds.",
    "a GPU trace with operator input shapes (record_shapes=True)",
)
def sdpa_math_us(ctx: Context) -> float:
    return float(_sdpa_math(ctx)["us"])


@fact(
    "operator.sdpa_math_calls",
    "count",
    "Math-path SDPA calls per step whose inputs fit the fused kernels.",
    "a GPU trace with operator input shapes (record_shapes=True)",
)
def sdpa_math_calls(ctx: Context) -> float:
    return float(_sdpa_math(ctx)["calls"])


def _top_ops(trace: Trace, ctx: Context) -> tuple[dict[int, tuple[np.ndarray, ...]], bool]:
    """Per track: (start, end, time) of the operators called from Python, sorted by start;
    time is the device time they launched when the run has device work, else host time."""
    tree = tree_of(ctx, trace)
    ev = trace.events
    node = tree.index
    up = ev["parent"][node]
    top = (ev["kind"][node] == Kind.CPU_OP) & (
        (up < 0) | (ev["kind"][np.clip(up, 0, None)] != Kind.CPU_OP)
    )
    on_device = bool(tree.device_total_ns.sum() > 0)
    time = (tree.device_total_ns if on_device else tree.host_total_ns)[top].astype(np.float64)
    node = node[top]
    out: dict[int, tuple[np.ndarray, ...]] = {}
    for t in np.unique(ev["track"][node]).tolist():
        mine = ev["track"][node] == t
        order = np.argsort(ev["start_ns"][node][mine], kind="stable")
        out[t] = (
            ev["start_ns"][node][mine][order],
            ev["end_ns"][node][mine][order],
            time[mine][order],
        )
    return out, on_device


@fact(
    "operator.manual_attention_share",
    "ratio",
    "Share (0..1) of compute time in the hand-written attention blocks "
    "(operator.manual_attention_per_step): the device time their operators launched over "
    "all device time, or their host time over all operator time on a CPU run.",
    "a PyTorch trace with operator events",
)
def manual_attention_share(ctx: Context) -> float:
    blocks = _attention(ctx)
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    if not blocks:
        return 0.0
    ops, on_device = _top_ops(trace, ctx)
    spent = 0.0
    for track, start, end in blocks:
        starts, ends, time = ops[track]
        lo, hi = np.searchsorted(starts, [start, end], side="left")
        spent += float(time[lo:hi][ends[lo:hi] <= end].sum())
    total = _device_ns(trace) if on_device else sum(float(t[2].sum()) for t in ops.values())
    return min(spent / total, 1.0) if total else 0.0
