"""Device memory reserved per CANN component (`npu_module_mem`), as Ascend's tools show it.

On an NPU the framework's allocator (PTA/GE curves of `memory_record`) is only part of the
device memory in use: the runtime, HCCL's buffers, the graph engine and the application's
own reservation are sampled per component in `npu_module_mem.csv` (the database's
`NPU_MODULE_MEM`). A user whose model does not fit asks which of them holds the memory, so
the view lists, per device, each component's peak and last reserved size; components that
never reserved anything (most of the ~80 sampled) are left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

_MB = 1 << 20


def npu_module_memory(trace: Trace) -> list[dict[str, Any]] | None:
    """Rows (device, component, peak/last reserved bytes, peak time, samples), per device
    largest peak first; None without the table, [] when nothing was reserved."""
    t = trace.tables.get("npu_module_mem")
    if t is None:
        return None
    reserved = np.nan_to_num(t["total_reserved_mb"], nan=0.0)
    key = np.stack([t["device"].astype(np.int64), t["component"].astype(np.int64)], axis=1)
    rows: list[dict[str, Any]] = []
    for device, component in np.unique(key, axis=0).tolist() if len(key) else []:
        mine = np.flatnonzero((key[:, 0] == device) & (key[:, 1] == component))
        mine = mine[np.argsort(t["ts_ns"][mine], kind="stable")]
        top = mine[int(np.argmax(reserved[mine]))]
        if reserved[top] <= 0:
            continue
        rows.append(
            {
                "device": trace.strings[device] if device >= 0 else "",
                "component": trace.strings[component] if component >= 0 else "",
                "peak_reserved_bytes": round(float(reserved[top]) * _MB),
                "peak_ts_ns": int(t["ts_ns"][top]),
                "last_reserved_bytes": round(float(reserved[mine[-1]]) * _MB),
                "samples": len(mine),
            }
        )
    rows.sort(key=lambda r: (r["device"], -r["peak_reserved_bytes"], r["component"]))
    return rows
