"""Each worker's average step stages, side by side, for the cluster view.

`cluster_summary` compares ranks by their communication (step split and collectives) and
has nothing for a run without it; MindInsight's cluster page starts from each rank's step
trace instead (step interval, FP+BP, tail) and, for pipeline-parallel MindSpore jobs, the
per-rank computation / communication / stage times of `ascend_cluster_analyse_*.csv`. This
puts both in one row per worker, with the worker's name, so the dashboard can switch to it.
A worker's rank is the one `cluster_summary` uses (communication, distributed info, the
parallel file, else its position), so both lists join on it.
"""

from __future__ import annotations

from typing import Any

STEP_KEYS = ("total", "iteration_interval", "fp_and_bp", "tail")
#: MindSpore's cluster analysis columns (ms) -> our names (us).
PARALLEL_KEYS = {
    "computation_time": "computation_us",
    "communication_alone_time": "communication_alone_us",
    "stage_time": "stage_us",
    "receive_alone_time": "receive_alone_us",
    "collective_communication_alone_time": "collective_communication_alone_us",
}


def worker_rank(report: dict[str, Any], position: int) -> int:
    """The rank `cluster_summary` would give this report (see module doc)."""
    for section in ("communication", "distributed", "parallel"):
        rank = (report.get(section) or {}).get("rank")
        if isinstance(rank, int):
            return rank
    return position


def _row(report: dict[str, Any], position: int) -> dict[str, Any]:
    st = report.get("step_trace") or {}
    steps = report.get("steps") or {}
    avg = st.get("average") or {}
    row: dict[str, Any] = {
        "worker": report.get("worker"),
        "rank": worker_rank(report, position),
        "steps": avg.get("steps"),
        # the worker's mean step as its overview shows it (`steps.average_us`): the rank
        # table's step time, whatever the communication files time
        "step_us": steps.get("average_us") if steps.get("count") else None,
        "step_covered": steps.get("covered") if steps.get("count") else None,
    }
    for key in STEP_KEYS:
        row[f"{key}_us"] = avg.get(f"{key}_us")
    parallel = (report.get("parallel") or {}).get("average_ms") or {}
    for src, dst in PARALLEL_KEYS.items():
        value = parallel.get(src)
        row[dst] = None if value is None else float(value) * 1000.0
    return row


def worker_stages(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per worker: average step-trace stages and MindSpore's parallel times (us)."""
    rows = [_row(r, i) for i, r in enumerate(reports)]
    return sorted(rows, key=lambda r: (r["rank"], str(r["worker"])))
