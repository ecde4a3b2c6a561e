"""Rule create_on_device on hand-written H100 traces: `torch.ones(n).cuda()` every step (a
host creation, then a pageable host-to-device copy) fires; a tensor filled on the device
before an unrelated copy does not; real runs' `aten::empty` before a copy is no creation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared
from tests.integration.test_perf_section import H100
from tests.tracegen import kernel, op, python_stack, runtime, write_trace


def _memcpy(ts: float, dur: float, corr: int) -> dict[str, Any]:
    return {
        "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
        "tid": 7, "ts": ts, "dur": dur,
        "args": {"correlation": corr, "device": 0, "stream": 7, "bytes": 4 << 20},
    }  # fmt: skip


def _trace(folder: Path, on_device: bool) -> Path:
    """3 steps of 1000 us: aten::ones (on the host, or filling on the device), then
    aten::to copying 4 MiB host-to-device (300 us on the host), then a GEMM."""
    folder.mkdir()
    events: list[dict[str, Any]] = []
    for s in range(3):
        t, c = 1000.0 + 1000 * s, 10 * s
        events.append(op(f"ProfilerStep#{s}", t, 1000, cat="user_annotation"))
        events += python_stack(t + 1, 998)  # a real step's frames: not a fragment
        events.append(op("aten::ones", t + 10, 20))
        if on_device:
            events += [runtime("cudaLaunchKernel", t + 12, 3, c + 1),
                       kernel("fill_kernel", t + 20, 5, c + 1)]  # fmt: skip
        events += [
            op("aten::to", t + 40, 300), op("aten::_to_copy", t + 41, 298),
            op("aten::copy_", t + 42, 296),
            runtime("cudaMemcpyAsync", t + 43, 294, c + 2), _memcpy(t + 50, 280, c + 2),
            op("aten::mm", t + 400, 10, **{"Input Dims": [[1024, 1024], [1024, 1024]],
                                          "Input type": ["c10::Half"] * 2}),
            runtime("cudaLaunchKernel", t + 401, 5, c + 3), kernel("gemm", t + 420, 400, c + 3),
        ]  # fmt: skip
    write_trace(folder / "w.pt.trace.json", events, deviceProperties=[H100])
    return folder


def test_tensor_made_on_the_host_then_copied(tmp_path: Path, advisor_ws: Path) -> None:
    f = fires(advise_path(_trace(tmp_path / "host", False), advisor_ws), "create_on_device")
    assert f.facts["copies.created_on_host_calls"] == 1
    assert f.facts["copies.created_on_host_us"] == pytest.approx(330)  # ones start -> to end
    assert all(e.label.startswith("aten::ones on the host, then aten::to") for e in f.evidence)
    assert any("device='cuda'" in a.en for a in f.actions)


def test_tensor_filled_on_the_device_is_fine(tmp_path: Path, advisor_ws: Path) -> None:
    advice = advise_path(_trace(tmp_path / "device", True), advisor_ws)
    does_not_fire(advice, "create_on_device")


def test_empty_before_a_copy_is_not_a_creation(advisor_ws: Path) -> None:
    """HTA's DLRM copies after an aten::empty on the same thread every step: an allocation,
    not a tensor made to be copied."""
    advice = advise_path(shared("hta/trace_diff/control"), advisor_ws)
    does_not_fire(advice, "create_on_device")
    assert (
        next(c.facts for c in advice.checked if c.id == "create_on_device")[
            "copies.created_on_host_calls"
        ]
        == 0
    )
