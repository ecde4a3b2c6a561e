"""Facts: the host's CPUs taken from a CPU-only run (preemption, contention between steps).

On a run without an accelerator the operators' host self time is the compute, so a slowdown
that no input explains is the machine's: other processes (or loader workers, or more
intra-op threads than cores) took the CPUs. Two signatures, each measured against the run
itself rather than a model of the hardware:

- *preemption*: an operator type whose calls normally take well under a millisecond has
  calls that last milliseconds longer (the process was descheduled mid-call: on a shared
  VM they come in multiples of the scheduler tick, ~4 ms);
- *contention between steps*: the same operator types take several times longer per call
  in some steps than in the run's own fastest step (OpenMP-parallel ones most: a barrier
  waits a scheduler slice per parallel region when a thread lacks its core).

Both are unavailable on runs with a device: there host operator time holds launches and
waits for the device, which vary with the device's work, not with the CPUs.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.operators import tree_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.sync_inferred import ran_on_device
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import is_comm_op_name
from mindinsight_profiler.model.kinds import Kind

#: A type is "tiny" when a quarter of its calls take under this (ns) ...
TINY_NS = 1_000_000
#: ... and a call of it is preempted when it lasts this much (ns) longer than that.
PREEMPTED_EXTRA_NS = 3_000_000
#: Calls of one type needed before its usual time is known.
MIN_CALLS = 4
#: A type is slowed in a step when its mean call there is this many times its fastest step's.
SLOWDOWN = 3.0
#: Steps needed to compare steps with each other.
MIN_STEPS = 3

NEEDS = "a CPU-only run's operators (host self time is the compute there)"


def _calls(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(type code, self ns, start ns) of every operator call, sorted by start."""
    if "host_cpu.calls" in ctx.memo:
        return ctx.memo["host_cpu.calls"]
    trace = ctx.trace
    if ctx.report.get("device_type") != "cpu":
        raise Unavailable("the run has a device: host operator time is not its compute")
    if trace is None or not (trace.kind == Kind.CPU_OP).any():
        raise Unavailable(f"needs {NEEDS}")
    if ran_on_device(trace):
        raise Unavailable("a host-only trace of a device job: its operators launch, not compute")
    tree = tree_of(ctx, trace)
    # collectives (gloo) wait for the other ranks: their time is not this host's compute
    comm = trace.names_matching(is_comm_op_name)[tree.index]
    rows = tree.is_row & (trace.events["kind"][tree.index] == Kind.CPU_OP) & ~comm
    index = tree.index[rows]
    start = trace.events["start_ns"][index]
    order = np.argsort(start, kind="stable")
    out = (
        trace.events["name"][index][order],
        tree.host_self_ns[rows][order].astype(np.int64),
        start[order],
    )
    ctx.memo["host_cpu.calls"] = out
    return out


def _window_us(ctx: Context) -> tuple[float, int]:
    steps = ctx.report.get("steps") or {}
    durations = [float(d) for d in steps.get("durations_us") or []]
    if not durations or sum(durations) <= 0:
        raise Unavailable("needs at least one step")
    return sum(durations), len(durations)


