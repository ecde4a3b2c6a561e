"""Memory-traffic and allocator rules on real GPU traces.

No available trace comes near its device's memory (peaks are 8-20 % of 32-40 GB):
memory_near_capacity and allocator_fragmentation are shown to fire on hand-made traces
(test_memory_capacity_rules.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import (
    advise_path,
    does_not_fire,
    fires,
    judging_any_window,
    window_limited,
)
from tests.conftest import shared


def test_resnet_inputs_are_copied_from_pageable_memory(advisor_ws: Path) -> None:
    f = fires(advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws), "pageable_memcpy")
    # All memcpy of this run are pageable HtoD input copies: plugin Memcpy 1,915 us per step.
    assert f.facts["memcpy.pageable_h2d_calls"] == 2.0
    assert abs(f.estimated_saving_us - 1915) < 1
    assert f.severity == "low"
    ops = [e for e in f.evidence if e.kind == "operator"]
    assert [e.name for e in ops] == ["aten::copy_"]
    ranges = [e for e in f.evidence if e.kind == "time_range"]
    assert len(ranges) == 5 and all(e.page == "timeline" and e.end_ns > e.start_ns for e in ranges)


def test_a_few_bytes_of_pageable_copies_are_not_worth_a_finding(
    advisor_ws: Path, tmp_path: Path
) -> None:
    # the plugin's toy MLP step: 2 pageable HtoD copies of 384 bytes, 2 us of a 13.4-ms step;
    # the built-in rule does not judge the toy at all, a copy judging any window finds it fine
    advice = advise_path(shared("kineto/tb_plugin_expected"), advisor_ws)
    window_limited(advice, "pageable_memcpy", "toy")
    rules = judging_any_window(tmp_path / "rules", "pageable_memcpy")
    advice = advise_path(shared("kineto/tb_plugin_expected"), advisor_ws, rules_dirs=rules)
    does_not_fire(advice, "pageable_memcpy")
    facts = next(c.facts for c in advice.checked if c.id == "pageable_memcpy")
    assert facts["memcpy.pageable_h2d_calls"] == 2.0 and facts["memcpy.pageable_h2d_us"] < 10


def test_pinned_input_copies_are_fine(advisor_ws: Path) -> None:
    # trace_diff/control copies inputs HtoD from pinned memory only (150 "Pinned -> Device")
    does_not_fire(advise_path(shared("hta/trace_diff/control"), advisor_ws), "pageable_memcpy")


def test_benchmark_allocating_in_the_step_is_flagged(advisor_ws: Path) -> None:
    f = fires(advise_path(shared("hta/critical_path/simple_add"), advisor_ws), "allocator_calls")
    # 24 cudaMalloc, 15 cudaFree and 1 cudaHostAlloc inside the one step; 18 of them, and
    # 8.0 s (the context-creating cudaFree calls of 5.2 and 2.8 s), are initialisation and
    # warm-up (analysis/steps/window.py): 22 calls, 580 ms remain, 1.4 % of the 41.6 s window
    assert f.facts["alloc.calls"] == 22
    assert 500_000 < f.facts["alloc.host_total_us"] < 600_000
    assert f.severity == "low"
    names = {e.name for e in f.evidence if e.kind == "operator"}
    assert "[param|clear_cache]" in names and "aten::cudnn_convolution" in names


def test_warm_caching_allocator_is_fine(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    does_not_fire(advice, "allocator_calls")
