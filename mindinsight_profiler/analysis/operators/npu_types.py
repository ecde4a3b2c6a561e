"""Statistics per NPU operator type (Conv2D, TransData, ...) computed from kernel events.

Ascend kernels are named per instance (`Conv2D1`, `trans_TransData_0`), so the useful
grouping is the op type and the core it ran on, which only `kernel_details.csv` names.
The reader links each of its rows to a kernel event (side table `kernel_details`, column
`event`); the times here are the events' own, so they can be checked against the tool's
`op_statistic.csv`. Communication ops are left out, as the tool does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

Table = dict[str, list[Any]]


def op_type_statistics(trace: Trace) -> Table | None:
    """Rows (op type, core type, count, total/avg/min/max ns), most total time first.

    None when the trace has no kernel_details side table, or when it names no op type (a
    level-0 export writes "N/A" in every Type cell): then there are no op types to group by,
    and one nameless type holding all the time would say nothing.
    """
    kd = trace.tables.get("kernel_details")
    if kd is None or "event" not in kd:
        return None
    ev = trace.events
    event = kd["event"]
    ok = event >= 0
    ok[ok] = (ev["kind"][event[ok]] == Kind.KERNEL) & ~comm_kernel_mask(trace)[event[ok]]
    ok &= kd["op_type"] >= 0
    if not ok.any():
        return None
    event = event[ok]
    type_code = kd["op_type"][ok].astype(np.int64)
    core_code = kd["core_type"][ok].astype(np.int64)
    dur = ev["end_ns"][event] - ev["start_ns"][event]
    pairs = np.stack([type_code, core_code], axis=1)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True) if len(pairs) else (pairs, event)
    inv = inv.ravel()
    g = len(uniq)
    count = np.bincount(inv, minlength=g)
    total = np.bincount(inv, weights=dur, minlength=g).astype(np.int64)
    mins = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
    maxs = np.zeros(g, dtype=np.int64)
    np.minimum.at(mins, inv, dur)
    np.maximum.at(maxs, inv, dur)
    order = np.argsort(-total, kind="stable")
    lookup = trace.strings.lookup
    return {
        "op_type": lookup(uniq[order, 0]),
        "core_type": lookup(uniq[order, 1]),
        "count": count[order].tolist(),
        "total_ns": total[order].tolist(),
        "avg_ns": (total[order] / np.maximum(count[order], 1)).tolist(),
        "min_ns": mins[order].tolist(),
        "max_ns": maxs[order].tolist(),
    }
