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

from mindinsight_profiler.analysis.perf.calls import CATEGORIES, Work
from mindinsight_profiler.analysis.perf.op_work import OpWork
from mindinsight_profiler.analysis.perf.roofline import Device
from mindinsight_profiler.model.trace import Trace


@dataclass(frozen=True)
class CallFigures:
    """Per row of an `OpWork`: its result, FLOPs, bytes (NaN: unknown) and time (ns); per
    result: dtype and category (and their codes, for vectorised masks)."""

    result: np.ndarray
    flops: np.ndarray
    bytes: np.ndarray
    time_ns: np.ndarray
    dtypes: list[str]  # per result
    categories: list[str]  # per result
    category_code: np.ndarray  # per row: index into CATEGORIES, -1 for no Work

    @classmethod
    def of(cls, work: OpWork, time_ns: np.ndarray) -> CallFigures:
        per = work.results
        dtypes = [r.dtype if isinstance(r, Work) else "" for r in per]
        categories = [r.category if isinstance(r, Work) else "" for r in per]
        bytes_ = work.bytes().astype(np.float64)
        bytes_[bytes_ < 0] = np.nan
        return cls(
            work.result.astype(np.int64), work.flops().astype(np.float64), bytes_, time_ns,
            dtypes, categories, category_codes(work),
        )  # fmt: skip

    def dtype(self, row: int) -> str:
        return self.dtypes[int(self.result[row])]


def category_codes(work: OpWork) -> np.ndarray:
    """Per row of `work`: the index of its Work's category in CATEGORIES (-1: no Work)."""
    if not work.results:
        return np.zeros(len(work.event), np.int64)
    per = [CATEGORIES.index(r.category) if isinstance(r, Work) else -1 for r in work.results]
    return np.array(per, np.int64)[work.result]


def figures(
    device: Device, flops: float, bytes_: float | None, time_ns: float, dtype: str, category: str
) -> dict[str, Any]:
    """Achieved throughput and roofline figures of `flops` and `bytes_` done in `time_ns`."""
    seconds = time_ns / 1e9
    intensity = flops / bytes_ if bytes_ else None
    achieved = flops / seconds / 1e12 if seconds > 0 else None
    roof, bound = device.roof(device.peak_tflops(dtype, category), intensity)
    return {
        "arithmetic_intensity": round_figure(intensity),
        "achieved_tflops": round_figure(achieved),
        "achieved_tbps": round_figure(bytes_ / seconds / 1e12) if bytes_ and seconds > 0 else None,
        "roof_tflops": round_figure(roof),
        "pct_of_roof": round_figure(achieved / roof) if achieved is not None and roof else None,
        "bound": bound,
    }


def round_figure(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else float(f"{value:.{digits}g}")


def grouped_rows(
    trace: Trace, work: OpWork, calls: CallFigures, rows: np.ndarray, by_shapes: bool,
    device: Device,
) -> list[dict[str, Any]]:  # fmt: skip
    """One row per group of `rows` (indices into `work`), most time first.

    Calls of one result share name, shapes and types, so the sums are taken per result
    (bincounts over the rows) and the groups formed over the few distinct results."""
    if not len(rows):
        return []
    ev = trace.events
    r = calls.result[rows]
    n_results = len(work.results)
    count = np.bincount(r, minlength=n_results)
    time = np.bincount(r, weights=calls.time_ns[rows], minlength=n_results)
    bytes_ = np.bincount(r, weights=calls.bytes[rows], minlength=n_results)  # NaN stays NaN
    order = np.lexsort((calls.time_ns[rows], r))  # per result, its longest call last
    last = np.flatnonzero(np.r_[r[order][1:] != r[order][:-1], True])
    res_at, event_at = r[order][last].tolist(), work.event[rows[order][last]].tolist()
    longest = dict(
        zip(
            res_at,
            zip(event_at, calls.time_ns[rows][order][last].tolist(), strict=True),
            strict=True,
        )
    )
    groups: dict[tuple[int, ...], list[int]] = {}
    for res, (event, _) in longest.items():
        key: tuple[int, ...] = (int(ev["name"][event]),)
        if by_shapes:
            key += (int(ev["input_dims"][event]), int(ev["input_types"][event]))
        groups.setdefault(key, []).append(res)
    flops_per = np.zeros(n_results)
    flops_per[r] = calls.flops[rows]
    out = [
        _row(trace, calls, members, count, time, bytes_, flops_per, longest, by_shapes, device)
        for members in groups.values()
    ]
    out.sort(key=lambda x: (-x["time_us"], x["name"], x["input_shapes"]))
    return out


def _row(
    trace: Trace, calls: CallFigures, members: list[int], count: np.ndarray, time: np.ndarray,
    bytes_: np.ndarray, flops_per: np.ndarray, longest: dict[int, tuple[int, int]], by_shapes: bool,
    device: Device,
) -> dict[str, Any]:  # fmt: skip
    ev = trace.events
    m = np.array(members)
    flops_by = count[m] * flops_per[m]
    dtype_flops: dict[str, float] = {}
    for res, f in zip(members, flops_by.tolist(), strict=True):
        dtype_flops[calls.dtypes[res]] = dtype_flops.get(calls.dtypes[res], 0.0) + f
    dtype = max(dtype_flops, key=lambda d: dtype_flops[d])
    category = calls.categories[members[0]]
    n = int(count[m].sum())
    flops = float(flops_by.sum())
    total_bytes = float(bytes_[m].sum())
    known_bytes = None if np.isnan(total_bytes) else total_bytes
    time_ns = float(time[m].sum())
    event = max((longest[res] for res in members), key=lambda et: (et[1], -et[0]))[0]
    first = longest[members[0]][0]
    dims = int(ev["input_dims"][first])
    shapes = trace.strings[dims] if by_shapes and dims >= 0 else ""
    name = trace.strings[int(ev["name"][first])]
    return perf_row(trace, name, shapes, dtype, category, n, flops, known_bytes, time_ns, event,
                    device)  # fmt: skip


def perf_row(
    trace: Trace, name: str, input_shapes: str, dtype: str, category: str, calls: int,
    flops: float, bytes_: float | None, time_ns: float, longest: int, device: Device,
) -> dict[str, Any]:  # fmt: skip
    """One roofline row (`PerfRow`): the totals of `calls` calls, per call and achieved,
    and the window of the longest call (event `longest`)."""
    ev = trace.events
    return {
        "name": name,
        "input_shapes": input_shapes,
        "dtype": dtype,
        "category": category,
        "calls": calls,
        "gflops_per_call": round_figure(flops / calls / 1e9),
        "gbytes_per_call": round_figure(bytes_ / calls / 1e9) if bytes_ is not None else None,
        "time_us": round(time_ns / 1000.0, 3),
        **figures(device, flops, bytes_, time_ns, dtype, category),
        "longest_call_ns": [int(ev["start_ns"][longest]), int(ev["end_ns"][longest])],
    }
