"""Element-wise operators, reductions and simple losses: bytes from tensor sizes.

Element-wise: FLOPs = output elements x a per-element count, 1 for the usual arithmetic,
comparison, activation and transcendental ops (an exp or a tanh is counted as one FLOP,
as fvcore's element-wise counter does), more where one output element takes several:
`addcmul`/`addcdiv`/`lerp` 3, `sigmoid_backward` (dy * y * (1 - y)) and `tanh_backward`
(dy * (1 - y^2)) 3, `native_dropout` (compare + scale) 2. The output's shape is the
broadcast of the tensor inputs (in-place ops: their first input's), its element type the
first tensor's (bool for comparisons). Bytes: every tensor input read, the output written.

Reductions: FLOPs = input elements x 1 (sum, mean, max, min, any...), 2 for vector norms
(square, add), 3 for var/std (subtract, square, add) and logsumexp (exp, add, subtract);
the output's shape from the reduced dimensions and keepdim where `Concrete Inputs` give
them; without them only the input is counted and the note says so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Result,
    Shape,
    Unknown,
    Work,
    add_bytes,
    broadcast,
    nbytes,
    numel,
    read_bytes,
)
from mindinsight_profiler.analysis.perf.dtypes import canonical


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_ONE = _words(
    """abs neg exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos tan asin acos atan sinh
cosh asinh acosh atanh tanh sigmoid logit relu relu6 gelu silu mish elu selu celu leaky_relu
hardtanh hardswish hardsigmoid hardshrink softshrink softplus erf erfc erfinv reciprocal sign
sgn floor ceil round trunc frac clamp clamp_min clamp_max clip threshold square pow
bitwise_not nan_to_num add sub mul div rsub true_divide floor_divide maximum minimum fmax
fmin fmod remainder atan2 hypot xlogy copysign where masked_fill threshold_backward
hardtanh_backward leaky_relu_backward gelu_backward silu_backward elu_backward
softplus_backward hardswish_backward hardsigmoid_backward mish_backward bitwise_and
bitwise_or bitwise_xor logical_not"""
)
_RANDOM = _words("bernoulli normal uniform random exponential log_normal geometric cauchy")
_COMPARE = _words(
    """eq ne lt le gt ge isnan isinf isfinite isneginf isposinf logical_and logical_or
