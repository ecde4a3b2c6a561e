"""Every work formula on hand-computed cases (the arithmetic is written beside each).

FLOPs count a multiply-add as 2; bytes are inputs read plus outputs written, at 4 bytes
for "float", 2 for "c10::BFloat16"/"c10::Half", 1 for FP8 and bool, 8 for "long int".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mindinsight_profiler.analysis.perf.calls import (
    OpCall,
    Unknown,
    Work,
    call_from_texts,
)
from mindinsight_profiler.analysis.perf.dtypes import peak_key
from mindinsight_profiler.analysis.perf.flops import WorkModel, work_of
from mindinsight_profiler.analysis.perf.ops_attention import causal_pairs
from mindinsight_profiler.analysis.perf.ops_conv import ConvShapes

T = "float"


def run(name: str, *args: Any, shapes: ConvShapes | None = None) -> Any:
    """Call `name` with args: a list is a tensor shape (float unless given as (shape, type)),
    anything else a scalar whose concrete text is str(value) ("" for None)."""
    dims, types, concrete = [], [], []
    for a in args:
        if isinstance(a, tuple):
            dims.append(a[0])
            types.append(a[1])
            concrete.append("")
        elif isinstance(a, list):
            dims.append(a)
            types.append(T)
            concrete.append("")
        else:  # Kineto types an absent optional "" and a value "Scalar"
            dims.append([])
            types.append("" if a is None else "Scalar")
            concrete.append("" if a is None else str(a))
    call = call_from_texts(name, json.dumps(dims), json.dumps(types), json.dumps(concrete))
    return WorkModel(shapes or ConvShapes())(call)


def work(name: str, *args: Any, **kw: Any) -> Work:
    result = run(name, *args, **kw)
    assert isinstance(result, Work), result
    return result


# --- GEMM -------------------------------------------------------------------------------


def test_mm_addmm_bmm_baddbmm_addbmm_mv_dot() -> None:
    mm = work("aten::mm", [3, 4], [4, 5])
    assert (mm.flops, mm.bytes, mm.category, mm.dtype) == (
        2 * 3 * 5 * 4,
        (12 + 20 + 15) * 4,
        "gemm",
        "fp32",
    )
    addmm = work("aten::addmm", ([5], "c10::BFloat16"), ([3, 4], "c10::BFloat16"),
                 ([4, 5], "c10::BFloat16"), 1, 1)  # fmt: skip
    assert (addmm.flops, addmm.bytes, addmm.dtype) == (120, (5 + 12 + 20 + 15) * 2, "bf16")
    assert work("aten::bmm", [2, 3, 4], [2, 4, 5]).flops == 2 * 2 * 3 * 5 * 4
    assert work("aten::bmm", [2, 3, 4], [2, 4, 5]).bytes == (24 + 40 + 30) * 4
    baddbmm = work("aten::baddbmm", [2, 3, 5], [2, 3, 4], [2, 4, 5], 1, 1)
    assert (baddbmm.flops, baddbmm.bytes) == (240, (30 + 24 + 40 + 30) * 4)
    addbmm = work("aten::addbmm", [3, 5], [2, 3, 4], [2, 4, 5], 1, 1)  # sums over the batch
    assert (addbmm.flops, addbmm.bytes) == (240, (15 + 24 + 40 + 15) * 4)
    assert work("aten::mv", [3, 4], [4]).flops == 2 * 3 * 4
    assert work("aten::dot", [4], [4]).flops == 2 * 4
    assert isinstance(run("aten::mm", [3, 4], [5, 6]), Unknown)  # inner dims differ
    assert isinstance(run("aten::mm", [3, 4]), Unknown)  # second operand missing


@pytest.mark.parametrize(
    ("a", "b", "flops", "out"),
    [
        ([4], [4], 2 * 4, []),  # dot
        ([3, 4], [4], 2 * 3 * 4, [3]),  # matrix-vector
        ([4], [4, 5], 2 * 4 * 5, [5]),  # vector-matrix
        ([3, 4], [4, 5], 2 * 3 * 4 * 5, [3, 5]),
        ([7, 3, 4], [4, 6], 2 * 7 * 3 * 6 * 4, [7, 3, 6]),  # batched @ matrix
        ([4], [7, 4, 6], 2 * 7 * 1 * 6 * 4, [7, 6]),  # vector @ batched
        ([2, 1, 3, 4], [5, 4, 6], 2 * (2 * 5) * 3 * 6 * 4, [2, 5, 3, 6]),  # batch broadcast
    ],
)
def test_matmul_broadcast_cases(a: list[int], b: list[int], flops: int, out: list[int]) -> None:
    got = work("aten::matmul", a, b)
    out_elements = 1
    for n in out:
        out_elements *= n
    a_n = b_n = 1
    for n in a:
        a_n *= n
    for n in b:
        b_n *= n
    assert (got.flops, got.bytes) == (flops, (a_n + b_n + out_elements) * 4)


def test_matmul_that_does_not_broadcast_is_unknown() -> None:
    assert "broadcast" in run("aten::matmul", [2, 3, 4], [5, 4, 6]).reason
    assert "inner" in run("aten::matmul", [3, 4], [5]).reason


def test_linear_and_scaled_mm() -> None:
    lin = work("aten::linear", [2, 3, 4], [5, 4], [5])  # x[6 rows, 4] @ w^T[4, 5]
    assert (lin.flops, lin.bytes) == (2 * 6 * 5 * 4, (24 + 20 + 5 + 30) * 4)
    fp8 = "c10::Float8_e4m3fn"
    # _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype=15 (bf16), fast_accum)
    got = work("aten::_scaled_mm", ([16, 32], fp8), ([32, 8], fp8), ([], T), ([], T),
               None, None, 15, False)  # fmt: skip
    assert got.flops == 2 * 16 * 8 * 32
    assert got.bytes == 512 + 256 + 4 + 4 + 16 * 8 * 2  # FP8 operands, FP32 scales, BF16 out
    assert (got.dtype, peak_key(got.dtype), got.note) == ("fp8_e4m3", "fp8", "")
    no_type = work("aten::_scaled_mm", ([16, 32], fp8), ([32, 8], fp8), ([], T), ([], T))
    assert no_type.bytes == 512 + 256 + 8 + 128 and "assumed" in no_type.note


def test_ascend_matmul_infers_transposes() -> None:
    f16 = "FLOAT16"
    plain = work("MatMulV2", ([3, 4], f16), ([4, 5], f16))
    assert (plain.flops, plain.bytes, plain.dtype, plain.note) == (
        120,
        (12 + 20 + 15) * 2,
        "fp16",
        "",
    )
    # x1 [4, 3] shares only its first dim with x2 [4, 5]: x1 is transposed, M=3, K=4, N=5
    moved = work("MatMulV2", ([4, 3], f16), ([4, 5], f16))
    assert (moved.flops, moved.note) == (2 * 3 * 5 * 4, "transposes inferred")
    square = work("MatMul", ([4, 4], f16), ([4, 4], f16))  # ambiguous: untransposed preferred
    assert square.flops == 2 * 4 * 4 * 4 and square.note == ""
    assert work("BatchMatMulV2", ([2, 3, 4], f16), ([2, 4, 5], f16)).flops == 240
    out = OpCall("MatMulV2", ([6, 6], [6, 2]), ("FLOAT16", "FLOAT16"), outputs=([6, 2],))
    assert work_of(out).flops == 2 * 6 * 2 * 6


# --- convolution ------------------------------------------------------------------------

CONV2D = ("aten::conv2d",)


def test_conv2d_output_from_strides() -> None:
    # x [2,3,8,8], w [4,3,3,3], stride 2, padding 1: out (8 + 2 - 2 - 1) // 2 + 1 = 4
    got = work("aten::conv2d", [2, 3, 8, 8], [4, 3, 3, 3], [4], "[2, 2]", "[1, 1]", "[1, 1]", 1)
    assert got.flops == 2 * 2 * (4 * 4) * (4 * 3 * 3 * 3)  # 2 N prod(out) numel(w) = 6912
    assert got.bytes == (384 + 108 + 4 + 2 * 4 * 16) * 4
    # the same call through mkldnn's schema (padding before stride) and convolution's
    mk = work("aten::mkldnn_convolution", [2, 3, 8, 8], [4, 3, 3, 3], [4], "[1, 1]", "[2, 2]",
              "[1, 1]", 1)  # fmt: skip
    conv = work("aten::convolution", [2, 3, 8, 8], [4, 3, 3, 3], [4], "[2, 2]", "[1, 1]",
                "[1, 1]", False, "[0, 0]", 1)  # fmt: skip
    assert mk.flops == conv.flops == 6912


def test_conv_groups_dilation_same_padding_3d_and_unbatched() -> None:
    # depthwise: groups 4, w [4,1,3,3]; 5x5 -> 3x3; 36 outputs x 9 products x 2
    assert (
        work(
            "aten::conv2d", [1, 4, 5, 5], [4, 1, 3, 3], None, "[1, 1]", "[0, 0]", "[1, 1]", 4
        ).flops
        == 648
    )
    # dilation 2: effective kernel 5, 7 -> 3
    assert (
        work("aten::conv2d", [1, 1, 7, 7], [1, 1, 3, 3], None, "[1]", "[0]", "[2]", 1).flops
        == 2 * 9 * 9
    )
    # padding='same' keeps 5x5
    assert (
        work(
            "aten::conv2d", [1, 1, 5, 5], [1, 1, 3, 3], None, "[1, 1]", "'same'", "[1, 1]", 1
        ).flops
        == 2 * 25 * 9
    )
    # conv3d stride 2: 4^3 -> 2^3, w numel 2*1*8 = 16
    assert work("aten::conv3d", [1, 1, 4, 4, 4], [2, 1, 2, 2, 2], None, "[2, 2, 2]", "[0, 0, 0]",
                "[1, 1, 1]", 1).flops == 2 * 8 * 16  # fmt: skip
    # unbatched input [C, H, W]: N = 1
    assert (
        work("aten::conv2d", [3, 8, 8], [4, 3, 3, 3], None, "[2, 2]", "[1, 1]", "[1, 1]", 1).flops
        == 6912 // 2
    )


def test_transposed_convolution_counts_from_the_input_side() -> None:
    # x [1,2,3,3], w [2,3,2,2] (C_in, C_out/g, k), stride 2: out (3-1)*2 + (2-1) + 1 = 6
    got = work("aten::convolution", [1, 2, 3, 3], [2, 3, 2, 2], None, "[2, 2]", "[0, 0]",
               "[1, 1]", True, "[0, 0]", 1)  # fmt: skip
    assert got.flops == 2 * 1 * 9 * 24  # 2 N prod(input spatial) numel(w)
    assert got.bytes == (18 + 24 + 1 * 3 * 6 * 6) * 4
    tr = work("aten::conv_transpose2d", [1, 2, 3, 3], [2, 3, 2, 2], None, "[2, 2]", "[0, 0]",
              "[0, 0]", 1, "[1, 1]")  # fmt: skip
    assert tr.flops == got.flops


def test_conv_without_strides_uses_the_backward_shapes_or_is_unknown() -> None:
    old = ("aten::cudnn_convolution", [32, 64, 56, 56], [64, 64, 3, 3], None, None, None, None)
    assert "stride" in run(*old).reason
    hints = ConvShapes()
    hints.add([32, 64, 56, 56], [64, 64, 3, 3], [32, 64, 56, 56])
    got = work(*old, shapes=hints)
    assert got.flops == 2 * 32 * (56 * 56) * (64 * 64 * 9) and "backward" in got.note
    hints.add([32, 64, 56, 56], [64, 64, 3, 3], [32, 64, 28, 28])  # two answers: none
    assert isinstance(run(*old, shapes=hints), Unknown)


def test_convolution_backward_by_output_mask() -> None:
    args = ([2, 4, 4, 4], [2, 3, 8, 8], [4, 3, 3, 3], "[4]", "[2, 2]", "[1, 1]", "[1, 1]",
            False, "[0, 0]", 1)  # fmt: skip
    both = work("aten::convolution_backward", *args, "[True, True, True]")
    assert both.flops == 2 * 6912  # grad_input and grad_weight, each the forward's FLOPs
    # read grad_out 128, w 108, x 384; written grad_input 384, grad_weight 108, grad_bias 4
    assert both.bytes == (128 + 108 + 384 + 384 + 108 + 4) * 4
    weight_only = work("aten::convolution_backward", *args, "[False, True, False]")
    assert (weight_only.flops, weight_only.bytes) == (6912, (128 + 384 + 108) * 4)
    assert "output_mask" in run("aten::convolution_backward", *args, None).reason


def test_cudnn_backward_input_and_weight() -> None:
    # cudnn_convolution_backward_input(self_size, grad_output, weight, padding, stride, ...)
    gi = work("aten::cudnn_convolution_backward_input", "[2, 3, 8, 8]", [2, 4, 4, 4], [4, 3, 3, 3])
    assert (gi.flops, gi.bytes) == (6912, (128 + 108 + 384) * 4)
    gw = work("aten::cudnn_convolution_backward_weight", "[4, 3, 3, 3]", [2, 4, 4, 4], [2, 3, 8, 8])
    assert (gw.flops, gw.bytes) == (6912, (128 + 384 + 108) * 4)
    assert (
        "weight size"
        in run("aten::cudnn_convolution_backward_weight", None, [2, 4, 4, 4], [2, 3, 8, 8]).reason
    )


# --- attention --------------------------------------------------------------------------


@pytest.mark.parametrize("bottom_right", [False, True])
@pytest.mark.parametrize(("sq", "sk"), [(1, 1), (5, 5), (3, 5), (5, 3), (4, 9), (9, 4)])
def test_causal_pairs_match_counting_the_mask(sq: int, sk: int, bottom_right: bool) -> None:
    offset = sk - sq if bottom_right else 0
    brute = sum(1 for i in range(sq) for j in range(sk) if j <= i + offset)
    assert causal_pairs(sq, sk, bottom_right) == brute


def test_sdpa_forward_backward_causal_and_gqa() -> None:
    qkv = ([2, 2, 5, 4], [2, 2, 5, 4], [2, 2, 5, 4])
    # sdpa(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    full = work("aten::scaled_dot_product_attention", *qkv, None, 0.0, False, None, False)
    assert full.flops == 2 * (2 * 2) * (5 * 5) * (4 + 4)  # 2 B H S_q S_k (D + D_v) = 1600
    assert full.bytes == (3 * 80 + 80) * 4  # q, k, v read, output written
    causal = work("aten::scaled_dot_product_attention", *qkv, None, 0.0, True, None, False)
    assert causal.flops == 2 * 4 * 15 * 8  # 15 of 25 (query, key) pairs kept: (S + 1) / 2S
    # GQA: 4 query heads share 2 key/value heads; products are per query head
    gqa = work("aten::_scaled_dot_product_flash_attention", [1, 4, 6, 8], [1, 2, 6, 8],
               [1, 2, 6, 8], 0.0, False, False, None)  # fmt: skip
    assert gqa.flops == 2 * 4 * 36 * 16
    # backward(grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, attn_mask, scale)
    back = work("aten::_scaled_dot_product_flash_attention_for_cpu_backward", [2, 2, 5, 4], *qkv,
                [2, 2, 5, 4], [2, 2, 5], 0.0, False, None, None)  # fmt: skip
    assert back.flops == 2 * 4 * 25 * (3 * 4 + 2 * 4)  # 2 B H S_q S_k (3 D + 2 D_v) = 4000
    assert back.bytes == (5 * 80 + 20) * 4 + 3 * 80 * 4  # six inputs read, dq dk dv written
    unset = work("aten::scaled_dot_product_attention", *qkv)  # no concrete inputs
    assert unset.flops == 1600 and "causal flag not recorded" in unset.note


def test_flash_and_efficient_ops_use_batch_seq_heads_dim() -> None:
    q = k = v = [2, 5, 3, 4]  # B=2, S=5, H=3, D=4
    # _flash_attention_forward(q, k, v, cum_seq_q, cum_seq_k, max_q, max_k, dropout, is_causal, ...)
    fa = work("aten::_flash_attention_forward", q, k, v, None, None, 5, 5, 0.0, False)
    assert fa.flops == 2 * (2 * 3) * 25 * 8
    # bottom-right causal with S_q=3 < S_k=5: rows keep 3, 4, 5 keys
    short = work("aten::_flash_attention_forward", [2, 3, 3, 4], k, v, None, None, 3, 5, 0.0, True)
    assert short.flops == 2 * 6 * (3 + 4 + 5) * 8
    # efficient attention's custom_mask_type (position 9): 1 = causal from the top left
    ea = work("aten::_efficient_attention_forward", q, k, v, None, None, None, 5, 5, 0.0, 1)
    assert ea.flops == 2 * 6 * 15 * 8
    packed = run(
        "aten::_flash_attention_forward", [10, 3, 4], [10, 3, 4], [10, 3, 4], [3], [3], 5, 5
    )
    assert "variable-length" in packed.reason


def test_ascend_flash_attention_layouts() -> None:
    f16 = "FLOAT16"
    # BSH [B=2, S=5, H=12]: per query head 2 S^2 (D + D_v), summed over heads: 2 B S^2 (H + H)
    bsh = work("FlashAttentionScore", ([2, 5, 12], f16), ([2, 5, 12], f16), ([2, 5, 12], f16))
    assert (bsh.flops, bsh.dtype) == (2 * 2 * 25 * 24, "fp16") and "inferred" in bsh.note
    bnsd = work(
        "FlashAttentionScore", ([2, 3, 5, 4], f16), ([2, 3, 5, 4], f16), ([2, 3, 5, 4], f16)
    )
    assert bnsd.flops == 2 * 6 * 25 * 8
    grad = work("FlashAttentionScoreGrad", ([2, 3, 5, 4], f16), ([2, 3, 5, 4], f16),
                ([2, 3, 5, 4], f16), ([2, 3, 5, 4], f16))  # fmt: skip
    assert grad.flops == 2 * 6 * 25 * 20
    # npu_fusion_attention(q, k, v, head_num, input_layout, ..., sparse_mode at 16 = 2: causal)
    args = [None] * 11 + [2]
    fused = work("npu::npu_fusion_attention", ([2, 5, 3, 4], f16), ([2, 5, 3, 4], f16),
                 ([2, 5, 3, 4], f16), 3, "BSND", *args)  # fmt: skip
    assert fused.flops == 2 * 6 * 15 * 8 and fused.note == ""
    assert (
        "TND"
        in run("npu::npu_fusion_attention", [10, 3, 4], [10, 3, 4], [10, 3, 4], 3, "TND").reason
    )
