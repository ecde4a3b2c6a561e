"""MindData queue sizes and transfer times per step, for the data pipeline's curves.

The report keeps only each queue's summary (empty/full counts and rates, as MindInsight's
rules need); the dashboard draws what MindInsight's "step interval" tab draws, the size of
every queue at every step and the host's get/push times, so this reads the per-step rows
the MindData reader already stored in the trace (`formats.ms_minddata`):
- host queue: `data_queue_size` (one series per source file, `device_queue` first, which
  the verdict uses, as MindInsight does);
- chip queue: `getnext` (the device's GetNext dequeues, one per step, with queue size and
  wait);
- transfer: `data_queue_time` (get, push and total milliseconds per step, stored in ns).
Steps are strings, as in every other per-step list of the report.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

#: The host queue source the verdict is taken from, when present (MindInsight's choice).
PREFERRED_SOURCE = "device_queue"


def _steps(step: np.ndarray) -> list[str]:
    return [str(s) for s in step.tolist()]


def _sources(trace: Trace, codes: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Source names in the preferred order, and each row's source as a string array."""
    src = np.array(trace.strings.lookup(codes), dtype=str)
    names = sorted(set(src.tolist()), key=lambda s: (s != PREFERRED_SOURCE, s))
    return names, src


def _host(trace: Trace) -> list[dict[str, Any]]:
    table = trace.tables.get("data_queue_size")
    if table is None or len(table["step"]) == 0:
        return []
    names, src = _sources(trace, table["source"])
    out = []
    for k, name in enumerate(names):
        pick = np.flatnonzero(src == name)
        pick = pick[np.argsort(table["step"][pick], kind="stable")]
        cap = table["capacity"][pick]
        out.append(
            {
                "source": name,
                "used_for_verdict": k == 0,
                "capacity": int(cap.max()) if len(cap) else None,
                "steps": _steps(table["step"][pick]),
                "size": table["size"][pick].tolist(),
            }
        )
    return out


def _chip(trace: Trace) -> dict[str, Any] | None:
    g = trace.tables.get("getnext")
    if g is None or len(g["queue_size"]) == 0:
        return None
    order = np.argsort(g["start_ns"], kind="stable")
    return {
        "steps": [str(k + 1) for k in range(len(order))],
        "size": g["queue_size"][order].tolist(),
        "wait_us": ((g["end_ns"] - g["start_ns"])[order] / 1e3).tolist(),
    }


def _times(trace: Trace) -> list[dict[str, Any]]:
    table = trace.tables.get("data_queue_time")
    if table is None or len(table["step"]) == 0:
        return []
    names, src = _sources(trace, table["source"])
    what = np.array(trace.strings.lookup(table["what"]), dtype=str)
    out = []
    for name in names:
        mine = src == name
        steps = np.unique(table["step"][mine])
        row: dict[str, Any] = {"source": name, "steps": _steps(steps)}
        for kind in ("get", "push", "total"):
            pick = np.flatnonzero(mine & (what == kind))
            values = np.full(len(steps), np.nan)
            pos = np.searchsorted(steps, table["step"][pick])
            values[pos] = table["duration_ns"][pick] / 1e3
            row[f"{kind}_us"] = [None if np.isnan(v) else float(v) for v in values.tolist()]
        out.append(row)
    return out


def queue_steps(trace: Trace) -> dict[str, Any] | None:
    """Per-step host/chip queue sizes and host get/push times; None without MindData queues."""
    host, chip, times = _host(trace), _chip(trace), _times(trace)
    if not host and chip is None and not times:
        return None
    return {"host": host, "chip": chip, "times": times}
