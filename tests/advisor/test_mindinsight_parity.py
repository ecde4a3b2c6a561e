"""Parity with MindInsight 2.3.1's Helper sidebar for run_2, rank 1 (issue 5 must-show).

What MindInsight shows for these files (reference/mindinsight-screens/dashboard.png), and
how its proposers compute it (mindinsight @ e233ee19, proposer/allproposers):
- step_trace: the average row's iteration_interval (step_id 0 reads the file's last row,
  1,243,211 syscnt = 12.43 ms) > 0.5 ms -> the step-interval tip.
- minddata: chip (GetNext) queue empty 0/3, host queue empty 1/1 = 100 % > 30 % -> data
  processing stage; CPU "90" = 100 - round(mean idle) = 100 - 10 (user+sys would be 40).
- minddata_pipeline: ImageFolderOp_3 (a source op whose queue stays under 0.6) -> tune
  num_parallel_workers.
Our findings must carry each of these, with the same figures, except the step-interval
tip: that average row does not add up (total 0), so we do not use it (see the test).
"""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, fires
from tests.conftest import shared


def test_run_2_findings_cover_mindinsights_helper(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/run_2"), advisor_ws, worker="rank1")

    # Deliberate difference: MindInsight's step-interval tip reads the file's average row
    # (12.43 ms), a hand-edited row whose stages do not add up to its total (0); its only
    # step has interval 0. We do not use such a row (test_minddata_rules), so no tip here.
    assert not any(f.id == "iteration_interval" for f in advice.findings)

    host = fires(advice, "minddata_host_queue_empty")
    assert (host.facts["data.host_queue_empty"], host.facts["data.host_queue_batches"]) == (1, 1)
    assert host.facts["data.host_queue_empty_share"] == 1.0  # "100 %, threshold 30 %"
    assert "100%, threshold 30%" in host.message.en
    queues = {e.name: e.label for e in host.evidence}
    assert queues["host_queue"].endswith("empty in 1 of 1 batches")
    assert queues["chip_queue"].endswith("empty in 0 of 3 batches")  # "0/3" on the chip

    cpu = fires(advice, "minddata_cpu_high")
    assert cpu.facts["data.cpu_active_pct"] == 90.0
    assert "is 90 %" in cpu.message.en

    ops = fires(advice, "minddata_pipeline_op")
    assert [e.name for e in ops.evidence] == ["ImageFolderOp_3"]
    assert "num_parallel_workers" in ops.evidence[0].label

    # MindInsight shows no transmission warning here; neither do we.
    assert not any(f.id == "minddata_device_queue_empty" for f in advice.findings)
