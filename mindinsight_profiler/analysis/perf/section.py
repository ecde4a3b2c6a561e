"""The `perf_model` section: FLOPs and bytes of every modelled call, set against the device.

Built from `op_work` (work per call, counted once at the outermost modelled call),
`call_time` (the time the work ran), `roofline` (the device and its roof) and
`work_summary` (coverage and the calls not modelled). Schema: `analysis.schema.perf`.

MFU and HFU of a step: the time the step's matrix work would take at the device's peaks
(each call at the peak of its dtype, so mixed precision is weighed right) over the step's
duration. MFU counts model work (recomputation left out), HFU the matrix work as executed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.perf.call_time import call_time_ns, has_device_work, recomputed
from mindinsight_profiler.analysis.perf.calls import CATEGORIES, MATRIX_CATEGORIES
from mindinsight_profiler.analysis.perf.devices import Said
from mindinsight_profiler.analysis.perf.kernel_rows import kernel_rows
from mindinsight_profiler.analysis.perf.op_work import COUNTED, OpWork, op_work
from mindinsight_profiler.analysis.perf.perf_rows import CallFigures, grouped_rows, round_figure
from mindinsight_profiler.analysis.perf.roofline import Device, device_answer, find_device
from mindinsight_profiler.analysis.perf.specs import DeviceSpec
from mindinsight_profiler.analysis.perf.work_summary import WorkSummary, step_index, summarise
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.analysis.steps.covered import steps_covered
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import rows_by_group
from mindinsight_profiler.util.heap import release_free_memory

#: Rows of `shapes` and `unknown` kept (most time first); `shape_count` says how many there were.
MAX_SHAPE_ROWS = 500
MAX_UNKNOWN_ROWS = 100
MAX_KERNEL_ROWS = 200
#: A call below this share of its roof counts toward `low_roof_share`.
LOW_ROOF = 0.2


def perf_model_section(
    trace: Trace,
    steps: Steps,
    first: int,
    user_device: DeviceSpec | None = None,
    work: OpWork | None = None,
) -> dict[str, Any] | None:
    """The section of `trace` (None when it has no operator calls to model); `work`: its
    `op_work`, when the caller has it already."""
    work = op_work(trace) if work is None else work
    if not len(work):
        return None
    on_host = not has_device_work(trace)
    device = find_device(trace.meta, user_device, on_host)
    calls = CallFigures.of(work, call_time_ns(trace, work))
    release_free_memory()  # each part's freed pages before the next part's (util.heap)
    summary = summarise(trace, work, with_steps=False)
    release_free_memory()
    counted = np.flatnonzero(work.status == COUNTED)
    # every call whose work is known, counted or inside a counted one (an unknown call
    # inside a counted one is INSIDE too, and has no figures)
    known = np.flatnonzero(work.known()[work.result]) if len(work.results) else counted
    shapes = grouped_rows(trace, work, calls, counted, True, device)
    step_rows = _steps(trace, work, calls, steps, device)
    release_free_memory()
    base_ns = summary.host_self_ns if on_host else summary.device_ns
    unavailable = _unavailable(device, shapes)
    return {
        "device": device_answer(device),
        "unavailable": unavailable.en if unavailable else None,
        "unavailable_zh": unavailable.zh if unavailable else None,
        "totals": _totals(work, calls, summary, shapes, step_rows, first, on_host),
        "categories": _categories(calls, counted, summary, base_ns, on_host, shapes),
        "steps": step_rows,
        "averaged_from": first,
        "covered": steps_covered(steps.names, steps.names[first:], steps.names[:first]),
        "operators": grouped_rows(trace, work, calls, known, False, device),
        "shapes": shapes[:MAX_SHAPE_ROWS],
        "shape_count": len(shapes),
        "kernels": kernel_rows(trace, work, calls, device)[:MAX_KERNEL_ROWS],
        "unknown": [
            {
                "name": name,
                "calls": u.calls,
                "reason": u.reason,
                "reason_zh": u.reason_zh,
                "device_us": summary.uncovered_device_ns.get(name, 0) / 1000.0,
            }
            for name, u in list(summary.unknown.items())[:MAX_UNKNOWN_ROWS]
        ],
    }


def _unavailable(device: Device, shapes: list[dict[str, Any]]) -> Said | None:
    """Why peak-based figures are null, in English and Chinese (None: they are not)."""
    if device.spec is None:
        return device.said
    if not shapes:
        return Said(
            "no operator call could be modelled: profile with record_shapes=True",
            "没有能建模的算子调用：请以 record_shapes=True 采集性能数据",
        )
    if all(r["roof_tflops"] is None for r in shapes):
        return Said(
            f"{device.label}: the table has no peak for the dtypes of this trace",
            f"{device.label}：设备表中没有此 trace 所用数据类型的峰值",
        )
    return None


def _ideal_seconds(calls: CallFigures, rows: np.ndarray, device: Device) -> float | None:
    """Time `rows` would take at the device's peak of each call's dtype (None: a peak is
    not known, or there is no modelled matrix work to tell by)."""
    if not len(rows):
        return None
    flops = np.bincount(calls.result[rows], weights=calls.flops[rows])
    total = 0.0
    for res in np.flatnonzero(flops).tolist():
        peak = device.peak_tflops(calls.dtypes[res], "gemm")
        if peak is None:
            return None
        total += float(flops[res]) / (peak * 1e12)
    return total


def _steps(
    trace: Trace, work: OpWork, calls: CallFigures, steps: Steps, device: Device
) -> list[dict[str, Any]]:
    step = step_index(trace, work, steps)
    counted = work.status == COUNTED
    matrix = counted & np.isin(
        calls.category_code, [CATEGORIES.index(c) for c in MATRIX_CATEGORIES]
    )
    again = recomputed(trace, work)
    # Each step's calls, in row order, from one sort: a mask over every call per step made
    # this quadratic in the trace's length (1,800 steps x 8 M calls on a 10 GB trace).
    out = []
    for k, rows in enumerate(rows_by_group(step, len(steps.names))):
        name = steps.names[k]
        seconds = float(steps.duration_ns[k]) / 1e9
        hardware = rows[matrix[rows]]
        model = hardware[~again[hardware]]
        mine_counted = rows[counted[rows]]
        ideal_model, ideal_hw = (
            _ideal_seconds(calls, model, device),
            _ideal_seconds(calls, hardware, device),
        )
        known_bytes = calls.bytes[mine_counted]
        out.append({
            "name": name,
            "duration_us": seconds * 1e6,
            "model_gflops": float(calls.flops[model].sum()) / 1e9,
            "hardware_gflops": float(calls.flops[hardware].sum()) / 1e9,
            "total_gflops": float(calls.flops[mine_counted].sum()) / 1e9,
            "gbytes": float(np.nansum(known_bytes)) / 1e9,
            "mfu": ideal_model / seconds if ideal_model is not None and seconds > 0 else None,
            "hfu": ideal_hw / seconds if ideal_hw is not None and seconds > 0 else None,
        })  # fmt: skip
    return out


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole > 0 else None


def _totals(
    work: OpWork, calls: CallFigures, summary: WorkSummary, shapes: list[dict[str, Any]],
    steps: list[dict[str, Any]], first: int, on_host: bool,
) -> dict[str, Any]:  # fmt: skip
    counted = work.status == COUNTED
    averaged = steps[first:]
    seconds = sum(s["duration_us"] for s in averaged) / 1e6

    def utilisation(key: str) -> float | None:
        if not averaged or any(s[key] is None for s in averaged) or seconds <= 0:
            return None
        return sum(s[key] * s["duration_us"] for s in averaged) / 1e6 / seconds

    judged = [r for r in shapes if r["pct_of_roof"] is not None]
    compute_ns = summary.device_ns - summary.communication_ns
    low = sum(r["time_us"] for r in judged if r["pct_of_roof"] < LOW_ROOF) * 1000.0
    bounded = [r for r in shapes if r["bound"] is not None]
    memory = sum(r["time_us"] for r in bounded if r["bound"] == "memory")
    return {
        "gflops": float(calls.flops[counted].sum()) / 1e9,
        "model_gflops": sum(s["model_gflops"] for s in steps),
        "gbytes": float(np.nansum(calls.bytes[counted])) / 1e9,
        "counted_calls": int(counted.sum()),
        "unknown_calls": sum(u.calls for u in summary.unknown.values()),
        "time_base": "host" if on_host else "device",
        "device_us": (summary.host_self_ns if on_host else summary.device_ns) / 1000.0,
        "covered_share": summary.host_share if on_host else summary.device_share,
        "compute_share": None if on_host else summary.compute_share,
        "mfu": utilisation("mfu"),
        "hfu": utilisation("hfu"),
        "low_roof_share": _share(low, compute_ns) if judged and not on_host else None,
        "memory_bound_share": _share(memory, sum(r["time_us"] for r in bounded)),
    }


def _categories(
    calls: CallFigures, counted: np.ndarray, summary: WorkSummary, base_ns: int, on_host: bool,
    shapes: list[dict[str, Any]],
) -> list[dict[str, Any]]:  # fmt: skip
    out = []
    category = calls.category_code[counted]
    for code, name in enumerate(CATEGORIES):
        mine = counted[category == code]
        if not len(mine):
            continue
        flops, time_ns = float(calls.flops[mine].sum()), float(calls.time_ns[mine].sum())
        bytes_ = float(calls.bytes[mine].sum())
        rows = [r for r in shapes if r["category"] == name and r["pct_of_roof"] is not None]
        weight = sum(r["time_us"] for r in rows)
        achieved = round_figure(flops / time_ns * 1e9 / 1e12) if time_ns > 0 else None
        out.append({
            "category": name,
            "calls": len(mine),
            "gflops": flops / 1e9,
            "gbytes": None if np.isnan(bytes_) else bytes_ / 1e9,
            "time_us": time_ns / 1000.0,
            "time_share": _share(time_ns, base_ns),
            "achieved_tflops": achieved,
            "pct_of_roof": (
                sum(r["pct_of_roof"] * r["time_us"] for r in rows) / weight if weight else None
            ),
        })  # fmt: skip
    if not on_host:
        # what no counted call's compute covers, so that the rows add up to the device time
        other = summary.device_ns - summary.communication_ns - int(calls.time_ns[counted].sum())
        for name, ns in (("communication", summary.communication_ns), ("other", other)):
            if ns > 0:
                out.append({
                    "category": name, "calls": 0, "gflops": 0.0, "gbytes": None,
                    "time_us": ns / 1000.0, "time_share": _share(ns, base_ns),
                    "achieved_tflops": None, "pct_of_roof": None,
                })  # fmt: skip
    return out
