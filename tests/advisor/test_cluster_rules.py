"""Cluster rules over every rank of a run: MindSpore's 4-rank cluster, HTA and Ascend pairs."""

from __future__ import annotations

from pathlib import Path

from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

# Mean step per rank from step_trace_raw_{0..3}_detail_time.csv (us).
CLUSTER_STEPS = {0: 179_168.406, 1: 185_571.876, 2: 576_261.106, 3: 618_730.866}


def test_slow_rank_fires_on_the_mindspore_cluster(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws)
    f = fires(advice, "slow_rank")
    mean = sum(CLUSTER_STEPS.values()) / 4
    assert f.facts["cluster.slowest_rank"] == 3
    assert abs(f.facts["cluster.step_excess"] - (CLUSTER_STEPS[3] - mean) / mean) < 1e-6
    assert abs(f.estimated_saving_us - (CLUSTER_STEPS[3] - mean)) < 1
    ranks = [(e.rank, e.value) for e in f.evidence if e.kind == "rank"]
    assert [r for r, _ in ranks] == [3, 2, 1, 0]
    assert all(abs(v - CLUSTER_STEPS[r]) < 0.01 for r, v in ranks)
    assert all(e.page == "cluster" for e in f.evidence)


def test_slow_rank_does_not_fire_on_even_ranks(advisor_ws: Path) -> None:
    # HTA: 615,120 vs 619,272 us; Ascend level 1: 155,986 vs 153,888 us.
    does_not_fire(advise_path(shared("hta/trace_filter"), advisor_ws), "slow_rank")
    does_not_fire(advise_path(shared("ascend_pytorch/level1"), advisor_ws), "slow_rank")


def test_slow_rank_needs_two_ranks(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/nccl_parser_config"), advisor_ws)
    (n,) = [n for n in advice.not_evaluated if n.id == "slow_rank"]
    assert "2+ ranks" in n.reason


def test_rank_compute_imbalance_fires_on_the_hta_pair(advisor_ws: Path) -> None:
    advice = advise_path(shared("hta/trace_filter"), advisor_ws)
    f = fires(advice, "rank_compute_imbalance")
    # Compute kernels per step: rank 0 105,160 us, rank 1 135,987 us (kernel breakdown).
    assert abs(f.facts["cluster.compute_spread"] - 0.2557) < 0.001
    assert abs(f.estimated_saving_us - 15_413.25) < 1
    ranks = [(e.rank, e.value) for e in f.evidence if e.kind == "rank"]
    assert ranks[0][0] == 1 and abs(ranks[0][1] - 135_986.5) < 1


def test_rank_compute_imbalance_does_not_fire_on_ascend(advisor_ws: Path) -> None:
    # step_trace_time.csv Computing + Overlapped: 8,827 vs 8,813 us (level 0).
    does_not_fire(
        advise_path(shared("ascend_pytorch/level0"), advisor_ws), "rank_compute_imbalance"
    )


def test_slow_link_fires_on_the_mindspore_cluster(advisor_ws: Path) -> None:
    advice = advise_path(shared("mindspore_legacy/cluster_propose"), advisor_ws)
    f = fires(advice, "slow_link")
    # SDMA links to the other device (hccl_raw link_info, mean bandwidth over steps): rank 1's
    # 0-1 link at 1.079e8 against the mean of the four, 4.192e8.
    assert f.facts["cluster.links"] == 4
    assert abs(f.facts["cluster.link_gap"] - 0.7426) < 0.001
    first = f.evidence[0]
    assert (first.rank, first.name, first.page) == (1, "0-1 SDMA", "communication")
    assert abs(first.value - 1.0791e8) < 1e4
    assert {e.rank for e in f.evidence} == {0, 1}  # only links below the mean


def test_slow_link_does_not_fire_on_even_hccs_links(advisor_ws: Path) -> None:
    advice = advise_path(shared("ascend_pytorch/level1"), advisor_ws)
    does_not_fire(advice, "slow_link")
    (c,) = [c for c in advice.checked if c.id == "slow_link"]
    # communication_matrix.json: 14 HCCS links of 15.14-16.00 GB/s; the slowest is 2.8 % low.
    assert c.facts["cluster.links"] == 14
    assert abs(c.facts["cluster.link_gap"] - 0.028) < 0.001
