"""Facts: which of the user's own Python functions the steps lose their time in.

With Python stacks (with_stack=True) every frame is a `python_function` event. Time in a
frame of the user's program (not torch, not an installed package, not the standard library)
during which no operator runs on the thread is Python work: tokenising, decoding, file I/O,
list building. The ledger books it as untracked; these facts name the function. A
tokeniser called per sample inside the training loop costs 6.3 ms of a 13.5 ms step with no
operator under it (issue 18, holdout plant py_preprocess), while the same loop's own Python
glue (loop body, forward methods) stays under 0.2 ms per step.

Time below a framework frame (a module's __call__, autograd, the optimizer, the profiler)
is the framework's dispatch overhead, not the user's code, and time in a sleep or a wait
is not Python work (untracked_time names it): neither is attributed to the user function
that called it. Time in stdlib or non-torch packages called by the
user (json, PIL, a tokenizer library) is attributed to the calling user function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_windows
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import is_step_name
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

NEEDS = "a trace with Python stacks (with_stack=True) and steps"
#: Frames of libraries (installed packages, the standard library, built-ins), not the user's.
LIBRARY = ("site-packages/", "dist-packages/", "/lib/python", "torch/", "<", "nn.Module:")
#: Frames of the framework: time below them is its overhead, not the user's Python.
FRAMEWORK = ("torch/", "torch.", "torch_npu", "mindspore", "nn.Module:", "<built-in method run_")
#: Frames that wait (sleep, a lock, a queue, a socket): blocked time, not Python work; the
#: sleeps of untracked_time (a `time.sleep(0.02)` in the loop) are not the user's computing.
WAITS = ("<built-in function sleep>", "acquire' of", "<built-in method acquire",
         "<method 'wait' of", "<built-in function select>", "<built-in method poll")  # fmt: skip
#: Host events that mean "an operator runs" (the thread is not in plain Python).
_OPS = (Kind.CPU_OP, Kind.PYTHON, Kind.RUNTIME, Kind.SYNC, Kind.USER_ANNOTATION)


def is_user_frame(name: str) -> bool:
    """Whether a python_function name is a frame of the user's program."""
    return bool(name) and not any(lib in name for lib in LIBRARY)


def is_framework_frame(name: str) -> bool:
    """Whether a python_function name is a frame of the training framework, or a wait:
    time below it is not the user's Python work."""
    return any(f in name for f in FRAMEWORK) or any(w in name for w in WAITS)


