"""Facts: MindInsight's pipeline-parallel cluster checks (between and within stages, FLOPs).

Split from `cluster_ms` (the rank-level checks and the cluster-analyse readers they share):
the same files and measures, for jobs whose `ascend_cluster_analyse_*` files say
pipeline-parallel. Stages are numbered from 1, sums are over the stage's ranks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.cluster import cluster_reports
from mindinsight_profiler.advisor.facts.cluster_ms import (
    PIPELINE,
    analyse,
    busy_ms,
    column_ms,
    flops_by_rank,
    rank_evidence,
)
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence


def _pipeline(ctx: Context) -> tuple[int, int, dict[int, dict[str, Any]]]:
    mode, stage_num, rank_size, sections = analyse(ctx)
    if mode != PIPELINE:
        raise Unavailable(f"needs a pipeline-parallel job (this one is {mode})")
    return stage_num, rank_size, sections


@fact(
    "cluster.pp_receive_share",
    "ratio",
    "Pipeline-parallel jobs: time ranks wait to receive from the previous stage (receive "
    "alone) over computation plus communication alone, summed over ranks (MindInsight's "
    "between-stage communication check); evidence: every rank's receive alone.",
    "ascend_cluster_analyse_pipeline-parallel_* files of every rank (MindSpore)",
)
def pp_receive_share(ctx: Context) -> Observed:
    _, _, sections = _pipeline(ctx)
    busy = sum(busy_ms(s) for s in sections.values())
    receive = {r: column_ms(s, "receive_alone_time") * 1e3 for r, s in sections.items()}
    if busy <= 0:
        raise Unavailable("no computation or communication time in the cluster analyse files")
    evidence = rank_evidence(receive, "rank_receive", "us")
    return Observed(sum(receive.values()) / 1e3 / busy, evidence)


def _transitms(ctx: Context) -> dict[int, float]:
    """Per rank with HCCL's own split (hccl_raw): the time it transfers per step, ms.

    MindSpore's "communication alone" includes the time a collective waits for its peers;
    in a pipeline whose stages are unbalanced that is most of it (cluster_propose: 108 ms
    alone, 2.6 ms transit, 265-271 ms wait per step on rank 0). Unhidden transfer cannot
    exceed the transfer itself; the rest is the imbalance the pipeline rules report."""
    out = {}
    for rank, report in cluster_reports(ctx):
        average = (report.get("communication") or {}).get("average") or {}
        if average.get("tool_wait_us") is not None and average.get("communication_us"):
            out[rank] = float(average["communication_us"]) / 1e3
    return out


def _stage_comm(ctx: Context) -> tuple[int, float, dict[int, float]]:
    """(stage, its share, every stage's share) of collective communication within a stage."""
    _, _, sections = _pipeline(ctx)
    collective: dict[int, float] = {}
    busy: dict[int, float] = {}
    transit = _transitms(ctx)
    for rank, s in sections.items():
        stage = int(s["stage"])
        alone = min(column_ms(s, "collective_communication_alone_time"), transit.get(rank, np.inf))
        collective[stage] = collective.get(stage, 0.0) + alone
        busy[stage] = busy.get(stage, 0.0) + busy_ms(s)
    shares = {st: collective[st] / busy[st] for st in busy if busy[st] > 0}
    if not shares:
        raise Unavailable("no computation or communication time in the cluster analyse files")
    stage = max(shares, key=lambda st: shares[st])
    return stage, shares[stage], shares


@fact(
    "cluster.pp_stage_comm_share",
    "ratio",
    "Pipeline-parallel jobs: the largest share, over stages, of collective communication "
    "alone (communication inside the stage, receives excluded) in computation plus "
    "communication alone, summed over the stage's ranks (MindInsight's within-stage check), "
    "each rank's collective time capped by its transfer time where hccl_raw splits transfer "
    "from waiting (waiting for another stage is imbalance, not communication); evidence: "
    "every rank's collective communication alone.",
    "ascend_cluster_analyse_pipeline-parallel_* files of every rank (MindSpore)",
)
def pp_stage_comm_share(ctx: Context) -> Observed:
    _, share, _ = _stage_comm(ctx)
    _, _, sections = _pipeline(ctx)
    items = {
        r: column_ms(s, "collective_communication_alone_time") * 1e3 for r, s in sections.items()
    }
    evidence = tuple(
        Evidence(
            kind="rank",
            **label("rank_stage_comm", rank=r, stage=sections[r]["stage"]),
            page="cluster",
            value=v,
            unit="us",
            rank=r,
        )
        for r, v in sorted(items.items(), key=lambda kv: -kv[1])
    )
    return Observed(share, evidence)


@fact(
    "cluster.pp_comm_stage",
    "number",
    "Stage (from 1) with the largest within-stage communication share.",
    "pipeline-parallel",
)
def pp_comm_stage(ctx: Context) -> int:
    return _stage_comm(ctx)[0]


def _stageflops_by_rank(ctx: Context) -> tuple[int, float, float, dict[int, float]]:
    """(stage, share above the mean, its FLOPs per rank, per rank FLOPs) of the busiest stage."""
    stage_num, rank_size, sections = _pipeline(ctx)
    flops = flops_by_rank(ctx, "flops")
    per_stage = rank_size // stage_num
    stages: dict[int, float] = {}
    for rank, value in flops.items():
        stage = int(sections[rank]["stage"])
        stages[stage] = stages.get(stage, 0.0) + value / per_stage
    mean = float(np.mean(list(stages.values())))
    if mean <= 0:
        raise Unavailable("every stage's FLOPs is 0")
    stage = max(stages, key=lambda st: stages[st])
    return stage, stages[stage] / mean - 1.0, stages[stage], flops


@fact(
    "cluster.pp_stage_flops_excess",
    "ratio",
    "Pipeline-parallel jobs: how far the largest per-rank FLOPs of a stage (flops_summary "
    "FLOPs summed over its ranks, divided by ranks per stage) lies above the mean over stages "
    "(MindInsight's stage FLOPs check); evidence: every rank's FLOPs.",
    "pipeline-parallel cluster analyse and flops_summary files of every rank (MindSpore)",
)
def pp_stage_flops_excess(ctx: Context) -> Observed:
    _, share, _, flops = _stageflops_by_rank(ctx)
    return Observed(share, rank_evidence(flops, "rank_flops", "MFLOP"))


@fact("cluster.pp_flops_stage", "number", "Stage (from 1) with the most FLOPs.", "pipeline")
def pp_flops_stage(ctx: Context) -> int:
    return _stageflops_by_rank(ctx)[0]


@fact(
    "cluster.pp_stage_flops",
    "number",
    "FLOPs per rank of that stage, millions (as flops_summary writes them).",
    "pipeline-parallel cluster analyse and flops_summary files of every rank (MindSpore)",
)
def pp_stageflops_by_rank(ctx: Context) -> float:
    return _stageflops_by_rank(ctx)[2]
