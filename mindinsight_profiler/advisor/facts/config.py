"""Facts: training-loop configuration seen in a PyTorch trace (DataParallel, optimizer).

torch.optim wraps `step()` and `zero_grad()` in record_function spans named
`Optimizer.step#<Class>.step` and `Optimizer.zero_grad#<Class>.zero_grad` (user annotations
in Kineto; torch_npu's exports record the same spans as operators), and
nn.DataParallel wraps its forward in `DataParallel.forward`; what runs inside those spans
tells how the optimizer is implemented and whether gradients are memset.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.operators import steps_count, tree_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

_MULTI_TENSOR = ("aten::_foreach_", "aten::_fused_")
_FILL = ("aten::zero_", "aten::fill_")
#: Formats whose host side is PyTorch's operator tree: Kineto and torch_npu's exports.
_PYTORCH_FORMATS = (FormatTag.KINETO, FormatTag.ASCEND_PT)


def _pytorch(ctx: Context) -> Trace:
    trace = ctx.trace
    if ctx.report.get("format") not in _PYTORCH_FORMATS or trace is None:
        raise Unavailable("needs a PyTorch trace (Kineto or torch_npu)")
    if not (trace.kind == Kind.CPU_OP).any():
        raise Unavailable("needs operator events in the PyTorch trace")
    return trace


def _spans(trace: Trace, prefix: str) -> np.ndarray:
    """The record_function spans named `prefix...`: user annotations, or operator events in
    traces of PyTorch 1.8 and older, which wrote record_function ranges with cat "Operator"
    (the TensorBoard plugin's ResNet-50 runs: `Optimizer.step#SGD.step` is a CPU op)."""
    kinds = (trace.kind == Kind.USER_ANNOTATION) | (trace.kind == Kind.CPU_OP)
    return np.flatnonzero(trace.names_matching(lambda s: s.startswith(prefix)) & kinds)


def _top_ops_inside(trace: Trace, spans: np.ndarray) -> list[np.ndarray]:
    """For each span: the operators it calls directly (not those nested in other operators;
    the span itself may be an operator event, see `_spans`)."""
    ev = trace.events
    parent = ev["parent"]
    is_op = ev["kind"] == Kind.CPU_OP
    ops = np.flatnonzero(is_op)
    ops = ops[np.argsort(ev["start_ns"][ops], kind="stable")]
    starts = ev["start_ns"][ops]
    out = []
    for s in spans.tolist():
        lo, hi = np.searchsorted(starts, [ev["start_ns"][s], ev["end_ns"][s]], side="left")
        inside = ops[lo:hi]
        inside = inside[
            (ev["track"][inside] == ev["track"][s])
            & (ev["end_ns"][inside] <= ev["end_ns"][s])
            & (inside != s)
        ]
        up = parent[inside]
        out.append(inside[(up == s) | (up < 0) | ~is_op[np.clip(up, 0, None)]])
    return out


#: Kernels of fused / multi-tensor optimizers launched without an aten operator (apex and
#: DeepSpeed FusedAdam launch `multi_tensor_apply_kernel` from their own extension).
_MULTI_TENSOR_KERNELS = ("multi_tensor_apply", "fused_adam", "FusedAdam", "fused_lamb")


def _multi_tensor_kernels(trace: Trace, spans: np.ndarray) -> int:
    """Multi-tensor kernels launched from inside the optimizer spans (by the launching
    runtime call's time and thread)."""
    ev = trace.events
    kernels = np.flatnonzero(
        (ev["kind"] == Kind.KERNEL)
        & (ev["caller"] >= 0)
        & trace.names_matching(lambda s: any(k in s for k in _MULTI_TENSOR_KERNELS))
    )
    if not len(kernels):
        return 0
    launch = ev["caller"][kernels]
    count = 0
    for s in spans.tolist():
        inside = (
            (ev["start_ns"][launch] >= ev["start_ns"][s])
            & (ev["start_ns"][launch] < ev["end_ns"][s])
            & (ev["track"][launch] == ev["track"][s])
        )
        count += int(inside.sum())
    return count


def _optimizer(ctx: Context) -> dict[str, Any]:
    if "optimizer" in ctx.memo:
        return ctx.memo["optimizer"]
    trace = _pytorch(ctx)
    spans = _spans(trace, "Optimizer.step#")
    if not len(spans):
        raise Unavailable("needs torch.optim Optimizer.step spans in the trace")
    calls = _top_ops_inside(trace, spans)
    names = [trace.strings.lookup(trace.events["name"][c]) for c in calls]
    multi = sum(sum(n.startswith(_MULTI_TENSOR) for n in call) for call in names)
    multi += _multi_tensor_kernels(trace, spans)
    single = sum(sum(not n.startswith(_MULTI_TENSOR) for n in call) for call in names)
    first = trace.strings[int(trace.events["name"][spans[0]])]
    if "fused" in first.lower() and not multi:
        # FusedAdam and its kin update every tensor in fused kernels whose launches a
        # host-only trace does not show; their per-tensor calls are step counters
        multi = 1
    ev = trace.events
    out = {
        "per_tensor": single / len(spans),
        "multi_tensor": multi / len(spans),
        "optimizer": first.split("#", 1)[-1].rsplit(".", 1)[0],
        "evidence": tuple(
            Evidence(
                kind="time_range",
                **label("optimizer_calls", name=first, calls=len(c)),
                page="timeline",
                value=(int(ev["end_ns"][s]) - int(ev["start_ns"][s])) / 1000.0,
                unit="us",
                name=first,
                start_ns=int(ev["start_ns"][s]),
                end_ns=int(ev["end_ns"][s]),
            )
            for s, c in zip(spans.tolist(), calls, strict=True)
        ),
    }
    ctx.memo["optimizer"] = out
    return out


@fact(
    "optimizer.per_tensor_ops",
    "count",
    "Operator calls per optimizer step made one tensor at a time (aten::add_, mul_, ... "
    "called directly by Optimizer.step, not aten::_foreach_* / aten::_fused_*); evidence: "
    "the Optimizer.step spans.",
    "torch.optim Optimizer.step spans in a PyTorch trace",
)
def per_tensor_ops(ctx: Context) -> Observed:
    got = _optimizer(ctx)
    return Observed(got["per_tensor"], got["evidence"])


@fact(
    "optimizer.multi_tensor_ops",
    "count",
    "Multi-tensor (aten::_foreach_*) or fused (aten::_fused_*) operator calls per optimizer step.",
    "torch.optim Optimizer.step spans in a PyTorch trace",
)
def multi_tensor_ops(ctx: Context) -> float:
    return float(_optimizer(ctx)["multi_tensor"])


@fact("optimizer.name", "text", "The torch.optim class used.", "Optimizer.step spans")
def optimizer_name(ctx: Context) -> str:
    return str(_optimizer(ctx)["optimizer"])


def _zero_grad(ctx: Context) -> dict[str, Any]:
    if "zero_grad" in ctx.memo:
        return ctx.memo["zero_grad"]
    trace = _pytorch(ctx)
    spans = _spans(trace, "Optimizer.zero_grad#")
    if not len(spans):
        raise Unavailable("needs torch.optim Optimizer.zero_grad spans in the trace")
    calls = np.concatenate(_top_ops_inside(trace, spans))
    fills = calls[trace.names_matching(lambda s: s in _FILL)[calls]]
    tree = tree_of(ctx, trace)
    local = np.searchsorted(tree.index, fills)
    host = float(tree.host_total_ns[local].sum())
    device = float(tree.device_total_ns[local].sum())
    ev = trace.events
    out = {
        "fills": len(fills) / len(spans),
        "us": max(host, device) / 1000.0 / steps_count(ctx),
        "evidence": tuple(
            Evidence(
                kind="time_range",
                **label("zero_grad_memsets", count=int(np.isin(fills, c).sum())),
                page="timeline",
                value=(int(ev["end_ns"][s]) - int(ev["start_ns"][s])) / 1000.0,
                unit="us",
                name=trace.strings[int(ev["name"][s])],
                start_ns=int(ev["start_ns"][s]),
                end_ns=int(ev["end_ns"][s]),
            )
            for s, c in zip(spans.tolist(), _top_ops_inside(trace, spans), strict=True)
        ),
    }
    ctx.memo["zero_grad"] = out
    return out


@fact(
    "optimizer.zero_grad_fills",
    "count",
    "aten::zero_ / aten::fill_ calls per Optimizer.zero_grad call (gradients set to zero "
    "instead of to None); evidence: the zero_grad spans.",
    "torch.optim Optimizer.zero_grad spans in a PyTorch trace",
)
def zero_grad_fills(ctx: Context) -> Observed:
    got = _zero_grad(ctx)
    return Observed(got["fills"], got["evidence"])


@fact(
    "optimizer.zero_grad_fill_us",
    "us",
    "Time per step of those zero_/fill_ calls (host time, or the device time they launched "
    "when larger), microseconds.",
    "torch.optim Optimizer.zero_grad spans in a PyTorch trace",
)
def zero_grad_fill_us(ctx: Context) -> float:
    return float(_zero_grad(ctx)["us"])


def _is_data_parallel(name: str) -> bool:
    return name == "DataParallel.forward" or name.startswith("nn.Module: DataParallel_")


@fact(
    "config.data_parallel_calls",
    "count",
    "nn.DataParallel forward calls per step (its DataParallel.forward span, or the "
    "nn.Module: DataParallel_* frame of with_stack); 0 when module frames show none.",
    "a PyTorch (Kineto) trace with module frames (with_stack=True)",
)
def data_parallel_calls(ctx: Context) -> Observed:
    trace = _pytorch(ctx)
    hits = np.flatnonzero(trace.names_matching(_is_data_parallel))
    if not len(hits) and not trace.names_matching(lambda s: s.startswith("nn.Module: ")).any():
        # Without module frames a DataParallel whose torch emits no span would go unseen.
        raise Unavailable("needs module frames (torch.profiler with_stack=True)")
    spans = hits[trace.kind[hits] == Kind.USER_ANNOTATION]
    spans = spans if len(spans) else hits[trace.kind[hits] == Kind.PYTHON_FUNCTION]
    ev = trace.events
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("data_parallel"),
            page="timeline",
            value=(int(ev["end_ns"][s]) - int(ev["start_ns"][s])) / 1000.0,
            unit="us",
            name=trace.strings[int(ev["name"][s])],
            start_ns=int(ev["start_ns"][s]),
            end_ns=int(ev["end_ns"][s]),
        )
        for s in spans[:3].tolist()
    )
    return Observed(len(spans) / steps_count(ctx), evidence)
