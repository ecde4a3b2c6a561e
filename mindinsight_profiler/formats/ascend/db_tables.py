"""Side tables of torch_npu's database export, named and shaped as the CSV-derived ones.

The analyses read `kernel_details`, `op_statistic`, `step_trace_time`, `communication`,
`communication_matrix`, `memory_record`, `operator_memory`, `api_statistic` and
`overlap_analysis` whichever export they come from, so the database gives the same columns
in the same units (ns, MB = 2**20 bytes, KB = 1024 bytes) as `tables.py` reads from text:

- `kernel_details`: facts of each kernel event (`db_device.Kernels`), plus the AI Core PMU
  metrics of `TASK_PMU_INFO` as `pmu_<metric>` columns (values as stored);
- `op_statistic`: per (op type, core) totals, computed from the kernels as msprof computes
  `op_statistic.csv` (collectives left out);
- `memory_record`: `MEMORY_RECORD` (bytes) plus the `APP` series of `NPU_MEM` (HBM bytes);
- `operator_memory`: `OP_MEMORY` (bytes, ns); `overlap_analysis`: `OVERLAP_ANALYSIS`;
- `api_statistic`: `CANN_API` per (level, API);
- `npu_module_mem`: `NPU_MODULE_MEM` (bytes) with its `ENUM_MODULE` component names;
- `step_trace_time`, `communication`, `communication_matrix`: analysis.db's `StepTraceTime`
  (us), `CommAnalyzerTime` (ms; start in us) and `CommAnalyzerMatrix` (MB, ms, GB/s).
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.formats.ascend.db_device import Kernels
from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.formats.ascend.db_names import Names

Table = dict[str, np.ndarray]
MB = float(1 << 20)
#: OVERLAP_ANALYSIS.type, as the text export names its intervals.
OVERLAP_TYPES = {0: "Computing", 1: "Communication", 2: "Communication(Not Overlapped)", 3: "Free"}


#: Columns of `db_device.Kernels.cols` that `kernel_details` carries as they are.
KERNEL_FACTS = ["wait_ns", "block_dim", "stream_id", "task_id"]
KERNEL_FACTS += ["input_shapes", "input_dtypes", "input_formats"]


def kernel_details(
    db: DbFile, names: Names, kernels: Kernels, cols: dict[str, np.ndarray], steps: Table | None
) -> Table:
    """One row per kernel event (`event` is its index in the trace)."""
    start = cols["start_ns"][kernels.event]
    out = {
        "step_id": _step_of(start, steps),
        "name": cols["name"][kernels.event],
        **{k: kernels.cols[k] for k in ("op_type", "core_type")},
        "start_ns": start,
        "duration_ns": cols["end_ns"][kernels.event] - start,
        **{k: kernels.cols[k] for k in KERNEL_FACTS},
        "event": kernels.event,
    }
    if db.has("TASK_PMU_INFO") and len(kernels.event):
        out.update(_pmu(db, names, kernels.task_id))
    return out


def _step_of(start: np.ndarray, steps: Table | None) -> np.ndarray:
    out = np.full(len(start), -1, dtype=np.int64)
    if steps is None or not len(steps["id"]):
        return out
    order = np.argsort(steps["startNs"])
    s, e, ids = steps["startNs"][order], steps["endNs"][order], steps["id"][order]
    j = np.searchsorted(s, start, side="right") - 1
    jc = np.clip(j, 0, None)
    inside = (j >= 0) & (start < e[jc])
    out[inside] = ids[jc[inside]]
    return out


def _pmu(db: DbFile, names: Names, task_id: np.ndarray) -> Table:
    p = db.ints("TASK_PMU_INFO", ["globalTaskId", "name"])
    value = db.floats("TASK_PMU_INFO", ["value"])["value"]
    order = np.argsort(task_id, kind="stable")
    pos = np.clip(np.searchsorted(task_id[order], p["globalTaskId"]), 0, max(len(order) - 1, 0))
    hit = task_id[order][pos] == p["globalTaskId"]
    out: Table = {}
    for metric in np.unique(p["name"]).tolist():
        rows = hit & (p["name"] == metric)
        column = np.full(len(task_id), np.nan)
        column[order[pos[rows]]] = value[rows]
        out[f"pmu_{names.text(metric) or metric}"] = column
    return out


def op_statistic(kd: Table, strings_hccl: int) -> Table:
    """Per (op type, core type): count, total/min/avg/max ns, ratio of the total (%)."""
    keep = kd["core_type"] != strings_hccl
    pairs = np.stack([kd["op_type"][keep], kd["core_type"][keep]], axis=1).astype(np.int64)
    dur = kd["duration_ns"][keep]
    if not len(dur):
        return {
            k: np.zeros(0, dtype=np.int64)
            for k in ("op_type", "core_type", "count", "total_ns", "min_ns", "avg_ns", "max_ns")
        } | {"ratio_pct": np.zeros(0)}
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    inv = inv.ravel()
    g = len(uniq)
    count = np.bincount(inv, minlength=g)
    total = np.bincount(inv, weights=dur, minlength=g).astype(np.int64)
    lo = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros(g, dtype=np.int64)
    np.minimum.at(lo, inv, dur)
    np.maximum.at(hi, inv, dur)
    order = np.argsort(-total, kind="stable")
    return {
        "op_type": uniq[order, 0].astype(np.int32),
        "core_type": uniq[order, 1].astype(np.int32),
        "count": count[order].astype(np.int64),
        "total_ns": total[order],
        "min_ns": lo[order],
        "avg_ns": np.rint(total[order] / np.maximum(count[order], 1)).astype(np.int64),
        "max_ns": hi[order],
        "ratio_pct": 100.0 * total[order] / max(int(total.sum()), 1),
    }


def _device_codes(names: Names, device: np.ndarray) -> np.ndarray:
    return names.coded([f"NPU:{d}" if d >= 0 else "" for d in device.tolist()])


def memory_record(db: DbFile, names: Names) -> Table | None:
    """`MEMORY_RECORD` (PTA/GE curves) plus NPU_MEM's `app` series as component `APP`."""
    if not db.has("MEMORY_RECORD") and not db.has("NPU_MEM"):
        return None
    m = db.ints("MEMORY_RECORD", ["component", "timestamp", "deviceId"])
    f = db.floats("MEMORY_RECORD", ["totalAllocated", "totalReserved", "totalActive"])
    a = db.ints("NPU_MEM", ["type", "timestampNs", "deviceId"])
    app = np.array([names.text(x) == "app" for x in a["type"].tolist()], dtype=bool)
    hbm = db.floats("NPU_MEM", ["hbm"])["hbm"][app]
    nan = np.full(len(hbm), np.nan)
    table = {
        "component": np.concatenate([names.codes(m["component"]), names.coded(["APP"] * len(hbm))]),
        "ts_ns": np.concatenate([m["timestamp"], a["timestampNs"][app]]),
        "total_allocated_mb": np.concatenate([f["totalAllocated"] / MB, nan]),
        "total_reserved_mb": np.concatenate([f["totalReserved"] / MB, hbm / MB]),
        "total_active_mb": np.concatenate([f["totalActive"] / MB, nan]),
        "device": _device_codes(names, np.concatenate([m["deviceId"], a["deviceId"][app]])),
    }
    order = np.argsort(table["ts_ns"], kind="stable")
    return {k: v[order] for k, v in table.items()}


