"""Facts: what host-device synchronisation really costs, and which copies cause it.

A blocking call (cudaStreamSynchronize behind `.item()`, a synchronous cudaMemcpy) stalls
the host, but the step only loses the part of that wait during which the device has
nothing to do: a sync that waits 359 ms while the GPU is busy for 353 ms of it costs 6 ms
(issue 18). So the cost here is always the blocked time *not covered by device work*.

The usual culprit in training loops is a small device-to-host copy read by Python every
step (a loss `.item()`, `.cpu()` of a metric, `nonzero()` sizing its output): the copy
itself takes microseconds, the wait for the queue ahead of it is what blocks. Those copies
are found through their runtime call's operator, with the Python line that made the call
where the trace has Python stacks (with_stack=True).
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events, totals_by
from mindinsight_profiler.advisor.facts.host import blocking_in_steps, top_level_op
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

NEEDS = "a GPU trace with runtime API events"
#: Frames of libraries, not of the user's program: the Python line shown is the innermost
#: frame outside them.
_LIBRARY = ("site-packages/", "dist-packages/", "torch/", "<built-in", "<frozen")
#: Frames that start before an event but may enclose it: bounded, so that a trace with
#: millions of frames costs a fixed amount per copy.
_LOOKBACK = 4096


def _device_busy(trace: Trace) -> iv.Ranges:
    ev = trace.events
    work = is_kind(ev["kind"], DEVICE_KINDS) & (ev["device"] >= 0)
    return iv.union(ev["start_ns"][work], ev["end_ns"][work])


def exposed_ns(trace: Trace, calls: np.ndarray) -> int:
    """Host time blocked in `calls` while no device work runs (union: nested calls once)."""
    ev = trace.events
    blocked = iv.union(ev["start_ns"][calls], ev["end_ns"][calls])
    return iv.subtract(blocked, _device_busy(trace)).total()


@fact(
    "sync.exposed_us",
    "us",
    "Average per step of the host time blocked in the calls of sync.blocking_us while no "
    "device work (kernel, copy, set) runs: what the waits cost the step. Time the device "
    "spends busy while the host waits would be spent anyway.",
    NEEDS,
)
def sync_exposed_us(ctx: Context) -> float:
    trace, calls, _, _ = blocking_in_steps(ctx)
    names, _, _ = step_windows(ctx)
    return exposed_ns(trace, calls) / 1000.0 / len(names)


def _is_d2h(name: str) -> bool:
    return "DtoH" in name or "Device -> Pageable" in name or "Device -> Pinned" in name


def _d2h_syncs(ctx: Context) -> tuple[Trace, np.ndarray, np.ndarray, np.ndarray]:
    """(trace, D2H copies inside the steps whose operator blocks, their operator, the
    blocking calls of those operators). Memoised."""
    if "sync.d2h" in ctx.memo:
        return ctx.memo["sync.d2h"]
    if ctx.report.get("device_type") != "gpu":  # Ascend exports do not name copy directions
        raise Unavailable("needs a GPU trace (Kineto names device-to-host copies)")
    trace, calls, _, _ = blocking_in_steps(ctx)
    ev = trace.events
    copies = np.flatnonzero((ev["kind"] == Kind.MEMCPY) & trace.names_matching(_is_d2h))
    _, start, end = step_windows(ctx)
    i = np.searchsorted(start, ev["start_ns"][copies], side="right") - 1
    copies = copies[(i >= 0) & (ev["start_ns"][copies] < end[np.clip(i, 0, None)])]
    rt = ev["caller"][copies]
    op = np.where(rt >= 0, ev["caller"][np.clip(rt, 0, None)], -1)
    # the operator that issued the copy also waits for it (aten::_local_scalar_dense,
    # aten::copy_ of .cpu()), or the copy's own runtime call is the synchronous cudaMemcpy
    blockers = ev["caller"][calls]
    blocks = np.isin(op, blockers) & (op >= 0) | np.isin(rt, calls)
    copies, op = copies[blocks], op[blocks]
    waits = calls[np.isin(blockers, op) | np.isin(calls, ev["caller"][copies])]
    out = (trace, copies, op, waits)
    ctx.memo["sync.d2h"] = out
    return out


@fact(
    "sync.d2h_copies",
    "count",
    "Device-to-host copies per step whose operator then blocks the host until they land "
    "(the copy behind .item(), .cpu(), .tolist(), nonzero(), or a synchronous cudaMemcpy).",
    NEEDS,
)
def d2h_copies(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(_d2h_syncs(ctx)[1]) / len(names)


def python_frames(trace: Trace) -> dict[int, np.ndarray]:
    """The trace's python_function events (with_stack=True) per thread, sorted by start."""
    ev = trace.events
    frames = np.flatnonzero(ev["kind"] == Kind.PYTHON_FUNCTION)
    frames = frames[np.argsort(ev["start_ns"][frames], kind="stable")]
    tracks = ev["track"][frames]
    return {int(t): frames[tracks == t] for t in np.unique(tracks).tolist()}


