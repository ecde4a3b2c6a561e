"""Views of a run with many ranks: which ranks are outliers, and the communication matrix.

Both read per-rank summaries (or full reports: the same keys), never events, so their cost
and the size of their answers grow with the number of ranks only, and a dashboard of a
1,000-rank job draws 1,000 rows, not a trace.

Outliers use the median and the median absolute deviation rather than mean and standard
deviation: one straggler among eight ranks moves the mean and inflates the deviation enough
to hide itself, while the median does not move (Iglewicz and Hoaglin's modified z-score,
|z| > 3.5). A rank is also required to differ from the median by more than `min_rel`,
so that ranks equal to the microsecond (MAD = 0) do not flag a 0.1 % difference.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.cluster.stages import worker_stages
from mindinsight_profiler.analysis.cluster.summary import cluster_summary

#: Modified z-score above which a rank is an outlier (Iglewicz & Hoaglin).
Z_LIMIT = 3.5
#: ... and by at least this share of the median.
MIN_REL = 0.05
_MAD_SCALE = 1.4826  # MAD of a normal distribution -> its standard deviation


def outlier_ranks(
    rows: list[dict[str, Any]], keys: list[str], z_limit: float = Z_LIMIT, min_rel: float = MIN_REL
) -> list[dict[str, Any]]:
    """Ranks whose value of a key is far from the others' (see module doc), worst first.

    `rows` have `rank` and the `keys` (numbers or None); keys with fewer than three ranks
    valued are skipped (two ranks cannot tell which one is odd).
    """
    out = []
    for key in keys:
        valued = [(r["rank"], float(r[key])) for r in rows if r.get(key) is not None]
        if len(valued) < 3:
            continue
        values = np.array([v for _, v in valued])
        median = float(np.median(values))
        mad = float(np.median(np.abs(values - median))) * _MAD_SCALE
        for rank, value in valued:
            gap = value - median
            if abs(gap) <= min_rel * abs(median) or gap == 0:
                continue
            z = gap / mad if mad > 0 else None  # None: every other rank equals the median
            if z is None or abs(z) > z_limit:
                pct = 100.0 * gap / median if median else None
                zr = None if z is None else round(z, 2)
                out.append({"rank": rank, "key": key, "value": value, "median": median,
                            "z": zr, "over_median_pct": pct})  # fmt: skip
    return sorted(out, key=lambda o: -abs(o["over_median_pct"] or 0.0))


def comm_matrix(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Link bandwidth between devices, merged over the ranks that report each link.

    Each rank's communication section lists the links it measured (Ascend
    `communication_matrix.json`, MindSpore `hccl_raw`): `src`, `dst`, `transport`,
    `bandwidth` and its `unit`. A link reported by several ranks gets their mean. The answer
    is sparse (one cell per link that exists), per transport.
    """
    cells: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    reporters: dict[tuple[str, int, int], set[int]] = defaultdict(set)
    units: dict[str, str | None] = {}
    for position, report in enumerate(reports):
        section = report.get("communication") or {}
        rank = section.get("rank")
        rank = rank if isinstance(rank, int) else position
        for link in section.get("links") or []:
            if link.get("bandwidth") is None or link.get("src") is None or link.get("dst") is None:
                continue
            key = (str(link.get("transport") or "?"), int(link["src"]), int(link["dst"]))
            cells[key].append(float(link["bandwidth"]))
            reporters[key].add(rank)
            units.setdefault(key[0], link.get("unit"))
    transports = sorted({k[0] for k in cells})
    out = []
    for transport in transports:
        keys = sorted(k for k in cells if k[0] == transport)
        out.append({
            "transport": transport,
            "unit": units.get(transport),
            "src": [k[1] for k in keys],
            "dst": [k[2] for k in keys],
            "bandwidth": [float(np.mean(cells[k])) for k in keys],
            "reported_by": [sorted(reporters[k]) for k in keys],
        })  # fmt: skip
    devices = sorted({d for k in cells for d in k[1:]})
    return {"devices": devices, "transports": out}


#: What is compared across ranks (us): the communication split of `cluster_summary`'s rows,
#: and the step-trace stages of `worker_stages`' rows.
COMM_KEYS = ("step_us", "computation_us", "exposed_communication_us", "communication_us",
             "tool_wait_us")  # fmt: skip
STAGE_KEYS = ("total_us", "iteration_interval_us", "fp_and_bp_us", "tail_us")


def cluster_outliers(
    ranks: list[dict[str, Any]], stages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Outliers of both views of the ranks, the largest departure from the median first."""
    found = outlier_ranks(ranks, list(COMM_KEYS)) + outlier_ranks(stages, list(STAGE_KEYS))
    return sorted(found, key=lambda o: -abs(o["over_median_pct"] or 0.0))


def cluster_view(run: str, workers: list[str], ranks: list[dict[str, Any]]) -> dict[str, Any]:
    """The cluster answer over each rank's `rank_summary` (full reports give the same): the
    API's `/cluster` and `mindinsight cluster --format json` are this."""
    summary = cluster_summary(ranks)
    stages = worker_stages(ranks)
    return {
        "run": run,
        "workers": workers,
        **summary,
        "stages": stages,
        "outliers": cluster_outliers(summary["ranks"], stages),
        "comm_matrix": comm_matrix(ranks),
    }


def cluster_answer(
    name: str, summaries: list[dict[str, Any]], failed: list[dict[str, str]]
) -> dict[str, Any]:
    """`cluster_view` over the ranks' summaries, with the summaries and the failed ranks:
    `mindinsight cluster --format json` and the Python API's `Cluster.view`."""
    workers = [s["worker"] for s in summaries]
    return {**cluster_view(name, workers, summaries), "summaries": summaries, "failed": failed}


def collective_rows(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The view's collectives with each one's longest wait (`max_waiting_us`, None when no
    rank waited) in place of the wait of every matched call."""
    return [
        {**{k: v for k, v in c.items() if k != "waiting_us"},
         "max_waiting_us": max(c["waiting_us"]) if c["waiting_us"] else None}
        for c in view["collectives"]
    ]  # fmt: skip
