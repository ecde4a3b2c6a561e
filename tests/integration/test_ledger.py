"""The step ledger: every step's time attributed once, the parts summing to the step, and
equal to the plugin's breakdown where they coincide (its golden figures back that one)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.perf.op_work import op_work
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.boundaries import find_steps
from mindinsight_profiler.analysis.steps.ledger import PARTS, step_ledger
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.discovery import discover
from tests.conftest import shared
from tests.integration.test_perf_section import H100, _mm
from tests.tracegen import op, runtime, write_trace

INPUTS = [
    "kineto/resnet50_num_workers_0",
    "hta/trace_diff/control",
    "hta/amd_trace",
    "ascend_pytorch/level1",
    "torch_cpu/small",
    "mindspore_legacy/run_2/normal_run/profiler",
]


@pytest.mark.parametrize("relative", INPUTS)
def test_parts_sum_to_the_step_and_refine_the_breakdown(relative: str) -> None:
    run = discover(shared(relative))[0]
    file = run.files[0]
    report = build_report(read_trace(file.path, file.format, file.worker))
    ledger = report["ledger"]
    assert ledger["parts"] == list(PARTS)
    durations = report["steps"]["durations_us"]
    for row, duration, compute, bd in zip(
        ledger["per_step_us"], durations, ledger["compute_per_step_us"],
        report["breakdown_per_step_us"], strict=True,
    ):  # fmt: skip
        part = dict(zip(PARTS, row, strict=True))
        assert sum(row) == pytest.approx(duration, abs=1e-3)
        assert sum(compute) == pytest.approx(part["device_compute"], abs=1e-3)
        assert part["device_compute"] == pytest.approx(bd["kernel"], abs=1e-3)
        assert part["exposed_copies"] == pytest.approx(bd["memcpy"] + bd["memset"], abs=1e-3)
        assert part["exposed_communication"] == pytest.approx(bd["communication"], abs=1e-3)
        assert part["data_wait"] == pytest.approx(bd["dataloader"], abs=1e-3)
        host = part["sync_wait"] + part["host_launch"] + part["host_compute"]
        assert host == pytest.approx(bd["runtime"] + bd["cpu_exec"], abs=1e-3)
        assert part["untracked"] == pytest.approx(bd["other"], abs=1e-3)
    averaged = np.array(ledger["per_step_us"][ledger["averaged_from"] :]).mean(axis=0)
    assert list(ledger["average_us"].values()) == pytest.approx(averaged.tolist())


def test_a_blocking_sync_while_the_device_idles_is_sync_wait(tmp_path: Path) -> None:
    events = [op("ProfilerStep#0", 1000, 1000, cat="user_annotation")]
    events += _mm(1010, 200, 1)  # an fp16 GEMM: its kernel runs 1060-1260
    events += [
        op("aten::item", 1300, 150),
        op("aten::_local_scalar_dense", 1301, 148),
        runtime("cudaStreamSynchronize", 1305, 140, 0),
    ]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "s.pt.trace.json", events, deviceProperties=[H100]))
    steps = find_steps(trace)
    ledger = step_ledger(trace, steps, op_work(trace))
    part = dict(zip(PARTS, (ledger.per_step_ns[0] / 1000).tolist(), strict=True))
    assert part["device_compute"] == 200
    assert part["sync_wait"] == 150  # aten::item from 1300 to 1450, the device idle
    assert sum(part.values()) == 1000
    compute = dict(zip(("gemm",), (ledger.compute_ns[0][:1] / 1000).tolist(), strict=True))
    assert compute["gemm"] == 200  # the kernel's launching call is a GEMM
