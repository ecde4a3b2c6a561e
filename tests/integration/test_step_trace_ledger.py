"""The step ledger of MindSpore runs timed only by their step trace (no event in the steps).

Figures were checked by hand against `step_trace_raw_*_detail_time.csv` (10 ns ticks): per
step, interval = fp_point - start_point, FP+BP = bp_point - fp_point, tail = end_point -
bp_point, and the reduce stages' `*_start_point`/`*_end_point` clipped to bp_point..end_point.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

from mindinsight_profiler.advisor.ledger import parts_of
from mindinsight_profiler.analysis.perf.op_work import op_work
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.boundaries import Steps, find_steps
from mindinsight_profiler.analysis.steps.ledger import PARTS, step_ledger
from mindinsight_profiler.analysis.steps.step_trace_ledger import step_trace_parts
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.discovery import discover, pick_run
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.mindspore.step_trace import add_step_trace
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

CLUSTER = "mindspore_legacy/cluster_propose"
FIXTURES = "mindspore_legacy/profiler_fixtures"


def _report(relative: str, worker: str) -> dict[str, Any]:
    file = pick_run(discover(shared(relative)), worker).select(worker, None)
    return build_report(read_trace(file.path, file.format, file.worker))


def _step(report: dict[str, Any], name: str) -> dict[str, float]:
    ledger = report["ledger"]
    row = ledger["per_step_us"][report["steps"]["names"].index(name)]
    return dict(zip(ledger["parts"], row, strict=True))


@pytest.mark.parametrize("relative", [CLUSTER, FIXTURES])
def test_parts_sum_to_every_step(relative: str) -> None:
    report = _report(relative, "rank0")
    ledger = report["ledger"]
    assert ledger["source"] == "step_trace"
    for row, duration, compute in zip(
        ledger["per_step_us"], report["steps"]["durations_us"], ledger["compute_per_step_us"],
        strict=True,
    ):  # fmt: skip
        assert min(row) >= 0
        assert sum(row) == pytest.approx(duration, abs=1e-3)
        assert sum(compute) == pytest.approx(row[PARTS.index("device_compute")], abs=1e-3)


def test_pipeline_rank_by_hand() -> None:
    """cluster_propose rank 0, step 2 (CSV row 2): start 1162429898009, fp 1162429980537,
    bp 1162447908869, end 1162447999278; its only stage in the tail is
    stream_47_0_AllReduce-op4630, 1162447925392..1162447945514 (201.22 us)."""
    part = _step(_report(CLUSTER, "rank0"), "2")
    assert part["untracked"] == pytest.approx(825.28)  # the interval: no GetNext wait known
    assert part["data_wait"] == 0
    assert part["exposed_communication"] == pytest.approx(201.22)
    # FP+BP 179283.32 (its Receive/Send stages stay in it) + tail 904.09 - 201.22
    assert part["device_compute"] == pytest.approx(179986.19)
    # the ledger used to be 100 % untracked here; untracked is now the interval only, on
    # average over steps 2-5: (825.28 + 827.95 + 807.32 + 895.72) / 4
    avg = _report(CLUSTER, "rank0")["ledger"]["average_us"]
    assert avg["untracked"] == pytest.approx(839.0675)


def test_fixture_interval_is_untracked_not_data() -> None:
    """profiler_fixtures rank 0, step 2: interval 90378.09 us, FP+BP 17143.77, tail 23003.44
    of which stream_10_parallel_2 covers 2072.83 after BP end."""
    part = _step(_report(FIXTURES, "rank0"), "2")
    assert part["untracked"] == pytest.approx(90378.09)
    assert part["exposed_communication"] == pytest.approx(2072.83)
    assert part["device_compute"] == pytest.approx(17143.77 + 23003.44 - 2072.83)


def _fake(getnext: tuple[list[int], list[int]] | None) -> tuple[Trace, Steps]:
    """Two steps of 1000 ns: interval 300/100, FP+BP 500, an all-reduce half in the tail."""
    tables: dict[str, dict[str, np.ndarray]] = {
        "step_trace": {
            "step": np.array([1, 2]),
            "start_ns": np.array([0, 1000]),
            "fp_ns": np.array([300, 1100]),
            "bp_ns": np.array([800, 1600]),
            "end_ns": np.array([1000, 2000]),
        },
        "step_trace_reduce": {
            "step": np.array([1, 2]),
            "stage": np.array([0, 0]),
            "start_ns": np.array([700, 1500]),
            "end_ns": np.array([900, 1700]),
        },
    }
    if getnext is not None:
        tables["getnext"] = {"start_ns": np.array(getnext[0]), "end_ns": np.array(getnext[1])}
    steps = Steps(["1", "2"], np.array([0, 1000]), np.array([1000, 2000]),
                  np.array([0, 1000]), np.array([1000, 2000]), True)  # fmt: skip
    return cast(Trace, SimpleNamespace(tables=tables)), steps


def test_getnext_waits_are_the_data_wait_up_to_the_interval() -> None:
    trace, steps = _fake(([10, 1010], [210, 1510]))  # waits of 200 and 500 ns
    out = step_trace_parts(trace, steps, PARTS)
    assert out is not None
    part = [dict(zip(PARTS, row, strict=True)) for row in out.tolist()]
    assert (part[0]["data_wait"], part[0]["untracked"]) == (200, 100)
    assert (part[1]["data_wait"], part[1]["untracked"]) == (100, 0)  # capped by the interval
    assert (part[0]["exposed_communication"], part[0]["device_compute"]) == (100, 600)
    assert out.sum(axis=1).tolist() == [1000, 1000]
    # a GetNext file that cannot be paired step by step counts for none (mutation: 1 row)
    trace, steps = _fake(([10], [210]))
    unpaired = step_trace_parts(trace, steps, PARTS)
    assert unpaired is not None and unpaired[:, PARTS.index("data_wait")].tolist() == [0, 0]


@pytest.mark.parametrize("relative", [CLUSTER, FIXTURES])
def test_savings_stay_within_their_parts(relative: str, tmp_path: Any) -> None:
    run = pick_run(discover(shared(relative)), "rank0")
    advice = advise_file(run.select("rank0", None), run, Workspace(tmp_path), ())
    assert advice.ledger_us is not None and sum(advice.ledger_us.values()) > 0
    assert advice.ledger_us["untracked"] < 0.9 * sum(advice.ledger_us.values())
    assert advice.combined_saving_share is not None and advice.combined_saving_share <= 1
    for f in advice.findings:
        if f.estimated_saving_us:
            room = sum(advice.ledger_us[p] for p in parts_of(f.claims))
            assert f.estimated_saving_us <= room + 1e-6, f.id
    if relative == FIXTURES:  # the 90 ms interval: its saving comes out of untracked
        found = {f.id: f for f in advice.findings}
        assert "untracked" in found["iteration_interval"].claims
        assert found["iteration_interval"].estimated_saving_us <= advice.ledger_us["untracked"]


def test_only_the_steps_without_events_are_timed_by_the_step_trace() -> None:
    """Two steps of 1000 ns; a kernel runs 100-900 in step 1 only (a timeline that covers
    one step): step 1 keeps the event ledger, step 2 takes the step trace's parts."""
    b = TraceBuilder(Path("steps.csv"), "mindspore_legacy")
    b.files_read.append("steps.csv")
    add_step_trace(
        b,
        {
            "step": np.array([1, 2], np.int32),
            "start_ns": np.array([0, 1000]),
            "fp_ns": np.array([200, 1300]),
            "bp_ns": np.array([800, 1900]),
            "end_ns": np.array([1000, 2000]),
            "stages": [],
        },
    )
    device = b.track("Ascend", "stream 1", "Ascend", "stream 1", device=True)
    b.add_events(np.array([100]), np.array([900]), Kind.KERNEL, b.codes(["MatMul"]), device)
    trace = b.build()
    ledger = step_ledger(trace, find_steps(trace), op_work(trace))
    part = [dict(zip(PARTS, row, strict=True)) for row in ledger.per_step_ns.tolist()]
    assert ledger.source == "events+step_trace"
    assert (part[0]["device_compute"], part[0]["untracked"]) == (800, 200)  # the kernel
    assert (part[1]["device_compute"], part[1]["untracked"]) == (700, 300)  # FP..end, interval
    assert ledger.compute_ns.sum(axis=1).tolist() == [800, 700]
