"""Facts: torch.compile recompilation, as the trace shows it.

PyTorch 2.x names every call of a compiled frame `Torch-Compiled Region: F/C` (and tags its
compile-time annotations `compile_id=F/C`): F is the frame, C how many times Dynamo compiled
it before (0 the first time). A compile id with C >= 1 is a recompilation: a guard failed (a
new shape, dtype, Python value or module attribute), and the frame was compiled again,
which costs as much as the first compilation and recurs whenever the guard fails again;
after `torch._dynamo.config.cache_size_limit` of them the frame falls back to eager. The
window model (`analysis/steps/window.py`) already finds the compile time in each step; here
it is split into the first compilation and compilation after steps that ran compiled code
without compiling (steady state).

Graph breaks are not a fact: more than one compiled frame per step is a graph break only
when the frames come from one compiled function, and the trace does not say which.
"""

from __future__ import annotations

import re

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_windows
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.model.kinds import Kind

NEEDS = "a trace of a torch.compile'd program ('Torch-Compiled Region' ranges)"
_REGION = re.compile(r"^Torch-Compiled Region: (\d+)/(\d+)")
#: A step with less compile time than this ran compiled code, not compiled it: Dynamo never
#: compiles a frame in a millisecond, while the guard check of every call ("TorchDynamo
#: Cache Lookup", in the window's compile ranges) takes ~0.1 ms.
MIN_COMPILE_US = 1000.0


def _regions(ctx: Context) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """(the compiled-region ranges, their (frame, compile id)); Unavailable without any."""
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    ev = trace.events
    rows = np.flatnonzero(
        np.isin(ev["kind"], (Kind.CPU_OP, Kind.USER_ANNOTATION))
        & trace.names_matching(lambda s: bool(_REGION.match(s)))
    )
    if not len(rows):
        raise Unavailable(f"needs {NEEDS}")
    rows = rows[np.argsort(ev["start_ns"][rows], kind="stable")]
    ids = []
    for name in trace.strings.lookup(ev["name"][rows]):
        m = _REGION.match(name or "")
        ids.append((int(m.group(1)), int(m.group(2))) if m else (-1, -1))
    return rows, ids


@fact(
    "compile.recompiles",
    "count",
    "Recompilations of torch.compile'd frames in the trace: distinct compile ids F/C with "
    "C >= 1 among the 'Torch-Compiled Region: F/C' ranges (frame F compiled again after a "
    "guard failed). Evidence: the first call of each recompiled version on the timeline.",
    NEEDS,
)
def recompiles(ctx: Context) -> Observed:
    rows, ids = _regions(ctx)
    trace = ctx.trace
    assert trace is not None
    ev = trace.events
    seen: dict[tuple[int, int], int] = {}
    for row, key in zip(rows.tolist(), ids, strict=True):
        if key[1] >= 1 and key not in seen:
            seen[key] = row
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("recompiled_frame", frame=frame, count=count),
            page="timeline",
            name=trace.strings[int(ev["name"][row])],
            start_ns=int(ev["start_ns"][row]),
            end_ns=int(ev["end_ns"][row]),
        )
        for (frame, count), row in list(seen.items())[:10]
    )
    return Observed(len(seen), evidence)


@fact(
    "compile.steady_compile_us",
    "us",
    "Compilation time (the window model's compile ranges) in steps that compile for 1 ms or "
    "more and come after a step which ran compiled code without compiling: compilation "
    "that recurs in steady state, microseconds over all such steps. Evidence: those steps.",
    NEEDS,
)
def steady_compile_us(ctx: Context) -> Observed:
    rows, _ = _regions(ctx)
    window = ctx.report.get("window")
    names, start, end = step_windows(ctx)
    if not window:
        raise Unavailable("needs at least one step")
    column = list(window["kinds"]).index("compile")
    compile_us = np.asarray(window["per_step_us"], dtype=np.float64)[:, column]
    trace = ctx.trace
    assert trace is not None
    at = trace.events["start_ns"][rows]
    ran = np.zeros(len(names), dtype=bool)
    i = np.searchsorted(start, at, side="right") - 1
    ok = (i >= 0) & (at < end[np.clip(i, 0, None)])
    ran[i[ok]] = True
    compiled = compile_us >= MIN_COMPILE_US
    steady = ran & ~compiled
    after = np.cumsum(steady) - steady > 0  # some earlier step ran compiled code only
    hit = np.flatnonzero(after & compiled)
    evidence = tuple(
        Evidence(
            kind="step",
            **label("compile_in_step", step=names[k], ms=compile_us[k] / 1000.0),
            page="timeline",
            step=names[k],
            value=round(float(compile_us[k]), 3),
            unit="us",
            start_ns=int(start[k]),
            end_ns=int(end[k]),
        )
        for k in hit.tolist()[:10]
    )
    return Observed(float(compile_us[hit].sum()), evidence)
