"""Data pipeline section: is the input pipeline keeping the accelerator fed?

One result shape for both frameworks, so the report and the advisor ask one question:
- MindSpore: MindData's own queue and pipeline profiling, judged by MindInsight's rules
  (`analysis.minddata_rules`).
- PyTorch: the time each step waits in `DataLoader.__next__` (from the trace), and, when the
  DataLoader probe ran (`collect.loader_probe`), its queue depth at every fetch and the
  loader settings (workers, prefetch). An empty queue at > 30 % of fetches is the same
  verdict as MindData's host queue; without the probe, a step spending more than 5 % of its
  time waiting for data (the PyTorch profiler plugin's threshold) is data-bound.
The data-wait share is the *exposed* wait, the DataLoader time not hidden behind device
work (the step breakdown's DataLoader category, which the plugin reports); `loader_share`
is the raw `__next__` time over the step time, an upper bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.data_pipeline import minddata_rules as md
from mindinsight_profiler.analysis.data_pipeline.cpu_steps import cpu_curves
from mindinsight_profiler.analysis.data_pipeline.wait import loader_wait_per_step
from mindinsight_profiler.analysis.steps.boundaries import Steps, find_steps
from mindinsight_profiler.analysis.steps.breakdown import CATEGORIES, Breakdown, step_breakdown
from mindinsight_profiler.analysis.steps.covered import steps_covered
from mindinsight_profiler.model.trace import Trace

#: The PyTorch profiler plugin recommends more DataLoader workers above this share.
DATA_WAIT_SHARE_WARN = 0.05
_MINDDATA_TABLES = ("minddata_ops", "data_queue_size", "getnext", "minddata_cpu")


def data_pipeline_section(
    trace: Trace,
    probe: dict[str, Any] | None = None,
    known: tuple[Steps, Breakdown] | None = None,
) -> dict[str, Any] | None:
    """Data wait, queues, workers, pipeline ops and a verdict; None when there is nothing.

    `known`: the steps and breakdown when the caller has them (saves recomputing them).
    """
    if any(k in trace.tables for k in _MINDDATA_TABLES):
        return _mindspore(trace)
    if str(trace.meta.get("format", "")).startswith("mindspore"):
        return None  # MindSpore without MindData profiling files: nothing is known of its data
    data_wait = _data_wait(trace, known)
    if data_wait is None and probe is None:
        return None
    queues, workers, probe_wait = _probe(probe) if probe is not None else ([], None, None)
    if data_wait is not None and probe_wait is not None:
        data_wait["probe_average_us"] = probe_wait
    return _section(
        "pytorch", data_wait, queues, workers, None, None, None, _torch_verdict(data_wait, queues)
    )


def _section(
    framework: str,
    data_wait: dict[str, Any] | None,
    queues: list[dict[str, Any]],
    workers: dict[str, Any] | None,
    ops: list[dict[str, Any]] | None,
    pipeline: dict[str, Any] | None,
    cpu: dict[str, Any] | None,
    verdict: dict[str, Any] | None,
) -> dict[str, Any]:
    """The shared shape: absent parts are None (or empty lists), never missing keys."""
    return {
        "framework": framework,
        "data_wait": data_wait,
        "queues": queues,
        "workers": workers,
        "ops": ops,
        "pipeline_verdict": pipeline,
        "cpu": cpu,
        "verdict": verdict,
    }


def _mindspore(trace: Trace) -> dict[str, Any]:
    queues = md.minddata_queues(trace)
    found = md.pipeline_ops(trace, md.queues_fed(queues))
    ops, pipeline = found if found is not None else (None, None)
    workers = None
    if ops:
        by_op = {str(o["op_id"]): o["num_workers"] for o in ops}
        total = sum(max(n, 0) for n in by_op.values())
        workers = _workers(total, None, None, by_op, None)
    cpu = md.cpu_use(trace)
    if cpu is not None:
        cpu["curves"] = cpu_curves(trace)
    return _section(
        "mindspore",
        _getnext_wait(trace),
        queues,
        workers,
        ops,
        pipeline,
        cpu,
        md.queue_verdict(queues),
    )


def _getnext_wait(trace: Trace) -> dict[str, Any] | None:
    """MindSpore's data wait: the device's GetNext dequeue waits, one per step."""
    g = trace.tables.get("getnext")
    if g is None or len(g["start_ns"]) == 0:
        return None
    wait = g["end_ns"] - g["start_ns"]
    steps = trace.tables.get("step_trace")
    share = None
    if steps is not None and len(steps["step"]) == len(wait):
        total = float((steps["end_ns"] - steps["start_ns"]).sum())
        share = float(wait.sum()) / total if total else None
    return {
        "steps": [str(k + 1) for k in range(len(wait))],
        "per_step_us": (wait / 1e3).tolist(),
        "exposed_per_step_us": None,
        "average_us": float(wait.mean()) / 1e3,
        "covered": _all_steps([str(k + 1) for k in range(len(wait))]),
        "share": share,
        "loader_share": None,
    }


def _all_steps(names: list[str]) -> dict[str, Any]:
    """The data wait averages every step it has: the first step's wait (the loader's first
    batch, MindData's queue filling) is data loading the user waits for, not compilation."""
    return steps_covered(names, names)


