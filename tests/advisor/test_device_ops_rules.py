"""Rules on device work a setting or a fused kernel removes: fusion_candidates,
conv_layout, sdpa_math_backend and the graded fusible_attention, on hand-written H100
traces, planted torch runs and real runs where they must stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.advisor.facts.device_ops import fused_kernels_fit
from tests.advisor.gputrace import HALF, elementwise, gpu_trace, mm
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

ROOT = Path(__file__).resolve().parents[2]

TRANSFORMER = "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json"
SDPA = ("aten::scaled_dot_product_attention",)


def _checked(advice, rule_id: str) -> dict:  # type: ignore[no-untyped-def]
    does_not_fire(advice, rule_id)
    return next(c.facts for c in advice.checked if c.id == rule_id)


# --- fusion_candidates -----------------------------------------------------------------------


def test_planted_element_wise_chain_is_a_fusion_candidate(
    planted: Path, advisor_ws: Path, tmp_path: Path
) -> None:
    """Each block's `((x * 1.01 + 0.1).tanh() * 0.5 + x).relu().neg().exp().sqrt()` after
    its residual add: a chain of ten element-wise calls on one [B, S, 64] tensor, forward
    and backward, in both blocks. Its share of operator time is 12-20 % on a quiet machine
    but falls to ~3 % when other processes slow the multi-threaded GEMMs, so the firing is
    checked with the thresholds lowered (the GPU test below checks the shipped ones)."""
    rules = tmp_path / "rules"
    rules.mkdir()
    text = (ROOT / "rules/fusion_candidates.toml").read_text()
    text = text.replace("threshold = 0.08", "threshold = 0.01")
    (rules / "fusion_candidates.toml").write_text(
        text.replace("min_step_share = 0.05", "min_step_share = 0.005")
    )
    advice = advise_path(planted / "elementwise_chain", advisor_ws, rules_dirs=(rules,))
    f = fires(advice, "fusion_candidates")
    assert f.facts["fusion.elementwise_chains"] == 4  # 2 blocks x (forward + backward)
    assert any(
        e.label.startswith("10 element-wise calls") and "tanh" in e.label for e in f.evidence
    )
    assert all(e.kind == "time_range" and e.end_ns > e.start_ns for e in f.evidence)


def test_clean_plant_has_no_element_wise_chain(planted: Path, advisor_ws: Path) -> None:
    assert (
        _checked(advise_path(planted / "none", advisor_ws), "fusion_candidates")[
            "fusion.elementwise_chains"
        ]
        == 0
    )


def test_dropout_masks_break_chains(advisor_ws: Path) -> None:
    """relu -> bernoulli_ -> div_ -> mul in the CPU transformer: the dropout mask is random
    generation (a third of the step, hot_operator's), not a memory pass fusion removes."""
    advice = advise_path(shared(TRANSFORMER), advisor_ws)
    does_not_fire(advice, "fusion_candidates")
    facts = _checked(advice, "fusion_candidates")
    assert facts["fusion.elementwise_chain_share"] < 0.05


def test_element_wise_chain_on_the_gpu(tmp_path: Path, advisor_ws: Path) -> None:
    """Four element-wise kernels on one 16M-element tensor after a GEMM: 4 x 300 of 1360 us."""
    calls = [mm(4096, 4096, 4096, 160)] + [
        elementwise(name, 1 << 24, 300)
        for name in ("aten::mul", "aten::add", "aten::tanh", "aten::mul")
    ]
    f = fires(
        advise_path(gpu_trace(tmp_path / "ew", calls).parent, advisor_ws), "fusion_candidates"
    )
    assert f.facts["fusion.elementwise_chain_share"] == pytest.approx(1200 / 1360, rel=1e-3)
    assert f.facts["fusion.elementwise_chains"] == 1
    two = [mm(4096, 4096, 4096, 160), *calls[1:3], mm(4096, 4096, 4096, 160), *calls[3:]]
    facts = _checked(advise_path(gpu_trace(tmp_path / "short", two).parent, advisor_ws),
                   "fusion_candidates")  # fmt: skip
    assert facts["fusion.elementwise_chains"] == 0  # runs of 2 and 1


def _llm_block(hidden: int, tokens: int, us: float) -> list[tuple]:
    """A LLaMA-style block written by hand: RMSNorm (pow, mean, add, rsqrt, mul, mul with a
    cast), rotary embedding (mul, neg, cat, mul, add), SwiGLU (silu, mul), then a GEMM."""
    x, col, half = [tokens, hidden], [tokens, 1], [tokens, hidden // 2]
    fp32, cast = ["float", "Scalar"], ("aten::to", [x, [], []], [HALF], "cast_kernel", us)

    def ew(name: str, dims: list) -> tuple:
        return (f"aten::{name}", dims, fp32, "vectorized_elementwise_kernel", us)

    return [
        ew("pow", [x, []]),
        ("aten::mean", [x, [], []], ["float"], "reduce_kernel", us),
        ew("add", [col, []]),
        ew("rsqrt", [col]),
        ew("mul", [x, col]),
        cast,
        ew("mul", [[hidden], x]),
        ew("mul", [x, x]),
        ew("neg", [half]),
        ("aten::cat", [[half, half], []], ["float"], "cat_kernel", us),
        ew("mul", [x, x]),
        ew("add", [x, x]),
        ew("silu", [x]),
        ew("mul", [x, x]),
        mm(4096, 4096, 4096, 160),
    ]


def test_hand_written_fused_operators(tmp_path: Path, advisor_ws: Path) -> None:
    calls = _llm_block(4096, 4096, 30)
    trace = gpu_trace(tmp_path / "llm", calls, steps=1)  # one step: 3 evidence rows
    f = fires(advise_path(trace.parent, advisor_ws), "fusion_candidates")
    labels = {e.label.split(" written")[0] for e in f.evidence}
    assert labels == {"RMSNorm", "rotary embedding", "SwiGLU"}
    assert f.facts["fusion.elementwise_chains"] == 3
    # every call but the GEMM and the cast is in a pattern: 13 x 30 us
    assert f.facts["fusion.elementwise_chain_us"] == pytest.approx(13 * 30)
    assert f.facts["fusion.elementwise_chain_share"] > 0.6


# --- conv_layout -----------------------------------------------------------------------------


def _conv(us: float, kname: str) -> tuple:
    dims = [[32, 64, 56, 56], [64, 64, 3, 3], [64], [], [], [], []]
    return ("aten::cudnn_convolution", dims, [HALF, HALF, HALF], kname, us)


def test_layout_transposes_around_convolutions(tmp_path: Path, advisor_ws: Path) -> None:
    calls = [
        _conv(40, "void nchwToNhwcKernel<__half, __half, float, true, false>(int)"),
        _conv(200, "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_nhwckrsc_nhwc"),
        _conv(40, "void nhwcToNchwKernel<__half, __half, float, true, false>(int)"),
    ]
    f = fires(advise_path(gpu_trace(tmp_path / "nchw", calls).parent, advisor_ws), "conv_layout")
    assert f.facts["kernel.layout_transpose_share"] == pytest.approx(80 / 280, rel=1e-3)
    assert f.estimated_saving_us == pytest.approx(80)
    assert {e.name.split("<")[0] for e in f.evidence} == {
        "void nchwToNhwcKernel",
        "void nhwcToNchwKernel",
    }
    assert any("channels_last" in a.en for a in f.actions)


def test_host_bound_run_with_few_transposes_is_quiet(advisor_ws: Path) -> None:
    """HTA's DDP CNN: transposes are 9 % of GPU time but 5 ms of a 222 ms host-bound step
    (2.3 %): removing them would not shorten the step."""
    advice = advise_path(shared("hta/nccl_parser_config"), advisor_ws)
    does_not_fire(advice, "conv_layout")
    facts = _checked(advice, "conv_layout")
    assert facts["kernel.layout_transpose_share"] > 0.05
    assert facts["kernel.layout_transpose_us"] < 0.03 * facts["step.average_us"]


# --- sdpa_math_backend -----------------------------------------------------------------------


def _sdpa(us: float, head: int, dtype: str = HALF) -> tuple:
    q = [8, 16, 1024, head]
    return ("aten::_scaled_dot_product_attention_math", [q, q, q], [dtype] * 3,
            "cutlass_80_tensorop_bmm", us, SDPA)  # fmt: skip


def test_sdpa_math_path_on_the_gpu(tmp_path: Path, advisor_ws: Path) -> None:
    calls = [mm(4096, 4096, 4096, 160), _sdpa(600, 64)]
    f = fires(advise_path(gpu_trace(tmp_path / "math", calls).parent, advisor_ws),
              "sdpa_math_backend")  # fmt: skip
    assert f.facts["operator.sdpa_math_share"] == pytest.approx(600 / 760, rel=1e-3)
    assert f.facts["operator.sdpa_math_calls"] == 1
    assert f.evidence[0].start_ns is not None


def test_sdpa_math_path_with_a_head_the_fused_kernels_refuse(
    tmp_path: Path, advisor_ws: Path
) -> None:
    calls = [mm(4096, 4096, 4096, 160), _sdpa(600, 512)]
    advice = advise_path(gpu_trace(tmp_path / "wide", calls).parent, advisor_ws)
    does_not_fire(advice, "sdpa_math_backend")
    facts = _checked(advice, "sdpa_math_backend")
    assert facts["operator.sdpa_math_calls"] == 0


def test_fused_kernels_fit() -> None:
    q = "[[2, 4, 128, 64], [2, 4, 128, 64], [2, 4, 128, 64], [], []]"
    assert fused_kernels_fit(q, '["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]')
    assert fused_kernels_fit(q, '["float", "float", "float"]')
    assert not fused_kernels_fit(q, '["double", "double", "double"]')
    assert not fused_kernels_fit(q.replace("64]", "60]"), '["float", "float", "float"]')
    assert not fused_kernels_fit("oops", "[]")


# --- fusible_attention graded by its share ---------------------------------------------------


def _attention(scores_us: float) -> list[tuple]:
    q, k = [16, 1024, 64], [16, 64, 1024]
    return [
        ("aten::bmm", [q, k], [HALF, HALF], "sm80_gemm_f16", scores_us),
        ("aten::softmax", [[16, 1024, 1024], [], []], [HALF], "softmax_warp_forward", scores_us),
        ("aten::bmm", [[16, 1024, 1024], [16, 1024, 64]], [HALF, HALF], "sm80_gemm_f16", scores_us),
    ]


@pytest.mark.parametrize(("attention_us", "severity"), [(300, "high"), (25, "medium"), (10, "low")])
def test_hand_written_attention_graded_by_its_device_share(
    tmp_path: Path, advisor_ws: Path, attention_us: float, severity: str
) -> None:
    """Attention at 82 % of the GPU time is high, at 27 % medium, at 13 % low."""
    calls = [*_attention(attention_us), mm(4096, 4096, 4096, 200)]
    f = fires(advise_path(gpu_trace(tmp_path / severity, calls).parent, advisor_ws),
              "fusible_attention")  # fmt: skip
    share = 3 * attention_us / (3 * attention_us + 200)
    assert f.facts["operator.manual_attention_share"] == pytest.approx(share, rel=1e-3)
    assert f.severity == severity
