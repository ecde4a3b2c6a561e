"""MindData (MindSpore) rules on MindInsight's own fixtures and a real MindSpore 2.10 run.

Expected figures come from the files themselves, read as MindInsight reads them: queue lines
of `device_queue_profiling` / `minddata_aicpu`, usage of `minddata_pipeline_raw`, the
average row of `step_trace_raw` (syscnt, 10 ns each). Where no real file shows one side of
a rule (a chip queue that empties; MindData CPU sampling with idle CPUs; a step trace whose
interval is short), the test copies run_2 and changes one documented line of one file, then
reads the copy through the whole pipeline.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

RUN_2 = "mindspore_legacy/run_2"
PIPELINE = "mindspore_legacy/minddata_pipeline"
MS_CPU = "mindspore_cpu/legacy_pynative_mdprofiler"


def _run_2_copy(tmp_path: Path, name: str, edit: str, old: str, new: str) -> Path:
    """run_2 copied under tmp_path/name with `old` replaced by `new` in file `edit`."""
    src = shared(RUN_2) / "normal_run" / "profiler"
    dst = tmp_path / name / "normal_run" / "profiler"
    shutil.copytree(src, dst)
    text = (dst / edit).read_text()
    assert old in text
    (dst / edit).write_text(text.replace(old, new))
    return tmp_path / name


def test_an_average_row_that_does_not_add_up_is_not_used(advisor_ws: Path) -> None:
    """run_2's average row is hand-edited: total 0 beside an iteration interval of
    1,243,211 syscnt (12.43 ms), while its only step row has interval 0 in a 23.7 ms step.
    MindInsight's tip reads that row blindly (see test_mindinsight_parity); we keep a written
    average only when its stages add up to its total, so the advice and the step-trace page
    (interval 0) agree and no saving is claimed that is not in the step."""
    advice = advise_path(shared(RUN_2), advisor_ws)
    does_not_fire(advice, "iteration_interval")
    (c,) = [c for c in advice.checked if c.id == "iteration_interval"]
    assert c.facts["data.iteration_interval_us"] == 0.0


def test_step_interval_from_the_profilers_own_average_row(advisor_ws: Path, tmp_path: Path) -> None:
    # The same row made consistent (total = interval, as a step of pure waiting would be):
    # the written average is then the profiler's own figure and is used as it is.
    run = _run_2_copy(
        tmp_path,
        "consistent_average",
        "step_trace_raw_1_detail_time.csv",
        "0,0,0,0,0,0,1243211,0,0",
        "0,0,0,1243211,0,0,1243211,0,0",
    )
    advice = advise_path(run, advisor_ws)
    f = fires(advice, "iteration_interval")
    assert abs(f.facts["data.iteration_interval_us"] - 12_432.11) < 0.01
    # 12,432.11 - 500 us would be saved by the written row, but the only step (23.7 ms, its
    # own interval 0) has no such time: the saving is capped by the ledger parts the
    # interval can come out of (here the 622 us that no kernel covers), not by the step.
    assert advice.ledger_us is not None
    room = sum(advice.ledger_us[p] for p in f.claims)
    assert 600 < room < 650
    assert f.estimated_saving_us == pytest.approx(room, abs=0.01)


def test_step_interval_under_2_percent_of_the_step_is_fine(advisor_ws: Path) -> None:
    # MindInsight's 0.5 ms alone would fire: 1.57 ms (average row) of a 179 ms step, 0.9 %.
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws, worker="rank0")
    does_not_fire(advice, "iteration_interval")
    (c,) = [c for c in advice.checked if c.id == "iteration_interval"]
    assert abs(c.facts["data.iteration_interval_us"] - 1_572.25) < 0.01  # 157,225 syscnt
    assert c.facts["data.iteration_interval_us"] < 0.02 * c.facts["step.average_us"]
    # profiler_fixtures: 90.4 ms of a 130.5 ms step waits before the graph starts.
    fixtures = shared("mindspore_legacy/profiler_fixtures")
    f = fires(advise_path(fixtures, advisor_ws, worker="rank0"), "iteration_interval")
    assert f.facts["data.iteration_interval_us"] > 0.5 * f.facts["step.average_us"]


def test_step_interval_without_an_average_row_uses_the_steps(
    advisor_ws: Path, tmp_path: Path
) -> None:
    # The only step row has interval 0; without the hand-edited average row nothing is wrong.
    run = _run_2_copy(
        tmp_path,
        "no_average",
        "step_trace_raw_1_detail_time.csv",
        "0,0,0,0,0,0,1243211,0,0\n",
        "",
    )
    advice = advise_path(run, advisor_ws)
    does_not_fire(advice, "iteration_interval")
    checked = next(c for c in advice.checked if c.id == "iteration_interval")
    assert checked.facts["data.iteration_interval_us"] == 0.0


#: run_2's host queue line, and six batches of which all but one after the first are empty.
HOST_LINE = "1 64 1 0 10"
STARVED = "1 64 1 0 10\n1 64 2 0 20\n1 64 3 5 30\n1 64 4 0 40\n1 64 5 0 50\n1 64 6 0 60"
FED = "1 64 1 0 10\n1 64 2 5 20\n1 64 3 4 30\n1 64 4 6 40\n1 64 5 5 50"


def test_one_host_batch_is_not_judged(advisor_ws: Path) -> None:
    # run_2's host queue has one batch, empty: the one taken as the pipeline starts.
    advice = advise_path(shared(RUN_2), advisor_ws)
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "0 batch(es) after the first" in reasons["minddata_host_queue_empty"]
    assert "too few to judge" in reasons["minddata_host_queue_empty"]


def test_host_queue_empty_in_most_batches(advisor_ws: Path, tmp_path: Path) -> None:
    run = _run_2_copy(tmp_path, "starved", "device_queue_profiling_1.txt", HOST_LINE, STARVED)
    f = fires(advise_path(run, advisor_ws), "minddata_host_queue_empty")
    # the first batch left out: 4 of the 5 after it are empty
    assert (f.facts["data.host_queue_empty"], f.facts["data.host_queue_batches"]) == (4, 5)
    queue = f.evidence[0]  # then the chip queue's, when the run has one
    assert (queue.kind, queue.name, queue.page, queue.value) == (
        "queue",
        "host_queue",
        "data_pipeline",
        0.8,
    )


def test_host_queue_rarely_empty_on_a_real_cpu_run(advisor_ws: Path) -> None:
    # MindSpore 2.10 LeNet: dataset_iterator_profiling has 20 queue lines, one of them 0.
    advice = advise_path(shared(MS_CPU), advisor_ws)
    does_not_fire(advice, "minddata_host_queue_empty")
    checked = next(c for c in advice.checked if c.id == "minddata_host_queue_empty")
    # 20 queue lines; the only empty one is the first batch, left out
    assert checked.facts["data.host_queue_empty"] == 0
    assert checked.facts["data.host_queue_batches"] == 19


def test_chip_queue_not_empty_when_the_host_queue_is_the_problem(
    advisor_ws: Path, tmp_path: Path
) -> None:
    run = _run_2_copy(tmp_path, "starved", "device_queue_profiling_1.txt", HOST_LINE, STARVED)
    advice = advise_path(run, advisor_ws)
    does_not_fire(advice, "minddata_device_queue_empty")
    checked = next(c for c in advice.checked if c.id == "minddata_device_queue_empty")
    assert (checked.facts["data.chip_queue_empty"], checked.facts["data.chip_queue_batches"]) == (
        0,
        3,
    )


def test_chip_queue_empty_with_a_fed_host_queue(advisor_ws: Path, tmp_path: Path) -> None:
    # The host queue holds 4-6 batches after the first (fed); the last GetNext finds the
    # chip queue empty: transmission, not data processing.
    run = _run_2_copy(tmp_path, "host_fed", "device_queue_profiling_1.txt", HOST_LINE, FED)
    aicpu = run / "normal_run" / "profiler" / "minddata_aicpu_1.txt"
    aicpu.write_text(aicpu.read_text().replace("154907896921 1", "154907896921 0"))
    advice = advise_path(run, advisor_ws)
    f = fires(advice, "minddata_device_queue_empty")
    assert (f.facts["data.chip_queue_empty"], f.facts["data.chip_queue_batches"]) == (1, 3)
    assert [e.name for e in f.evidence] == ["chip_queue"]
    does_not_fire(advice, "minddata_host_queue_empty")
    # The fed host queue says the pipeline keeps up: no op tip (MindInsight hides them too
    # when transmission is the problem: the rule suppresses minddata_pipeline_op).
    does_not_fire(advice, "minddata_pipeline_op")


def test_slow_pipeline_ops_with_their_advice(advisor_ws: Path) -> None:
    # raw_0: Shuffle_4 drains its child (0.9375 vs 0.15625), both TFReaders read at 0.3125.
    advice = advise_path(shared(PIPELINE), advisor_ws, worker="rank0")
    f = fires(advice, "minddata_pipeline_op")
    ops = {e.name: e for e in f.evidence}
    assert set(ops) == {"Shuffle_4", "TFReader_2", "TFReader_3"}
    assert ops["Shuffle_4"].value == 0.15625 and ops["TFReader_2"].value == 0.3125
    assert all(e.kind == "pipeline_op" and e.page == "data_pipeline" for e in f.evidence)
    assert "num_parallel_workers" in ops["TFReader_2"].label


def test_op_queues_that_drain_while_the_host_queue_is_fed(advisor_ws: Path) -> None:
    # The real MindSpore 2.10 run: the GeneratorOp's queue reads 0 (MindInsight would call it
    # slow) because the 20-batch dataset was produced ahead; the host queue holds 15-16 of 16.
    advice = advise_path(shared(MS_CPU), advisor_ws)
    does_not_fire(advice, "minddata_pipeline_op")
    (c,) = [c for c in advice.checked if c.id == "minddata_pipeline_op"]
    assert c.facts["data.pipeline_slow_ops"] == 0


def test_pipeline_that_keeps_up_is_consumer_bound(advisor_ws: Path) -> None:
    # raw_2: every non-root queue at 0.9375 (>= 0.8): the network, not MindData, is slow.
    advice = advise_path(shared(PIPELINE), advisor_ws, worker="rank2")
    does_not_fire(advice, "minddata_pipeline_op")


def test_busy_machine_cpu_on_a_real_run(advisor_ws: Path) -> None:
    # MindSpore 2.10 on a 2-core VM: only sample 2 was recorded (user 82 + sys 18, idle 0).
    advice = advise_path(shared(MS_CPU), advisor_ws)
    f = fires(advice, "minddata_cpu_high")
    assert f.facts["data.cpu_active_pct"] == 100.0
    assert "over 1 samples" in f.evidence[0].label


def _cpu_copy(tmp_path: Path, name: str, shares: dict[str, list[int]]) -> Path:
    """run_2 with the machine-wide CPU shares of its MindData sampling replaced."""
    run = _run_2_copy(tmp_path, name, "minddata_cpu_utilization_1.json", "{", "{")
    path = run / "normal_run" / "profiler" / "minddata_cpu_utilization_1.json"
    doc = json.loads(path.read_text())
    doc["device_info"].update({f"{k}_utilization": v for k, v in shares.items()})
    path.write_text(json.dumps(doc))
    return run


def test_placeholder_cpu_figures_are_not_a_reading(advisor_ws: Path) -> None:
    # run_2's file: user 10/20/30, sys 10/20/30, io 10, idle 10 add to 40-80 %, not 100.
    advice = advise_path(shared(RUN_2), advisor_ws)
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "user+sys+io+idle add to 40-80 %" in reasons["minddata_cpu_high"]


def test_busy_machine_cpu_fires(advisor_ws: Path, tmp_path: Path) -> None:
    shares = {"user": [70, 75, 80], "sys": [15, 15, 10], "io": [5, 0, 5], "idle": [10, 10, 5]}
    f = fires(advise_path(_cpu_copy(tmp_path, "busy", shares), advisor_ws), "minddata_cpu_high")
    assert abs(f.facts["data.cpu_active_pct"] - (100 - 25 / 3)) < 1e-9


def test_idle_machine_cpu_is_fine(advisor_ws: Path, tmp_path: Path) -> None:
    # idle at 50/60/70 %, the rest user/sys/io: 100 - 60 = 40 % busy.
    shares = {"user": [30, 20, 10], "sys": [10, 10, 10], "io": [10, 10, 10], "idle": [50, 60, 70]}
    advice = advise_path(_cpu_copy(tmp_path, "idle", shares), advisor_ws)
    does_not_fire(advice, "minddata_cpu_high")
    checked = next(c for c in advice.checked if c.id == "minddata_cpu_high")
    assert checked.facts["data.cpu_active_pct"] == 40.0
