"""Which pages a report has nothing for (analysis.pages): each rule on a report that has the
section and one that lacks it, and the reasons in both languages."""

from __future__ import annotations

from typing import Any

import pytest

from mindinsight_profiler.analysis.pages import page_availability
from mindinsight_profiler.analysis.sections import PAGES

FULL: dict[str, Any] = {
    "step_trace": {"steps": []},
    "operators": [{"name": "aten::mm"}],
    "op_types": {"types": [{"type": "mm"}]},
    "kernels": [{"name": "gemm"}],
    "perf_model": {"shape_count": 3},
    "mindspore_flops": None,
    "data_pipeline": {"framework": "pytorch"},
    "memory": {"devices": [{"device": "CUDA:0"}]},
    "communication": {"collectives": []},
    "modules": {"modules": [{"name": "Linear"}]},
}

#: page -> the report keys that, emptied, leave it with nothing
EMPTIED = {
    "step-trace": {"step_trace": None},
    "operators": {"operators": [], "op_types": {"types": []}},
    "kernels": {"kernels": []},
    "roofline": {"perf_model": {"shape_count": 0}},
    "data-pipeline": {"data_pipeline": None},
    "memory": {"memory": {"devices": []}},
    "communication": {"communication": None},
    "modules": {"modules": None},
}


def test_a_full_report_of_two_workers_has_every_page() -> None:
    pages = page_availability(FULL, workers=2)
    assert list(pages) == [p.name for p in PAGES]
    assert all(p == {"available": True, "reason": None} for p in pages.values()), pages


@pytest.mark.parametrize("page", sorted(EMPTIED))
def test_a_page_without_its_section_is_unavailable_with_a_reason(page: str) -> None:
    pages = page_availability({**FULL, **EMPTIED[page]}, workers=2)
    assert pages[page]["available"] is False
    reason = pages[page]["reason"]
    assert reason["en"].isascii() and reason["en"]
    assert not reason["zh"].isascii()
    others = {k for k, v in pages.items() if not v["available"]}
    assert others == {page}  # emptying one section greys out that page only


def test_the_reasons_say_how_to_record_what_is_missing() -> None:
    empty = page_availability({}, workers=1)
    assert "`profile_memory=True`" in empty["memory"]["reason"]["en"]
    assert "`profile_memory=True`" in empty["memory"]["reason"]["zh"]
    assert "`with_stack=True`" in empty["modules"]["reason"]["en"]
    assert "two or more ranks" in empty["cluster"]["reason"]["en"]
    # the pages every input has stay available
    assert all(empty[p]["available"] for p in ("overview", "diff", "timeline"))


def test_either_flops_source_makes_the_roofline_available() -> None:
    report = {**FULL, "perf_model": None, "mindspore_flops": {"total": 1}}
    assert page_availability(report, 1)["roofline"]["available"]
    assert not page_availability({**report, "mindspore_flops": None}, 1)["roofline"]["available"]
    # operator types alone (a MindSpore AI Core table) are something for the operators page
    ops = {**FULL, "operators": []}
    assert page_availability(ops, 1)["operators"]["available"]
