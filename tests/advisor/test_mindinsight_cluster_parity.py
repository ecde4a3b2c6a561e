"""Parity with MindInsight 2.3.1's cluster (parallel) proposer on `cluster_propose`.

What MindInsight shows for these files is what its own test of the proposer asserts
(mindspore-ai/mindinsight tests/st/func/profiler, the parallel proposer on the same
`cluster_propose` folder), with its rounding: values to 4 places, percents to 2 (the
between-stage rate is rounded to 4 places first):

- step interval: rank 2, 2.4318 ms, 22.23 % above the mean (we show the same figures but no
  finding: 0.44 ms is 0.25 % of the step, under rank_iteration_interval's 2 %);
- cluster link: 0 -> 1 SDMA at 107910491.8874, 74.26 % below the mean of SDMA links (we do
  not compare links whose calls average under the small-packet size: here 3-6 KB, latency);
- pipeline between stages: 25.82 % (threshold 10 %);
- pipeline within stage: stage 1, 60.3 % (threshold 10 %; we cap each rank's collective
  time by the transfer time hccl_raw gives, 2.6 of 108 ms: the rest is waiting for stage 2,
  which the pipeline rules report, so no finding);
- pipeline FLOPs: stage 2, 329610.3845, 50.94 % above the mean.

It shows nothing for FLOPS (the slowest rank is 5.3 % below the mean) and, for a pipeline
job, no data-/model-parallel communication share. Our counterparts must show the same.
"""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared


def test_findings_include_every_mindinsight_cluster_suggestion(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws)

    does_not_fire(advice, "rank_iteration_interval")
    (interval,) = [c for c in advice.checked if c.id == "rank_iteration_interval"]
    assert interval.facts["cluster.interval_rank"] == 2
    assert round(interval.facts["cluster.interval_us"] / 1000, 4) == 2.4318
    assert round(interval.facts["cluster.interval_excess"] * 100, 2) == 22.23

    # Documented difference: every link's calls average 0.58 MB or less (3-6 KB all-reduces),
    # latency-bound, so bandwidth is not compared (test_cluster_rules shows MindInsight's
    # 74.26 % on a copy with large transfers).
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert "latency-bound" in reasons["slow_link"]

    between = fires(advice, "pipeline_receive_share")
    assert round(round(between.facts["cluster.pp_receive_share"], 4) * 100, 2) == 25.82

    does_not_fire(advice, "pipeline_stage_comm_share")  # see the module doc

    stage = fires(advice, "pipeline_stage_flops")
    assert stage.facts["cluster.pp_flops_stage"] == 2
    assert round(stage.facts["cluster.pp_stage_flops"], 4) == 329610.3845
    assert round(stage.facts["cluster.pp_stage_flops_excess"] * 100, 2) == 50.94


def test_nothing_where_mindinsight_shows_nothing(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws)
    does_not_fire(advice, "slow_rank_flops")
    assert not any(f.id == "parallel_comm_share" for f in advice.findings)
