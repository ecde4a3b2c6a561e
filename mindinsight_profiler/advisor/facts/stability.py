"""Facts: step stability (outlier steps, time nothing accounts for, memory growing per step).

Outliers use the median and the median absolute deviation rather than the mean and the
standard deviation: profiles hold few steps (5-10), and one 10x step inflates the mean and
sigma so much that "mean + 3 sigma" can never flag it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.facts.steps import step_evidence
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import is_step_name
from mindinsight_profiler.analysis.intervals import union
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind

#: Outlier statistics need at least this many steps.
MIN_STEPS = 4
#: Gaps shorter than this are Python overhead between operators, not a missing activity.
MIN_GAP_NS = 1_000_000


def _durations(ctx: Context, minimum: int = MIN_STEPS, averaged: bool = False) -> np.ndarray:
    """Every step's duration; with `averaged`, only the steps the report's averages cover.

    MindSpore's first step carries graph compilation and is left out of its averages
    (`steps.averaged_from`); an outlier test that counted it would report the one-off
    compilation as a slow step on every graph-mode run.
    """
    steps = ctx.report.get("steps") or {}
    durations = np.asarray(steps.get("durations_us") or [], dtype=np.float64)
    if averaged:
        durations = durations[int(steps.get("averaged_from") or 0) :]
    if len(durations) < minimum:
        raise Unavailable(f"needs at least {minimum} steps (this run has {len(durations)})")
    return durations


def _left_out(ctx: Context) -> list[None]:
    """Padding that lines `_durations(ctx, averaged=True)` up with the report's steps."""
    return [None] * int((ctx.report.get("steps") or {}).get("averaged_from") or 0)


@fact(
    "stability.median_step_us",
    "us",
    "Median step duration, microseconds. Like the other step-outlier facts, it covers the "
    "steps the report averages (MindSpore leaves out the compiling first step).",
    f"at least {MIN_STEPS} steps",
)
def median_step_us(ctx: Context) -> float:
    return float(np.median(_durations(ctx, averaged=True)))


@fact(
    "stability.max_over_median",
    "ratio",
    "Longest step divided by the median step (1 = no step is slower than the median); "
    "evidence: the three longest steps.",
    f"at least {MIN_STEPS} steps",
)
def max_over_median(ctx: Context) -> Observed:
    d = _durations(ctx, averaged=True)
    values = [*_left_out(ctx), *d.tolist()]
    return Observed(float(d.max() / np.median(d)), step_evidence(ctx.report, values, top=3))


@fact(
    "stability.max_robust_z",
    "number",
    "How many robust standard deviations (1.4826 x the median absolute deviation) the "
    "longest step lies above the median; 1e9 when all other steps are equal.",
    f"at least {MIN_STEPS} steps",
)
def max_robust_z(ctx: Context) -> float:
    d = _durations(ctx, averaged=True)
    median = np.median(d)
    sigma = 1.4826 * float(np.median(np.abs(d - median)))
    return float((d.max() - median) / sigma) if sigma > 0 else 1e9


#: A step this much above the median (and `SLOW_Z` robust deviations) is slow; two of them in
#: one window are a recurring stall, not the one-off first step of the window.
SLOW_RATIO = 1.25
SLOW_Z = 3.0


def _slow(d: np.ndarray) -> np.ndarray:
    median = float(np.median(d))
    sigma = 1.4826 * float(np.median(np.abs(d - median)))
    far = (d - median) > SLOW_Z * sigma if sigma > 0 else d > median
    return far & (d > SLOW_RATIO * median)


@fact(
    "stability.slow_steps",
    "count",
    f"Steps above {SLOW_RATIO}x the median and {SLOW_Z:.0f} robust standard deviations above "
    "it, on a device run: one is often the window's first step, two or more a stall that "
    "recurs (host contention, GC, periodic work). 0 on CPU-only runs, whose steps move by "
    "that much with scheduling alone (the planted CPU runs on a shared machine: 5.4-10.6 ms "
    "steps of the same work); there only steps 1.5x the median count.",
    f"at least {MIN_STEPS} steps",
)
def slow_steps(ctx: Context) -> int:
    slow = _slow(_durations(ctx, averaged=True))
    return int(slow.sum()) if ctx.report.get("device_type") in ("gpu", "npu") else 0


