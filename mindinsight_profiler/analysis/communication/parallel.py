"""The `parallel` report section: what MindSpore wrote about the rank's place in a parallel
job, for the cluster comparison of every rank (MindInsight's cluster page and proposer).

- `flops`: the rank's `flops_summary` (FLOPs in millions, FLOPS in billions per second).
- `mode`, `stage_num`, `rank_size`, `stage` and `average_ms`/`steps`: the rank's
  `ascend_cluster_analyse_*` file (ms); `stage` counts from 1, ranks split evenly over the
  stages in order (MindInsight's convention).
- `iteration_interval_us`: the step trace's own average row (what MindInsight compares
  between ranks), else the average of the step rows without the first step.

None when the input has none of these (every format but MindSpore's legacy profiler).
"""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.model.trace import Trace


def parallel_section(trace: Trace, step_trace: dict[str, Any] | None) -> dict[str, Any] | None:
    flops = trace.meta.get("flops_summary")
    analyse = trace.meta.get("cluster_analyse")
    if flops is None and analyse is None:
        return None
    section: dict[str, Any] = {"flops": flops}
    if analyse is not None:
        per_stage = analyse["rank_size"] // analyse["stage_num"]
        section.update(
            {
                "file": analyse["file"],
                "mode": analyse["mode"],
                "stage_num": analyse["stage_num"],
                "rank_size": analyse["rank_size"],
                "rank": analyse["rank"],
                "stage": analyse["rank"] // per_stage + 1,
                "steps": len(next(iter(analyse["steps_ms"].values()), [])),
                "average_ms": analyse["average_ms"],
            }
        )
    written = trace.meta.get("step_trace_profiler_average_ns") or {}
    interval = None
    if "iteration_interval" in written:
        interval = written["iteration_interval"] / 1000.0
    elif step_trace and step_trace.get("average"):
        interval = step_trace["average"].get("iteration_interval_us")
    section["iteration_interval_us"] = interval
    return section