def _preempted(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(mask over calls, extra ns per call): calls of tiny types that ran far too long.

    A type's first call is left out (first calls allocate and initialise), and its usual
    time is the 25th percentile of the rest, so that even a type preempted in half its
    calls keeps a true baseline.
    """
    names, self_ns, _ = _calls(ctx)
    extra = np.zeros(len(names), dtype=np.int64)
    mask = np.zeros(len(names), dtype=bool)
    types, inverse = np.unique(names, return_inverse=True)
    for t in range(len(types)):
        at = np.flatnonzero(inverse == t)[1:]  # sorted by start: [0] is the first call
        if len(at) < MIN_CALLS:
            continue
        base = np.percentile(self_ns[at], 25)
        if base >= TINY_NS:
            continue
        over = self_ns[at] - base
        hit = at[over >= PREEMPTED_EXTRA_NS]
        mask[hit] = True
        extra[hit] = over[over >= PREEMPTED_EXTRA_NS].astype(np.int64)
    return mask, extra


@fact(
    "host.preempted_us",
    "us",
    "Per-step average of the extra time of preempted operator calls on a CPU-only run: calls "
    "of a type that usually takes under 1 ms (its 25th percentile, first call left out) "
    "lasting 3 ms or more beyond that, microseconds. Evidence: the longest such calls.",
    NEEDS,
)
def preempted_us(ctx: Context) -> Observed:
    mask, extra = _preempted(ctx)
    _, count = _window_us(ctx)
    names, self_ns, start = _calls(ctx)
    trace = ctx.trace
    assert trace is not None
    worst = np.flatnonzero(mask)[np.argsort(-extra[mask], kind="stable")[:5]]
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("event", name=trace.strings[int(names[i])], us=float(self_ns[i]) / 1000.0),
            page="timeline",
            value=float(self_ns[i]) / 1000.0,
            unit="us",
            start_ns=int(start[i]),
            end_ns=int(start[i] + self_ns[i]),
        )
        for i in worst
    )
    return Observed(float(extra.sum()) / 1000.0 / count, evidence)


@fact(
    "host.preempted_calls",
    "count",
    "Number of preempted operator calls in the window (see host.preempted_us).",
    NEEDS,
)
def preempted_calls(ctx: Context) -> int:
    return int(_preempted(ctx)[0].sum())


@fact(
    "host.preempted_share",
    "ratio",
    "host.preempted_us over the average step: the share of the step lost to the process "
    "being descheduled in the middle of short operators.",
    NEEDS,
)
def preempted_share(ctx: Context) -> Observed:
    got = preempted_us(ctx)
    total, count = _window_us(ctx)
    return Observed(got.value / (total / count), got.evidence)


def _contention(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(excess ns per step, slowdown per (type, step), excess ns per type) against each
    type's fastest step; only (type, step) pairs slowed at least SLOWDOWN times count."""
    if "host_cpu.contention" not in ctx.memo:
        ctx.memo["host_cpu.contention"] = _compare_steps(ctx)
    return ctx.memo["host_cpu.contention"]


def _compare_steps(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    names, self_ns, start = _calls(ctx)
    _, count = _window_us(ctx)
    if count < MIN_STEPS:
        raise Unavailable(f"needs at least {MIN_STEPS} steps to compare (this run has {count})")
    step = step_of(ctx, start)
    keep = step >= 0
    types, inverse = np.unique(names[keep], return_inverse=True)
    cell = inverse * count + step[keep]
    size = len(types) * count
    total = np.bincount(cell, weights=self_ns[keep], minlength=size).reshape(len(types), count)
    calls = np.bincount(cell, minlength=size).reshape(len(types), count)
    mean = np.where(calls > 0, total / np.maximum(calls, 1), np.nan)
    fastest = np.nanmin(np.where(np.isnan(mean), np.inf, mean), axis=1)
    ratio = np.where(calls > 0, mean / np.maximum(fastest, 1.0)[:, None], 0.0)
    slowed = (ratio >= SLOWDOWN) & ((calls > 0).sum(axis=1) >= 2)[:, None]
    excess = np.where(slowed, total - calls * fastest[:, None], 0.0)
    return excess.sum(axis=0), np.where(slowed, ratio, 0.0), excess.sum(axis=1)


@fact(
    "host.contention_us",
    "us",
    "Per-step average of operator time beyond each operator type's own fastest step, counting "
    "only types that run at least 3x slower per call in a step (CPU-only runs, 3+ steps), "
    "microseconds. Evidence: the steps that lost the most.",
    NEEDS,
)
def contention_us(ctx: Context) -> Observed:
    excess, _, _ = _contention(ctx)
    names, _, _ = step_windows(ctx)
    worst = np.argsort(-excess, kind="stable")[:3]
    evidence = tuple(
        Evidence(
            kind="step",
            **label("step", step=names[i]),
            page="overview",
            value=float(excess[i]) / 1000.0,
            unit="us",
            step=names[i],
        )
        for i in worst
        if excess[i] > 0
    )
    return Observed(float(excess.sum()) / 1000.0 / len(excess), evidence)


@fact(
    "host.contention_share",
    "ratio",
    "host.contention_us over the average step: the share of the window lost to operators "
    "running several times slower than they do in the run's own fastest step.",
    NEEDS,
)
def contention_share(ctx: Context) -> Observed:
    got = contention_us(ctx)
    total, count = _window_us(ctx)
    return Observed(got.value / (total / count), got.evidence)


@fact(
    "host.contention_slowdown",
    "number",
    "Median slowdown (x, per call against the type's fastest step) over the slowed "
    "(operator type, step) pairs that host.contention_us counts.",
    NEEDS,
)
def contention_slowdown(ctx: Context) -> float | None:
    _, ratio, _ = _contention(ctx)
    slowed = ratio[ratio > 0]
    return float(np.median(slowed)) if len(slowed) else 1.0


@fact(
    "host.contention_types",
    "count",
    "Operator types that each lose at least 1 % of the window to the slowdown host."
    "contention_us counts: the machine taking the CPUs slows many types at once, one "
    "preempted call slows one.",
    NEEDS,
)
def contention_types(ctx: Context) -> int:
    _, _, per_type = _contention(ctx)
    total, _ = _window_us(ctx)
    return int((per_type >= 0.01 * total * 1000.0).sum())
