"""Facts: host-side overhead of a GPU run (launch time, CPU-only time, launch-bound kernels,
blocking synchronisation).

The launch and CPU shares re-expose the step breakdown, but only for runs that have device
kernels: on a CPU-only run every host operator is "CPU Exec" and nothing is launched, so
these facts would read as "100 % host-bound" or "no launch overhead" when the question does
not apply; there they are unavailable instead.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import (
    NEEDS_GPU,
    device_timeline,
    gpu_section,
    gpu_trace,
    step_of,
    step_windows,
)
from mindinsight_profiler.advisor.facts.evidence import longest_events, totals_by
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import Label, label
from mindinsight_profiler.analysis.categories import (
    is_blocking_call,
    is_step_name,
    sync_copy_launches,
)
from mindinsight_profiler.analysis.memory.records import innermost_op
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace


def _gpu_breakdown(ctx: Context, category: str) -> Observed:
    gpu_section(ctx)
    got = ctx.get(f"breakdown.{category}_us")
    if got is None:
        raise Unavailable("needs a step-time breakdown")
    return got


for _category, _what in (
    ("runtime", "in kernel-launch and other runtime API calls while no device work runs"),
    ("cpu_exec", "in host operators while no device work, launch or data loading runs"),
):

    def _us(ctx: Context, category: str = _category) -> Observed:
        return _gpu_breakdown(ctx, category)

    def _share(ctx: Context, category: str = _category) -> Observed:
        got = _gpu_breakdown(ctx, category)
        average = ctx.value("step.average_us")
        if not average:
            raise Unavailable("needs at least one step")
        return Observed(float(got.value) / average, got.evidence)

    _name = "launch" if _category == "runtime" else "cpu_exec"
    fact(
        f"host.{_name}_us",
        "us",
        f"Average per-step time {_what} (the breakdown's {_category}), microseconds; GPU runs "
        "only. Evidence: every step.",
        NEEDS_GPU,
    )(_us)
    fact(
        f"host.{_name}_share",
        "ratio",
        f"host.{_name}_us divided by the average step time (0..1); GPU runs only.",
        NEEDS_GPU,
    )(_share)


def _launch_bound(ctx: Context) -> dict[str, np.ndarray]:
    """Kernels in the steps, whether each is launch-bound, and the idle it left (memoised)."""
    if "host.launch_bound" in ctx.memo:
        return dict(ctx.memo["host.launch_bound"])
    trace = gpu_trace(ctx)
    ev = trace.events
    tl = device_timeline(ctx)
    is_kernel = ev["kind"][tl["index"]] == Kind.KERNEL
    step = step_of(ctx, tl["start"])
    sel = is_kernel & (step >= 0)
    k = tl["index"][sel]
    runtime = ev["caller"][k]
    has = runtime >= 0
    rt = np.clip(runtime, 0, None)
    launch_ns = np.where(has, ev["end_ns"][rt] - ev["start_ns"][rt], 0)
    kernel_ns = ev["end_ns"][k] - ev["start_ns"][k]
    idle = tl["idle_before"][sel]
    bound = has & (kernel_ns < launch_ns) & (idle > 0)
    out = {"bound": bound, "saving_ns": np.where(bound, np.minimum(idle, launch_ns), 0)}
    ctx.memo["host.launch_bound"] = out
    return dict(out)


@fact(
    "kernels.launch_bound_share",
    "ratio",
    "Share (0..1) of the kernels in the steps that are launch-bound: shorter than the "
    "runtime call that launched them, and started on an idle device (nothing running on any "
    "stream just before), so the device waited for the launch.",
    "a GPU trace with launch correlations",
)
def launch_bound_share(ctx: Context) -> float:
    bound = _launch_bound(ctx)["bound"]
    if not len(bound):
        raise Unavailable("no kernels inside the steps")
    return float(bound.mean())


@fact(
    "kernels.launch_bound_us",
    "us",
    "Average per step of the device idle time before launch-bound kernels, each gap capped at "
    "its launch call's duration (what fusing or graph capture could save), microseconds.",
    "a GPU trace with launch correlations",
)
def launch_bound_us(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return float(_launch_bound(ctx)["saving_ns"].sum()) / 1000.0 / len(names)


def top_level_op(trace: Trace, op: np.ndarray) -> np.ndarray:
    """The outermost operator (CPU op, not a step) that contains each operator, e.g.
    aten::item around aten::_local_scalar_dense."""
    ev = trace.events
    steps = trace.strings.codes_where(is_step_name)
    cur = op.copy()
    for _ in range(64):
        parent = ev["parent"][cur]
        p = np.clip(parent, 0, None)
        up = (parent >= 0) & (ev["kind"][p] == Kind.CPU_OP) & ~np.isin(ev["name"][p], steps)
        if not up.any():
            break
        cur = np.where(up, parent, cur)
    return cur


def calling_op(trace: Trace, calls: np.ndarray) -> np.ndarray:
    """The operator that made each runtime call, or -1.

    Kineto links a call to its operator; torch_npu records CANN calls on a `CANN` process
    whose thread ids are the calling Python threads', so there the caller is the innermost
    operator open on the host thread of the same id when the call starts.
    """
    ev = trace.events
    op = ev["caller"][calls].copy()
    loose = np.flatnonzero(op < 0)
    if not len(loose):
        return op
    by_tid = {t.tid: i for i, t in enumerate(trace.tracks)
              if not t.is_device and t.process_name != "CANN"}  # fmt: skip
    tids = [trace.tracks[t].tid for t in ev["track"][calls[loose]].tolist()]
    host = np.array([by_tid.get(t, -1) for t in tids], dtype=np.int64)
    found = innermost_op(trace, host, ev["start_ns"][calls[loose]])
    op[loose] = np.where(host >= 0, found, -1)
    return op


def blocking_in_steps(ctx: Context) -> tuple[Trace, np.ndarray, np.ndarray, np.ndarray]:
    """(trace, blocking runtime calls made by an operator inside the steps, their step,
    their calling operator).

    Calls with no calling operator or step range are left out: the one trace-wide
    cudaDeviceSynchronize every Kineto trace has (aclrtSynchronizeDevice on Ascend) is the
    profiler's own, made when it stops. The launch of a device-to-host copy into pageable
    memory blocks like a synchronize (`sync_copy_launches`), so it counts as one.
    """
    trace = gpu_trace(ctx)
    ev = trace.events
    if not (ev["kind"] == Kind.RUNTIME).any():
        raise Unavailable("the trace has no runtime API events")
    if (
        ctx.report.get("device_type") == "npu"
        and not trace.names_matching(lambda s: s.startswith("AscendCL@")).any()
    ):
        # torch_npu's Level0 records no CANN layer: zero syncs would be a guess, not a finding
        raise Unavailable("the export has no AscendCL API calls (profile with Level1 or higher)")
    calls = np.flatnonzero(
        (ev["kind"] == Kind.RUNTIME)
        & (trace.names_matching(is_blocking_call) | sync_copy_launches(trace))
    )
    op = calling_op(trace, calls)
    calls, op = calls[op >= 0], op[op >= 0]
    step = step_of(ctx, ev["start_ns"][calls])
    inside = step >= 0
    return trace, calls[inside], step[inside], op[inside]


@fact(
    "sync.blocking_calls",
    "count",
    "Blocking synchronisations per step made by the program: cuda/hip/ACL Device-, Stream- "
    "and EventSynchronize, synchronous (non-Async) memcpy/memset calls (on Ascend the "
    "AscendCL@aclrt* calls of the CANN layer, e.g. under aten::item), and the launches of "
    "device-to-host copies into pageable memory (which return only when the copy is done).",
    "a GPU trace with runtime API events",
)
def blocking_calls(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(blocking_in_steps(ctx)[1]) / len(names)


@fact(
    "sync.blocking_us",
    "us",
    "Average per-step host time blocked in those calls, microseconds. Evidence: the operators "
    "that made them (innermost and top-level, e.g. aten::_local_scalar_dense in aten::item) "
    "and the longest calls as timeline ranges.",
    "a GPU trace with runtime API events",
)
def blocking_us(ctx: Context) -> Observed:
    trace, calls, step, op = blocking_in_steps(ctx)
    names, _, _ = step_windows(ctx)
    ev = trace.events
    dur = ev["end_ns"][calls] - ev["start_ns"][calls]
    top = top_level_op(trace, op)
    keys = list(
        zip(
            trace.strings.lookup(ev["name"][op]),
            trace.strings.lookup(ev["name"][top]),
            trace.strings.lookup(ev["name"][calls]),
            strict=True,
        )
    )

    def text(key: tuple[str, str, str], ns: int, count: int) -> Label:
        inner, outer, api = key
        if outer != inner:
            return label("api_calls_in", api=api, inner=inner, outer=outer, calls=count,
                         us=ns / 1000)  # fmt: skip
        return label("api_calls", api=api, where=inner, calls=count, us=ns / 1000)

    evidence = totals_by(keys, dur.tolist(), text, lambda key: key[1])
    evidence += longest_events(trace, calls, names, step, [k[0] for k in keys])
    return Observed(float(dur.sum()) / 1000.0 / len(names), tuple(evidence))
