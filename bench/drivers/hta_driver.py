"""Anchor: Holistic Trace Analysis loading one trace and running ten of its analyses.

HTA reads a directory of per-rank traces, so the trace is linked into a fresh temporary
directory. The old (2021) samples carry no ``distributedInfo``; HTA then scans the file for
a rank, warns, and uses rank 0, which is what a user pointing HTA at such a trace gets.
Each analysis runs with plots off and is timed on its own; one that fails is recorded and
the rest still run, so a single incompatibility does not hide the cost of the others.
Prints one JSON line. Runs inside the anchor's virtual environment.

Usage: ``<venv>/bin/python hta_driver.py TRACE``
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from hta.trace_analysis import TraceAnalysis

# A CPU operator of the ResNet-50 samples that launches kernel sequences.
SEQUENCE_OPERATOR = "aten::conv2d"


def analyses(ta: TraceAnalysis, out_dir: str) -> dict[str, Callable[[], Any]]:
    """The ten analyses, named as in HTA's documentation."""
    return {
        "temporal_breakdown": lambda: ta.get_temporal_breakdown(visualize=False),
        "idle_time_breakdown": lambda: ta.get_idle_time_breakdown(visualize=False),
        "gpu_kernel_breakdown": lambda: ta.get_gpu_kernel_breakdown(visualize=False),
        "comm_comp_overlap": lambda: ta.get_comm_comp_overlap(visualize=False),
        "cuda_kernel_launch_stats": lambda: ta.get_cuda_kernel_launch_stats(visualize=False),
        "queue_length_summary": lambda: ta.get_queue_length_summary(),
        "time_blocked_on_full_queue": lambda: ta.get_time_spent_blocked_on_full_queue(
            ta.get_queue_length_time_series()
        ),
        "memory_bw_summary": lambda: ta.get_memory_bw_summary(),
        "memory_bw_time_series": lambda: ta.get_memory_bw_time_series(),
        "frequent_cuda_kernel_sequences": lambda: ta.get_frequent_cuda_kernel_sequences(
            operator_name=SEQUENCE_OPERATOR, output_dir=out_dir
        ),
    }


def result_size(result: Any) -> int | None:
    """Rows (or entries) in an analysis result: a cheap sign that it produced something."""
    if result is None:
        return None
    if isinstance(result, tuple):
        return sum(result_size(part) or 0 for part in result)
    if isinstance(result, dict):
        return sum(result_size(part) or 0 for part in result.values())
    try:
        return len(result)
    except TypeError:
        return None


def main(path: str) -> int:
    timings: dict[str, float] = {}
    outcome: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hta-") as tmp:
        trace_dir = os.path.join(tmp, "traces")
        os.mkdir(trace_dir)
        os.symlink(os.path.abspath(path), os.path.join(trace_dir, os.path.basename(path)))
        started = time.perf_counter()
        ta = TraceAnalysis(trace_dir=trace_dir)
        timings["load"] = round(time.perf_counter() - started, 3)
        for name, run in analyses(ta, tmp).items():
            started = time.perf_counter()
            try:
                outcome[name] = result_size(run())
            except Exception as exc:  # one broken analysis must not hide the others' cost
                outcome[name] = f"error: {type(exc).__name__}: {exc}"[:300]
            timings[name] = round(time.perf_counter() - started, 3)
    failed = sorted(k for k, v in outcome.items() if isinstance(v, str))
    print(json.dumps({"timings_s": timings, "rows": outcome, "failed": failed}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