def _workers(
    num: int | None,
    prefetch: int | None,
    capacity: int | None,
    by_op: dict[str, int] | None,
    config: dict[str, Any] | None,
) -> dict[str, Any]:
    """Worker settings: PyTorch's loader (config) or MindData's per-op workers (by_op)."""
    return {
        "num_workers": num,
        "prefetch": prefetch,
        "queue_capacity": capacity,
        "by_op": by_op,
        "config": config,
    }


def _data_wait(trace: Trace, known: tuple[Steps, Breakdown] | None = None) -> dict[str, Any] | None:
    """Per-step DataLoader wait and its share of the step (exposed and raw).

    `known`: steps and breakdown the caller has computed already (they are not cheap).
    """
    steps = known[0] if known else find_steps(trace)
    if not steps.from_profiler_steps or len(steps) == 0:
        return None
    wait = loader_wait_per_step(trace, steps)
    breakdown = known[1] if known else step_breakdown(trace, steps)
    exposed = breakdown.per_step_ns[:, CATEGORIES.index("dataloader")]
    total = float(steps.duration_ns.sum())
    return {
        "steps": list(steps.names),
        "per_step_us": (wait / 1e3).tolist(),
        "exposed_per_step_us": (exposed / 1e3).tolist(),
        "average_us": float(wait.mean()) / 1e3,
        "covered": _all_steps(list(steps.names)),
        "share": float(exposed.sum()) / total if total else 0.0,
        "loader_share": float(wait.sum()) / total if total else 0.0,
    }


def training_loader(probe: dict[str, Any]) -> dict[str, Any]:
    """The probed loader the section describes. The Profiler writes every wrapped loader
    (`{"loaders": [...]}`: training, validation...); the training loop's is the one fetched
    most often. A single loader's record (`config`, `rows`) is taken as it is."""
    loaders = probe.get("loaders")
    if not isinstance(loaders, list):
        return probe
    found = [x for x in loaders if isinstance(x, dict)]
    return max(found, key=lambda x: len(x.get("rows") or []), default={})


def _probe(probe: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any], float | None]:
    """Loader queue depth at each fetch, the loader settings, and the mean wait per step."""
    probe = training_loader(probe)
    config = dict(probe.get("config") or {})
    cols = list(probe.get("columns") or ["step", "wait_ns", "ready_batches"])
    rows = np.array(probe.get("rows") or [], dtype=np.int64).reshape(-1, len(cols))
    step, wait, ready = (rows[:, cols.index(c)] for c in ("step", "wait_ns", "ready_batches"))
    workers, prefetch = config.get("num_workers"), config.get("prefetch_factor")
    capacity = workers * prefetch if workers and prefetch else None
    known = ready[ready >= 0]
    queues = []
    if len(known):
        cap = None if capacity is None else np.full(len(known), capacity)
        q = md.queue_stats(known, cap, "loader_queue")
        if capacity is not None:  # a multi-process loader never holds more than this
            q["full"] = int(np.count_nonzero(known >= capacity))
            q["full_rate"] = q["full"] / len(known)
        queues.append(q)
    mean_wait = None
    if len(step):
        _, inv = np.unique(step, return_inverse=True)
        mean_wait = float(np.bincount(inv, weights=wait).mean()) / 1e3
    return queues, _workers(workers, prefetch, capacity, None, config), mean_wait


def _torch_verdict(
    data_wait: dict[str, Any] | None, queues: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """Queue rule when the probe saw the queue, else the data-wait share (module doc)."""
    loader = next((q for q in queues if q["name"] == "loader_queue"), None)
    if loader is not None and loader["samples"]:
        if loader["empty"] > loader["samples"] * md.EMPTY_STEP_THRESHOLD:
            return md.verdict(
                "data_processing",
                "loader queue empty in > 30 % of fetches",
                "加载队列在超过 30 % 的取数中为空",
            )
        return md.verdict("none", "loader queue not starved", "加载队列未被取空")
    if data_wait is None:
        return None
    if data_wait["share"] > DATA_WAIT_SHARE_WARN:
        return md.verdict(
            "data_processing", "data wait > 5 % of step time", "数据等待 > 迭代时间的 5 %"
        )
    return md.verdict("none", "data wait <= 5 % of step time", "数据等待 ≤ 迭代时间的 5 %")
