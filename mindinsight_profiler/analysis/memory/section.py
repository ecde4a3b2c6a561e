"""Memory view: allocated/reserved curves per device, the exact peak, alloc/free pairs, and
per-operator allocation statistics.

Sources, all read from the model:
- Kineto `[memory]` instants and MindSpore memory records (`trace.memory`): totals after each
  event, with address and signed size (Kineto) for pairing and operator attribution;
- the Ascend export's `memory_record` (totals per component over time) and `operator_memory`
  (one row per allocation, with its operator and release time) side tables.
Curves are cut to `max_points` for display, but per bucket the lowest and highest allocated
and the highest reserved samples are kept, so a plotted curve never hides the peak; the peak
itself is computed on every sample. Times are int nanoseconds (exact), sizes int bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.memory.npu_modules import npu_module_memory
from mindinsight_profiler.analysis.memory.records import (
    alloc_free_pairs,
    innermost_op,
    operator_memory_rows,
    operator_stats,
)
from mindinsight_profiler.model.trace import Trace

_DEVICE_TYPES = {0: "CPU", 1: "CUDA"}  # c10::DeviceType values seen in Kineto records
_MB = 1 << 20
_KEY = 100_000  # device key = (type + 1) * _KEY + (id + 1)


def keep_extremes(values: np.ndarray, reserved: np.ndarray, max_points: int) -> np.ndarray:
    """Sorted sample indices to plot: per bucket, argmin/argmax of `values`, argmax `reserved`.

    Buckets hold equal numbers of consecutive samples; three per bucket keeps the result
    within `max_points`, and the global maximum is always among them.
    """
    n = len(values)
    if n <= max_points:
        return np.arange(n)
    buckets = max(max_points // 3, 1)
    bucket = np.arange(n) * buckets // n
    keep = []
    for v in (values, -values, reserved):  # lexsort: last of each bucket = its argmax
        order = np.lexsort((v, bucket))
        last = np.flatnonzero(np.diff(bucket[order], append=buckets))
        keep.append(order[last])
    return np.unique(np.concatenate(keep))


def _series(
    ts_ns: np.ndarray, allocated: np.ndarray, reserved: np.ndarray, max_points: int
) -> tuple[dict[str, Any], int]:
    """Curve and exact peaks of one device, and the time order of its samples.

    Negative or NaN totals are unknown; if no allocated total is known the caller passes the
    running sum of sizes instead (the 2021 Kineto schema has sizes only).
    """
    order = np.argsort(ts_ns, kind="stable")
    ts = ts_ns[order]
    a = np.nan_to_num(allocated[order].astype(np.float64), nan=-1.0).astype(np.int64)
    r = np.nan_to_num(reserved[order].astype(np.float64), nan=-1.0).astype(np.int64)
    a, r = np.maximum(a, -1), np.maximum(r, -1)
    idx = keep_extremes(a, r, max_points)
    peak, peak_r = int(np.argmax(a)), int(np.argmax(r))  # first time each maximum is reached
    out: dict[str, Any] = {
        "samples": len(ts),
        "curve": {
            "ts_ns": ts[idx].tolist(),
            "allocated_bytes": [v if v >= 0 else None for v in a[idx].tolist()],
            "reserved_bytes": [v if v >= 0 else None for v in r[idx].tolist()],
        },
        "peak_allocated": _peak(a, ts, peak),
        "peak_reserved": _peak(r, ts, peak_r),
    }
    return out, int(order[peak]) if a[peak] >= 0 else -1


def _peak(values: np.ndarray, ts: np.ndarray, at: int) -> dict[str, Any] | None:
    return {"bytes": int(values[at]), "ts_ns": int(ts[at])} if values[at] >= 0 else None


def _label(key: int, default: str) -> str:
    """`CUDA:0`, `CPU`; records without a device type (MindSpore) get the trace's device."""
    device_type, device_id = key // _KEY - 1, key % _KEY - 1
    kind = _DEVICE_TYPES.get(device_type, default if device_type < 0 else f"type{device_type}")
    return kind if device_id < 0 else f"{kind}:{device_id}"


