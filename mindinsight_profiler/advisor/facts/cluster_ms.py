"""Facts: MindInsight's cluster (parallel) proposer checks over every rank of a run.

MindInsight compares the ranks of a MindSpore job by what MindSpore wrote per rank: the step
trace's average iteration interval, `flops_summary_*.json` and the
`ascend_cluster_analyse_<mode>_<stages>_<ranks>_*.csv` rows (the report's `parallel`
section, analysis/communication/parallel.py). The thresholds live in the rules; the
measures here are MindInsight's: sums over ranks of the files' average rows, stages numbered from 1.
A fact is unavailable when a rank lacks the file it needs, never 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.cluster import cluster_reports
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

_PIPELINE = "pipeline-parallel"


def _rank_evidence(values: dict[int, float], key: str, unit: str) -> tuple[Evidence, ...]:
    return tuple(
        Evidence(kind="rank", **label(key, rank=r), page="cluster", value=v, unit=unit, rank=r)
        for r, v in sorted(values.items(), key=lambda kv: -kv[1])
    )


def _intervals(ctx: Context) -> dict[int, float]:
    """Per rank: the average iteration interval (us) as the step trace wrote it."""
    out = {}
    for rank, report in cluster_reports(ctx):
        value = (report.get("parallel") or {}).get("iteration_interval_us")
        if value is None:
            value = ((report.get("step_trace") or {}).get("average") or {}).get(
                "iteration_interval_us"
            )
        if value is None:
            raise Unavailable(f"rank {rank} has no step trace (iteration interval)")
        out[rank] = float(value)
    return out


def _interval_excess(ctx: Context) -> tuple[int, float, float, dict[int, float]]:
    """(rank, share above the mean, us above the mean, every rank's interval)."""
    values = _intervals(ctx)
    mean = float(np.mean(list(values.values())))
    if mean <= 0:
        raise Unavailable("every rank's iteration interval is 0")
    rank = max(values, key=lambda r: values[r])
    return rank, values[rank] / mean - 1.0, values[rank] - mean, values


@fact(
    "cluster.interval_excess",
    "ratio",
    "How far the largest average iteration interval of a rank (step start to its first "
    "forward op: waiting for data, launching the graph) lies above the mean over all ranks, "
    "as a share of that mean (MindInsight's cluster step-interval check); evidence: every "
    "rank's interval.",
    "2+ ranks with a step trace",
)
def interval_excess(ctx: Context) -> Observed:
    _, share, _, values = _interval_excess(ctx)
    return Observed(share, _rank_evidence(values, "rank_interval", "us"))


@fact(
    "cluster.interval_excess_us",
    "us",
    "That rank's average iteration interval minus the mean over all ranks, microseconds.",
    "2+ ranks with a step trace",
)
def interval_excess_us(ctx: Context) -> float:
    return _interval_excess(ctx)[2]


@fact("cluster.interval_rank", "number", "Rank with the longest iteration interval.", "2+ ranks")
def interval_rank(ctx: Context) -> int:
    return _interval_excess(ctx)[0]


@fact(
    "cluster.interval_us",
    "us",
    "Average iteration interval of the rank with the longest one, microseconds.",
    "2+ ranks with a step trace",
)
def interval_us(ctx: Context) -> float:
    rank, _, _, values = _interval_excess(ctx)
    return values[rank]


def _mindspore_run(ctx: Context) -> None:
    """The cause when a torch_npu or GPU run lacks MindSpore's cluster files: not a missing
    file, but files only MindSpore writes."""
    if ctx.report.get("framework") != "mindspore":
        raise Unavailable(
            "needs MindSpore's cluster analysis files (ascend_cluster_analyse_*.csv, "
            "flops_summary_*.json), which only MindSpore runs write"
        )


def _flops(ctx: Context, key: str) -> dict[int, float]:
    _mindspore_run(ctx)
    out = {}
    for rank, report in cluster_reports(ctx):
        flops = (report.get("parallel") or {}).get("flops")
        if not flops or flops.get(key) is None:
            raise Unavailable(f"rank {rank} has no flops_summary_{rank}.json")
        out[rank] = float(flops[key])
    return out


def _flops_deficit(ctx: Context) -> tuple[int, float, dict[int, float]]:
    values = _flops(ctx, "flops_per_second")
    mean = float(np.mean(list(values.values())))
    if mean <= 0:
        raise Unavailable("every rank's FLOPS is 0")
    rank = min(values, key=lambda r: values[r])
    return rank, (mean - values[rank]) / mean, values


@fact(
    "cluster.flops_deficit",
    "ratio",
    "How far the lowest FLOPS (floating point operations per second, flops_summary) of a rank "
    "lies below the mean over all ranks, as a share of that mean (MindInsight's cluster FLOPS "
    "check); evidence: every rank's FLOPS.",
    "2+ ranks with flops_summary_<rank>.json (MindSpore)",
)
def flops_deficit(ctx: Context) -> Observed:
    _, share, values = _flops_deficit(ctx)
    return Observed(share, _rank_evidence(values, "rank_flops_rate", "GFLOP/s"))


@fact("cluster.flops_slow_rank", "number", "Rank with the lowest FLOPS.", "2+ ranks")
def flops_slow_rank(ctx: Context) -> int:
    return _flops_deficit(ctx)[0]


@fact(
    "cluster.flops_slow_value",
    "number",
    "FLOPS of that rank, billions per second (as flops_summary writes it).",
    "2+ ranks with flops_summary",
)
def flops_slow_value(ctx: Context) -> float:
    rank, _, values = _flops_deficit(ctx)
    return values[rank]


def _analyse(ctx: Context) -> tuple[str, int, int, dict[int, dict[str, Any]]]:
    """(mode, stage count, rank count, per rank its `parallel` section) of the run."""
    _mindspore_run(ctx)
    sections = {}
    for rank, report in cluster_reports(ctx):
        section = report.get("parallel") or {}
        if "file" not in section:
            raise Unavailable(f"rank {rank} has no ascend_cluster_analyse_*_{rank}.csv")
        if not section.get("average_ms"):
            raise Unavailable(f"{section['file']} has no computation/communication columns")
        sections[rank] = section
    first = next(iter(sections.values()))
    shape = (first["mode"], first["stage_num"], first["rank_size"])
    for rank, s in sections.items():
        if (s["mode"], s["stage_num"], s["rank_size"]) != shape:
            raise Unavailable(f"rank {rank}'s cluster analyse file is of another job ({s['file']})")
    return (*shape, sections)


def _ms(section: dict[str, Any], column: str) -> float:
    value = section["average_ms"].get(column)
    if value is None:
        raise Unavailable(f"{section['file']} has no {column} column")
    return float(value)


def _busy_ms(section: dict[str, Any]) -> float:
    return _ms(section, "computation_time") + _ms(section, "communication_alone_time")


@fact(
    "cluster.comm_alone_share",
    "ratio",
    "Data-/model-parallel jobs: communication not hidden by computation over computation plus "
    "that communication, summed over ranks (ascend_cluster_analyse average rows; "
    "MindInsight's data-/model-parallel communication check); evidence: every rank's "
    "communication alone.",
    "ascend_cluster_analyse_{data,model}-parallel_* files of every rank (MindSpore)",
)
def comm_alone_share(ctx: Context) -> Observed:
    mode, _, _, sections = _analyse(ctx)
    if mode == _PIPELINE:
        raise Unavailable("a pipeline-parallel job is judged per stage (pipeline_* rules)")
    busy = sum(_busy_ms(s) for s in sections.values())
    alone = {r: _ms(s, "communication_alone_time") * 1e3 for r, s in sections.items()}
    if busy <= 0:
        raise Unavailable("no computation or communication time in the cluster analyse files")
    return Observed(
        sum(alone.values()) / 1e3 / busy, _rank_evidence(alone, "rank_comm_alone", "us")
    )


@fact(
    "cluster.parallel_mode",
    "text",
    "The job's parallel mode as MindSpore names it (data-parallel, model-parallel, "
    "pipeline-parallel), from the ascend_cluster_analyse file names.",
    "ascend_cluster_analyse_* files of every rank (MindSpore)",
)
def parallel_mode(ctx: Context) -> str:
    return _analyse(ctx)[0]


def _pipeline(ctx: Context) -> tuple[int, int, dict[int, dict[str, Any]]]:
    mode, stage_num, rank_size, sections = _analyse(ctx)
    if mode != _PIPELINE:
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
    busy = sum(_busy_ms(s) for s in sections.values())
    receive = {r: _ms(s, "receive_alone_time") * 1e3 for r, s in sections.items()}
    if busy <= 0:
        raise Unavailable("no computation or communication time in the cluster analyse files")
    evidence = _rank_evidence(receive, "rank_receive", "us")
    return Observed(sum(receive.values()) / 1e3 / busy, evidence)


def _stage_comm(ctx: Context) -> tuple[int, float, dict[int, float]]:
    """(stage, its share, every stage's share) of collective communication within a stage."""
    _, _, sections = _pipeline(ctx)
    collective: dict[int, float] = {}
    busy: dict[int, float] = {}
    for s in sections.values():
        stage = int(s["stage"])
        collective[stage] = collective.get(stage, 0.0) + _ms(
            s, "collective_communication_alone_time"
        )
        busy[stage] = busy.get(stage, 0.0) + _busy_ms(s)
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
    "communication alone, summed over the stage's ranks (MindInsight's within-stage check); "
    "evidence: every rank's collective communication alone.",
    "ascend_cluster_analyse_pipeline-parallel_* files of every rank (MindSpore)",
)
def pp_stage_comm_share(ctx: Context) -> Observed:
    _, share, _ = _stage_comm(ctx)
    _, _, sections = _pipeline(ctx)
    items = {r: _ms(s, "collective_communication_alone_time") * 1e3 for r, s in sections.items()}
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


def _stage_flops(ctx: Context) -> tuple[int, float, float, dict[int, float]]:
    """(stage, share above the mean, its FLOPs per rank, per rank FLOPs) of the busiest stage."""
    stage_num, rank_size, sections = _pipeline(ctx)
    flops = _flops(ctx, "flops")
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
    _, share, _, flops = _stage_flops(ctx)
    return Observed(share, _rank_evidence(flops, "rank_flops", "MFLOP"))


@fact("cluster.pp_flops_stage", "number", "Stage (from 1) with the most FLOPs.", "pipeline")
def pp_flops_stage(ctx: Context) -> int:
    return _stage_flops(ctx)[0]


@fact(
    "cluster.pp_stage_flops",
    "number",
    "FLOPs per rank of that stage, millions (as flops_summary writes them).",
    "pipeline-parallel cluster analyse and flops_summary files of every rank (MindSpore)",
)
def pp_stage_flops(ctx: Context) -> float:
    return _stage_flops(ctx)[2]
