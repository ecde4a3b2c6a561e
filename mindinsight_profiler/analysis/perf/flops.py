"""Work per operator call: FLOPs, bytes moved, category and dtype from recorded shapes.

`WorkModel(shapes)(call)` looks the call's name up in the formula tables of the `ops_*`
modules (PyTorch `aten::` names, torch_npu `npu::` names, Ascend kernel op types) and
answers a `Work`, a `NoWork` (views, allocations, dispatch wrappers and autograd nodes: the
work they contain is in the operators they call) or an `Unknown` with the reason.
`ConvShapes` from the same trace lets convolutions whose strides were not recorded be
completed (see `ops_conv`). Conventions (docs/perf-model.md, "Work per operator"): a
multiply-add is 2 FLOPs, as `torch.utils.flop_counter` counts; bytes are the inputs read
once plus the outputs written once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mindinsight_profiler.analysis.perf.calls import NoWork, OpCall, Result, Unknown
from mindinsight_profiler.analysis.perf.ops_attention import ATTENTION_OPS
from mindinsight_profiler.analysis.perf.ops_conv import NO_SHAPES, ConvShapes, conv_ops
from mindinsight_profiler.analysis.perf.ops_elementwise import ELEMENTWISE_OPS
from mindinsight_profiler.analysis.perf.ops_gemm import GEMM_OPS
from mindinsight_profiler.analysis.perf.ops_memory import MEMORY_OPS, clone
from mindinsight_profiler.analysis.perf.ops_norm import NORM_OPS
from mindinsight_profiler.analysis.perf.ops_optim import optimizer_op
from mindinsight_profiler.analysis.perf.ops_pool import POOL_OPS


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_VIEWS = _words(
    """view _unsafe_view _reshape_alias as_strided as_strided_ t t_ transpose transpose_
permute expand expand_as view_as reshape reshape_as flatten unflatten squeeze squeeze_
unsqueeze unsqueeze_ select slice narrow split split_with_sizes unsafe_split chunk
unsafe_chunk unbind diagonal alias detach detach_ lift lift_fresh real imag view_as_real
view_as_complex conj _conj resolve_conj resolve_neg movedim moveaxis swapaxes swapdims
unfold numpy_T _neg_view _indices _values"""
)
_ALLOCATIONS = _words(
    """empty empty_strided empty_like new_empty new_empty_strided resize_ resize_as_
set_ zeros ones full zeros_like ones_like full_like new_zeros new_ones new_full rand randn
randint rand_like randn_like randint_like randperm arange linspace scalar_tensor tensor
lift_fresh_copy"""
)
#: Composite ops whose work is in the ops they call (PyTorch decomposes them).
_WRAPPERS = _words(
    """to type_as contiguous dropout feature_dropout alpha_dropout
feature_alpha_dropout cross_entropy_loss nll_loss nll_loss_nd nll_loss2d instance_norm
einsum tensordot _convolution_mode item _local_scalar_dense is_nonzero pin_memory
_pin_memory is_pinned record_stream result_type broadcast_tensors embedding_backward
max_pool1d max_pool2d max_pool3d adaptive_avg_pool1d adaptive_avg_pool2d
adaptive_avg_pool3d frobenius_norm binary_cross_entropy_with_logits l1_loss smooth_l1_loss
repeat_interleave _has_compatible_shallow_copy_type"""
)

_NO_WORK = {
    **{f"aten::{n}": "view" for n in _VIEWS},
    **{f"aten::{n}": "allocation" for n in _ALLOCATIONS},
    **{f"aten::{n}": "wrapper" for n in _WRAPPERS},
    "detach": "view",
    "detach_": "view",
}
_AUTOGRAD_NODE = re.compile(r"^[A-Za-z0-9_]+Backward\d*$")
_AUTOGRAD_PREFIXES = ("torch::autograd::", "autograd::engine::evaluate_function:")
#: DistributedDataParallel's reducer ranges: the aten ops they run carry the work.
_DDP_RANGES = ("torch::distributed::reducer::", "torch.distributed.ddp.reducer::")
#: torch_npu's host-side runtime calls recorded as operators.
_RUNTIME = {
    "empty_tensor": "allocation",
    "record_event": "runtime event",
    "wait_event": "runtime event",
    "destroy_event": "runtime event",
}
_COMMUNICATION = ("nccl:", "gloo:", "c10d::", "record_param_comms", "Hccl", "hcom")

_NPU_OPS: dict[str, Callable[[OpCall], Result]] = {
    "npu::npu_dtype_cast": lambda c: clone(c, 1),
    "npu::_npu_dtype_cast": lambda c: clone(c, 1),
    "npu::npu_format_cast": clone,
}


def no_work_reason(name: str) -> str | None:
    """Why the op `name` does no work of its own, or None when it may."""
    why = _NO_WORK.get(name)
    if why:
        return why
    if name.startswith(_AUTOGRAD_PREFIXES) or _AUTOGRAD_NODE.match(name):
        return "autograd node"
    if "#" in name and "::" not in name:  # ProfilerStep#3, Optimizer.step#SGD.step, ...
        return "annotation"
    if name.startswith(_DDP_RANGES):
        return "wrapper"
    return _RUNTIME.get(name)


class WorkModel:
    """The formulas, completed with one trace's convolution shapes; call it on an OpCall."""

    def __init__(self, shapes: ConvShapes = NO_SHAPES) -> None:
        self.formulas: dict[str, Callable[[OpCall], Result]] = {
            **ELEMENTWISE_OPS,
            **MEMORY_OPS,
            **POOL_OPS,
            **NORM_OPS,
            **GEMM_OPS,
            **conv_ops(shapes),
            **ATTENTION_OPS,
            **_NPU_OPS,
        }

    def formula(self, name: str) -> Callable[[OpCall], Result] | None:
        return self.formulas.get(name) or optimizer_op(name)

    def __call__(self, call: OpCall) -> Result:
        formula = self.formula(call.name)
        if formula is None:
            if call.name.startswith(_COMMUNICATION):
                return Unknown("communication: not modelled as compute", "通信：不按计算建模")
            why = no_work_reason(call.name)
            return (
                NoWork(why)
                if why
                else Unknown(f"no formula for {call.name}", f"没有 {call.name} 的公式")
            )
        if not call.shapes:
            return Unknown(
                "input shapes not recorded (record_shapes off)",
                "未记录输入形状（record_shapes 未开启）",
            )
        try:
            return formula(call)
        except (IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
            return Unknown(f"shapes do not fit the formula: {exc}", f"形状不符合公式：{exc}")


def work_of(call: OpCall, shapes: ConvShapes = NO_SHAPES) -> Result:
    """Work of one call (builds the formula table: use a WorkModel for many calls)."""
    return WorkModel(shapes)(call)
