"""MindData's CPU utilization as curves over the samples, each sample labelled with its step.

MindSpore samples the machine's, the process's and each dataset op's CPU use every
`sampling_interval` ms (`minddata_cpu_utilization_<rank>.json`); MindInsight drew them as
curves against the training steps. It places the samples on steps with the host queue's
log (`device_queue_profiling`, else `dataset_iterator_profiling`): its queue lines carry a
step number and a sampling time on the same clock. A utilization needs two samples, so value
i belongs to time stamp i + 1, and it lies in the last queue step whose time is not after it
(step "0" before the first). This module does the same, so the per-step means are those
MindInsight's step filter would show; the whole-run means stay in `cpu_use`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

#: Series of the curves: the machine's and the process's (op curves stay in the file).
SERIES = {
    "device.user_utilization": "device_user",
    "device.sys_utilization": "device_sys",
    "device.io_utilization": "device_io",
    "device.idle_utilization": "device_idle",
    "process.user_utilization": "process_user",
    "process.sys_utilization": "process_sys",
}
QUEUE_SOURCES = ("device_queue", "dataset_iterator")  # MindInsight's order of preference


def _queue_steps(trace: Trace) -> tuple[np.ndarray, np.ndarray] | None:
    """(step, sampling time) of the preferred host queue log's queue lines, steps renumbered
    from 1 as MindInsight does (profiling may start mid-training)."""
    q = trace.tables.get("data_queue_size")
    if q is None or "ts" not in q or not len(q["step"]):
        return None
    sources = trace.strings.lookup(q["source"])
    for name in QUEUE_SOURCES:
        mine = np.array([s == name for s in sources], dtype=bool)
        if mine.any() and (q["ts"][mine] >= 0).all():
            step = q["step"][mine]
            return step - (int(step[0]) - 1), q["ts"][mine]
    return None


def _sample_steps(stamps: np.ndarray, queue: tuple[np.ndarray, np.ndarray]) -> list[str]:
    """The step of each value (value i at time stamp i + 1)."""
    step, ts = queue
    out = []
    for t in stamps[1:].tolist():
        if t < ts[0]:
            out.append("0")
            continue
        j = int(np.searchsorted(ts, t, side="right")) - 1
        out.append(str(int(step[min(j, len(step) - 1)])))
    return out


def cpu_curves(trace: Trace) -> dict[str, Any] | None:
    """{"sampling_interval_ms", "samples", "series": {name: values}, "sample_steps",
    "per_step": {"steps", "device_pct", "process_pct"}}; None without CPU sampling."""
    t = trace.tables.get("minddata_cpu")
    if t is None or not len(t["series"]):
        return None
    names = trace.strings.lookup(t["series"])
    series: dict[str, list[float]] = {}
    for key, short in SERIES.items():
        rows = np.array([n == key for n in names], dtype=bool)
        if rows.any():
            order = np.argsort(t["sample"][rows], kind="stable")
            series[short] = t["value"][rows][order].tolist()
    if not series:
        return None
    samples = max(len(v) for v in series.values())
    stamps = (trace.tables.get("minddata_cpu_time") or {}).get("ts")
    queue = _queue_steps(trace)
    labels = _sample_steps(stamps, queue) if stamps is not None and queue is not None else None
    interval = trace.meta.get("minddata_cpu_sampling_interval_ms")
    return {
        "sampling_interval_ms": float(interval) if isinstance(interval, int | float) else None,
        "samples": samples,
        "series": series,
        "sample_steps": labels,
        "per_step": _per_step(series, labels) if labels else None,
    }


def _per_step(series: dict[str, list[float]], labels: list[str]) -> dict[str, Any]:
    """Mean user + sys per step of the machine and the process, over the samples of each."""
    steps = list(dict.fromkeys(labels))

    def mean(user: str, sys: str) -> list[float | None]:
        out: list[float | None] = []
        for s in steps:
            idx = [i for i, lab in enumerate(labels) if lab == s]
            u = series[user]
            y = series.get(sys, [0.0] * len(u))  # series may hold different sample counts
            vals = [u[i] + y[i] for i in idx if i < len(u) and i < len(y)]
            out.append(round(sum(vals) / len(vals), 4) if vals else None)
        return out

    return {
        "steps": steps,
        "device_pct": mean("device_user", "device_sys") if "device_user" in series else None,
        "process_pct": mean("process_user", "process_sys") if "process_user" in series else None,
    }
