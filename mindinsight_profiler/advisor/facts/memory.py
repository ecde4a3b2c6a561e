"""Facts: host <-> device memory traffic and device-memory allocator calls.

Both are read from the trace's events: Kineto names every copy after its direction and the
kind of host memory ("Memcpy HtoD (Pageable -> Device)"), and records the allocator's runtime
calls (cudaMalloc, cudaFree, ...) like any other runtime API call.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import gpu_trace, step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events, totals_by
from mindinsight_profiler.advisor.facts.host import calling_op
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.steps.window import one_off_ranges
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

#: Device and pinned-host allocator calls (not the stream-ordered *Async ones, which are cheap).
ALLOCATOR_CALLS = frozenset(
    {
        "cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
        "cudaMallocManaged", "cudaMallocPitch", "cuMemAlloc", "cuMemFree", "cuMemAlloc_v2",
        "cuMemFree_v2", "hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree",
        "hipMallocManaged", "hipExtMallocWithFlags",
        "aclrtMalloc", "aclrtFree", "aclrtMallocHost", "aclrtFreeHost", "aclrtMallocCached",
        "aclMallocMemInner",
    }
)  # fmt: skip


def _is_allocator(name: str) -> bool:
    """An allocator call, also under the `AscendCL@` prefix torch_npu's exports give ACL calls."""
    return name.removeprefix("AscendCL@") in ALLOCATOR_CALLS


def _is_pageable_h2d(name: str) -> bool:
    return "HtoD" in name and "Pageable" in name


def _in_steps(ctx: Context, rows: np.ndarray, trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    step = step_of(ctx, trace.events["start_ns"][rows])
    return rows[step >= 0], step[step >= 0]


def _calling_op(trace: Trace, device_rows: np.ndarray) -> list[str]:
    """The operator that launched each device item (device item -> runtime -> operator)."""
    ev = trace.events
    rt = ev["caller"][device_rows]
    op = np.where(rt >= 0, ev["caller"][np.clip(rt, 0, None)], -1)
    codes = np.where(op >= 0, ev["name"][np.clip(op, 0, None)], -1)
    return [s or "(no operator)" for s in trace.strings.lookup(codes)]


def _pageable(ctx: Context) -> tuple[Trace, np.ndarray, np.ndarray]:
    trace = gpu_trace(ctx)
    if ctx.report.get("device_type") == "npu":
        # 0 copies would read as "all pinned": the Ascend exports name no host memory kind
        raise Unavailable("Ascend exports do not say whether a copy's host memory is pinned")
    ev = trace.events
    copies = np.flatnonzero(ev["kind"] == Kind.MEMCPY)
    copies = copies[trace.names_matching(_is_pageable_h2d)[copies]]
    rows, step = _in_steps(ctx, copies, trace)
    return trace, rows, step


@fact(
    "memcpy.pageable_h2d_calls",
    "count",
    "Host-to-device copies from pageable (not pinned) host memory per step ('Memcpy HtoD "
    "(Pageable -> Device)'): each is staged through a driver buffer and cannot overlap compute.",
    "a GPU trace",
)
def pageable_calls(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(_pageable(ctx)[1]) / len(names)


@fact(
    "memcpy.pageable_h2d_us",
    "us",
    "Average per-step device time of those copies, microseconds. Evidence: the operators "
    "that issued them and the longest copies as timeline ranges.",
    "a GPU trace",
)
def pageable_us(ctx: Context) -> Observed:
    trace, rows, step = _pageable(ctx)
    names, _, _ = step_windows(ctx)
    ev = trace.events
    dur = ev["end_ns"][rows] - ev["start_ns"][rows]
    ops = _calling_op(trace, rows)
    evidence = totals_by(
        ops,
        dur.tolist(),
        lambda op, ns, count: label("pageable_copies", name=op, calls=count, us=ns / 1000),
        str,
    )
    evidence += longest_events(trace, rows, names, step, ops)
    return Observed(float(dur.sum()) / 1000.0 / len(names), tuple(evidence))


def _allocator(ctx: Context) -> tuple[Trace, np.ndarray]:
    trace = gpu_trace(ctx)
    ev = trace.events
    runtime = ev["kind"] == Kind.RUNTIME
    if not runtime.any():
        raise Unavailable("the trace has no runtime API events")
    calls = np.flatnonzero(runtime & trace.names_matching(_is_allocator))
    calls = _in_steps(ctx, calls, trace)[0]
    # the first cudaFree creates the context, a warm-up step grows the cache: one-off work
    # (analysis/steps/window.py), not allocator churn of the steady state
    if "alloc.one_off" not in ctx.memo:
        ctx.memo["alloc.one_off"] = one_off_ranges(trace)
    return trace, calls[~iv.contains(ctx.memo["alloc.one_off"], ev["start_ns"][calls])]


@fact(
    "alloc.host_total_us",
    "us",
    "Host time in device/pinned-memory allocator calls (cudaMalloc, cudaFree, cudaHostAlloc, "
    "hipMalloc, aclrtMalloc, aclMallocMemInner, ...) over all steps, microseconds, leaving out "
    "calls in one-off work (initialisation, compile, capture, warm-up ranges). Evidence: "
    "the calling operators.",
    "a GPU trace with runtime API events",
)
def alloc_total_us(ctx: Context) -> Observed:
    trace, calls = _allocator(ctx)
    ev = trace.events
    dur = ev["end_ns"][calls] - ev["start_ns"][calls]
    op = calling_op(trace, calls)
    ops = trace.strings.lookup(np.where(op >= 0, ev["name"][np.clip(op, 0, None)], -1))
    apis = trace.strings.lookup(ev["name"][calls])
    keys = [(name or "(no operator)", api) for name, api in zip(ops, apis, strict=True)]
    evidence = totals_by(
        keys,
        dur.tolist(),
        lambda key, ns, count: label(
            "api_calls", api=key[1], where=key[0], calls=count, us=ns / 1000
        ),
        lambda key: key[0],
        top=10,
    )
    return Observed(float(dur.sum()) / 1000.0, tuple(evidence))


@fact(
    "alloc.host_us",
    "us",
    "alloc.host_total_us averaged per step, microseconds.",
    "a GPU trace with runtime API events",
)
def alloc_us(ctx: Context) -> float | None:
    total = ctx.value("alloc.host_total_us")
    names, _, _ = step_windows(ctx)
    return None if total is None else total / len(names)


@fact(
    "alloc.calls",
    "count",
    "Number of allocator calls (see alloc.host_total_us) over all steps.",
    "a GPU trace with runtime API events",
)
def alloc_calls(ctx: Context) -> int:
    return len(_allocator(ctx)[1])