def python_line(trace: Trace, frames: dict[int, np.ndarray], row: int) -> str | None:
    """The innermost frame of the user's program around event `row` (same thread), from
    `python_frames`; None without Python stacks. Looks at most _LOOKBACK frames back."""
    ev = trace.events
    mine = frames.get(int(ev["track"][row]))
    if mine is None:
        return None
    k = int(np.searchsorted(ev["start_ns"][mine], ev["start_ns"][row], side="right"))
    around = mine[max(0, k - _LOOKBACK) : k]
    around = around[ev["end_ns"][around] >= ev["end_ns"][row]]
    for f in around[::-1].tolist():  # innermost (latest start) first
        name = trace.strings[int(ev["name"][f])]
        if name and not any(lib in name for lib in _LIBRARY):
            return name
    return None


@fact(
    "sync.d2h_exposed_us",
    "us",
    "Average per step of the host time those operators block while no device work runs, "
    "microseconds (the part of sync.exposed_us due to reading device values). Evidence: the "
    "operators (top-level, e.g. aten::item) and the Python lines that read the values, and "
    "the longest waits on the timeline.",
    NEEDS,
)
def d2h_exposed_us(ctx: Context) -> Observed:
    trace, copies, _, waits = _d2h_syncs(ctx)
    if not len(copies):
        return Observed(0.0)
    names, _, _ = step_windows(ctx)
    ev = trace.events
    top = top_level_op(trace, ev["caller"][waits])
    outer = trace.strings.lookup(ev["name"][top])
    frames = python_frames(trace)
    keys = [(o or "(no operator)", python_line(trace, frames, int(t)) or "") for o, t in zip(
        outer, top.tolist(), strict=True)]  # fmt: skip
    evidence = totals_by(
        keys,
        (ev["end_ns"][waits] - ev["start_ns"][waits]).tolist(),
        lambda key, ns, count: label(
            "d2h_sync", name=key[0], line=key[1] or "-", calls=count, us=ns / 1000
        ),
        lambda key: key[0],
    )
    step = step_of(ctx, ev["start_ns"][waits])
    evidence += longest_events(trace, waits, names, step, trace.strings.lookup(
        ev["name"][ev["caller"][waits]]))  # fmt: skip
    return Observed(exposed_ns(trace, waits) / 1000.0 / len(names), tuple(evidence))


@fact(
    "sync.d2h_share",
    "ratio",
    "sync.d2h_exposed_us divided by sync.exposed_us (0..1): how much of what synchronisation "
    "costs comes from reading device values.",
    NEEDS,
)
def d2h_share(ctx: Context) -> float:
    total = ctx.value("sync.exposed_us")
    part = ctx.value("sync.d2h_exposed_us")
    if total is None or part is None:
        raise Unavailable(f"needs {NEEDS}")
    return min(part / total, 1.0) if total > 0 else 0.0


#: A kernel this long outlasts any asynchronous launch (~5-20 us), so a launch call that
#: returns only after it ended was made to wait: CUDA_LAUNCH_BLOCKING=1.
LONG_KERNEL_NS = 50_000
#: Fewer long kernels than this say nothing either way.
MIN_LONG_KERNELS = 10


@fact(
    "launch.blocking_share",
    "ratio",
    "Share (0..1) of the kernels longer than 50 us inside the steps whose launch call "
    "returned only after the kernel had finished: launches that wait for the device, as "
    "CUDA_LAUNCH_BLOCKING=1 / HIP_LAUNCH_BLOCKING=1 make every launch do (an asynchronous "
    "launch returns in microseconds). Evidence: the longest such launches.",
    f"a GPU trace with launch correlations and at least {MIN_LONG_KERNELS} kernels of 50 us",
)
def launch_blocking_share(ctx: Context) -> Observed:
    if ctx.report.get("device_type") != "gpu":  # Ascend launches go through a task queue
        raise Unavailable("needs a GPU run (CUDA/HIP launches)")
    trace, _, _, _ = blocking_in_steps(ctx)
    ev = trace.events
    kernels = np.flatnonzero((ev["kind"] == Kind.KERNEL) & (ev["caller"] >= 0))
    kernels = kernels[ev["end_ns"][kernels] - ev["start_ns"][kernels] >= LONG_KERNEL_NS]
    step = step_of(ctx, ev["start_ns"][kernels])
    kernels, step = kernels[step >= 0], step[step >= 0]
    rt = ev["caller"][kernels]
    kernels, step, rt = kernels[rt >= 0], step[rt >= 0], rt[rt >= 0]
    if len(kernels) < MIN_LONG_KERNELS:
        raise Unavailable(f"fewer than {MIN_LONG_KERNELS} kernels of 50 us or more in the steps")
    waited = ev["end_ns"][rt] >= ev["end_ns"][kernels]
    names, _, _ = step_windows(ctx)
    op = ev["caller"][rt[waited]]
    ops = trace.strings.lookup(np.where(op >= 0, ev["name"][np.clip(op, 0, None)], -1))
    evidence = longest_events(trace, rt[waited], names, step[waited], ops)
    return Observed(float(waited.mean()), tuple(evidence))