def step_thread_frames(
    ctx: Context,
) -> tuple[Trace, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(trace, python frames on the steps' threads sorted by (start, -end), the position of
    each one's parent frame (or -1), its innermost user frame (position, or -1), whether a
    framework frame lies between the two). Memoised."""
    if "pyhot.frames" in ctx.memo:
        return ctx.memo["pyhot.frames"]
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    ev = trace.events
    step_tracks = np.unique(ev["track"][trace.names_matching(is_step_name)])
    frames = np.flatnonzero(
        (ev["kind"] == Kind.PYTHON_FUNCTION) & np.isin(ev["track"], step_tracks)
    )
    if not len(frames):
        raise Unavailable(f"needs {NEEDS}: the trace has no Python frames on the steps' thread")
    frames = frames[np.lexsort((-ev["end_ns"][frames], ev["start_ns"][frames]))]
    user_code = trace.strings.codes_where(is_user_frame)
    fw_code = trace.strings.codes_where(is_framework_frame)
    user = np.isin(ev["name"][frames], user_code).tolist()
    fw = np.isin(ev["name"][frames], fw_code).tolist()
    pos = {int(f): i for i, f in enumerate(frames.tolist())}
    parents = [pos.get(int(p), -1) for p in ev["parent"][frames].tolist()]
    owner = [-1] * len(frames)
    blocked = [False] * len(frames)
    for i, p in enumerate(parents):  # parents come first: they start earlier or end later
        if user[i]:
            owner[i] = i
        elif p >= 0:
            owner[i], blocked[i] = owner[p], fw[i] or blocked[p]
        else:
            blocked[i] = fw[i]
    got = (trace, frames, np.array(parents, np.int64), np.array(owner, np.int64),
           np.array(blocked, bool))  # fmt: skip
    ctx.memo["pyhot.frames"] = got
    return got


def _per_step_own(
    free: iv.Ranges, s: np.ndarray, e: np.ndarray, parent: np.ndarray, start: np.ndarray,
    end: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(frame, step, own free ns) for every frame and step it overlaps: the frame's time in
    `free` inside that step, less its child frames' (the training loop's frame spans all
    steps, a tokeniser's call one)."""
    k0 = np.searchsorted(end, s, side="right")
    count = np.clip(np.searchsorted(start, e, side="left") - k0, 0, None)
    fi = np.repeat(np.arange(len(s)), count)
    first = np.concatenate([[0], np.cumsum(count)[:-1]])
    kk = k0[fi] + np.arange(len(fi)) - first[fi]
    own = iv.overlap_per_window(free, np.maximum(s[fi], start[kk]), np.minimum(e[fi], end[kk]))
    key = fi * len(start) + kk  # sorted: frames in order, their steps in order
    child = parent[fi] >= 0
    at = np.searchsorted(key, parent[fi[child]] * len(start) + kk[child])
    found = (at < len(key)) & (
        key[np.clip(at, 0, len(key) - 1)] == parent[fi[child]] * len(start) + kk[child]
    )
    sub = np.bincount(at[found], weights=own[child][found], minlength=len(key))
    return fi, kk, own - sub


def _hot(ctx: Context) -> dict[str, Any]:
    """Per user function (memoised): operator-free ns in each step, and calls."""
    if "pyhot" in ctx.memo:
        return ctx.memo["pyhot"]
    trace, frames, parent, owner, blocked = step_thread_frames(ctx)
    names, start, end = step_windows(ctx)
    ev = trace.events
    tracks = np.unique(ev["track"][frames])
    ops = is_kind(ev["kind"], _OPS) & np.isin(ev["track"], tracks)
    ops &= ~trace.names_matching(is_step_name)
    # Python while the device computes costs nothing: only time with the device idle counts
    # (the ledger's untracked part, which the rule claims).
    ops |= is_kind(ev["kind"], DEVICE_KINDS) & (ev["device"] >= 0)
    free = iv.subtract(iv.union(start, end), iv.union(ev["start_ns"][ops], ev["end_ns"][ops]))
    order = np.argsort(start, kind="stable")
    fi, kk, own = _per_step_own(free, ev["start_ns"][frames], ev["end_ns"][frames], parent,
                                start[order], end[order])  # fmt: skip
    keep = (owner[fi] >= 0) & ~blocked[fi]
    codes = ev["name"][frames[owner[fi[keep]]]]
    uniq, which = np.unique(codes, return_inverse=True)
    table = np.zeros((len(uniq), len(start)), np.float64)
    np.add.at(table, (which, kk[keep]), own[keep])
    mine = owner == np.arange(len(frames))
    calls = dict(zip(*np.unique(ev["name"][frames[mine]], return_counts=True), strict=True))
    per = {
        name: (float(np.median(row)) / 1000.0, float(row.mean()) / 1000.0,
               int(calls.get(code, 0)) / len(names))
        for name, code, row in zip(trace.strings.lookup(uniq), uniq.tolist(), table, strict=True)
    }  # fmt: skip
    ctx.memo["pyhot"] = per
    return per


@fact(
    "python.hot_function_us",
    "us",
    "Median over the steps of the time the user's busiest Python function (a frame of the user's "
    "own files, with what it calls outside the framework) runs with no operator on the "
    "steps' thread and no device work, microseconds: tokenising, decoding, file I/O, list "
    "building. Evidence: the functions with most such time, as file(line): name.",
    NEEDS,
)
def hot_function_us(ctx: Context) -> Observed:
    per = _hot(ctx)
    ranked = sorted(per.items(), key=lambda kv: -kv[1][0])[:5]
    if not ranked:
        return Observed(0.0)
    evidence = tuple(
        Evidence(
            kind="operator",
            **label("python_function", name=n, calls=calls, us=median),
            page="operators",
            value=round(median, 3),
            unit="us",
            name=n,
        )
        for n, (median, _, calls) in ranked
    )
    return Observed(ranked[0][1][0], evidence)


@fact(
    "python.hot_function",
    "text",
    "The user function of python.hot_function_us, as file(line): name.",
    NEEDS,
)
def hot_function(ctx: Context) -> str:
    per = _hot(ctx)
    return max(per, key=lambda n: per[n][0]) if per else ""


step_share("python.hot_function_share", "python.hot_function_us", NEEDS)
