"""The tensor-core kernel table (`analysis/operators/tensor_core_kernels.toml`) on real names.

Every name below is a real kernel name as a profiler printed it, from public traces and
profiles; each group says where it was seen. The verdict is what the hardware does: a name
that only shares a family word with tensor-core kernels (`xmma`, `cutlass3x_sm100`) but runs
FFMA/SIMT on CUDA cores must be False, or the advisor would call an FP32 fallback healthy.
"""

from __future__ import annotations

import pytest

from mindinsight_profiler.analysis.operators.tensor_cores import (
    is_tc_kernel,
    kernel_rules,
    tc_rule,
)

#: (architecture, kernel name, runs on tensor/matrix cores)
CASES = [
    # Volta/Turing/Ampere cuBLAS and cuDNN (the PyTorch profiler plugin's own list, 2021;
    # names from its test traces in ../shared/data/kineto and its golden results).
    ("volta", "volta_h884gemm_64x64_ldg8_nn", True),
    ("volta", "volta_sgemm_128x64_nn", False),
    ("turing", "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn", True),
    ("ampere", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", True),
    ("ampere", "ampere_sgemm_128x64_nn", False),
    ("ampere", "implicit_convolve_sgemm", False),
    # CUTLASS 2 on Ampere: cutlass_80_tensorop_* (an H100/RTX profile write-up on GitHub and
    # nsys-ai's kernel-name tests).
    ("ampere", "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm>", True),
    ("ampere", "cutlass_80_tensorop_i16832gemm_s8_128x64_128x3_tn_align16", True),
    # Hopper cuBLAS: sm90_xmma (TF32/BF16 warpgroup) and the FP32 fallback that keeps the
    # sm80 FFMA kernel even on H100 (nsys kernel summaries in public H100 write-ups).
    (
        "hopper",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"
        "_execute_segment_k_off_kernel__5x_cublas",
        True,
    ),
    (
        "hopper",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize2x1x1",
        True,
    ),
    (
        "hopper",
        "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1"
        "_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
        False,
    ),
    # cuBLAS 12.9+ JIT GEMMs on Hopper/Blackwell (vLLM/SGLang profiles, nsys-ai tests).
    ("hopper", "nvjet_tst_128x256_64x6_2x1_2cta_v_bz_TNT", True),
    ("hopper", "nvjet_sm90_hss_320x128_64x3_1x2_h_bz_coopB_NNT", True),
    ("hopper", "nvjet_hsh_256x128_64x4_2x1_v_bz_TNN", True),
    # FlashAttention 2/3 and fused attention (PyTorch SDPA traces).
    ("hopper", "flash_fwd_splitkv_kernel", True),
    (
        "ampere",
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 32, 4>>",
        True,
    ),
    ("ampere", "fmha_cutlassF_f16_aligned_64x64_rf_sm80", True),
    # Blackwell: CUTLASS 3 tensorop and block-scaled FP4/FP8, TensorRT-LLM FP8 batched GEMMs
    # (SGLang/FlashInfer B200 profiles on GitHub), and the SIMT SGEMM that is not a TC kernel.
    (
        "blackwell",
        "cutlass3x_sm100_tensorop_gemm_bf16_bf16_f32_bf16_bf16_256x256x64_2x2x1_0_tnt_align8_2sm",
        True,
    ),
    ("blackwell", "cutlass3x_sm100_bstensorop_s256x128x64gemm_block_scaled_ue4m3xf4_ue4m3", True),
    (
        "blackwell",
        "bmm_E4m3_E4m3E4m3_Fp32_t128x16x128u2_s6_et64x16_m64x16x32_c1x1x1_rM_TN"
        "_transOut_noShfl_dsFp8_schPd4x2x2x3_bN_tma_tmaSf_rgTma_clmp_lbW2_dynB_sm100f",
        True,
    ),
    ("blackwell", "bmm_Bfloat16_E4m3E4m3_Fp32_t128x16x128_s6_et64x16_m64x16x32_c1x1x1_rM_TN", True),
    (
        "blackwell",
        "cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_64x128x16_1x1x1_3_tnn_align1_bias_f32_relu",
        False,
    ),
    # DeepGEMM on Blackwell (an SGLang B200 profile on GitHub).
    (
        "blackwell",
        "void deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl<(cute::UMMA::Major)0, "
        "(cute::UMMA::Major)0, 128u, 128u, 0u, 0u, 0u, 16u, 128u, 128u, 1u>",
        True,
    ),
    # cuDNN's CUTLASS convolutions in an A100 trace (HTA's ../shared/data/hta/nccl_parser_config):
    # a 1,644-character mangled name, abridged to its head and the TensorOp fragment, and
    # the readable TF32 one.
    (
        "ampere",
        "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11"
        "threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32 ... "
        "ColumnMajorTensorOpMultiplicandCongruousILi32ELi32E",
        True,
    ),
    (
        "ampere",
        "void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128"
        "_32x4_nhwc_align4>(cutlass_tensorop_s1688fprop_optimized_tf32_128x128_32x4_nhwc_align4::"
        "Params)",
        True,
    ),
    (
        "ampere",
        "void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>"
        "(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)",
        False,
    ),
    (
        "ampere",
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
        True,
    ),
    # AMD CDNA: rocBLAS/hipBLASLt Tensile names carry the MFMA instruction as _MI<m>x<n>x<k>;
    # without it the kernel is a vector-ALU one (MI250/MI300X profiles on GitHub, HTA's
    # ../shared/data/hta/amd_trace).
    ("cdna", "Cijk_Alik_Bljk_HHS_MT128x128x32_MI16x16x16x1", True),
    ("cdna", "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x208x64_MI16x16x1_SN_LDSB1", True),
    ("cdna", "Cijk_Alik_Bljk_SB_MT64x128x16_SN_1LDSB0_", False),
    (
        "cdna",
        "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1",
        True,
    ),  # ../shared/data/hta/amd_trace (MI250, ROCm 6.2)
    # Composable Kernel's XDL (MFMA) GEMMs (ck/tensor_operation/gpu/grid/gridwise_gemm_xdl_*).
    (
        "cdna",
        "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<>, true, 2>",
        True,
    ),
    # Not matrix kernels at all.
    (
        "any",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
        False,
    ),
    ("any", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", False),
    ("any", "void at::native::reduce_kernel<512, 1>", False),
    ("any", "triton_per_fused_native_layer_norm_0", False),
]


@pytest.mark.parametrize(("arch", "name", "tc"), CASES, ids=[f"{c[0]}:{c[1][:40]}" for c in CASES])
def test_verdict_on_real_kernel_names(arch: str, name: str, tc: bool) -> None:
    assert is_tc_kernel(name) is tc, tc_rule(name)


def test_every_rule_is_exercised_and_sourced() -> None:
    """No dead rule: each is the first match of at least one real name above, but for the
    plugin's own list, which its golden results pin (tests/integration/test_plugin_golden.py)."""
    used = {id(tc_rule(name)) for _, name, _ in CASES}
    for rule in kernel_rules():
        assert rule.source and rule.arch
        if not rule.source.startswith("torch-tb-profiler"):
            assert id(rule) in used, f"no real name pins the rule {rule.pattern.pattern!r}"


def test_exclusions_come_before_the_families_they_cut() -> None:
    """An FFMA kernel of the xmma family is decided by the exclusion, not by `xmma_gemm`."""
    rules = kernel_rules()
    ffma = tc_rule("sm80_xmma_gemm_f32f32_f32f32_f32_tn_ffma")
    xmma = tc_rule("sm80_xmma_gemm_f16f16_f16f32_f32_tn")
    assert ffma is not None and xmma is not None and not ffma.tc and xmma.tc
    assert rules.index(ffma) < rules.index(xmma)
