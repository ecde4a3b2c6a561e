"""Facts: the ranks of one run compared with each other (slow rank, waiting, slow links).

They read `ctx.run_reports`, every worker's `rank_summary` of the run
(analysis/cluster/rank_summary.py: a cluster fact may read only the summary's keys). One
worker cannot be compared with anything, so with fewer than two ranks every cluster fact is
unavailable ("needs 2+ ranks"), never 0. A rank is the report's communication rank, else
its distributed rank, else its position in the run (the same choice
`analysis/cluster/summary.py` makes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.cluster.summary import cluster_summary


def rank_of(report: dict[str, Any], position: int) -> int:
    for section in (report.get("communication"), report.get("distributed")):
        rank = (section or {}).get("rank")
        if isinstance(rank, int):
            return rank
    return position


#: The ranks of one synchronous job share their step time (every step ends in a collective);
#: average steps further apart than this are not one job's ranks, or not the same steps.
MAX_STEP_RATIO = 2.0


def _reports(ctx: Context) -> list[tuple[int, dict[str, Any]]]:
    reports = ctx.run_reports
    if len(reports) < 2:
        raise Unavailable("needs 2+ ranks of the same run (this run has one worker)")
    steps = [float((r.get("steps") or {}).get("average_us") or 0.0) for r in reports]
    timed = [s for s in steps if s > 0]
    if len(timed) >= 2 and max(timed) > MAX_STEP_RATIO * min(timed):
        raise Unavailable(
            f"the workers' average steps differ {max(timed) / min(timed):.1f}x "
            f"({min(timed) / 1000:,.1f} to {max(timed) / 1000:,.1f} ms): not the ranks of one "
            "synchronous job over the same steps (unrelated runs in one folder?)"
        )
    return sorted(((rank_of(r, i), r) for i, r in enumerate(reports)), key=lambda x: x[0])


def cluster_reports(ctx: Context) -> list[tuple[int, dict[str, Any]]]:
    """(rank, report) of every worker of the run, by rank; Unavailable with fewer than 2."""
    return _reports(ctx)


def cluster_facts_summary(
    ctx: Context,
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    """`cluster_summary` over the run's reports (computed once), and the (rank, report)s."""
    ranks = _reports(ctx)
    if "cluster_summary" not in ctx.memo:
        ctx.memo["cluster_summary"] = cluster_summary([r for _, r in ranks])
    return ctx.memo["cluster_summary"], ranks


def _rank_items(values: dict[int, float], key: str, page: str) -> tuple[Evidence, ...]:
    """One `rank` evidence item per rank, largest value first, labelled by `key`."""
    ordered = sorted(values.items(), key=lambda kv: -kv[1])
    return tuple(
        Evidence(kind="rank", **label(key, rank=r), page=page, value=v, unit="us", rank=r)
        for r, v in ordered
    )


def _step_times(ctx: Context) -> dict[int, float]:
    out = {}
    for rank, report in _reports(ctx):
        steps = report.get("steps") or {}
        if steps.get("count"):
            out[rank] = float(steps["average_us"])
    if len(out) < 2:
        raise Unavailable("needs steps on 2+ ranks")
    return out


def _lead(ctx: Context) -> tuple[float, float, int]:
    """(lead in us, the others' reference in us, rank) of the slowest rank, over the steps
    every rank has: its own time (step minus communication, which holds the waiting) above
    the others' mean own time where communication is known; else its step above theirs."""
    summary, _ = cluster_facts_summary(ctx)
    slowest = summary.get("slowest")
    if not slowest:
        raise Unavailable("needs steps on 2+ ranks")
    if slowest.get("own_us") is not None and slowest.get("others_own_us"):
        ref = float(slowest["others_own_us"])
        lead = float(slowest["own_us"]) - ref
        if lead <= 0:  # the longest step waited for the others: find who it waited for
            return _straggler(summary) or (lead, ref, int(slowest["rank"]))
        return lead, ref, int(slowest["rank"])
    ref = float(slowest["step_us"]) - float(slowest["over_others_us"])
    return float(slowest["over_others_us"]), ref, int(slowest["rank"])


def _straggler(summary: dict[str, Any]) -> tuple[float, float, int] | None:
    """(lead, the others' mean own time, rank) of the rank with the most own time per step
    (its mean step minus its communication), or None unless every rank has both figures.
    The rank with the longest step can be one that arrived first and waited for the others
    (its waiting is communication time): the rank it waited for has the most own time."""
    rows = summary.get("ranks") or []
    own = {
        int(r["rank"]): float(r["step_us"]) - float(r["communication_us"])
        for r in rows
        if r.get("step_us") is not None and r.get("communication_us") is not None
    }
    if len(own) < 2 or len(own) != len(rows):
        return None
    rank = max(own, key=lambda r: own[r])
    ref = float(np.mean([v for r, v in own.items() if r != rank]))
    return own[rank] - ref, ref, rank


@fact(
    "cluster.step_excess",
    "ratio",
    "How far the slowest rank's own time per step (its step minus its communication, which "
    "includes waiting for the others) lies above the other ranks' mean own time, over the "
    "steps all ranks have, as a share of the latter (the whole step when communication is "
    "unknown). A rank whose longer step is all waiting has no lead: it arrived early. "
    "MindInsight's step-interval check compares the iteration interval only "
    "(cluster.interval_excess); evidence: every rank's mean step.",
    "2+ ranks of the same run",
)
def step_excess(ctx: Context) -> Observed:
    lead, ref, _ = _lead(ctx)
    evidence = _rank_items(_step_times(ctx), "rank_mean_step", "cluster")
    return Observed(lead / ref if ref > 0 else 0.0, evidence)


