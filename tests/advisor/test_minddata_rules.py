"""MindData (MindSpore) rules on MindInsight's own fixtures and a real MindSpore 2.10 run.

Expected figures come from the files themselves, read as MindInsight reads them: queue lines
of `device_queue_profiling` / `minddata_aicpu`, usage of `minddata_pipeline_raw`, the
average row of `step_trace_raw` (syscnt, 10 ns each). Where no real file shows one side of
a rule (a chip queue that empties; MindData CPU sampling with idle CPUs; a step trace whose
interval is short), the test copies run_2 and changes one documented line of one file, then
reads the copy through the whole pipeline.
"""

from __future__ import annotations

import shutil
from pathlib import Path

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
    f = fires(advise_path(run, advisor_ws), "iteration_interval")
    assert abs(f.facts["data.iteration_interval_us"] - 12_432.11) < 0.01
    assert abs(f.estimated_saving_us - 11_932.11) < 0.01


def test_step_interval_on_a_pipeline_parallel_rank_is_low(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws, worker="rank0")
    f = fires(advice, "iteration_interval")
    assert abs(f.facts["data.iteration_interval_us"] - 1_572.25) < 0.01  # 157,225 syscnt
    assert f.severity == "low"  # 1.07 ms of a 179 ms step


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


def test_host_queue_empty_in_every_batch(advisor_ws: Path) -> None:
    advice = advise_path(shared(RUN_2), advisor_ws)
    f = fires(advice, "minddata_host_queue_empty")
    assert (f.facts["data.host_queue_empty"], f.facts["data.host_queue_batches"]) == (1, 1)
    queue = f.evidence[0]  # then the chip queue's, when the run has one
    assert (queue.kind, queue.name, queue.page, queue.value) == (
        "queue",
        "host_queue",
        "data_pipeline",
        1.0,
    )


def test_host_queue_rarely_empty_on_a_real_cpu_run(advisor_ws: Path) -> None:
    # MindSpore 2.10 LeNet: dataset_iterator_profiling has 20 queue lines, one of them 0.
    advice = advise_path(shared(MS_CPU), advisor_ws)
    does_not_fire(advice, "minddata_host_queue_empty")
    checked = next(c for c in advice.checked if c.id == "minddata_host_queue_empty")
    assert checked.facts["data.host_queue_empty"] == 1
    assert checked.facts["data.host_queue_batches"] == 20


def test_chip_queue_not_empty_when_the_host_queue_is_the_problem(advisor_ws: Path) -> None:
    advice = advise_path(shared(RUN_2), advisor_ws)
    does_not_fire(advice, "minddata_device_queue_empty")
    checked = next(c for c in advice.checked if c.id == "minddata_device_queue_empty")
    assert (checked.facts["data.chip_queue_empty"], checked.facts["data.chip_queue_batches"]) == (
        0,
        3,
    )


def test_chip_queue_empty_hides_pipeline_op_tips(advisor_ws: Path, tmp_path: Path) -> None:
    # Host queue holds 5 batches (fed); the last GetNext finds the chip queue empty.
    run = _run_2_copy(
        tmp_path, "host_fed", "device_queue_profiling_1.txt", "1 64 1 0 10", "1 64 1 5 10"
    )
    aicpu = run / "normal_run" / "profiler" / "minddata_aicpu_1.txt"
    aicpu.write_text(aicpu.read_text().replace("154907896921 1", "154907896921 0"))
    advice = advise_path(run, advisor_ws)
    f = fires(advice, "minddata_device_queue_empty")
    assert (f.facts["data.chip_queue_empty"], f.facts["data.chip_queue_batches"]) == (1, 3)
    assert [e.name for e in f.evidence] == ["chip_queue"]
    does_not_fire(advice, "minddata_host_queue_empty")
    # MindInsight hides pipeline-op tips when transmission is the problem.
    assert any(s.id == "minddata_pipeline_op" for s in advice.suppressed)


def test_slow_pipeline_ops_with_their_advice(advisor_ws: Path) -> None:
    # raw_0: Shuffle_4 drains its child (0.9375 vs 0.15625), both TFReaders read at 0.3125.
    advice = advise_path(shared(PIPELINE), advisor_ws, worker="rank0")
    f = fires(advice, "minddata_pipeline_op")
    ops = {e.name: e for e in f.evidence}
    assert set(ops) == {"Shuffle_4", "TFReader_2", "TFReader_3"}
    assert ops["Shuffle_4"].value == 0.15625 and ops["TFReader_2"].value == 0.3125
    assert all(e.kind == "pipeline_op" and e.page == "data_pipeline" for e in f.evidence)
    assert "num_parallel_workers" in ops["TFReader_2"].label
    # The real MindSpore 2.10 run: the GeneratorOp source never fills its queue.
    advice = advise_path(shared(MS_CPU), advisor_ws)
    f = fires(advice, "minddata_pipeline_op")
    assert [e.name for e in f.evidence] == ["GeneratorOp_4"]


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


def test_idle_machine_cpu_is_fine(advisor_ws: Path, tmp_path: Path) -> None:
    # run_2 with idle at 50/60/70 %: 100 - 60 = 40 % busy.
    run = _run_2_copy(
        tmp_path,
        "idle",
        "minddata_cpu_utilization_1.json",
        '"idle_utilization": [10,10,10]',
        '"idle_utilization": [50,60,70]',
    )
    advice = advise_path(run, advisor_ws)
    does_not_fire(advice, "minddata_cpu_high")
    checked = next(c for c in advice.checked if c.id == "minddata_cpu_high")
    assert checked.facts["data.cpu_active_pct"] == 40.0
