"""Which kernels use tensor cores and which operators could, judged by name.

Traces do not record tensor-core use, so the kernel verdict comes from the libraries' naming
conventions, kept as data in `tensor_core_kernels.toml` (ordered rules, first match decides,
each naming its source) so that a new GPU generation is a reviewed line of data, not code:
the PyTorch profiler plugin's 2021 list (its golden results still match) plus Hopper and
Blackwell (cuBLAS `nvjet_*`, CUTLASS 3 tensorop, FP8/FP4 batched GEMMs, FlashAttention) and
AMD MFMA kernels. Eligible operators are the matmul/convolution family of aten ops.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources


@dataclass(frozen=True)
class KernelRule:
    """One naming convention: kernels whose name matches `pattern` do (or do not) use TCs."""

    pattern: re.Pattern[str]
    tc: bool
    arch: str
    source: str


@cache
def kernel_rules() -> tuple[KernelRule, ...]:
    """The rules of `tensor_core_kernels.toml`, in order (read once per process)."""
    text = resources.files(__package__).joinpath("tensor_core_kernels.toml").read_text("utf-8")
    return tuple(
        KernelRule(re.compile(r["pattern"], re.IGNORECASE), bool(r["tc"]), r["arch"], r["source"])
        for r in tomllib.loads(text)["rule"]
    )


@lru_cache(maxsize=1 << 16)
def tc_rule(name: str) -> KernelRule | None:
    """The first rule that matches the kernel `name` (None: no convention knows it).
    Remembered per name: ranks and runs share their kernel names, and each name is tried
    against every rule's pattern."""
    return next((r for r in kernel_rules() if r.pattern.search(name)), None)


_TC_ELIGIBLE_OPS = frozenset(
    {
        *(f"aten::{op}" for op in (
            "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
            "conv_transpose2d", "conv_transpose3d", "convolution", "cudnn_convolution",
            "cudnn_convolution_transpose", "prelu", "addmm", "addmv", "addr", "matmul", "mm",
            "mv", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
            "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell",
            "rnn_tanh_cell", "rnn_relu_cell", "cudnn_convolution_transpose_backward",
            "cudnn_convolution_backward_weight", "addmm_",
            "cudnn_convolution_transpose_backward_weight",
            "cudnn_convolution_transpose_backward_input", "cudnn_convolution_backward_input",
            "cudnn_convolution_backward",
        )),
        "CudnnConvolutionBackward", "BmmBackward0", "CudnnConvolutionTransposeBackward",
        "MmBackward", "AddmvBackward", "MvBackward", "AddmmBackward", "AddbmmBackward",
    }
)  # fmt: skip


def is_tc_kernel(name: str) -> bool:
    """A kernel whose name marks it as running on tensor (or AMD matrix) cores."""
    rule = tc_rule(name)
    return rule is not None and rule.tc


def is_tc_eligible_op(name: str) -> bool:
    """An operator of the matmul/convolution family, which tensor cores can accelerate."""
    return name in _TC_ELIGIBLE_OPS
