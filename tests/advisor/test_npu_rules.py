"""Device free time and AI CPU operators on real Ascend, MindSpore and NCCL traces."""

from __future__ import annotations

import shutil
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


def test_aicpu_ops_leave_out_data_queue_ops_and_time_outside_the_steps(advisor_ws: Path) -> None:
    # aicpu_intermediate_1.csv: InitData, GetNext, EndOfSequence, GetNext, EndOfSequence
    # (160, 518, 48, 78, 40 us): MindSpore's data-queue ops, AI CPU by design in sink mode;
    # no dtype change moves them, so there is nothing to advise.
    advice = advise_path(shared("mindspore_legacy/run_2"), advisor_ws)
    does_not_fire(advice, "aicpu_ops")
    (c,) = [c for c in advice.checked if c.id == "aicpu_ops"]
    assert c.facts["npu.aicpu_count"] == 0


def test_aicpu_ops_fire_on_real_aicpu_ops_inside_the_step(tmp_path: Path, advisor_ws: Path) -> None:
    """The same run with rows 3 and 4 renamed to ops that do have AI Core kernels (Unique,
    Cast: placed on the AI CPU for an unsupported dtype). Both lie inside step 1 (it runs
    from 154,907,896,068.75 us for 23,709.05 us); row 5 (40 us) is renamed too but ends
    after the step, so only 48 + 78 us count."""
    src = shared("mindspore_legacy/run_2")
    run = tmp_path / "run_2"
    shutil.copytree(src, run)
    path = run / "normal_run/profiler/aicpu_intermediate_1.csv"
    lines = path.read_text().splitlines()
    for row, name in ((3, "Unique-op12"), (4, "Cast-op3"), (5, "Cast-op4")):
        cells = lines[row].split(",")
        cells[1] = name
        lines[row] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    f = fires(advise_path(run, advisor_ws), "aicpu_ops")
    assert f.facts["npu.aicpu_count"] == 2
    assert abs(f.facts["npu.aicpu_us"] - (48 + 78)) < 1e-6
    kernels = [(e.name, e.value) for e in f.evidence if e.kind == "kernel"]
    assert kernels == [("Cast-op3", 78.0), ("Unique-op12", 48.0)]


def test_aicpu_ops_do_not_fire_when_every_kernel_is_on_ai_core(advisor_ws: Path) -> None:
    # Level 1 kernel_details.csv: AI_VECTOR_CORE, AI_CORE, MIX_AIV, DSA_SQE, HCCL; no AI_CPU.
    advice = advise_path(shared("ascend_pytorch/level1"), advisor_ws, worker="rank0")
    does_not_fire(advice, "aicpu_ops")


def test_aicpu_ops_unknown_at_profiler_level0(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level0"), advisor_ws, worker="rank0")
    (n,) = [n for n in advice.not_evaluated if n.id == "aicpu_ops"]
    assert "level 0" in n.reason
