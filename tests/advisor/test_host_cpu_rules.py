"""Host CPU rules on CPU-only runs: contention between steps and preempted short operators.

Real inputs from ../shared/data: torch CPU traces taken on a shared 2-vCPU machine and
MindSpore CPU runs (see tests/advisor/expert/labels for what each one shows).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

SMALL = "torch_cpu/small/"
CNN_NW2 = SMALL + "cnn_nw2_active5.1795320558072984922.pt.trace.json"
TRANSFORMER = SMALL + "transformer_nw0_active5.1795320562872505905.pt.trace.json"


def test_contention_fires_where_parallel_operators_crawl(advisor_ws: Path) -> None:
    # Steps 2-5 take 481-492 ms, step 6 takes 200 ms; mm is 31.8 ms a step in steps 2-5 and
    # 0.05 ms in step 6, convolution_backward 159 vs 4.4 ms: many types slowed many times.
    f = fires(advise_path(shared(CNN_NW2), advisor_ws), "host_contention")
    assert f.facts["host.contention_types"] >= 8
    assert f.facts["host.contention_slowdown"] > 5
    assert 0.4 < f.facts["host.contention_share"] < 1
    assert f.severity == "high" and f.claims == ["host_compute"]
    assert f.evidence[0].kind == "step" and f.evidence[0].step != "6"  # 6 is the fast one


def test_contention_quiet_on_a_steady_cpu_run(advisor_ws: Path) -> None:
    # The transformer's steps are 80.6-96.9 ms: one type (bernoulli_) varies, ~3.5 % of it.
    advice = advise_path(shared(TRANSFORMER), advisor_ws)
    does_not_fire(advice, "host_contention")
    facts = next(c.facts for c in advice.checked if c.id == "host_contention")
    assert facts["host.contention_types"] < 4 and facts["host.contention_share"] < 0.1


def test_preemption_fires_on_the_mindspore_cpu_run(advisor_ws: Path) -> None:
    # GRAPH_MODE LeNet on a shared 2-core VM: BiasAdd, ReLU, MaxPool, ApplyMomentum... last
    # ~4 or ~8 ms (scheduler ticks) instead of < 0.5 ms in 200+ calls, ~11-13 % of the window.
    f = fires(advise_path(shared("mindspore_cpu/legacy_graph_dataproc"), advisor_ws),
              "host_preemption")  # fmt: skip
    assert f.facts["host.preempted_calls"] > 150
    assert f.facts["host.preempted_share"] == pytest.approx(0.125, abs=0.03)
    assert all(e.kind == "time_range" and e.start_ns and e.end_ns for e in f.evidence)
    assert not any("CUDA" in a.en for a in f.actions)


def test_two_long_syncs_are_not_preemption(advisor_ws: Path) -> None:
    # The TorchRec fixture's aten::item (4.72 ms) and aten::to (4.94 ms) are waits for the
    # device, 12.8 % of the step, but two calls: not the scheduler taking the CPU.
    advice = advise_path(shared("hta/rank_non_gpu"), advisor_ws)
    does_not_fire(advice, "host_preemption")
    facts = next(c.facts for c in advice.checked if c.id == "host_preemption")
    assert facts["host.preempted_calls"] == 2 and facts["host.preempted_share"] > 0.1


def test_host_cpu_facts_need_a_cpu_only_run(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    [skipped] = [n for n in advice.not_evaluated if n.id == "host_contention"]
    assert "has a device" in skipped.reason