logical_xor"""
)
_THREE = _words("addcmul addcdiv lerp sigmoid_backward tanh_backward")

_BOOL = canonical("bool")


def elementwise(
    call: OpCall, per: int, compare: bool = False, category: str = "elementwise",
    reads_target: bool = True,
) -> Result:  # fmt: skip
    """An element-wise call: `per` FLOPs per output element. `reads_target` False: an
    in-place op that overwrites its first input without reading it (random fills)."""
    tensors = [(i, s) for i in range(len(call.shapes)) if (s := call.tensor(i)) is not None]
    if not tensors:
        return Unknown("no tensor input with a recorded shape", "没有记录了形状的张量输入")
    in_place = call.name.endswith("_") and not call.name.endswith("__")
    out: Shape | None = tensors[0][1]
    if not in_place:
        for _, shape in tensors[1:]:
            out = broadcast(out, shape) if out is not None else None
    if out is None:
        return Unknown(
            f"input shapes do not broadcast: {[s for _, s in tensors]}",
            f"输入形状无法广播：{[s for _, s in tensors]}",
        )
    # where(condition, self, other): the result has the values' type, not the condition's
    first = tensors[1][0] if call.name == "aten::where" and len(tensors) > 1 else tensors[0][0]
    dtype = call.dtype(first)
    written = nbytes([out], _BOOL if compare else dtype)
    skip = 1 if in_place and not reads_target else 0
    bytes_ = add_bytes(read_bytes(call, range(skip, len(call.shapes))), written)
    return Work(per * numel(out), bytes_, category, dtype.name if dtype else "")


def fill(call: OpCall) -> Result:
    """fill_/zero_: the tensor written, nothing computed (a scalar value read)."""
    x = call.tensor(0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    dtype = call.dtype(0)
    extra = read_bytes(call, range(1, len(call.shapes)))  # fill_ with a 0-dim tensor value
    return Work(0, add_bytes(nbytes([x], dtype), extra), "copy", dtype.name if dtype else "")


def _reduced_shape(call: OpCall, x: Shape, dim_at: int, keep_at: int) -> Shape | None:
    """Output shape of a reduction, None when the reduced dims are not recorded."""
    if dim_at < 0 or dim_at >= len(call.shapes):  # the overload without dims reduces all
        return []
    text = call.text(dim_at)
    kind = call.dtypes[dim_at] if dim_at < len(call.dtypes) else ""
    if text in ("", "None") and kind in ("", "None"):
        return []  # dim=None was recorded as an absent optional: a full reduction
    dims = call.ints(dim_at)
    if dims is None:
        return None
    keep = bool(call.flag(keep_at)) if keep_at >= 0 else False
    rank = len(x)
    reduced = {d % rank for d in dims} if dims and rank else set(range(rank))
    if keep:
        return [1 if i in reduced else n for i, n in enumerate(x)]
    return [n for i, n in enumerate(x) if i not in reduced]


def reduction(call: OpCall, per: int, dim_at: int, keep_at: int) -> Result:
    if call.tensor(1) is not None:  # max(self, other), min(self, other): element-wise
        return elementwise(call, 1)
    x = call.tensor(0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    dtype = call.dtype(0)
    out = _reduced_shape(call, x, dim_at, keep_at)
    note = "" if out is not None else "reduced dimensions not recorded: output bytes not counted"
    written = nbytes([out], dtype) if out is not None else 0
    bytes_ = add_bytes(read_bytes(call, (0,)), written)
    return Work(per * numel(x), bytes_, "reduction", dtype.name if dtype else "", note)


def scan(call: OpCall) -> Result:
    """cumsum/cumprod: one op per element, output as large as the input."""
    return elementwise(call, 1, category="reduction")


#: name -> (FLOPs per input element, position of dim, position of keepdim)
_REDUCTIONS = {
    "sum": (1, 1, 2), "nansum": (1, 1, 2), "mean": (1, 1, 2), "nanmean": (1, 1, 2),
    "prod": (1, 1, 2), "amax": (1, 1, 2), "amin": (1, 1, 2), "max": (1, 1, 2), "min": (1, 1, 2),
    "argmax": (1, 1, 2), "argmin": (1, 1, 2), "all": (1, 1, 2), "any": (1, 1, 2),
    "count_nonzero": (1, 1, -1), "logsumexp": (3, 1, 2), "var": (3, 1, 3), "std": (3, 1, 3),
    "var_mean": (3, 1, 3), "std_mean": (3, 1, 3), "norm": (2, 2, 3),
    "linalg_vector_norm": (2, 2, 3),
}  # fmt: skip


def mse_loss(call: OpCall, backward: bool) -> Result:
    """mse_loss(self, target, reduction) and its backward(grad, self, target, reduction):
    3 FLOPs per element (subtract, square or scale, add)."""
    x = call.tensor(1 if backward else 0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    dtype = call.dtype(1 if backward else 0)
    reduction_code = call.ints(3 if backward else 2)
    out = x if backward or (reduction_code and reduction_code[0] == 0) else []
    bytes_ = add_bytes(read_bytes(call, range(len(call.shapes))), nbytes([out], dtype))
    return Work(3 * numel(x), bytes_, "loss", dtype.name if dtype else "")


def nll_loss(call: OpCall, backward: bool) -> Result:
    """nll_loss(2d)_forward(self, target, ...): one gathered element per target; backward
    (grad, self, target, ...) writes a gradient the size of the input."""
    x, t = call.tensor(1 if backward else 0), call.tensor(2 if backward else 1)
    if x is None or t is None:
        return Unknown("input and target shapes not recorded", "未记录 input 和 target 的形状")
    dtype = call.dtype(1 if backward else 0)
    if backward:
        bytes_ = add_bytes(read_bytes(call, (0, 2, 3)), nbytes([x], dtype))
    else:
        bytes_ = add_bytes(read_bytes(call, (1, 2)), nbytes([t, t], dtype))
    return Work(numel(t), bytes_, "loss", dtype.name if dtype else "")


def _register() -> dict[str, Callable[[OpCall], Result]]:
    ops: dict[str, Callable[[OpCall], Result]] = {}
    for names, per, compare in ((_ONE, 1, False), (_COMPARE, 1, True), (_THREE, 3, False)):
        for base in names:
            for name in (f"aten::{base}", f"aten::{base}_"):
                ops[name] = partial(elementwise, per=per, compare=compare)
    for base in _RANDOM:
        ops[f"aten::{base}"] = ops[f"aten::{base}_"] = partial(
            elementwise, per=1, reads_target=False
        )
    ops["aten::native_dropout"] = lambda c: elementwise(c, 2)
    for base, (per, dim_at, keep_at) in _REDUCTIONS.items():
        ops[f"aten::{base}"] = partial(reduction, per=per, dim_at=dim_at, keep_at=keep_at)
    for base in ("cumsum", "cumprod", "cumsum_", "cumprod_"):
        ops[f"aten::{base}"] = scan
    for base in ("fill_", "zero_"):
        ops[f"aten::{base}"] = fill
    ops["aten::mse_loss"] = lambda c: mse_loss(c, False)
    ops["aten::mse_loss_backward"] = lambda c: mse_loss(c, True)
    for base in ("nll_loss_forward", "nll_loss2d_forward"):
        ops[f"aten::{base}"] = lambda c: nll_loss(c, False)
    for base in ("nll_loss_backward", "nll_loss2d_backward"):
        ops[f"aten::{base}"] = lambda c: nll_loss(c, True)
    return ops


ELEMENTWISE_OPS = _register()
