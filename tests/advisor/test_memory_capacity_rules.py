"""Memory near the device's capacity and allocator fragmentation, on hand-made H100 traces
(no public trace comes near its device's memory: the peaks of the shared GPU inputs are
8-20 % of 32-40 GB) and on a real Ascend export, whose memory size is not recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared
from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, runtime, write_trace

GIB = 1 << 30


def _memory(ts: float, nbytes: int, allocated: int, reserved: int) -> dict[str, Any]:
    return {
        "ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
        "ts": ts, "s": "t",
        "args": {"Device Type": 1, "Device Id": 0, "Addr": 1 << 40, "Bytes": nbytes,
                 "Total Allocated": allocated, "Total Reserved": reserved},
    }  # fmt: skip


def _run(folder: Path, allocated_gib: float, reserved_gib: float) -> Path:
    """Two steps, each allocating up to `allocated_gib` inside `reserved_gib` of cache."""
    events: list[dict[str, Any]] = []
    for s in range(2):
        t = 1000 + 2000 * s
        big = int(allocated_gib * GIB)
        events += [
            op(f"ProfilerStep#{s}", t, 2000, cat="user_annotation"),
            op("aten::empty", t + 10, 5),
            _memory(t + 11, big, big, int(reserved_gib * GIB)),
            op("aten::mm", t + 20, 10), runtime("cudaLaunchKernel", t + 21, 5, s + 1),
            kernel("gemm", t + 40, 1500, s + 1),
            _memory(t + 1900, -big, 0, int(reserved_gib * GIB)),
        ]  # fmt: skip
    folder.mkdir()
    return write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])


def test_memory_near_capacity(tmp_path: Path, advisor_ws: Path) -> None:
    _run(tmp_path / "full", allocated_gib=72.0, reserved_gib=74.0)  # of 79.2 GiB
    advice = advise_path(tmp_path / "full", advisor_ws)
    f = fires(advice, "memory_near_capacity")
    assert f.facts["memory.peak_share"] == pytest.approx(74 * GIB / H100["totalGlobalMem"])
    assert f.evidence[0].label == "CUDA:0: peak reserved 74.00 GiB of 79.19 GiB"
    assert f.evidence[0].page == "memory" and f.evidence[0].start_ns is not None
    assert any("expandable_segments" in a.en for a in f.actions)
    does_not_fire(advice, "allocator_fragmentation")  # 72 of 74 GiB in use at the peak


def test_fragmented_cache_near_capacity(tmp_path: Path, advisor_ws: Path) -> None:
    _run(tmp_path / "frag", allocated_gib=40.0, reserved_gib=68.0)
    advice = advise_path(tmp_path / "frag", advisor_ws)
    f = fires(advice, "allocator_fragmentation")
    assert f.facts["memory.unused_reserved_share"] == pytest.approx(1 - 40 / 68)
    labels = [e.label for e in f.evidence]
    assert labels[1] == "CUDA:0: peak allocated 40.00 GiB of 79.19 GiB (at aten::empty)"
    does_not_fire(advice, "memory_near_capacity")  # 86 % of the device


def test_small_peaks_are_fine(tmp_path: Path, advisor_ws: Path) -> None:
    _run(tmp_path / "small", allocated_gib=2.0, reserved_gib=8.0)
    advice = advise_path(tmp_path / "small", advisor_ws)
    does_not_fire(advice, "memory_near_capacity")
    does_not_fire(advice, "allocator_fragmentation")  # 75 % unused, but far from capacity


def test_unknown_capacity_is_not_evaluated(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level1/rank0_ascend_pt"), advisor_ws)
    missing = {n.id: n.reason for n in advice.not_evaluated}
    assert "memory_near_capacity" in missing and "allocator_fragmentation" in missing
