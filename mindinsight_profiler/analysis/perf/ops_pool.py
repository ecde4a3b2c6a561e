"""Pooling: max and average pooling over windows, adaptive average pooling.

Each output element of a pooling window of k elements takes k - 1 compares (max) or adds
(average) plus, for an average, one divide: counted as k FLOPs per output element.
Adaptive average pooling reads every input element once: FLOPs = input elements. The
backward scatters one gradient per output element (max: through the saved indices) or
spreads it over its window (average: k per output element). The output's size comes from
`Concrete Inputs` (kernel, stride, padding, output_size) or, for a backward, from its
grad_output; bytes are inputs read and outputs written (max pooling also writes its int64
indices).
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
    nbytes,
    numel,
    read_bytes,
)
from mindinsight_profiler.analysis.perf.dtypes import canonical

_INDEX = canonical("int64")


def _window_output(
    call: OpCall, x: Shape, dims: int, dilation_at: int, ceil_at: int
) -> Shape | None:
    kernel = call.ints(1)
    stride = call.ints(2) or kernel  # an empty stride means the kernel size
    padding = call.ints(3)
    if not kernel or stride is None or padding is None:
        return None
    kernel, stride = _per(kernel, dims), _per(stride, dims)
    padding = _per(padding or [0], dims)
    dilation = _per(call.ints(dilation_at) or [1], dims) if dilation_at >= 0 else [1] * dims
    ceil = bool(call.flag(ceil_at))
    out = []
    for i, k, s, p, d in zip(x[-dims:], kernel, stride, padding, dilation, strict=True):
        span = i + 2 * p - d * (k - 1) - 1
        size = (span + (s - 1 if ceil else 0)) // s + 1
        if ceil and (size - 1) * s >= i + p:  # the last window must start inside the input
            size -= 1
        out.append(size)
    return [*x[:-dims], *out]


def _per(values: list[int], dims: int) -> list[int]:
    return values * dims if len(values) == 1 else values


def pool(call: OpCall, dims: int, max_pool: bool) -> Result:
    """max_pool{d}d_with_indices(self, kernel, stride, padding, dilation, ceil_mode) and
    avg_pool{d}d(self, kernel, stride, padding, ceil_mode, ...)."""
    x = call.tensor(0)
    if x is None or len(x) < dims + 1:
        return Unknown("input shape not recorded", "未记录输入的形状")
    out = _window_output(call, x, dims, 4 if max_pool else -1, 5 if max_pool else 4)
    if out is None:
        return Unknown(
            "kernel, stride and padding not recorded (no Concrete Inputs)",
            "未记录 kernel、stride 和 padding（没有 Concrete Inputs）",
        )
    window = numel(_per(call.ints(1) or [1], dims))
    dtype = call.dtype(0)
    written = add_bytes(nbytes([out], dtype), nbytes([out], _INDEX) if max_pool else 0)
    bytes_ = add_bytes(read_bytes(call, (0,)), written)
    return Work(window * numel(out), bytes_, "reduction", dtype.name if dtype else "")


def pool_backward(call: OpCall, dims: int, max_pool: bool) -> Result:
    """max_pool{d}d_with_indices_backward(grad, self, ..., indices) / avg_pool{d}d_backward
    (grad, self, kernel, ...): the input-sized gradient written."""
    grad, x = call.tensor(0), call.tensor(1)
    if grad is None or x is None:
        return Unknown(
            "grad_output and input shapes not recorded", "未记录 grad_output 和 input 的形状"
        )
    window = 1 if max_pool else numel(_per(call.ints(2) or [1], dims))
    dtype = call.dtype(0)
    bytes_ = add_bytes(read_bytes(call, (0, 7)), nbytes([x], dtype))
    return Work(window * numel(grad), bytes_, "reduction", dtype.name if dtype else "")


def adaptive_avg(call: OpCall, backward: bool) -> Result:
    """_adaptive_avg_pool{d}d(self, output_size) and its backward(grad, self)."""
    x = call.tensor(1 if backward else 0)
    if x is None:
        return Unknown("input shape not recorded", "未记录输入的形状")
    dtype = call.dtype(0)
    if backward:
        bytes_ = add_bytes(read_bytes(call, (0,)), nbytes([x], dtype))
        return Work(numel(x), bytes_, "reduction", dtype.name if dtype else "")
    size = call.ints(1)
    if size is None:
        return Unknown(
            "output_size not recorded (no Concrete Inputs)",
            "未记录 output_size（没有 Concrete Inputs）",
        )
    out = [*x[: len(x) - len(size)], *size]
    bytes_ = add_bytes(read_bytes(call, (0,)), nbytes([out], dtype))
    return Work(numel(x), bytes_, "reduction", dtype.name if dtype else "")


POOL_OPS: dict[str, Callable[[OpCall], Result]] = {}
for _d in (1, 2, 3):
    POOL_OPS[f"aten::max_pool{_d}d_with_indices"] = partial(pool, dims=_d, max_pool=True)
    POOL_OPS[f"aten::max_pool{_d}d_with_indices_backward"] = partial(
        pool_backward, dims=_d, max_pool=True
    )
    POOL_OPS[f"aten::avg_pool{_d}d"] = partial(pool, dims=_d, max_pool=False)
    POOL_OPS[f"aten::avg_pool{_d}d_backward"] = partial(pool_backward, dims=_d, max_pool=False)
    POOL_OPS[f"aten::_adaptive_avg_pool{_d}d"] = partial(adaptive_avg, backward=False)
    POOL_OPS[f"aten::_adaptive_avg_pool{_d}d_backward"] = partial(adaptive_avg, backward=True)