@fact(
    "stability.outlier_excess_us",
    "us",
    "Time per step the run would save if every slow step (above 1.5x the median, or on a "
    f"device run above {SLOW_RATIO}x and far outside the spread) took the median (sum of "
    "their excess over the median / number of steps), microseconds.",
    f"at least {MIN_STEPS} steps",
)
def outlier_excess_us(ctx: Context) -> float:
    d = _durations(ctx, averaged=True)
    median = float(np.median(d))
    slow = d > 1.5 * median
    if ctx.report.get("device_type") in ("gpu", "npu"):
        slow |= _slow(d)
    return float(np.clip(d[slow] - median, 0, None).sum() / len(d))


def _gaps(ctx: Context) -> dict[str, Any]:
    if "gaps" in ctx.memo:
        return ctx.memo["gaps"]
    trace = ctx.trace
    steps = ctx.report.get("steps") or {}
    if trace is None or not steps.get("count") or not steps.get("start_ns"):
        raise Unavailable("needs a trace with steps")
    ev = trace.events
    active = is_kind(ev["kind"], (Kind.CPU_OP, Kind.PYTHON, Kind.RUNTIME, Kind.SYNC))
    active |= is_kind(ev["kind"], DEVICE_KINDS)
    active |= (ev["kind"] == Kind.USER_ANNOTATION) & ~trace.names_matching(is_step_name)
    if not active.any():
        raise Unavailable("needs operator events in the trace")
    busy = union(ev["start_ns"][active], ev["end_ns"][active])
    starts = np.asarray(steps["start_ns"], dtype=np.int64)
    ends = starts + (np.asarray(steps["durations_us"]) * 1000).astype(np.int64)
    # The steps' own thread must show its work: with no operator of it inside any step
    # (a trace cut down to a few events), its gaps are missing data, not untracked time.
    step_tracks = np.unique(ev["track"][trace.names_matching(is_step_name)])
    own = np.flatnonzero((ev["kind"] == Kind.CPU_OP) & np.isin(ev["track"], step_tracks))
    at = np.searchsorted(starts, ev["start_ns"][own], side="right") - 1
    if (
        len(step_tracks)
        and not ((at >= 0) & (ev["start_ns"][own] < ends[np.clip(at, 0, None)])).any()
    ):
        raise Unavailable("no operator of the steps' own thread runs inside the steps")
    gaps: list[tuple[str, int, int]] = []
    per_step = []
    for name, s, e in zip(steps["names"], starts.tolist(), ends.tolist(), strict=True):
        lo = int(np.searchsorted(busy.end, s, side="right"))
        hi = int(np.searchsorted(busy.start, e, side="left"))
        inner = np.clip(np.column_stack([busy.start[lo:hi], busy.end[lo:hi]]), s, e)
        cuts = [s, *inner.ravel().tolist(), e]
        free = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=True) if b - a >= MIN_GAP_NS]
        gaps += [(str(name), a, b) for a, b in free]
        per_step.append(sum(b - a for a, b in free) / 1000.0)
    out = {"per_step_us": per_step, "gaps": sorted(gaps, key=lambda g: g[1] - g[2])}
    ctx.memo["gaps"] = out
    return out


@fact(
    "stability.untracked_us",
    "us",
    "Average time per step in gaps of at least 1 ms where no operator, runtime call, "
    "record_function range or device work runs (sleeps, I/O, Python without operators), "
    "microseconds; evidence: the longest gaps.",
    "a trace with steps",
)
def untracked_us(ctx: Context) -> Observed:
    got = _gaps(ctx)
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("unprofiled_gap", ms=(b - a) / 1e6, step=step),
            page="timeline",
            value=(b - a) / 1000.0,
            unit="us",
            step=step,
            start_ns=a,
            end_ns=b,
        )
        for step, a, b in got["gaps"]
    )
    return Observed(float(np.mean(got["per_step_us"])), evidence)