def _from_records(trace: Trace, max_points: int) -> list[dict[str, Any]]:
    """Devices from `trace.memory` (Kineto instants, MindSpore records)."""
    m = trace.memory
    op = innermost_op(trace, m["track"], m["ts_ns"])
    op_name = np.full(len(op), -1, dtype=np.int64)
    op_name[op >= 0] = trace.events["name"][op[op >= 0]]
    dev_key = (m["device_type"].astype(np.int64) + 1) * _KEY + (m["device_id"] + 1)
    default = str(trace.meta.get("device_type") or "device").upper()
    devices = []
    for key in np.unique(dev_key).tolist():
        rows = np.flatnonzero(dev_key == key)
        allocated = m["total_allocated"][rows]
        if (allocated < 0).all():  # old schema without totals: the running sum of sizes
            order = np.argsort(m["ts_ns"][rows], kind="stable")
            allocated = np.empty_like(allocated)
            allocated[order] = np.cumsum(m["bytes"][rows][order])
        s, peak_row = _series(m["ts_ns"][rows], allocated, m["total_reserved"][rows], max_points)
        if s["peak_allocated"] is not None:
            code = int(op_name[rows[peak_row]])
            s["peak_allocated"]["operator"] = trace.strings[code] if code >= 0 else None
        a, f = alloc_free_pairs(m["addr"][rows], m["bytes"][rows], m["ts_ns"][rows])
        a, f = rows[a], np.where(f >= 0, rows[np.clip(f, 0, None)], -1)
        s["pairs"] = _pairs(
            m["addr"][a], m["bytes"][a], m["ts_ns"][a], np.where(f >= 0, m["ts_ns"][f], -1),
            [trace.strings[c] if c >= 0 else None for c in op_name[a].tolist()],
        )  # fmt: skip
        s["operators"] = operator_stats(op_name[rows], m["bytes"][rows], trace.strings)
        devices.append({"device": _label(key, default), "source": "memory_events", **s})
    return devices


def _pairs(
    addr: np.ndarray,
    nbytes: np.ndarray,
    alloc_ns: np.ndarray,
    free_ns: np.ndarray,
    ops: Sequence[str | None],
) -> dict[str, Any]:
    """Columnar alloc/free pairs; `free_ns` None = still live at the end of profiling."""
    return {
        "count": len(nbytes),
        "live": int((free_ns < 0).sum()),
        "addr": addr.tolist() if len(addr) else [],
        "bytes": nbytes.tolist(),
        "alloc_ns": alloc_ns.tolist(),
        "free_ns": [t if t >= 0 else None for t in free_ns.tolist()],
        "operator": ops,
    }


def _from_ascend(trace: Trace, max_points: int) -> list[dict[str, Any]]:
    """Devices from the Ascend `memory_record` / `operator_memory` tables (MB, KB -> bytes).

    torch_npu records one series per component (PTA: PyTorch's allocator, GE: the graph
    engine, APP: the whole process); each becomes its own curve. The per-allocation rows of
    `operator_memory` are PyTorch allocations, so they go with the PTA curve of their device.
    """
    rec = trace.tables.get("memory_record")
    opm = operator_memory_rows(trace)
    devices: list[dict[str, Any]] = []
    if rec is not None and len(rec["ts_ns"]):
        # codes + 1: an absent device or component (-1) keeps the key's parts apart
        key = (rec["device"].astype(np.int64) + 1) * _KEY + (rec["component"] + 1)
        for k in np.unique(key).tolist():
            rows = np.flatnonzero(key == k)
            allocated = np.rint(rec["total_allocated_mb"][rows] * _MB)
            reserved = np.rint(rec["total_reserved_mb"][rows] * _MB)
            s, _ = _series(rec["ts_ns"][rows], allocated, reserved, max_points)
            device, component = _code(trace, k // _KEY - 1), _code(trace, k % _KEY - 1)
            label = f"{device or 'NPU'} {component or ''}".strip()
            devices.append({"device": label, "source": "memory_record", **s, "pairs": None})
            devices[-1]["operators"] = []
    if opm is not None and len(opm["alloc_ns"]):
        target = next((d for d in devices if d["device"].endswith(" PTA")), None)
        if target is None:
            target = {"device": _code(trace, int(opm["device"][0])) or "NPU"}
            target["source"] = "operator_memory"
            devices.append(target)
        nbytes = np.rint(opm["size_kb"] * 1024).astype(np.int64)
        freed = opm["release_ns"] >= 0
        names = trace.strings.lookup(opm["name"])
        target["pairs"] = _pairs(
            np.zeros(0, np.int64), nbytes, opm["alloc_ns"],
            np.where(freed, opm["release_ns"], -1), names,
        )  # fmt: skip
        target["pairs"]["addr"] = None  # operator_memory carries no addresses
        signed = np.concatenate([nbytes, -nbytes[freed]])
        charged = np.concatenate([opm["name"], opm["name"][freed]])
        target["operators"] = operator_stats(charged, signed, trace.strings)
    return devices


def _code(trace: Trace, code: int) -> str | None:
    return trace.strings[code] if code >= 0 else None


def memory_section(trace: Trace, max_points: int = 2000) -> dict[str, Any] | None:
    """The memory view of one worker (see module doc); None when it holds no memory data."""
    if len(trace.memory["ts_ns"]):
        devices = _from_records(trace, max_points)
    else:
        devices = _from_ascend(trace, max_points)
    modules = npu_module_memory(trace)
    if not devices and not modules:
        return None
    section: dict[str, Any] = {"max_points": max_points, "devices": devices}
    if modules is not None:
        section["npu_modules"] = modules
    return section
