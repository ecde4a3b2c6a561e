"""Normalisations (layer, group, batch, RMS) and softmax, forward and backward.

PyTorch's FLOP counter does not count these (they are memory-bound; what a roofline needs
from them is their bytes), so their FLOPs here are an explicit per-element arithmetic
count, one FLOP per add, multiply, compare or exp, with per-row work (a reciprocal square
root per row) left out:

- layer, group and batch norm (training): 5 (sum x: 1, sum x^2: 2, (x - mean) * rstd: 2),
  + 1 per weight, + 1 per bias;
- batch norm (inference, running statistics): 2 ((x - mean) * invstd), + 1 per weight/bias;
- RMS norm: 3 (sum x^2: 2, x * rrms: 1), + 1 with a weight;
- norm backward, grad_input: 9 (x_hat: 2, sum g and sum g x_hat: 3, rstd * (g - mean g -
  x_hat mean(g x_hat)): 4), + 1 with a weight (g = dy * w); RMS norm: 6 (x_hat: 1, sum g
  x_hat: 2, rrms * (g - x_hat mean(g x_hat)): 3), + 1 with a weight;
- norm backward, grad_weight: 2 (sum dy * x_hat), grad_bias: 1 (sum dy);
- softmax and log_softmax: 5 (max, x - max, exp, sum, divide or subtract the log-sum);
- softmax backward: 4 (sum dy * y: 2, dy - s: 1, * y: 1); log_softmax backward: 4 (sum dy,
  exp(y), times the sum, dy minus it).

(fvcore's counter, in multiply-add units, estimates 4 per element for a norm, 5 with an
affine weight.) Bytes: tensor inputs read; outputs written at the input's element size
(softmax: at the `dtype` or `half_to_float` type when given), plus the saved mean and
rstd (4-byte floats, one pair per normalised row or channel) of the native forward ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Result,
    Shape,
    Unknown,
    Work,
    add_bytes,
    nbytes,
    numel,
    read_bytes,
)
from mindinsight_profiler.analysis.perf.dtypes import canonical, from_scalar_type

STATS, NORMALISE, NORMALISE_EVAL = 3, 2, 2
RMS_STATS, RMS_NORMALISE = 2, 1
GRAD_INPUT, RMS_GRAD_INPUT, GRAD_WEIGHT, GRAD_BIAS = 9, 6, 2, 1
SOFTMAX, SOFTMAX_BACKWARD = 5, 4
_FP32 = canonical("fp32")


@dataclass(frozen=True)
class NormArgs:
    """Positions in a norm schema; `stats` says how many saved statistics it writes."""

    kind: str  # "layer", "group", "batch", "rms"
    weight: int
    bias: int = -1
    training: int = -1  # -1: always training (layer/group/rms); batch norm reads the flag
    eval_only: bool = False
    stats: str = ""  # "rows" (layer/rms), "groups", "channels": saved mean/rstd written
    norm_shape: int = 1  # position of normalized_shape (layer/rms)


def _present(call: OpCall, i: int) -> bool:
    return call.tensor(i) is not None


def _stat_rows(call: OpCall, args: NormArgs, x: Shape) -> int:
    if args.stats == "channels":
        return x[1] if len(x) > 1 else 1
    if args.stats == "groups":
        groups = call.ints(6)  # native_group_norm(input, weight, bias, N, C, HxW, group, eps)
        return (x[0] if x else 1) * (groups[0] if groups else 1)
    normalized = call.ints(args.norm_shape) or call.tensor(args.weight) or x[-1:]
    return numel(x) // max(numel(normalized), 1)


def norm_forward(call: OpCall, args: NormArgs) -> Result:
    x = call.tensor(0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    affine = _present(call, args.weight) + _present(call, args.bias)
    note = ""
    if args.kind == "rms":
        per = RMS_STATS + RMS_NORMALISE + affine
    elif args.eval_only:
        per = NORMALISE_EVAL + affine
    else:
        training = call.flag(args.training) if args.training >= 0 else True
        if training is None:
            training, note = True, "training flag not recorded: training assumed"
        per = (STATS + NORMALISE if training else NORMALISE_EVAL) + affine
    dtype = call.dtype(0)
    stats = 2 * _stat_rows(call, args, x) * _FP32.size if args.stats else 0
    written = add_bytes(nbytes([x], dtype), stats)
    bytes_ = add_bytes(read_bytes(call, range(len(call.shapes))), written)
    return Work(per * numel(x), bytes_, "norm", dtype.name if dtype else "", note)


def norm_backward(
    call: OpCall, kind: str, grad: int, inp: int, weight: int, mask_at: int
) -> Result:
    """Backward of a norm: grad_input, grad_weight and grad_bias as the output_mask says."""
    x, w = call.tensor(inp), call.tensor(weight)
    if x is None or call.tensor(grad) is None:
        return Unknown(
            "grad_output and input shapes not recorded", "未记录 grad_output 和 input 的形状"
        )
    mask = call.flags(mask_at) if mask_at >= 0 else None
    note = ""
    if mask is None:
        mask = [True, w is not None, w is not None]
        note = "output_mask not recorded: every gradient assumed" if mask_at >= 0 else ""
    mask = [*mask, False, False, False]
    per = (RMS_GRAD_INPUT if kind == "rms" else GRAD_INPUT) + (w is not None)
    per_input = per * mask[0] + GRAD_WEIGHT * mask[1] + GRAD_BIAS * (mask[2] and kind != "rms")
    dtype = call.dtype(grad)
    written = [x if mask[0] else None, w if mask[1] else None]
    written += [w if mask[2] and kind != "rms" else None]
    bytes_ = add_bytes(read_bytes(call, range(len(call.shapes))), nbytes(written, dtype))
    return Work(per_input * numel(x), bytes_, "norm", dtype.name if dtype else "", note)


def softmax(call: OpCall, dtype_at: int, half_to_float_at: int = -1) -> Result:
    x = call.tensor(0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    dtype = call.dtype(0)
    codes = call.ints(dtype_at) if dtype_at >= 0 else None
    out_dtype = from_scalar_type(codes[0]) if codes else dtype
    if call.flag(half_to_float_at):
        out_dtype = _FP32
    bytes_ = add_bytes(read_bytes(call, (0,)), nbytes([x], out_dtype))
    return Work(SOFTMAX * numel(x), bytes_, "softmax", dtype.name if dtype else "")


def softmax_backward(call: OpCall) -> Result:
    """_softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, ...)."""
    g = call.tensor(0)
    if g is None:
        return Unknown("grad_output shape not recorded", "未记录 grad_output 的形状")
    dtype = call.dtype(0)
    codes = call.ints(3)
    out_dtype = from_scalar_type(codes[0]) if codes else dtype
    bytes_ = add_bytes(read_bytes(call, range(len(call.shapes))), nbytes([g], out_dtype))
    return Work(SOFTMAX_BACKWARD * numel(g), bytes_, "softmax", dtype.name if dtype else "")


def _batch_legit(call: OpCall) -> Result:
    """_native_batch_norm_legit has two overloads of one name: with running stats (8
    arguments, training at 5) and `no_stats` (6 arguments, training at 3)."""
    training = 5 if len(call.shapes) >= 8 else 3
    return norm_forward(call, NormArgs("batch", 1, 2, training=training, stats="channels"))


_LAYER = NormArgs("layer", 2, 3)
_BATCH = NormArgs("batch", 1, 2, training=5)
NORM_OPS: dict[str, Callable[[OpCall], Result]] = {
    "aten::layer_norm": lambda c: norm_forward(c, _LAYER),
    "aten::native_layer_norm": lambda c: norm_forward(c, NormArgs("layer", 2, 3, stats="rows")),
    "aten::group_norm": lambda c: norm_forward(c, NormArgs("group", 2, 3)),
    "aten::native_group_norm": lambda c: norm_forward(c, NormArgs("group", 1, 2, stats="groups")),
    "aten::rms_norm": lambda c: norm_forward(c, NormArgs("rms", 2)),
    "aten::_fused_rms_norm": lambda c: norm_forward(c, NormArgs("rms", 2, stats="rows")),
    "aten::batch_norm": lambda c: norm_forward(c, _BATCH),
    "aten::_batch_norm_impl_index": lambda c: norm_forward(c, _BATCH),
    **{
        name: (lambda c: norm_forward(c, NormArgs("batch", 1, 2, training=5, stats="channels")))
        for name in ("aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::miopen_batch_norm")
    },
    "aten::_native_batch_norm_legit": _batch_legit,
    "aten::_native_batch_norm_legit_no_training": lambda c: norm_forward(
        c, NormArgs("batch", 1, 2, eval_only=True)
    ),
    "aten::_batch_norm_with_update": lambda c: norm_forward(
        c, NormArgs("batch", 1, 2, stats="channels")
    ),
    "aten::_batch_norm_no_update": lambda c: norm_forward(
        c, NormArgs("batch", 1, 2, eval_only=True)
    ),
    "aten::native_layer_norm_backward": lambda c: norm_backward(c, "layer", 0, 1, 5, 7),
    "aten::native_group_norm_backward": lambda c: norm_backward(c, "group", 0, 1, 4, 9),
    "aten::native_batch_norm_backward": lambda c: norm_backward(c, "batch", 0, 1, 2, 9),
    "aten::batch_norm_backward": lambda c: norm_backward(c, "batch", 0, 1, 2, 9),
    "aten::cudnn_batch_norm_backward": lambda c: norm_backward(c, "batch", 1, 0, 2, -1),
    "aten::miopen_batch_norm_backward": lambda c: norm_backward(c, "batch", 1, 0, 2, -1),
    "aten::_batch_norm_impl_index_backward": lambda c: norm_backward(c, "batch", 2, 1, 3, 10),
    "aten::_fused_rms_norm_backward": lambda c: norm_backward(c, "rms", 0, 1, 4, 5),
    "aten::softmax": lambda c: softmax(c, 2),
    "aten::log_softmax": lambda c: softmax(c, 2),
    "aten::_safe_softmax": lambda c: softmax(c, 2),
    "aten::_softmax": lambda c: softmax(c, -1, 2),
    "aten::_log_softmax": lambda c: softmax(c, -1, 2),
    "aten::_softmax_backward_data": softmax_backward,
    "aten::_log_softmax_backward_data": softmax_backward,
    "LayerNorm": lambda c: norm_forward(c, NormArgs("layer", 1, 2, norm_shape=-1)),
    "LayerNormV3": lambda c: norm_forward(c, NormArgs("layer", 1, 2, norm_shape=-1)),
    "RmsNorm": lambda c: norm_forward(c, NormArgs("rms", 1, norm_shape=-1)),
    "SoftmaxV2": lambda c: softmax(c, -1),
    "LogSoftmaxV2": lambda c: softmax(c, -1),
}