step_share("stability.untracked_share", "stability.untracked_us", "a trace with steps")


def _memory(ctx: Context) -> dict[str, Any]:
    """Allocated bytes at every step boundary of the device that allocates most."""
    if "memory_growth" in ctx.memo:
        return ctx.memo["memory_growth"]
    trace = ctx.trace
    durations = _durations(ctx, 3)
    mem = trace.memory if trace is not None else {}
    if trace is None or not len(mem.get("ts_ns", ())) or not (mem["total_allocated"] >= 0).any():
        raise Unavailable("needs memory events with allocated totals (profile_memory=True)")
    known = mem["total_allocated"] >= 0
    key = mem["device_type"].astype(np.int64) * 1000 + mem["device_id"]
    devices = np.unique(key[known])
    accelerators = devices[devices >= 1000]  # prefer a device over host memory
    pool = accelerators if len(accelerators) else devices
    device = max(pool.tolist(), key=lambda k: int(mem["total_allocated"][known & (key == k)].max()))
    pick = np.flatnonzero(known & (key == device))
    pick = pick[np.argsort(mem["ts_ns"][pick], kind="stable")]
    ts, allocated = mem["ts_ns"][pick], mem["total_allocated"][pick]
    steps = ctx.report["steps"]
    starts = np.asarray(steps["start_ns"], dtype=np.int64)
    bounds = np.append(starts, starts[-1] + int(durations[-1] * 1000))
    at = np.searchsorted(ts, bounds, side="right") - 1
    # Before the first event: its total less its own (signed) size.
    before = float(allocated[0] - mem["bytes"][pick[0]])
    values = np.where(at >= 0, allocated[np.clip(at, 0, None)], before).astype(np.float64)
    slope = float(np.polyfit(np.arange(len(values)), values, 1)[0])
    peak = float(allocated.max())
    names = [*map(str, steps["names"]), "end"]
    evidence = tuple(
        Evidence(
            kind="step",
            **(
                label("allocated_at_step", step=name)
                if name != "end"
                else label("allocated_at_end")
            ),
            page="memory",
            value=float(v),
            unit="bytes",
            step=name if name != "end" else None,
            start_ns=int(b),
        )
        for name, v, b in zip(names, values.tolist(), bounds.tolist(), strict=True)
    )
    out = {
        "slope": slope,
        "share": slope / peak if peak > 0 else 0.0,
        "rising": float((np.diff(values) > 0).mean()),
        "evidence": evidence,
    }
    ctx.memo["memory_growth"] = out
    return out


@fact(
    "stability.memory_growth_bytes",
    "bytes",
    "Allocated memory gained per step: slope of the least-squares line through the allocated "
    "total at every step boundary (device memory when the trace has any, else host), bytes; "
    "evidence: the allocated total at each boundary.",
    "memory events with allocated totals (profile_memory=True)",
)
def memory_growth_bytes(ctx: Context) -> Observed:
    got = _memory(ctx)
    return Observed(got["slope"], got["evidence"])


@fact(
    "stability.memory_growth_share",
    "ratio",
    "stability.memory_growth_bytes divided by the peak allocated memory of the same device.",
    "memory events with allocated totals (profile_memory=True)",
)
def memory_growth_share(ctx: Context) -> float:
    return float(_memory(ctx)["share"])


@fact(
    "stability.memory_rising_share",
    "ratio",
    "Share (0..1) of step-to-step changes of the allocated total that are increases "
    "(1 = it rose after every step).",
    "memory events with allocated totals (profile_memory=True)",
)
def memory_rising_share(ctx: Context) -> float:
    return float(_memory(ctx)["rising"])
