"""Rows of the roofline: operator calls grouped (by name, or by name and input shapes),
each with its work, its time, what it achieved and how far that is from its roof.

A group sums its calls' FLOPs, bytes and times, so its achieved figures are its calls'
totals over their total time. A group whose calls differ in dtype takes the dtype of most
FLOPs for its peak (rows by name only: rows by shapes are one signature, so one dtype).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.perf.calls import Work
from mindinsight_profiler.analysis.perf.op_work import OpWork
from mindinsight_profiler.analysis.perf.roofline import Device
from mindinsight_profiler.model.trace import Trace


@dataclass(frozen=True)
class CallFigures:
    """Per row of an `OpWork`: FLOPs, bytes (NaN: unknown), time (ns), dtype, category."""

    flops: np.ndarray
    bytes: np.ndarray
    time_ns: np.ndarray
    dtype: list[str]
    category: list[str]

    @classmethod
    def of(cls, work: OpWork, time_ns: np.ndarray) -> CallFigures:
        per = work.results
        dtype = [r.dtype if isinstance(r, Work) else "" for r in per]
        category = [r.category if isinstance(r, Work) else "" for r in per]
        bytes_ = work.bytes().astype(np.float64)
        bytes_[bytes_ < 0] = np.nan
        index = work.result.tolist()
        return cls(
            work.flops().astype(np.float64), bytes_, time_ns,
            [dtype[i] for i in index], [category[i] for i in index],
        )  # fmt: skip


def figures(
    device: Device, flops: float, bytes_: float | None, time_ns: float, dtype: str, category: str
) -> dict[str, Any]:
    """Achieved throughput and roofline figures of `flops` and `bytes_` done in `time_ns`."""
    seconds = time_ns / 1e9
    intensity = flops / bytes_ if bytes_ else None
    achieved = flops / seconds / 1e12 if seconds > 0 else None
    roof, bound = device.roof(device.peak_tflops(dtype, category), intensity)
    return {
        "arithmetic_intensity": _round(intensity),
        "achieved_tflops": _round(achieved),
        "achieved_tbps": _round(bytes_ / seconds / 1e12) if bytes_ and seconds > 0 else None,
        "roof_tflops": _round(roof),
        "pct_of_roof": _round(achieved / roof) if achieved is not None and roof else None,
        "bound": bound,
    }


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else float(f"{value:.{digits}g}")


def grouped_rows(
    trace: Trace, work: OpWork, calls: CallFigures, rows: np.ndarray, by_shapes: bool,
    device: Device,
) -> list[dict[str, Any]]:  # fmt: skip
    """One row per group of `rows` (indices into `work`), most time first."""
    if not len(rows):
        return []
    ev = trace.events
    event = work.event[rows]
    keys = [ev["name"][event].astype(np.int64)]
    if by_shapes:
        keys += [
            ev["input_dims"][event].astype(np.int64),
            ev["input_types"][event].astype(np.int64),
        ]
    _, group = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)
    group = group.ravel()
    out = []
    for g in range(int(group.max()) + 1):
        mine = rows[group == g]
        out.append(_row(trace, work, calls, mine, by_shapes, device))
    out.sort(key=lambda r: (-r["time_us"], r["name"], r["input_shapes"]))
    return out


def _row(
    trace: Trace, work: OpWork, calls: CallFigures, mine: np.ndarray, by_shapes: bool,
    device: Device,
) -> dict[str, Any]:  # fmt: skip
    ev = trace.events
    first = int(work.event[mine[0]])
    flops_by_dtype: dict[str, float] = {}
    for i in mine.tolist():
        flops_by_dtype[calls.dtype[i]] = flops_by_dtype.get(calls.dtype[i], 0.0) + calls.flops[i]
    dtype = max(flops_by_dtype, key=lambda d: flops_by_dtype[d])
    category = calls.category[int(mine[0])]
    n = len(mine)
    flops = float(calls.flops[mine].sum())
    bytes_ = float(calls.bytes[mine].sum())
    known_bytes = None if np.isnan(bytes_) else bytes_
    time_ns = float(calls.time_ns[mine].sum())
    longest = int(work.event[mine[int(np.argmax(calls.time_ns[mine]))]])
    dims = int(ev["input_dims"][first])
    return {
        "name": trace.strings[int(ev["name"][first])],
        "input_shapes": trace.strings[dims] if by_shapes and dims >= 0 else "",
        "dtype": dtype,
        "category": category,
        "calls": n,
        "gflops_per_call": _round(flops / n / 1e9),
        "gbytes_per_call": _round(known_bytes / n / 1e9) if known_bytes is not None else None,
        "time_us": round(time_ns / 1000.0, 3),
        **figures(device, flops, known_bytes, time_ns, dtype, category),
        "longest_call_ns": [int(ev["start_ns"][longest]), int(ev["end_ns"][longest])],
    }
