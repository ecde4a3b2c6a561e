"""Optimizer steps: `_foreach_*` ops over tensor lists and the fused Adam/AdamW/SGD kernels.

A `_foreach_<op>` applies the element-wise `<op>` to every tensor of its first list:
FLOPs = the list's elements x the op's per-element count (as for the element-wise op);
bytes = every tensor-list input read, plus the result written (over the first list when
in place, a new list of its shapes otherwise; `_foreach_norm` writes one scalar per
tensor). Fused optimizers, per parameter element:

- Adam: m = b1 m + (1 - b1) g (3), v = b2 v + (1 - b2) g^2 (4), sqrt(v) / c2 + eps (3),
  p -= lr m / c1 / denominator (3): 13 FLOPs; AdamW's decoupled decay p *= 1 - lr wd
  adds 1; AMSGrad's max(v_max, v) adds 1. Reads p, g, m, v (and v_max); writes p, m, v
  (and v_max).
- SGD: p -= lr g (2); with momentum, b = mu b + g (2) first, and b read and written.

Kineto writes a tensor list's type as "TensorList", without its element type: elements
are taken as 4 bytes (FP32 master weights and states, the common case) and the note says
so. Per-tensor scalar work (bias corrections, step counters) is left out.
"""

from __future__ import annotations

from collections.abc import Callable

from mindinsight_profiler.analysis.perf.calls import OpCall, Result, Unknown, Work, numel
from mindinsight_profiler.analysis.perf.ops_memory import LIST_DTYPE, LIST_NOTE

ADAM, ADAMW_DECAY, AMSGRAD = 13, 1, 1
SGD, SGD_MOMENTUM = 2, 2

#: per-element FLOPs of `_foreach_<op>`; ops not listed here count 1
_FOREACH_FLOPS = {"addcmul": 3, "addcdiv": 3, "lerp": 3, "copy": 0, "zero": 0, "norm": 2}


def _list_elements(call: OpCall, i: int) -> int | None:
    shapes = call.tensor_list(i)
    return None if shapes is None else sum(numel(s) for s in shapes)


def foreach(call: OpCall) -> Result:
    base = call.name.removeprefix("aten::_foreach_")
    in_place = base.endswith("_")
    base = base.rstrip("_")
    first = _list_elements(call, 0)
    if not first:
        return Unknown("tensor-list shapes not recorded", "未记录张量列表的形状")
    read = sum(n for i in range(len(call.shapes)) if (n := _list_elements(call, i)) is not None)
    if base in ("zero", "copy") and in_place:
        read -= first  # the target is overwritten, not read
    count = len(call.tensor_list(0) or [])
    written = count if base == "norm" else first
    per = _FOREACH_FLOPS.get(base, 1)
    bytes_ = (read + written) * LIST_DTYPE.size
    return Work(per * first, bytes_, "optimizer", "", LIST_NOTE)


def fused_adam(call: OpCall, decoupled: bool) -> Result:
    """_fused_adam(w)_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, ...)."""
    n = _list_elements(call, 0)
    if not n:
        return Unknown("tensor-list shapes not recorded", "未记录张量列表的形状")
    amsgrad = bool(_list_elements(call, 4))
    per = ADAM + (ADAMW_DECAY if decoupled else 0) + (AMSGRAD if amsgrad else 0)
    lists_read, lists_written = 4 + amsgrad, 3 + amsgrad
    bytes_ = (lists_read + lists_written) * n * LIST_DTYPE.size
    return Work(per * n, bytes_, "optimizer", "", LIST_NOTE)


def fused_sgd(call: OpCall) -> Result:
    """_fused_sgd_(params, grads, momentum_buffer_list, ...)."""
    n = _list_elements(call, 0)
    if not n:
        return Unknown("tensor-list shapes not recorded", "未记录张量列表的形状")
    momentum = bool(_list_elements(call, 2))
    per = SGD + (SGD_MOMENTUM if momentum else 0)
    bytes_ = ((2 + momentum) + (1 + momentum)) * n * LIST_DTYPE.size
    return Work(per * n, bytes_, "optimizer", "", LIST_NOTE)


OPTIMIZER_OPS: dict[str, Callable[[OpCall], Result]] = {
    "aten::_fused_adam_": lambda c: fused_adam(c, decoupled=False),
    "aten::_fused_adam": lambda c: fused_adam(c, decoupled=False),
    "aten::_fused_adamw_": lambda c: fused_adam(c, decoupled=True),
    "aten::_fused_adamw": lambda c: fused_adam(c, decoupled=True),
    "aten::_fused_sgd_": fused_sgd,
    "aten::_fused_sgd": fused_sgd,
}


def optimizer_op(name: str) -> Callable[[OpCall], Result] | None:
    """The formula of an optimizer op: fused kernels by name, any `_foreach_*` generically."""
    if name.startswith("aten::_foreach_"):
        return foreach
    return OPTIMIZER_OPS.get(name)
