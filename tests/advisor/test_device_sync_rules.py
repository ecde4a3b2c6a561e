"""Synchronisation costs, device-to-host reads, device-to-device copies and blocking launches,
on hand-made GPU traces (no public trace reads a device value while the device is idle) and
on real ones (hta/trace_diff: the V100 DLRM rank whose compiled region copies 15 ms per step).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared
from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, runtime, write_trace


def memcpy(name: str, ts: float, dur: float, corr: int) -> dict[str, Any]:
    return {
        "ph": "X", "cat": "gpu_memcpy", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
        "args": {"correlation": corr, "device": 0, "stream": 7, "bytes": 704},
    }  # fmt: skip


def frame(name: str, ts: float, dur: float) -> dict[str, Any]:
    return {"ph": "X", "cat": "python_function", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": {}}  # fmt: skip


def _item_steps(folder: Path, kernel_us: float, wait_us: float, steps: int = 6) -> Path:
    """`steps` steps of 10 ms: a GEMM of `kernel_us`, then loss.item() whose pageable 704-byte
    copy lands `wait_us` after the call: the host blocks `wait_us`, the device is busy for
    `kernel_us` of it."""
    events: list[dict[str, Any]] = []
    for s in range(steps):
        t = 1000 + 10_000 * s
        c = 10 * s + 1
        events += [
            op(f"ProfilerStep#{s}", t, 10_000, cat="user_annotation"),
            frame("train.py(42): train_step", t + 5, 9_000),
            op("aten::mm", t + 10, 10), runtime("cudaLaunchKernel", t + 11, 5, c),
            kernel("gemm", t + 20, kernel_us, c),
            frame("<built-in method item of Tensor object at 0x7f>", t + 29, wait_us + 20),
            op("aten::item", t + 30, wait_us + 15),
            op("aten::_local_scalar_dense", t + 31, wait_us + 13),
            runtime("cudaMemcpyAsync", t + 32, wait_us + 6, c + 1),
            memcpy("Memcpy DtoH (Device -> Pageable)", t + 32 + wait_us, 2, c + 1),
            runtime("cudaStreamSynchronize", t + 40 + wait_us, 3, c + 2),
        ]  # fmt: skip
    folder.mkdir()
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])


def test_a_pageable_item_on_an_idle_device_fires_with_its_python_line(
    tmp_path: Path, advisor_ws: Path
) -> None:
    # the GEMM ends at +520 us; the host waits from +32 to +3038: ~2.5 ms of it idle
    _item_steps(tmp_path / "idle", kernel_us=500, wait_us=3000)
    advice = advise_path(tmp_path / "idle", advisor_ws)
    f = fires(advice, "dtoh_sync")
    assert f.facts["sync.d2h_copies"] == 1.0
    assert f.facts["sync.d2h_exposed_us"] == pytest.approx(3038 - 520 - 2 + 3, abs=2)
    assert f.claims == ["sync_wait"] and f.severity == "high"
    assert f.estimated_saving_us == pytest.approx(f.facts["sync.d2h_exposed_us"], rel=1e-6)
    ops = [e.label for e in f.evidence if e.kind == "operator"]
    assert ops[0].startswith("aten::item at train.py(42): train_step: 12 blocking waits")
    # the general finding is the same time: hidden by the specific one
    assert any(s.id == "blocking_sync" and s.by == "dtoh_sync" for s in advice.suppressed)
    assert not any(f.id == "kernel_launch_overhead" for f in advice.findings)


def test_a_wait_on_a_busy_device_costs_only_its_idle_part(tmp_path: Path, advisor_ws: Path) -> None:
    """Issue 18: a sync that waited 359 ms while the GPU was busy for 353 ms costs 6 ms."""
    # scaled to the 10-ms steps: the host waits 3.59 ms, the GEMM runs 3.53 ms of it
    _item_steps(tmp_path / "busy", kernel_us=3530 + 12, wait_us=3590)
    advice = advise_path(tmp_path / "busy", advisor_ws)
    does_not_fire(advice, "dtoh_sync")
    does_not_fire(advice, "blocking_sync")
    facts = next(c.facts for c in advice.checked if c.id == "blocking_sync")
    assert facts["sync.blocking_us"] > 3590  # blocked the whole time
    assert facts["sync.exposed_us"] == pytest.approx(3590 + 6 + 3 - 3530 - 2, abs=2)  # ~67 us


def test_trace_diff_item_waits_on_a_busy_gpu_are_not_reported(advisor_ws: Path) -> None:
    # aten::item blocks ~35 ms per step inside cudaMemcpyAsync into pageable memory, but the
    # V100 stays ~96 % busy: the wait costs 1.1 % of the step, under the 2 % a finding needs
    advice = advise_path(shared("hta/trace_diff/test"), advisor_ws)
    does_not_fire(advice, "dtoh_sync")
    does_not_fire(advice, "blocking_sync")
    facts = next(c.facts for c in advice.checked if c.id == "blocking_sync")
    assert facts["sync.blocking_us"] > 30_000  # the pageable copies' launches block
    assert 0 < facts["sync.exposed_us"] < 0.02 * facts["step.average_us"]


def test_compiled_region_device_copies(advisor_ws: Path) -> None:
    f = fires(advise_path(shared("hta/trace_diff/test"), advisor_ws), "device_copies")
    # 774 Memcpy DtoD per step, 15.4 ms of a ~124 ms step
    assert 15_000 < f.facts["copies.dtod_us"] < 16_000
    assert 0.12 < f.facts["copies.dtod_share"] < 0.13
    assert f.claims == ["exposed_copies"] and f.severity == "high"
    names = [e.name for e in f.evidence if e.kind == "operator"]
    assert names[:2] == [
        "autograd::engine::evaluate_function: CompiledFunctionBackward",
        "CompiledFunction",
    ]


def test_few_device_copies_are_fine(advisor_ws: Path) -> None:
    # nccl_parser_config: 960 DtoD copies of DDP buckets, 0.75 ms of a 222 ms step (0.3 %)
    advice = advise_path(shared("hta/nccl_parser_config"), advisor_ws)
    does_not_fire(advice, "device_copies")
    facts = next(c.facts for c in advice.checked if c.id == "device_copies")
    assert 0 < facts["copies.dtod_share"] < 0.01


def _launch_steps(folder: Path, blocking: bool) -> Path:
    """3 steps of twelve 100-us kernels; with `blocking` each launch returns after its kernel."""
    events: list[dict[str, Any]] = []
    for s in range(3):
        t = 1000 + 5000 * s
        events.append(op(f"ProfilerStep#{s}", t, 5000, cat="user_annotation"))
        for k in range(12):
            c, at = 100 * s + k + 1, t + 10 + 300 * k
            launch = 120 if blocking else 6
            events += [
                op("aten::add", at, launch + 4),
                runtime("cudaLaunchKernel", at + 1, launch, c),
                kernel("add", at + 12, 100, c),
            ]
    folder.mkdir()
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])


def test_launches_that_wait_for_their_kernels(tmp_path: Path, advisor_ws: Path) -> None:
    _launch_steps(tmp_path / "blocking", blocking=True)
    f = fires(advise_path(tmp_path / "blocking", advisor_ws), "launch_blocking")
    assert f.facts["launch.blocking_share"] == 1.0
    assert any("CUDA_LAUNCH_BLOCKING" in a.en for a in f.actions)
    _launch_steps(tmp_path / "async", blocking=False)
    advice = advise_path(tmp_path / "async", advisor_ws)
    does_not_fire(advice, "launch_blocking")


def test_real_launches_are_asynchronous(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    does_not_fire(advice, "launch_blocking")
    facts = next(c.facts for c in advice.checked if c.id == "launch_blocking")
    assert facts["launch.blocking_share"] < 0.05


def _short_kernel_steps(folder: Path, graphs: bool) -> Path:
    """3 steps of 40 launches of 4-us kernels, 20 us apart (each launch 10 us): the GPU waits
    on the host (160 us of device work per step: above the toy-workload limit); with
    `graphs` each step also replays a captured graph."""
    events: list[dict[str, Any]] = []
    for s in range(3):
        t = 1000 + 1000 * s
        events.append(op(f"ProfilerStep#{s}", t, 1000, cat="user_annotation"))
        if graphs:
            events.append(runtime("cudaGraphLaunch", t + 2, 5, 10_000 + s))
        for k in range(40):
            c, at = 100 * s + k + 1, t + 10 + 20 * k
            events += [
                op("aten::add", at, 12),
                runtime("cudaLaunchKernel", at + 1, 10, c),
                kernel("add", at + 12, 4, c),
            ]
    folder.mkdir()
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])


def test_launch_bound_steps_are_a_cuda_graph_opportunity(tmp_path: Path, advisor_ws: Path) -> None:
    _short_kernel_steps(tmp_path / "eager", graphs=False)
    advice = advise_path(tmp_path / "eager", advisor_ws)
    f = fires(advice, "cuda_graph_opportunity")
    # every kernel but the very first follows an idle gap (16 us, or the time since the last
    # step), each capped at its 10-us launch: 119 gaps over 3 steps
    assert f.facts["graphs.launch_bound_us"] == pytest.approx(119 * 10 / 3)
    assert f.claims == ["host_launch", "host_compute"]
    assert any("reduce-overhead" in a.en for a in f.actions)
    assert any(
        s.id == "short_kernels" and s.by == "cuda_graph_opportunity" for s in advice.suppressed
    )
    _short_kernel_steps(tmp_path / "graphs", graphs=True)
    advice = advise_path(tmp_path / "graphs", advisor_ws)
    does_not_fire(advice, "cuda_graph_opportunity")  # the program already replays graphs


def test_no_cuda_graph_advice_off_the_gpu_or_when_launches_cost_little(advisor_ws: Path) -> None:
    # resnet50: 60 % of kernels are launch-bound, but that idle is ~1 % of a 178-ms step
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    does_not_fire(advice, "cuda_graph_opportunity")
    advice = advise_path(shared("ascend_pytorch/level1/rank0_ascend_pt"), advisor_ws)
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "CUDA/HIP GPUs only" in reasons["cuda_graph_opportunity"]


def test_copy_rules_are_not_evaluated_on_ascend(advisor_ws: Path) -> None:
    # torch_npu's export does not name copy directions: "not evaluated", never "fine"
    advice = advise_path(shared("ascend_pytorch/level1/rank0_ascend_pt"), advisor_ws)
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "GPU trace" in reasons["dtoh_sync"] and "GPU trace" in reasons["device_copies"]
    assert "GPU run" in reasons["launch_blocking"]
