"""Convolutions, forward and backward, from the input, weight and output shapes.

Every output element of a convolution is a dot product of C_in/groups * prod(kernel)
pairs, and the weight holds C_out * C_in/groups * prod(kernel) elements, so

    forward FLOPs = 2 * N * prod(output spatial) * numel(weight)

(`torch.utils.flop_counter.conv_flop_count`: 2 * N * C_out * C_in/groups * prod(kernel) *
prod(output spatial); bias ignored). A transposed convolution runs the same products from
the input side: prod(input spatial) replaces prod(output spatial). The backward's two
products are convolutions of the same size (`conv_backward_flop`): grad_input is a
transposed convolution of grad_output with the weight, grad_weight a convolution of the
input with grad_output, each the forward's FLOPs, and the output_mask says which were
computed. (torch counts grad_weight of a grouped convolution as if groups were 1, i.e.
`groups` times more; here the true count is used: the two agree for groups = 1.)

The output's spatial size follows from strides, padding and dilation, which Kineto records
only as `Concrete Inputs` (PyTorch 2.1 and later). Older traces lack them, but a training
step also records the convolution's backward, whose inputs name the same (input, weight,
output) shapes: `ConvShapes` collects those from the whole trace so that a forward call,
or a backward call missing a size argument, can be completed when the shapes name one
answer. Bytes: input, weight (and bias) read, output written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

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


@dataclass(frozen=True)
class ConvArgs:
    """Positions of a convolution schema's arguments (-1: the schema has none)."""

    bias: int
    stride: int
    padding: int
    dilation: int
    transposed: int = -1  # position of the flag; see `always_transposed`
    output_padding: int = -1
    groups: int = -1
    always_transposed: bool = False


@dataclass
class ConvShapes:
    """(input, weight) -> output shapes seen in the trace, to complete calls lacking strides."""

    outputs: dict[tuple[tuple[int, ...], tuple[int, ...]], set[tuple[int, ...]]] = field(
        default_factory=dict
    )

    def add(self, x: Shape, w: Shape, y: Shape) -> None:
        self.outputs.setdefault((tuple(x), tuple(w)), set()).add(tuple(y))

    def output(self, x: Shape, w: Shape) -> Shape | None:
        found = self.outputs.get((tuple(x), tuple(w)), set())
        return list(next(iter(found))) if len(found) == 1 else None

    def input(self, y: Shape, w: Shape) -> Shape | None:
        found = {x for (x, ww), ys in self.outputs.items() if ww == tuple(w) and tuple(y) in ys}
        return list(next(iter(found))) if len(found) == 1 else None

    def weight(self, x: Shape, y: Shape) -> Shape | None:
        found = {w for (xx, w), ys in self.outputs.items() if xx == tuple(x) and tuple(y) in ys}
        return list(next(iter(found))) if len(found) == 1 else None


NO_SHAPES = ConvShapes()


def _per_dim(values: list[int] | None, dims: int, default: int) -> list[int] | None:
    if values is None:
        return None
    if not values:
        return [default] * dims
    return values * dims if len(values) == 1 else values


def output_shape(
    x: Shape, w: Shape, stride: list[int], padding: list[int], dilation: list[int],
    transposed: bool = False, output_padding: list[int] | None = None, groups: int = 1,
) -> Shape:  # fmt: skip
    """Output shape of a convolution (PyTorch's size arithmetic); x may be unbatched."""
    dims = len(w) - 2
    batch = x[: len(x) - dims - 1]
    spatial = x[len(x) - dims :]
    kernel = w[2:]
    op = output_padding or [0] * dims
    if transposed:
        out = [
            (i - 1) * s - 2 * p + d * (k - 1) + o + 1
            for i, s, p, d, k, o in zip(spatial, stride, padding, dilation, kernel, op, strict=True)
        ]
        return [*batch, w[1] * groups, *out]
    out = [
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, s, p, d, k in zip(spatial, stride, padding, dilation, kernel, strict=True)
    ]
    return [*batch, w[0], *out]


def conv_flops(x: Shape, w: Shape, y: Shape, transposed: bool) -> int:
    """2 * N * prod(big side's spatial) * numel(w): output side, input side when transposed."""
    dims = len(w) - 2
    side = x if transposed else y
    n = numel(side[: len(side) - dims - 1])
    return 2 * n * numel(side[len(side) - dims :]) * numel(w)


def _strided_output(call: OpCall, args: ConvArgs, x: Shape, w: Shape) -> Shape | None:
    dims = len(w) - 2
    stride = _per_dim(call.ints(args.stride), dims, 1)
    padding_text = call.text(args.padding).strip("'\"")
    padding: list[int] | None
    if padding_text in ("same", "valid"):
        padding = [0] * dims
        if padding_text == "same" and stride is not None and set(stride) == {1}:
            return [*x[: len(x) - dims - 1], w[0], *x[len(x) - dims :]]
    else:
        padding = _per_dim(call.ints(args.padding), dims, 0)
    dilation = _per_dim(call.ints(args.dilation), dims, 1) if args.dilation >= 0 else [1] * dims
    if stride is None or padding is None or dilation is None:
        return None
    transposed = _transposed(call, args) or False
    out_pad = (
        _per_dim(call.ints(args.output_padding), dims, 0) if args.output_padding >= 0 else None
    )
    groups = (call.ints(args.groups) or [1])[0] if args.groups >= 0 else 1
    return output_shape(x, w, stride, padding, dilation, transposed, out_pad, groups)


