"""The small part of one worker's report that the cluster views need.

A run of hundreds of ranks cannot gather every full report into one process: a report
carries operator and kernel tables, memory curves and per-step breakdowns that grow with
the trace. Cluster views (per-rank step stages, the slowest rank, collective waiting,
links) read only the keys kept here, so each rank is analysed where it is scheduled and
only this travels back (see `mindinsight_profiler.pipeline.scale`). Its size depends on the number
of steps and collective calls, never on the number of events.

`cluster_summary` (analysis/cluster/summary.py), `worker_stages` (analysis/cluster/stages.py) and
the advisor's cluster facts give the same answer from summaries as from full reports.
"""

from __future__ import annotations

import copy
from typing import Any

#: The meaning of a summary: stored summaries (pipeline/summaries.py) are named by it, so a
#: change in what a key holds (with the same keys) must bump it; others are rebuilt.
SUMMARY_VERSION = 1
#: The keys of a summary, in order (other code builds on exactly these).
SUMMARY_KEYS = (
    "worker",
    "span",
    "rank",
    "format",
    "device_type",
    "steps",
    "breakdown_us",
    "step_trace",
    "communication",
    "distributed",
    "parallel",
    "gpu",
)
_GPU_KEYS = ("utilization", "sm_efficiency", "occupancy")
_STEP_TRACE_KEYS = ("fp_point", "bp_point", "average")


def summary_rank(report: dict[str, Any]) -> int | None:
    """The worker's rank as its own files state it (communication, distributed, parallel).

    None when no file names one; cluster code then falls back to the position in the run,
    which only the caller knows.
    """
    for section in ("communication", "distributed", "parallel"):
        rank = (report.get(section) or {}).get("rank")
        if isinstance(rank, int) and not isinstance(rank, bool):
            return rank
    return None


def _steps(report: dict[str, Any]) -> dict[str, Any]:
    steps = report.get("steps") or {}
    return {
        "count": steps.get("count", 0),
        "average_us": steps.get("average_us", 0.0),
        "covered": steps.get("covered"),
        "durations_us": list(steps.get("durations_us") or []),
    }


def _step_trace(report: dict[str, Any]) -> dict[str, Any] | None:
    """FP/BP points and the average row; the per-step list is left behind."""
    section = report.get("step_trace")
    if not section:
        return None
    return {key: section.get(key) for key in _STEP_TRACE_KEYS}


def _gpu(report: dict[str, Any]) -> dict[str, Any] | None:
    """The device means only; the per-device list (names, memory sizes) stays in the report."""
    gpu = report.get("gpu")
    if not gpu:
        return None
    return {key: gpu.get(key) for key in _GPU_KEYS}


def rank_summary(report: dict[str, Any]) -> dict[str, Any]:
    """The cluster views' part of a worker's report (`worker`/`span` as the caller added them).

    A deep copy: summaries are sent across processes and combined, and must never alias a
    cached report that a server process shares between requests.
    """
    summary = {
        "worker": report.get("worker"),
        "span": report.get("span"),
        "rank": summary_rank(report),
        "format": report.get("format"),
        "device_type": report.get("device_type"),
        "steps": _steps(report),
        "breakdown_us": report.get("breakdown_us"),
        "step_trace": _step_trace(report),
        "communication": report.get("communication"),
        "distributed": report.get("distributed"),
        "parallel": report.get("parallel"),
        "gpu": _gpu(report),
    }
    return copy.deepcopy(summary)