@fact(
    "cluster.step_excess_us",
    "us",
    "The slowest rank's lead of cluster.step_excess, microseconds per step: what every rank "
    "waits for it each step.",
    "2+ ranks of the same run",
)
def step_excess_us(ctx: Context) -> float:
    return max(_lead(ctx)[0], 0.0)


@fact(
    "cluster.slowest_rank",
    "number",
    "The rank the others wait for: the one with the longest mean step, unless that step is "
    "longer only by waiting (its own time, outside communication, is not above the others'): "
    "then the rank with the most own time per step.",
    "2+ ranks",
)
def slowest_rank(ctx: Context) -> int:
    return _lead(ctx)[2]


def _compute_times(ctx: Context) -> dict[int, float]:
    """Per rank: mean time per step any compute kernel runs (alone or under communication)."""
    out = {}
    for rank, report in _reports(ctx):
        average = (report.get("communication") or {}).get("average") or {}
        alone, overlapped = average.get("computation_us"), average.get("overlapped_us")
        if alone is None or overlapped is None:
            raise Unavailable(f"rank {rank} has no kernel timeline to measure compute time")
        out[rank] = float(alone) + float(overlapped)
    return out


@fact(
    "cluster.compute_spread",
    "ratio",
    "(max - min) / mean over ranks of the per-step device compute time (kernels that are not "
    "communication), the msprof-analyze slow-rank measure for the compute dimension; "
    "evidence: every rank's compute time.",
    "2+ ranks with collective kernels on a device timeline",
)
def compute_spread(ctx: Context) -> Observed:
    times = _compute_times(ctx)
    values = np.array(list(times.values()))
    spread = float((values.max() - values.min()) / values.mean()) if values.mean() > 0 else 0.0
    return Observed(spread, _rank_items(times, "rank_compute", "cluster"))


@fact(
    "cluster.compute_excess_us",
    "us",
    "Largest per-step compute time of a rank minus the mean over ranks, microseconds: what the "
    "others wait for that rank each step.",
    "2+ ranks with collective kernels on a device timeline",
)
def compute_excess_us(ctx: Context) -> float:
    values = list(_compute_times(ctx).values())
    return max(values) - float(np.mean(values))


#: Transfers smaller than this (MB) are latency-bound on the transport (msprof-analyze's
#: small-packet sizes: SDMA 16 MB, RDMA 1 MB): their bandwidth measures message size and
#: per-call latency, not the link.
SMALL_TRANSFER_MB = {"RDMA": 1.0}
SMALL_TRANSFER_MB_DEFAULT = 16.0


def _latency_bound(link: dict[str, Any]) -> bool:
    mb = link.get("mean_transfer_mb")
    limit = SMALL_TRANSFER_MB.get(str(link.get("transport")), SMALL_TRANSFER_MB_DEFAULT)
    return mb is not None and mb < limit


def _links(ctx: Context) -> list[dict[str, Any]]:
    """Every rank's links to another device (self links are local copies), with the rank;
    links whose transfers are latency-bound are left out (their bandwidth is not the link's)."""
    links: list[dict[str, Any]] = []
    small: list[dict[str, Any]] = []
    for rank, report in _reports(ctx):
        for link in (report.get("communication") or {}).get("links") or []:
            if link.get("src") is None or link["src"] != link.get("dst"):
                (small if _latency_bound(link) else links).append(dict(link, rank=rank))
    if not links and small:
        largest = max(x["mean_transfer_mb"] for x in small)
        raise Unavailable(
            f"every link's transfers average {largest:.2f} MB or less per call: latency-bound "
            f"(SDMA under {SMALL_TRANSFER_MB_DEFAULT:.0f} MB, RDMA under 1 MB), so their "
            "bandwidth measures message size, not the link"
        )
    if not links:
        raise Unavailable("needs per-link bandwidth (Ascend communication_matrix, hccl_raw)")
    return links


def _link_gaps(ctx: Context) -> list[tuple[float, dict[str, Any]]]:
    """(share below the mean bandwidth of the link's transport, link) for every link."""
    links = _links(ctx)
    means: dict[str, float] = {}
    for kind in {link["transport"] for link in links}:
        means[kind] = float(np.mean([x["bandwidth"] for x in links if x["transport"] == kind]))
    return sorted(
        ((1.0 - x["bandwidth"] / means[x["transport"]] if means[x["transport"]] > 0 else 0.0, x)
         for x in links),
        key=lambda gx: -gx[0],
    )  # fmt: skip


@fact(
    "cluster.link_gap",
    "ratio",
    "How far the slowest link's bandwidth lies below the mean bandwidth of its transport type "
    "(HCCS, SDMA, RDMA, ...) over every link of every rank, as a share of that mean "
    "(MindInsight's cluster link check), leaving out links whose transfers average under the "
    "small-packet size (SDMA 16 MB, RDMA 1 MB: latency-bound); evidence: the links, slowest "
    "first.",
    "2+ ranks with per-link bandwidth (Ascend communication_matrix, MindSpore hccl_raw)",
)
def link_gap(ctx: Context) -> Observed:
    gaps = _link_gaps(ctx)
    evidence = tuple(
        Evidence(
            kind="metric",
            **label("link_gap", rank=x["rank"], link=x["link"], transport=x["transport"], gap=gap),
            page="communication",
            value=x["bandwidth"],
            unit=x.get("unit") or "tool units",
            name=f"{x['link']} {x['transport']}",
            rank=x["rank"],
        )
        for gap, x in gaps
        if gap > 0
    )
    return Observed(gaps[0][0], evidence)


@fact("cluster.links", "count", "Number of device-to-device links compared.", "per-link data")
def link_count(ctx: Context) -> int:
    return len(_links(ctx))