def _transposed(call: OpCall, args: ConvArgs) -> bool | None:
    if args.always_transposed:
        return True
    return call.flag(args.transposed) if args.transposed >= 0 else False


def forward(call: OpCall, args: ConvArgs, shapes: ConvShapes = NO_SHAPES) -> Result:
    """A forward convolution; output from the recorded strides, else from `shapes`."""
    x, w = call.tensor(0), call.tensor(1)
    if x is None or w is None or len(w) < 3 or len(x) < len(w) - 1:
        return Unknown("input and weight shapes not recorded", "未记录 input 和 weight 的形状")
    transposed = _transposed(call, args)
    y = call.outputs[0] if call.outputs else None
    if transposed is None:  # `shapes` holds untransposed convolutions only
        if y is None and shapes.output(x, w) is None:
            return Unknown("the transposed flag is not recorded", "未记录 transposed 标志")
        transposed = False
    y = y or _strided_output(call, args, x, w)
    note = ""
    if y is None:
        y = shapes.output(x, w)
        note = "output shape from the backward call of the same shapes"
    if y is None:
        return Unknown(
            "stride and padding not recorded (no Concrete Inputs)",
            "未记录 stride 和 padding（没有 Concrete Inputs）",
        )
    dtype = call.dtype(0)
    bytes_ = add_bytes(read_bytes(call, (0, 1, args.bias)), nbytes([y], dtype))
    flops = conv_flops(x, w, y, transposed)
    return Work(flops, bytes_, "conv", dtype.name if dtype else "", note)


def transposed_by_shapes(x: Shape, w: Shape, go: Shape) -> bool:
    """Whether a backward's shapes read as a transposed convolution's: its output (grad_output)
    larger than its input. When the two are equal both readings give the same FLOPs."""
    dims = len(w) - 2
    return numel(go[len(go) - dims :]) > numel(x[len(x) - dims :])


def backward(call: OpCall, grad: int, inp: int, transposed_at: int, mask_at: int) -> Result:
    """convolution_backward-style calls: grad_output, input and weight all recorded."""
    go, x, w = call.tensor(grad), call.tensor(inp), call.tensor(2)
    if go is None or x is None or w is None or len(w) < 3:
        return Unknown(
            "grad_output, input and weight shapes not recorded",
            "未记录 grad_output、input 和 weight 的形状",
        )
    transposed = call.flag(transposed_at) if transposed_at >= 0 else False
    note = ""
    if transposed is None:
        transposed, note = transposed_by_shapes(x, w, go), "transposed flag read from the shapes"
    mask = call.flags(mask_at)
    if mask is None:
        return Unknown(
            "output_mask not recorded: the calls it makes carry the work",
            "未记录 output_mask：工作量计入它发起的调用",
        )
    per = conv_flops(x, w, go, transposed)
    dtype = call.dtype(grad)
    mask = [*mask, False, False, False]
    out_channels = go[1] if len(go) == len(w) else go[0]
    written = [x if mask[0] else None, w if mask[1] else None, [out_channels] if mask[2] else None]
    read = [go, w if mask[0] else None, x if mask[1] else None]
    bytes_ = nbytes([*read, *written], dtype)
    return Work(per * (mask[0] + mask[1]), bytes_, "conv", dtype.name if dtype else "", note)


def backward_input(call: OpCall, shapes: ConvShapes = NO_SHAPES) -> Result:
    """cudnn_convolution_backward_input(self_size, grad_output, weight, ...)."""
    go, w = call.tensor(1), call.tensor(2)
    if go is None or w is None:
        return Unknown(
            "grad_output and weight shapes not recorded", "未记录 grad_output 和 weight 的形状"
        )
    x = call.ints(0) or shapes.input(go, w)
    dtype = call.dtype(1)
    bytes_ = nbytes([go, w, x], dtype) if x is not None else None
    note = "" if x is not None else "input size not recorded: bytes unknown"
    return Work(conv_flops(go, w, go, False), bytes_, "conv", dtype.name if dtype else "", note)


def backward_weight(call: OpCall, shapes: ConvShapes = NO_SHAPES) -> Result:
    """cudnn_convolution_backward_weight(weight_size, grad_output, self, ...)."""
    go, x = call.tensor(1), call.tensor(2)
    if go is None or x is None:
        return Unknown(
            "grad_output and input shapes not recorded", "未记录 grad_output 和 input 的形状"
        )
    w = call.ints(0) or shapes.weight(x, go)
    if w is None:
        return Unknown("weight size not recorded", "未记录权重的大小")
    dtype = call.dtype(1)
    return Work(conv_flops(x, w, go, False), nbytes([go, x, w], dtype), "conv",
                dtype.name if dtype else "")  # fmt: skip


