"""Facts: MindInsight's cluster (parallel) proposer checks over every rank of a run.

MindInsight compares the ranks of a MindSpore job by what MindSpore wrote per rank: the step
trace's average iteration interval, `flops_summary_*.json` and the
`ascend_cluster_analyse_<mode>_<stages>_<ranks>_*.csv` rows (the report's `parallel`
section, analysis/communication/parallel.py). The thresholds live in the rules; the
measures here are MindInsight's: sums over ranks of the files' average rows, stages numbered from 1.
A fact is unavailable when a rank lacks the file it needs, never 0. The pipeline-parallel
checks, which share the readers here, are in `cluster_pipeline`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.cluster import cluster_reports
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

PIPELINE = "pipeline-parallel"


def rank_evidence(values: dict[int, float], key: str, unit: str) -> tuple[Evidence, ...]:
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
    return Observed(share, rank_evidence(values, "rank_interval", "us"))


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


def flops_by_rank(ctx: Context, key: str) -> dict[int, float]:
    _mindspore_run(ctx)
    out = {}
    for rank, report in cluster_reports(ctx):
        flops = (report.get("parallel") or {}).get("flops")
        if not flops or flops.get(key) is None:
            raise Unavailable(f"rank {rank} has no flops_summary_{rank}.json")
        out[rank] = float(flops[key])
    return out


def _flops_deficit(ctx: Context) -> tuple[int, float, dict[int, float]]:
    values = flops_by_rank(ctx, "flops_per_second")
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
    return Observed(share, rank_evidence(values, "rank_flops_rate", "GFLOP/s"))


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


def analyse(ctx: Context) -> tuple[str, int, int, dict[int, dict[str, Any]]]:
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


def column_ms(section: dict[str, Any], column: str) -> float:
    value = section["average_ms"].get(column)
    if value is None:
        raise Unavailable(f"{section['file']} has no {column} column")
    return float(value)


def busy_ms(section: dict[str, Any]) -> float:
    return column_ms(section, "computation_time") + column_ms(section, "communication_alone_time")


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
    mode, _, _, sections = analyse(ctx)
    if mode == PIPELINE:
        raise Unavailable("a pipeline-parallel job is judged per stage (pipeline_* rules)")
    busy = sum(busy_ms(s) for s in sections.values())
    alone = {r: column_ms(s, "communication_alone_time") * 1e3 for r, s in sections.items()}
    if busy <= 0:
        raise Unavailable("no computation or communication time in the cluster analyse files")
    return Observed(sum(alone.values()) / 1e3 / busy, rank_evidence(alone, "rank_comm_alone", "us"))


@fact(
    "cluster.parallel_mode",
    "text",
    "The job's parallel mode as MindSpore names it (data-parallel, model-parallel, "
    "pipeline-parallel), from the ascend_cluster_analyse file names.",
    "ascend_cluster_analyse_* files of every rank (MindSpore)",
)
def parallel_mode(ctx: Context) -> str:
    return analyse(ctx)[0]
