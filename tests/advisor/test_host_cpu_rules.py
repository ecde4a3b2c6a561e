"""Host CPU rules on CPU-only runs: contention between steps and preempted short operators.

Real inputs from ../shared/data: torch CPU traces taken on a shared 2-vCPU machine and
MindSpore CPU runs (see tests/advisor/expert/labels for what each one shows).
"""

from __future__ import annotations

import gzip
import json
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


def test_preemption_quiet_where_few_calls_stretch(advisor_ws: Path) -> None:
    # The PyNative MindSpore CPU run: 26 stretched calls, 2.8 % of the window (the labeller
    # found tiny ops at 1-2 ms, 4.7 % in all: secondary).
    advice = advise_path(shared("mindspore_cpu/legacy_pynative_mdprofiler"), advisor_ws)
    does_not_fire(advice, "host_preemption")
    facts = next(c.facts for c in advice.checked if c.id == "host_preemption")
    assert facts["host.preempted_calls"] >= 10 and facts["host.preempted_share"] < 0.05


def test_readback_waits_in_a_host_only_trace_of_a_gpu_job(advisor_ws: Path) -> None:
    # TorchRec rank, host threads only (nccl:all_to_all, record_stream): aten::item ->
    # _local_scalar_dense of a long scalar 4.72 ms and aten::to -> copy_ of long[123]
    # 4.94 ms: the host waiting for the device, 12.8 % of the 75.5 ms step.
    advice = advise_path(shared("hta/rank_non_gpu"), advisor_ws)
    f = fires(advice, "readback_sync")
    assert f.facts["sync.readback_us"] == pytest.approx(9834, abs=300)
    assert f.severity == "high" and f.claims == ["sync_wait"]
    assert {e.name for e in f.evidence[:2]} == {"aten::item", "aten::_to_copy"}
    # its operators launch device work: not the host's compute, so no host CPU verdicts
    assert not any(n.id == "host_preemption" for n in advice.checked)
    hot = next(c.facts for c in advice.checked if c.id == "hot_operator_type")
    assert hot["operator.on_host"] is False


def test_fast_readbacks_are_fine(tmp_path: Path, advisor_ws: Path) -> None:
    # The same trace with the two read-backs made as fast as a host copy (10 us): no wait.
    with gzip.open(shared("hta/rank_non_gpu") / "rank_non_gpu.json.gz", "rt") as fh:
        doc = json.load(fh)
    slow = {"aten::_local_scalar_dense", "aten::copy_"}
    for e in doc["traceEvents"]:
        if e.get("name") in slow and e.get("dur", 0) > 1000:
            e["dur"] = 10
    (tmp_path / "fast").mkdir()
    (tmp_path / "fast" / "rank_fast.pt.trace.json").write_text(json.dumps(doc))
    advice = advise_path(tmp_path / "fast", advisor_ws)
    does_not_fire(advice, "readback_sync")


def test_host_cpu_facts_need_a_cpu_only_run(advisor_ws: Path) -> None:
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws)
    [skipped] = [n for n in advice.not_evaluated if n.id == "host_contention"]
    assert "has a device" in skipped.reason


def test_contention_explains_slow_loader_calls(tmp_path: Path, advisor_ws: Path) -> None:
    # The contended CNN's slowest DataLoader call is 8.8 ms; with the slow-call bar at 5 ms
    # that call would be reported, but it is the same lost CPU that host_contention names.
    rule = (Path(__file__).parents[2] / "rules" / "slow_dataloader_call.toml").read_text()
    assert "threshold_us = 10000" in rule
    # and judged without its `requires` (the mean wait is small: no dataloader_wait finding)
    rule = rule.replace('requires = ["dataloader_wait"]\n', "")
    (tmp_path / "slow_dataloader_call.toml").write_text(
        rule.replace("threshold_us = 10000", "threshold_us = 5000")
    )
    advice = advise_path(shared(CNN_NW2), advisor_ws, rules_dirs=(tmp_path,))
    fires(advice, "host_contention")
    assert {s.id: s.by for s in advice.suppressed}.get("slow_dataloader_call") == "host_contention"


def test_a_cut_trace_has_no_untracked_time(advisor_ws: Path) -> None:
    # HTA's cpu_only fixture: a 210 ms ProfilerStep with no operator of its own thread in it
    # (the rest of the trace was removed): its gaps are missing data, not untracked time.
    advice = advise_path(shared("hta/cpu_only"), advisor_ws)
    [skipped] = [n for n in advice.not_evaluated if n.id == "untracked_time"]
    assert "own thread" in skipped.reason
