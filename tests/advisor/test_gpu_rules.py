"""GPU device-compute rules on real V100/A100 traces (the plugin's ResNet-50 samples, HTA data).

Figures are checked against the PyTorch profiler plugin's golden overview
(tb_plugin_expected/result_check_file.txt) where it states them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.advisor.helpers import (
    advise_path,
    does_not_fire,
    fires,
    judging_any_window,
    window_limited,
)
from tests.conftest import shared

GPU_RULES = (
    "tensor_cores_unused",
    "gpu_utilization_low",
    "low_achieved_occupancy",
    "gpu_idle_gaps",
    "short_kernels",
    "kernel_launch_overhead",
    "host_bound_cpu",
    "blocking_sync",
    "pageable_memcpy",
    "allocator_calls",
)


@pytest.mark.parametrize("run", ["resnet50_num_workers_0", "resnet50_num_workers_4"])
def test_fp32_resnet_on_volta_does_not_use_tensor_cores(advisor_ws: Path, run: str) -> None:
    # The plugin recommends AMP for both runs: "Kernels with 68% time are launched by Tensor
    # Cores eligible operators"; "Kernel Time using Tensor Cores 0.0 %"; compute capability 7.0.
    f = fires(advise_path(shared(f"kineto/{run}"), advisor_ws), "tensor_cores_unused")
    assert f.severity == "medium"
    assert f.facts["gpu.compute_capability"] == 7.0
    assert f.facts["gpu.tc_kernel_share"] == 0.0
    assert round(100 * f.facts["gpu.tc_eligible_share"]) == 68
    assert "68%" in f.message.en
    ops = [e for e in f.evidence if e.kind == "operator"]
    assert ops and all(e.page == "operators" and e.value and e.value > 0 for e in ops)
    assert "aten::cudnn_convolution_backward_weight" in {e.name for e in ops}


def test_a100_run_with_tensor_core_gemms_is_fine(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/trace_diff/control"), advisor_ws)
    does_not_fire(advice, "tensor_cores_unused")
    facts = next(c.facts for c in advice.checked if c.id == "tensor_cores_unused")
    assert facts["gpu.compute_capability"] == 8.0
    assert 0.14 < facts["gpu.tc_kernel_share"] < 0.16  # cutlass_80_tensorop_s1688gemm kernels


def test_tensor_cores_not_evaluated_without_device_properties(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/trace_filter"), advisor_ws)
    missing = next(n for n in advice.not_evaluated if n.id == "tensor_cores_unused")
    assert missing.missing == ["gpu.compute_capability"]


def test_nccl_job_has_low_gpu_utilization(advisor_ws: Path) -> None:
    f = fires(advise_path(shared("hta/nccl_parser_config"), advisor_ws), "gpu_utilization_low")
    assert abs(f.facts["gpu.utilization"] - 0.2326) < 0.001


@pytest.mark.parametrize(("run", "golden"), [("0", 0.5551), ("4", 0.7027)])
def test_resnet_utilization_above_half_is_fine(advisor_ws: Path, run: str, golden: float) -> None:
    advice = advise_path(shared(f"kineto/resnet50_num_workers_{run}"), advisor_ws)
    does_not_fire(advice, "gpu_utilization_low")
    facts = next(c.facts for c in advice.checked if c.id == "gpu_utilization_low")
    assert abs(facts["gpu.utilization"] - golden) < 0.0001  # plugin: 55.51 % / 70.27 %


def test_sampled_rank_has_low_occupancy_with_kernel_evidence(
    advisor_ws: Path, tmp_path: Path
) -> None:
    # A sampled trace (2 % of its events kept): the built-in rule does not judge it ...
    window_limited(
        advise_path(shared("hta/trace_filter"), advisor_ws), "low_achieved_occupancy", "sampled"
    )
    # ... but its facts and evidence are those of the kernels that remain.
    rules = judging_any_window(tmp_path / "rules", "low_achieved_occupancy")
    f = fires(
        advise_path(shared("hta/trace_filter"), advisor_ws, rules_dirs=rules),
        "low_achieved_occupancy",
    )
    assert abs(f.facts["gpu.occupancy"] - 21.04) < 0.01
    kernels = [e for e in f.evidence if e.kind == "kernel"]
    assert 0 < len(kernels) <= 10
    assert all(e.page == "kernels" and e.name and e.unit == "percent" for e in kernels)


def test_resnet_occupancy_is_fine(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    does_not_fire(advice, "low_achieved_occupancy")
    facts = next(c.facts for c in advice.checked if c.id == "low_achieved_occupancy")
    assert abs(facts["gpu.occupancy"] - 49.13) < 0.01  # plugin: Est. Achieved Occupancy


def test_single_process_loader_leaves_long_gpu_gaps(advisor_ws: Path) -> None:
    f = fires(advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws), "gpu_idle_gaps")
    # The gaps are the DataLoader waits: plugin DataLoader 59,262 us of 177,592 us per step.
    assert abs(f.estimated_saving_us - 59262) / 59262 < 0.01
    assert f.severity == "high"
    gaps = [e for e in f.evidence if e.kind == "time_range"]
    assert len(gaps) == 7 and gaps[0].value == max(g.value for g in gaps)
    assert sum(g.value > 40_000 for g in gaps) == 6  # one long wait in each of the 6 steps
    assert all(g.page == "timeline" and g.end_ns - g.start_ns >= 1_000_000 for g in gaps)
    assert all(g.end_ns - g.start_ns == round(g.value * 1000) for g in gaps)


def test_busy_v100_has_no_long_gaps(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/ns_resolution_trace"), advisor_ws)
    does_not_fire(advice, "gpu_idle_gaps")


def test_cpu_only_trace_leaves_gpu_rules_not_evaluated(advisor_ws: Path) -> None:
    advice = advise_path(shared("torch_cpu/small"), advisor_ws)
    not_evaluated = {n.id: n for n in advice.not_evaluated}
    for rule in GPU_RULES:
        assert rule in not_evaluated, rule
        assert "GPU" in not_evaluated[rule].reason
