"""Device work of accelerators other than CUDA/ROCm GPUs is device work, not idle time.

libkineto names MTIA's on-device work `mtia_ccp_events` and its launches `mtia_runtime`
(libkineto/include/ActivityType.h); a trace of them must show busy kernels, not an idle
device (the plugin and, before this, this tool reported such a run 99 % idle).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.kinds import Kind, kind_of_category
from tests.tracegen import op, write_trace


@pytest.mark.parametrize(
    ("category", "kind"),
    [
        ("mtia_ccp_events", Kind.KERNEL),
        ("concurrent_kernel", Kind.KERNEL),
        ("mtia_runtime", Kind.RUNTIME),
        ("privateuse1_runtime", Kind.RUNTIME),
        ("xpu_driver", Kind.RUNTIME),
        ("mtia_insight", Kind.OTHER),
    ],
)
def test_accelerator_categories(category: str, kind: Kind) -> None:
    assert kind_of_category(category) is kind


def test_mtia_device_work_counts_as_kernels(tmp_path: Path) -> None:
    events = [op("ProfilerStep#1", 0, 1000, cat="user_annotation"), op("aten::mm", 10, 900)]
    for i in range(4):  # launches and 4 x 200 us of device work
        start, corr = 20 + i * 220, {"correlation": i + 1}
        events.append({"ph": "X", "cat": "mtia_runtime", "name": "mtiaLaunchKernel",
                       "pid": 1, "tid": 1, "ts": start, "dur": 5, "args": corr})  # fmt: skip
        events.append({"ph": "X", "cat": "mtia_ccp_events", "name": f"fused_mm_{i}",
                       "pid": 2, "tid": 3, "ts": start + 10, "dur": 200, "args": corr})  # fmt: skip
    report = build_report(read_kineto(write_trace(tmp_path / "mtia.pt.trace.json", events)))
    assert report["breakdown_us"]["kernel"] == pytest.approx(800.0)
    assert report["breakdown_us"]["kernel"] > 0.5 * report["steps"]["average_us"]
    assert report["device_type"] == "gpu" and len(report["kernels"]) == 4
