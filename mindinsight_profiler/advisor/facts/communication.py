"""Facts: one worker's communication (collectives and how much of them compute hides).

They read the report's `communication` section (analysis/communication/section.py): per step the
time only communication runs (exposed), both run (overlapped), only compute runs, and the
rest. MindSpore's legacy `hccl_raw` export has no kernel timeline, so it cannot tell what
overlaps: the exposed figures are unavailable there rather than guessed.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.cluster import cluster_facts_summary, rank_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence


def comm_section(ctx: Context) -> dict[str, Any]:
    """The worker's communication section, or Unavailable when it ran no collectives."""
    section = ctx.report.get("communication")
    if not section or not section.get("steps"):
        raise Unavailable(
            "needs collective communication (NCCL/RCCL kernels, HCCL tasks or gloo ranges)"
        )
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
    "over steps; evidence: the exposed communication of each step. On a CPU run the "
    "collectives are gloo's host ranges and the compute is the framework operators.",
    "collective kernels on a device timeline, or gloo collectives on a CPU run",
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
    "comm.exposed_transfer_us",
    "us",
    "Exposed communication per step that is not waiting for a later rank: comm.exposed_us "
    "minus comm.wait_us, never below 0 (a rank that arrives first holds its collective while "
    "it waits, and that time is exposed too, but overlapping cannot hide it: only the late "
    "rank can); comm.exposed_us itself when the wait cannot be measured (one profiled rank).",
    "collective kernels (or host collectives) on a timeline",
)
def exposed_transfer_us(ctx: Context) -> float:
    exposed = _exposed(ctx)[0]
    wait = ctx.value("comm.wait_us")
    return exposed if wait is None else max(exposed - float(wait), 0.0)


#: Ledger parts in which the device works (docs/definitions.md#step-ledger).
_DEVICE_PARTS = ("device_compute", "exposed_copies", "exposed_communication")


@fact(
    "comm.device_busy_share",
    "ratio",
    "Share of the average step (0..1) in which the device works: the step ledger's device "
    "compute, exposed copies and exposed communication. Near 1 the step is device-bound, so "
    "each microsecond of exposed communication is a microsecond of step; far below, the "
    "device waits on the host anyway and hiding communication would not shorten the step.",
    "a step ledger (an event trace with steps)",
)
def device_busy_share(ctx: Context) -> float:
    comm_section(ctx)
    ledger = (ctx.report.get("ledger") or {}).get("average_us") or {}
    total = sum(float(v or 0.0) for v in ledger.values())
    if total <= 0:
        raise Unavailable("needs the step ledger (an event trace with steps)")
    return sum(float(ledger.get(p) or 0.0) for p in _DEVICE_PARTS) / total


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
    "comm.rank",
    "number",
    "This worker's rank as the cluster facts number it (its communication or distributed "
    "rank, else its position in the run): compare with cluster.slowest_rank.",
    "2+ ranks of the same run",
)
def own_rank(ctx: Context) -> int:
    cluster_facts_summary(ctx)  # one worker: unavailable, like every cluster figure
    return _own_rank(ctx)


@fact(
    "comm.wait_us",
    "us",
    "Time per step this rank's collectives wait for the slowest peer, microseconds: per "
    "matched call (k-th call of a type on every rank) its duration minus the shortest "
    "duration of that call on any rank, summed; evidence: every rank's wait.",
    "2+ ranks with the same collectives",
)
def wait_us(ctx: Context) -> Observed:
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
    "comm.transfer_us",
    "us",
    "Time per step this rank's collective calls would take if no rank waited, microseconds: "
    "per matched call (k-th call of a type on every rank) the shortest duration on any rank, "
    "summed; this rank's own call time when it is the only profiled rank.",
    "collectives (2+ ranks for the matched figure)",
)
def transfer_us(ctx: Context) -> float:
    section = comm_section(ctx)
    steps = max(len(section.get("steps") or []), 1)
    own = sum(float(c.get("total_us") or 0.0) for c in section.get("collectives") or [])
    wait = ctx.value("comm.wait_us")
    if wait is None:
        return own / steps
    return max(own / steps - float(wait), 0.0)


@fact(
    "comm.wait_share",
    "ratio",
    "comm.wait_us divided by this rank's mean step time (0..1).",
    "2+ ranks with the same collectives",
)
def wait_share(ctx: Context) -> float | None:
    wait, average = ctx.value("comm.wait_us"), ctx.value("step.average_us")
    return None if wait is None or not average else wait / average
