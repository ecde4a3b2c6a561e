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

from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.perf.op_work import COUNTED, OpWork
from mindinsight_profiler.analysis.perf.perf_rows import CallFigures, figures, round_figure
from mindinsight_profiler.analysis.perf.roofline import Device
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace


def kernel_owners(trace: Trace, work: OpWork) -> tuple[np.ndarray, np.ndarray]:
    """(non-communication device events launched under a counted call, the `work` row of
    that call)."""
    ev = trace.events
    n = len(ev["kind"])
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & ~comm_kernel_mask(trace))
    runtime = ev["caller"][dev]
    node = np.where(runtime >= 0, ev["caller"][np.clip(runtime, 0, None)], -1)
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
    dur = (ev["end_ns"] - ev["start_ns"])[kernels].astype(np.float64)
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
        n = len(mine)
        out.append({
            "name": trace.strings[code], "input_shapes": "", "dtype": dtype,
            "category": category, "calls": n,
            "gflops_per_call": round_figure(flops / n / 1e9),
            "gbytes_per_call": round_figure(known / n / 1e9) if known is not None else None,
            "time_us": round(time_ns / 1000.0, 3),
            **figures(device, flops, known, time_ns, dtype, category),
            "longest_call_ns": [int(ev["start_ns"][longest]), int(ev["end_ns"][longest])],
        })  # fmt: skip
    out.sort(key=lambda r: (-r["time_us"], r["name"]))
    return out
