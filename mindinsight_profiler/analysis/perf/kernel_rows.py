"""Roofline rows per kernel name, where a kernel is the whole of one operator call's work.

A counted call that launches exactly one kernel (a cuBLAS GEMM under `aten::mm`, a cuDNN
convolution under `aten::cudnn_convolution`) gives that kernel its FLOPs and bytes; a call
that launches several (a convolution with a transpose kernel beside it, an optimizer step
over many tensors) does not say how its work splits between them, so its kernels are left
out rather than guessed. Communication kernels are never compute. Time is each kernel's own
duration, so achieved throughput is the kernel's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.perf.op_work import (
    COUNTED,
    OpWork,
    compute_device_events,
    launching_ops,
)
from mindinsight_profiler.analysis.perf.perf_rows import CallFigures, perf_row
from mindinsight_profiler.analysis.perf.roofline import Device
from mindinsight_profiler.model.trace import Trace


def kernel_owners(trace: Trace, work: OpWork) -> tuple[np.ndarray, np.ndarray]:
    """(non-communication device events launched under a counted call, the `work` row of
    that call)."""
    ev = trace.events
    n = len(ev["kind"])
    dev = compute_device_events(trace)
    node = launching_ops(trace, dev)
    row_of = np.full(n, -1, dtype=np.int64)
    counted_rows = np.flatnonzero(work.status == COUNTED)
    row_of[work.event[counted_rows]] = counted_rows
    owner = np.full(len(dev), -1, dtype=np.int64)
    for _ in range(n + 1):  # up the launcher's ancestors until a counted call is found
        look = np.flatnonzero((owner < 0) & (node >= 0))
        if not len(look):
            break
        hit = row_of[node[look]]
        owner[look] = hit
        node[look] = np.where(hit >= 0, -1, ev["parent"][node[look]])
    keep = owner >= 0
    return dev[keep], owner[keep]


def kernel_rows(
    trace: Trace, work: OpWork, calls: CallFigures, device: Device
) -> list[dict[str, Any]]:
    """One row per kernel name over its single-kernel calls, most time first."""
    kernels, owner = kernel_owners(trace, work)
    if not len(kernels):
        return []
    per_owner = np.bincount(owner, minlength=len(work.event))
    alone = per_owner[owner] == 1
    kernels, owner = kernels[alone], owner[alone]
    ev = trace.events
    names = ev["name"][kernels].astype(np.int64)
    dur = (ev["end_ns"][kernels] - ev["start_ns"][kernels]).astype(np.float64)
    out = []
    for code in np.unique(names).tolist():
        mine = np.flatnonzero(names == code)
        rows = owner[mine]
        flops = float(calls.flops[rows].sum())
        total_bytes = float(calls.bytes[rows].sum())
        known = None if np.isnan(total_bytes) else total_bytes
        time_ns = float(dur[mine].sum())
        top = int(rows[np.argmax(calls.flops[rows])])
        dtype, category = calls.dtype(top), calls.categories[int(calls.result[top])]
        longest = int(kernels[mine[np.argmax(dur[mine])]])
        out.append(perf_row(trace, trace.strings[code], "", dtype, category, len(mine), flops,
                            known, time_ns, longest, device))  # fmt: skip
    out.sort(key=lambda r: (-r["time_us"], r["name"]))
    return out