def npu_module_mem(db: DbFile, names: Names) -> Table | None:
    """`NPU_MODULE_MEM` (bytes, component ids of `ENUM_MODULE`) as `npu_module_mem.csv`."""
    if not db.has("NPU_MODULE_MEM"):
        return None
    m = db.ints("NPU_MODULE_MEM", ["moduleId", "timestampNs", "deviceId"])
    reserved = db.floats("NPU_MODULE_MEM", ["totalReserved"])["totalReserved"]
    module = Names.enum(db, "ENUM_MODULE")
    return {
        "component": names.coded([module.get(i, str(i)) for i in m["moduleId"].tolist()]),
        "ts_ns": m["timestampNs"],
        "total_reserved_mb": reserved / MB,
        "device": _device_codes(names, m["deviceId"]),
    }


def operator_memory(db: DbFile, names: Names) -> Table | None:
    if not db.has("OP_MEMORY"):
        return None
    m = db.ints("OP_MEMORY", ["name", "allocationTime", "releaseTime", "duration", "deviceId"])
    totals = ["allocationTotalAllocated", "allocationTotalReserved"]
    totals += ["releaseTotalAllocated", "releaseTotalReserved"]
    f = db.floats("OP_MEMORY", ["size", *totals])
    return {
        "name": names.codes(m["name"]),
        "size_kb": f["size"] / 1024.0,
        "alloc_ns": m["allocationTime"],
        "release_ns": m["releaseTime"],
        "duration_ns": m["duration"],
        "alloc_total_allocated_mb": f["allocationTotalAllocated"] / MB,
        "alloc_total_reserved_mb": f["allocationTotalReserved"] / MB,
        "release_total_allocated_mb": f["releaseTotalAllocated"] / MB,
        "release_total_reserved_mb": f["releaseTotalReserved"] / MB,
        "device": _device_codes(names, m["deviceId"]),
    }


def overlap_analysis(db: DbFile, names: Names) -> Table | None:
    if not db.has("OVERLAP_ANALYSIS"):
        return None
    o = db.ints("OVERLAP_ANALYSIS", ["startNs", "endNs", "type"])
    labels = [OVERLAP_TYPES.get(t, str(t)) for t in o["type"].tolist()]
    return {
        "type": names.coded(labels),
        "start_ns": o["startNs"],
        "end_ns": np.maximum(o["endNs"], o["startNs"]),
    }


def api_statistic(db: DbFile, names: Names) -> Table | None:
    if not db.has("CANN_API"):
        return None
    c = db.ints("CANN_API", ["startNs", "endNs", "type", "name"])
    dur = np.maximum(c["endNs"] - c["startNs"], 0)
    pairs = np.stack([c["type"], c["name"]], axis=1)
    if not len(dur):
        return None
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    inv, g = inv.ravel(), len(uniq)
    count = np.bincount(inv, minlength=g)
    total = np.bincount(inv, weights=dur, minlength=g).astype(np.int64)
    lo = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros(g, dtype=np.int64)
    np.minimum.at(lo, inv, dur)
    np.maximum.at(hi, inv, dur)
    return {
        "level": names.coded([names.api_types.get(t, str(t)) for t in uniq[:, 0].tolist()]),
        "api": names.codes(uniq[:, 1]),
        "total_ns": total,
        "count": count.astype(np.int64),
        "avg_ns": np.rint(total / np.maximum(count, 1)).astype(np.int64),
        "min_ns": lo,
        "max_ns": hi,
    }