def npu_conv(call: OpCall, shapes: ConvShapes = NO_SHAPES) -> Result:
    """Ascend Conv2D/Conv3D kernels (x, filter, bias): NCHW shapes with the output's."""
    x, w = call.tensor(0) or [], call.tensor(1) or []
    if len(x) == 5 and len(w) == 4:
        return Unknown(
            "private 5-D format (NC1HWC0): channels are split",
            "私有 5 维格式 (NC1HWC0)：通道被拆分",
        )
    return forward(call, ConvArgs(bias=2, stride=-1, padding=-1, dilation=-1), shapes)


#: Forward schemas (PyTorch native_functions.yaml) -> argument positions.
FORWARD_ARGS = {
    **{f"aten::conv{d}d": ConvArgs(2, 3, 4, 5, groups=6) for d in (1, 2, 3)},
    **{
        f"aten::conv_transpose{d}d": ConvArgs(
            2, 3, 4, 7, output_padding=5, groups=6, always_transposed=True
        )
        for d in (1, 2, 3)
    },
    "aten::convolution": ConvArgs(2, 3, 4, 5, 6, 7, 8),
    "aten::_convolution": ConvArgs(2, 3, 4, 5, 6, 7, 8),
    "aten::convolution_overrideable": ConvArgs(2, 3, 4, 5, 6, 7, 8),
    "aten::cudnn_convolution": ConvArgs(-1, 3, 2, 4, groups=5),
    "aten::cudnn_convolution_relu": ConvArgs(2, 3, 4, 5, groups=6),
    "aten::cudnn_convolution_transpose": ConvArgs(
        -1, 4, 2, 5, output_padding=3, groups=6, always_transposed=True
    ),
    "aten::mkldnn_convolution": ConvArgs(2, 4, 3, 5, groups=6),
    "aten::miopen_convolution": ConvArgs(2, 4, 3, 5, groups=6),
    "aten::miopen_depthwise_convolution": ConvArgs(2, 4, 3, 5, groups=6),
    "aten::miopen_convolution_transpose": ConvArgs(
        2, 5, 3, 6, output_padding=4, groups=7, always_transposed=True
    ),
    "aten::_slow_conv2d_forward": ConvArgs(3, 4, 5, -1),
    "aten::thnn_conv2d": ConvArgs(3, 4, 5, -1),
    "aten::slow_conv_dilated2d": ConvArgs(3, 4, 5, 6),
    "aten::slow_conv_dilated3d": ConvArgs(3, 4, 5, 6),
    "aten::_nnpack_spatial_convolution": ConvArgs(2, 4, 3, -1),
}

#: Backward schemas -> (grad_output, input, transposed flag, output_mask) positions.
BACKWARD_ARGS = {
    "aten::convolution_backward": (0, 1, 7, 10),
    "aten::convolution_backward_overrideable": (0, 1, 6, 9),
    "aten::cudnn_convolution_backward": (1, 0, -1, 10),
    "aten::mkldnn_convolution_backward": (1, 0, -1, 7),
    "aten::miopen_convolution_backward": (1, 0, -1, 9),
    "aten::_slow_conv2d_backward": (0, 1, -1, 6),
}


def conv_ops(shapes: ConvShapes) -> dict[str, Callable[[OpCall], Result]]:
    """Formulas of every convolution name, completed with the trace's `shapes`."""
    ops: dict[str, Callable[[OpCall], Result]] = {
        name: partial(forward, args=args, shapes=shapes) for name, args in FORWARD_ARGS.items()
    }
    for name, (g, i, t, m) in BACKWARD_ARGS.items():
        ops[name] = partial(backward, grad=g, inp=i, transposed_at=t, mask_at=m)
    ops["aten::cudnn_convolution_backward_input"] = partial(backward_input, shapes=shapes)
    ops["aten::cudnn_convolution_backward_weight"] = partial(backward_weight, shapes=shapes)
    ops["Conv2D"] = ops["Conv3D"] = partial(npu_conv, shapes=shapes)
    return ops


def backward_shapes(call: OpCall) -> tuple[Shape, Shape, Shape] | None:
    """(input, weight, output) named by a backward call, for `ConvShapes`."""
    positions = BACKWARD_ARGS.get(call.name)
    if positions is None:
        return None
    go, x, w = call.tensor(positions[0]), call.tensor(positions[1]), call.tensor(2)
    if go is None or x is None or w is None or len(w) < 3:
        return None
    transposed = call.flag(positions[2]) if positions[2] >= 0 else False
    if transposed is None:
        transposed = transposed_by_shapes(x, w, go)
    return None if transposed else (x, w, go)
