"""Which kernels use tensor cores and which operators could, judged by name.

Kineto does not record tensor-core use, so like the PyTorch profiler plugin we recognise
tensor-core kernels by substrings of cuBLAS/cuDNN/CUTLASS kernel names (hmma, 884, 1688,
16816, xmma, ...) and eligible operators by the matmul/convolution family of aten ops.
"""

from __future__ import annotations

_TC_KERNEL_PATTERNS = (
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group",
    "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm", "xmma_sparse_gemm", "c1688",
)  # fmt: skip

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
    """A kernel whose name marks it as running on tensor cores."""
    return any(p in name for p in _TC_KERNEL_PATTERNS)


def is_tc_eligible_op(name: str) -> bool:
    """An operator of the matmul/convolution family, which tensor cores can accelerate."""
    return name in _TC_ELIGIBLE_OPS
