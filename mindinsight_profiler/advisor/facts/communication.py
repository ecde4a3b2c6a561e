"""Facts: one worker's communication (collective kernels and how much of them compute hides).

They read the report's `communication` section (analysis/communication/section.py): per step the
time only communication runs (exposed), both run (overlapped), only compute runs, and the
rest. MindSpore's legacy `hccl_raw` export has no kernel timeline, so it cannot tell what
overlaps: the exposed figures are unavailable there rather than guessed.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.cluster import cluster_facts_summary, rank_of
from mindinsight_profiler.advisor.facts.comm_split import tool_waiting_us
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence


def comm_section(ctx: Context) -> dict[str, Any]:
    """The worker's communication section, or Unavailable when it ran no collectives."""
    section = ctx.report.get("communication")
    if not section or not section.get("steps"):
        raise Unavailable("needs collective communication (NCCL/RCCL kernels or HCCL tasks)")
    return dict(section)


def _exposed(ctx: Context) -> tuple[float, float, list[float]]:
    """(mean exposed us, mean step us, exposed us per step) of the communication section."""
    section = comm_section(ctx)
    average = section.get("average") or {}
    exposed, step = average.get("exposed_communication_us"), average.get("step_us")
    if exposed is None or not step:
        raise Unavailable(
            "needs a kernel timeline to tell overlapped from exposed communication "
            f"(this input's communication comes from {section.get('source')})"
        )
    per_step = [float(r.get("exposed_communication_us") or 0.0) for r in section["steps"]]
    return float(exposed), float(step), per_step


@fact(
    "comm.exposed_share",
    "ratio",
    "Share of the step (0..1) in which only communication kernels run on the device and no "
    "compute kernel hides them (the PyTorch profiler plugin's exposed communication), averaged "
    "over steps; evidence: the exposed communication of each step.",
    "collective kernels on a device timeline",
)
def exposed_share(ctx: Context) -> Observed:
    exposed, step, per_step = _exposed(ctx)
    return Observed(exposed / step, step_evidence(ctx.report, per_step, "exposed_comm_step"))


@fact(
    "comm.exposed_us",
    "us",
    "Average exposed (not overlapped) communication per step, microseconds.",
    "collective kernels on a device timeline",
)
def exposed_us(ctx: Context) -> float:
    return _exposed(ctx)[0]


@fact(
    "comm.share",
    "ratio",
    "Share of the step (0..1) in which any communication kernel runs, hidden or not, averaged "
    "over steps.",
    "collective kernels on a device timeline",
)
def comm_share(ctx: Context) -> float:
    section = comm_section(ctx)
    average = section.get("average") or {}
    comm, step = average.get("communication_us"), average.get("step_us")
    if comm is None or not step:
        raise Unavailable("the communication section has no per-step communication time")
    return float(comm) / float(step)


def _waits(ctx: Context) -> dict[int, float]:
    """Per rank: time per step its collectives wait for the slowest peer (cluster summary)."""
    summary, ranks = cluster_facts_summary(ctx)
    totals: dict[int, float] = {}
    for c in summary["collectives"]:
        if c["waiting_us"] is None:
            continue
        for rank, waiting in zip(c["ranks"], c["waiting_us"], strict=True):
            totals[rank] = totals.get(rank, 0.0) + float(waiting)
    if not totals:
        raise Unavailable("needs the same collectives on 2+ ranks to match calls")
    steps = {rank: len((r.get("communication") or {}).get("steps") or []) for rank, r in ranks}
    return {rank: total / max(steps.get(rank, 1), 1) for rank, total in totals.items()}


def _own_rank(ctx: Context) -> int:
    for i, report in enumerate(ctx.run_reports):
        if report is ctx.report or report.get("worker") == ctx.report.get("worker"):
            return rank_of(report, i)
    return rank_of(ctx.report, 0)


@fact(
    "comm.wait_us",
    "us",
    "Time per step this rank's collectives wait for the slowest peer, microseconds. Where the "
    "profiler splits HCCL time itself (torch_npu communication.json, analysis.db) its Wait + "
    "Idle (comm.tool_waiting_us): the late rank may not be profiled. Else per matched call "
    "(k-th call of a type on every rank) its duration minus the shortest duration of that "
    "call on any rank, summed; evidence: every rank's wait.",
    "2+ ranks with the same collectives, or the profiler's communication split",
)
def wait_us(ctx: Context) -> Observed:
    try:
        return tool_waiting_us(ctx)
    except Unavailable:
        pass
    waits = _waits(ctx)
    rank = _own_rank(ctx)
    if rank not in waits:
        raise Unavailable(f"rank {rank} has no collectives matched with the other ranks")
    evidence = tuple(
        Evidence(
            kind="rank",
            **label("rank_wait", rank=r),
            page="communication",
            value=v,
            unit="us",
            rank=r,
        )
        for r, v in sorted(waits.items(), key=lambda kv: -kv[1])
    )
    return Observed(waits[rank], evidence)


@fact(
    "comm.wait_share",
    "ratio",
    "comm.wait_us divided by this rank's mean step time (0..1).",
    "2+ ranks with the same collectives, or the profiler's communication split",
)
def wait_share(ctx: Context) -> float | None:
    wait, average = ctx.value("comm.wait_us"), ctx.value("step.average_us")
    return None if wait is None or not average else wait / average
