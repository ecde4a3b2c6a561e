"""Facts: one worker's communication (collectives and how much of them compute hides).

They read the report's `communication` section (analysis/communication/section.py): per step the
time only communication runs (exposed), both run (overlapped), only compute runs, and the
rest. MindSpore's legacy `hccl_raw` export has no kernel timeline, so it cannot tell what
overlaps: there the exposed figures are the step trace's collective stages after the BP
point (comm_step_trace), and unavailable without a step trace rather than guessed.
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.facts.cluster import cluster_facts_summary, rank_of
from mindinsight_profiler.advisor.facts.comm_split import hccl_waiting_us
from mindinsight_profiler.advisor.facts.comm_step_trace import (
    reduce_after_backward,
    step_trace_ledger,
)
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
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
    """(mean exposed us, mean step us, exposed us per step) of the communication section, or
    of MindSpore's step-trace reduce stages when the section cannot split the step."""
    section = ctx.report.get("communication") or {}
    average = section.get("average") or {}
    exposed, step = average.get("exposed_communication_us"), average.get("step_us")
    if exposed is not None and step and section.get("steps"):
        per_step = [float(r.get("exposed_communication_us") or 0.0) for r in section["steps"]]
        return float(exposed), float(step), per_step
    reduce = reduce_after_backward(ctx) or step_trace_ledger(ctx)
    if reduce is not None:
        return reduce
    comm_section(ctx)  # Unavailable: no collectives at all
    raise Unavailable(
        "needs a kernel timeline to tell overlapped from exposed communication "
        f"(this input's communication comes from {section.get('source')})"
    )


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
    "Average exposed (not overlapped) communication per step, microseconds (on a MindSpore "
    "step trace without a timeline: its collective stages after the BP point, as the step "
    "ledger books them).",
    "collective kernels on a device timeline, or a MindSpore step trace with collectives",
)
def exposed_us(ctx: Context) -> float:
    return _exposed(ctx)[0]


@fact(
    "comm.exposed_transfer_us",
    "us",
    "Exposed communication per step that is not waiting for a later rank, microseconds (a "
    "rank that arrives first holds its collective while it waits, and that time is exposed "
    "too, but overlapping cannot hide it: only the late rank can). Where the profiler splits "
    "HCCL time (communication.json, analysis.db, Notify Wait tasks) comm.exposed_us scaled "
    "by 1 - comm.waiting_ratio; else comm.exposed_us minus comm.wait_us (ranks compared), "
    "never below 0; comm.exposed_us itself when the wait cannot be measured.",
    "collective kernels (or host collectives) on a timeline",
)
def exposed_transfer_us(ctx: Context) -> float:
    exposed = _exposed(ctx)[0]
    ratio = ctx.value("comm.waiting_ratio")
    if ratio is not None:
        return exposed * (1.0 - float(ratio))
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
    section = ctx.report.get("ledger") or {}
    if section.get("source", "events") != "events":
        # FP..BP counts as compute there, pipeline Receive waits included (the step trace
        # cannot tell them apart): a busy share read from it would call a waiting stage busy
        raise Unavailable("needs an event ledger (a step-trace ledger counts FP..BP as busy)")
    ledger = section.get("average_us") or {}
    total = sum(float(v or 0.0) for v in ledger.values())
    if total <= 0:
        raise Unavailable("needs the step ledger (an event trace with steps)")
    return sum(float(ledger.get(p) or 0.0) for p in _DEVICE_PARTS) / total


#: Device busy share from which a step is device-bound (comm.device_bound).
DEVICE_BOUND = 0.9


@fact(
    "comm.device_bound",
    "bool",
    "True when the step ledger shows the device working at least 90 % of the average step "
    "(comm.device_busy_share): every exposed microsecond of communication is then step "
    "time. False when it works less, and on runs without an event ledger (MindSpore step "
    "trace files only, whose ledger counts all of FP..BP as busy), where exposed "
    "communication is judged by the plain 10 % bar.",
    "any run (False without a step ledger)",
)
def device_bound(ctx: Context) -> bool:
    try:
        return device_busy_share(ctx) >= DEVICE_BOUND
    except Unavailable:
        return False


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
    "Time per step this rank's collectives wait for the slowest peer, microseconds. Where the "
    "profiler splits HCCL time itself (torch_npu communication.json, analysis.db) its Wait + "
    "Idle, else HCCL's Notify Wait tasks (comm.hccl_waiting_us): the late rank may not be "
    "profiled. Else per matched call "
    "(k-th call of a type on every rank) its duration minus the shortest duration of that "
    "call on any rank, summed; evidence: every rank's wait.",
    "2+ ranks with the same collectives, or the profiler's communication split",
)
def wait_us(ctx: Context) -> Observed:
    try:
        return hccl_waiting_us(ctx)
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


step_share(
    "comm.wait_share",
    "comm.wait_us",
    "2+ ranks with the same collectives, or the profiler's communication split",
)
