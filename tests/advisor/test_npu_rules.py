"""Device free time and AI CPU operators on real Ascend, MindSpore and NCCL traces."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_free_time_fires_with_the_ascend_tools_own_figure(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level0"), advisor_ws, worker="rank0")
    f = fires(advice, "device_free_time")
    # step_trace_time.csv: Free 25,908.102 us of Stage 116,251.25 us.
    assert abs(f.facts["free_time.share"] - 25_908.102 / 116_251.25) < 1e-6
    assert abs(f.estimated_saving_us - 25_908.102) < 0.01
    (step,) = [e for e in f.evidence if e.kind == "step"]
    assert step.value is not None and abs(step.value - 25_908.102) < 0.01


def test_free_time_does_not_fire_on_a_busy_gpu(advisor_ws: Path) -> None:
    # Kernel + memcpy + memset + communication cover 96.4 % of the 124,086 us step.
    advice = advise_path(shared("hta/trace_diff/test"), advisor_ws)
    does_not_fire(advice, "device_free_time")
    (c,) = [c for c in advice.checked if c.id == "device_free_time"]
    assert abs(c.facts["free_time.share"] - 0.036) < 0.001


def test_free_time_is_unknown_without_device_activity(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws)
    assert any(n.id == "device_free_time" for n in advice.not_evaluated)


def test_aicpu_ops_fire_on_mindspore_aicpu_kernels(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/run_2"), advisor_ws)
    f = fires(advice, "aicpu_ops")
    # aicpu_intermediate_1.csv: 5 kernels, run_end - run_start = 160, 518, 48, 78, 40 us.
    assert f.facts["npu.aicpu_count"] == 5
    kernels = [(e.name, e.value) for e in f.evidence if e.kind == "kernel"]
    assert kernels[:2] == [("GetNext", 518.0), ("InitData", 160.0)]
    assert all(e.end_ns > e.start_ns > 0 and e.page == "kernels" for e in f.evidence)


def test_aicpu_ops_do_not_fire_when_every_kernel_is_on_ai_core(advisor_ws: Path) -> None:
    # Level 1 kernel_details.csv: AI_VECTOR_CORE, AI_CORE, MIX_AIV, DSA_SQE, HCCL; no AI_CPU.
    advice = advise_path(shared("ascend_pytorch/level1"), advisor_ws, worker="rank0")
    does_not_fire(advice, "aicpu_ops")


def test_aicpu_ops_unknown_at_profiler_level0(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level0"), advisor_ws, worker="rank0")
    (n,) = [n for n in advice.not_evaluated if n.id == "aicpu_ops"]
    assert "level 0" in n.reason
