"""The section and page registry: one declaration that the report, the server and the
dashboard's menu all follow."""

from __future__ import annotations

import re
from pathlib import Path

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.sections import PAGES, SECTIONS, pages_for
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.tracegen import kernel, op, runtime, write_trace

ROUTER = Path(__file__).resolve().parents[2] / "ui" / "src" / "router.ts"
IDENTITY = ["report_version", "source", "format", "framework", "device_type"]


def test_the_report_has_the_registered_sections_in_order(tmp_path: Path) -> None:
    events = [
        op("ProfilerStep#1", 0, 100),
        op("aten::mm", 10, 50, ext=1),
        runtime("cudaLaunchKernel", 20, 5, corr=7, ext=1),
        kernel("gemm", 30, 40, corr=7),
    ]
    report = build_report(read_kineto(write_trace(tmp_path / "t.json", events)))
    assert list(report) == IDENTITY + [s.key for s in SECTIONS]


def test_every_page_shows_registered_sections() -> None:
    keys = {s.key for s in SECTIONS}
    assert len(keys) == len(SECTIONS)
    for page in PAGES:
        assert set(page.sections) <= keys, page.name


def test_the_dashboard_menu_has_one_route_per_page_in_the_same_order() -> None:
    menu = ROUTER.read_text().split("export const RUN_PAGES", 1)[1].split("]\n", 1)[0]
    assert re.findall(r"\{ name: '([\w-]+)'", menu) == [p.name for p in PAGES]


def test_pages_follow_the_formats_of_a_run() -> None:
    every = [p.name for p in PAGES]
    assert pages_for(["kineto"]) == every
    assert "modules" not in pages_for(["mindspore_legacy"])
    assert pages_for(["mindspore2", "kineto"]) == every  # a mixed run shows what any input has
    assert pages_for([]) == [p.name for p in PAGES if p.formats is None]
