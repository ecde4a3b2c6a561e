"""Parity with MindInsight 2.3.1's Helper sidebar for run_2, rank 1 (issue 5 must-show).

What MindInsight shows for these files (reference/mindinsight-screens/dashboard.png), and
how its proposers compute it (mindinsight @ e233ee19, proposer/allproposers):
- step_trace: the average row's iteration_interval (step_id 0 reads the file's last row,
  1,243,211 syscnt = 12.43 ms) > 0.5 ms -> the step-interval tip.
- minddata: chip (GetNext) queue empty 0/3, host queue empty 1/1 = 100 % > 30 % -> data
  processing stage; CPU "90" = 100 - round(mean idle) = 100 - 10 (user+sys would be 40).
- minddata_pipeline: ImageFolderOp_3 (a source op whose queue stays under 0.6) -> tune
  num_parallel_workers.
Our findings must carry each of these, with the same figures, except where the data cannot
bear the verdict (issue 18's expert review of this input): the step-interval tip (that
average row does not add up, total 0), the host-queue tip (its one batch is the one taken as
the pipeline starts), the CPU tip (user+sys+io+idle add to 40-80 %: placeholders) and the
pipeline-op tip (GetNext found the chip queue holding 3, 2, 1 batches: the pipeline keeps up;
its op queues have 2 samples each). The figures are still the same (see the test).
"""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire
from tests.conftest import shared


def test_run_2_findings_cover_mindinsights_helper(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/run_2"), advisor_ws, worker="rank1")

    # Deliberate difference: MindInsight's step-interval tip reads the file's average row
    # (12.43 ms), a hand-edited row whose stages do not add up to its total (0); its only
    # step has interval 0. We do not use such a row (test_minddata_rules), so no tip here.
    assert not any(f.id == "iteration_interval" for f in advice.findings)

    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "too few to judge" in reasons["minddata_host_queue_empty"]
    report_queues = {q.name: q for q in advice_report_queues(advisor_ws)}
    host = report_queues["host_queue"]
    assert (host.empty, host.samples) == (1, 1)  # MindInsight's "1/1", the start-up batch
    assert "not consistent" in reasons["minddata_cpu_high"]  # MindInsight's "90"
    does_not_fire(advice, "minddata_pipeline_op")  # MindInsight: ImageFolderOp_3
    (ops,) = [c for c in advice.checked if c.id == "minddata_pipeline_op"]
    assert ops.facts["data.pipeline_slow_ops"] == 0

    # MindInsight shows no transmission warning here; neither do we.
    assert not any(f.id == "minddata_device_queue_empty" for f in advice.findings)


def advice_report_queues(workspace: Path) -> list:
    """run_2 rank 1's MindData queues as the report counts them."""
    from mindinsight_profiler.formats.discovery import discover, pick_run
    from mindinsight_profiler.pipeline.reports import analyse_file
    from mindinsight_profiler.store.cache import Workspace

    run = pick_run(discover(shared("mindspore_legacy/run_2")), "rank1")
    file = run.select("rank1")
    report, _ = analyse_file(file.source, Workspace(workspace), None, file.format, file.worker)
    assert report.data_pipeline is not None
    return list(report.data_pipeline.queues)
