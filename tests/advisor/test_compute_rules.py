"""The device-compute rules (low_mfu, gemm_efficiency) on hand-written H100 traces whose
answers follow from the FLOPs by hand, and on real runs where they must stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.advisor.gputrace import elementwise, gpu_trace, mm
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

H100_FP16 = 989.5e12  # dense fp16 tensor-core peak, FLOP/s
IDEAL_4096 = 2 * 4096**3 / H100_FP16 * 1e6  # us of a 4096^3 fp16 GEMM at the peak (~139)


def test_low_mfu_fires_when_the_busy_device_is_slow(tmp_path: Path, advisor_ws: Path) -> None:
    """One 4096^3 fp16 GEMM taking 900 us: busy MFU ~15 %, the device computes ~95 % of
    the step."""
    f = fires(advise_path(gpu_trace(tmp_path / "slow", [mm(4096, 4096, 4096, 900)]).parent,
                          advisor_ws), "low_mfu")  # fmt: skip
    assert f.facts["perf.busy_mfu"] == pytest.approx(IDEAL_4096 / 900, rel=1e-3)
    assert f.facts["perf.compute_us"] == pytest.approx(900)
    assert f.severity == "high"  # the step is almost all compute
    assert f.estimated_saving_us == pytest.approx(900 * (1 - IDEAL_4096 / 900 / 0.5), rel=1e-3)


def test_low_mfu_quiet_when_the_gemm_runs_near_peak(tmp_path: Path, advisor_ws: Path) -> None:
    advice = advise_path(gpu_trace(tmp_path / "fast", [mm(4096, 4096, 4096, 160)]).parent,
                         advisor_ws)  # fmt: skip
    does_not_fire(advice, "low_mfu")
    does_not_fire(advice, "gemm_efficiency")


def test_low_mfu_quiet_when_the_device_is_mostly_idle(tmp_path: Path, advisor_ws: Path) -> None:
    """The same slow GEMM in a step that is 90 % device idle: the MFU is low, but that is
    idle time, not inefficient compute (compute share below the bar)."""
    trace = gpu_trace(tmp_path / "idle", [mm(4096, 4096, 4096, 900)], gap_us=9000)
    f = next(c for c in advise_path(trace.parent, advisor_ws).checked if c.id == "low_mfu")
    assert f.facts["perf.compute_step_share"] < 0.2


def test_low_mfu_not_judged_when_the_model_covers_little(tmp_path: Path, advisor_ws: Path) -> None:
    """A kernel the perf model cannot model (no shapes) holds most of the device time."""
    unknown = ("my_ext::op", [], [], "custom_kernel", 3000.0)
    trace = gpu_trace(tmp_path / "cover", [mm(4096, 4096, 4096, 900), unknown])
    advice = advise_path(trace.parent, advisor_ws)
    reason = next(n.reason for n in advice.not_evaluated if n.id == "low_mfu")
    assert "covers only 23%" in reason


def test_low_mfu_and_gemm_efficiency_not_on_cpu_runs(planted: Path, advisor_ws: Path) -> None:
    advice = advise_path(planted / "none", advisor_ws)
    missing = {n.id: n.reason for n in advice.not_evaluated}
    assert "no device work" in missing["low_mfu"] and "no device work" in missing["gemm_efficiency"]


def test_gemm_efficiency_names_small_and_badly_tiled_shapes(
    tmp_path: Path, advisor_ws: Path
) -> None:
    """A memory-bound 64x4096x4096 GEMM at ~5 % of its bandwidth roof and a 4096^3 GEMM at
    ~15 % of the compute peak: all matrix time is slow; the small one is 1/3 of it."""
    calls = [mm(64, 4096, 4096, 200), mm(4096, 4096, 4096, 900)]
    f = fires(advise_path(gpu_trace(tmp_path / "g", calls).parent, advisor_ws),
              "gemm_efficiency")  # fmt: skip
    assert f.facts["perf.slow_matrix_share"] == pytest.approx(1.0)
    assert f.facts["perf.slow_matrix_small_share"] == pytest.approx(200 / 1100)
    assert f.facts["perf.slow_matrix_us"] == pytest.approx(1100)
    labels = ["".join(e.label.split()) for e in f.evidence]  # shapes as written, spaces and all
    assert any("[[64,4096]" in x and "small" in x for x in labels)
    assert any("[[4096,4096]" in x and "compute-bound" in x for x in labels)


def test_gemm_efficiency_quiet_with_element_wise_time(tmp_path: Path, advisor_ws: Path) -> None:
    """Slow element-wise work is not GEMM inefficiency."""
    calls = [mm(4096, 4096, 4096, 160), elementwise("aten::add", 1 << 24, 2000)]
    does_not_fire(advise_path(gpu_trace(tmp_path / "e", calls).parent, advisor_ws),
                  "gemm_efficiency")  # fmt: skip


@pytest.mark.parametrize("data", ["kineto/resnet50_num_workers_0", "kineto/resnet50_num_workers_4"])
def test_resnet50_compute_is_not_low(advisor_ws: Path, data: str) -> None:
    """FP32 ResNet-50 on a V100: ~49 % of the FP32 peak while the GPU computes (MFU over the
    step 28-35 %, the rest is idle time); convolutions at ~74 % of their roof."""
    advice = advise_path(shared(data), advisor_ws, "worker0")
    does_not_fire(advice, "low_mfu")
    does_not_fire(advice, "gemm_efficiency")
    facts = next(c.facts for c in advice.checked if c.id == "low_mfu")
    assert 0.45 < facts["perf.busy_mfu"] < 0.55
