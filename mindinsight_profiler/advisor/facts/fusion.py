"""Facts: chains of element-wise calls that one fused kernel would do.

Each element-wise operator reads its inputs from memory and writes its output back; a
chain of them on the same tensor (`x * a + b`, then `tanh`, then `* c`...) moves the tensor
through memory once per operator, where a compiler (torch.compile / Inductor, MindSpore
graph kernel fusion) or a fused operator moves it once. A chain here is a run of at least
`MIN_CHAIN` calls one after another on a thread, each one the performance model classes as
element-wise (`analysis/perf/calls.py`), each on a first input of the same shape (what one
fused kernel can take), outside the optimizer (per-parameter updates are
`unfused_optimizer`'s). Generators (random masks such as dropout's `bernoulli_`, fills) read
no input tensor, so nothing flows into them from the previous operator: they break a chain,
and their time is random-number or write work that fusion does not remove. Besides such
chains, the hand-written forms of operators that exist fused (msprof-analyze's fusible-API
check: RMSNorm, rotary embedding, SwiGLU) count wherever their calls follow one another
(casts between them left out). Times are the
perf model's: the kernels a call launched on a device run, the call's own duration on the
host.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.operators import steps_count
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.perf.call_time import call_time_ns
from mindinsight_profiler.analysis.perf.calls import CATEGORIES
from mindinsight_profiler.analysis.perf.op_work import COUNTED, op_work
from mindinsight_profiler.analysis.perf.perf_rows import category_codes
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

NEEDS = "operator calls with recorded shapes (record_shapes=True)"
#: Shortest chain counted (HolisticTraceAnalysis' frequent-pattern search starts at 3).
MIN_CHAIN = 3
EVIDENCE_ROWS = 5
_ELEMENTWISE = CATEGORIES.index("elementwise")
#: Hand-written forms of fused operators: consecutive calls on a thread (aten:: names).
PATTERNS = {
    "RMSNorm": ("pow", "mean", "add", "rsqrt", "mul", "mul"),
    "rotary embedding": ("mul", "neg", "cat", "mul", "add"),
    "SwiGLU": ("silu", "mul"),
}
_PATTERNS_ZH = {"RMSNorm": "RMSNorm", "rotary embedding": "旋转位置编码", "SwiGLU": "SwiGLU"}
_CASTS = ("aten::to", "aten::_to_copy", "aten::type_as")
_GENERATORS = re.compile(
    r"^aten::(bernoulli|uniform|normal|random|rand|randn|randint|randperm|exponential|"
    r"geometric|cauchy|log_normal|fill|zero|zeros|ones|full|empty)(_|$|\.)"
)


def _first_shape(text: str) -> str:
    try:
        dims = json.loads(text)
    except ValueError:
        return text
    first = dims[0] if isinstance(dims, list) and dims else None
    return json.dumps(first) if isinstance(first, list) else ""


def _in_optimizer(trace: Trace, rows: np.ndarray) -> np.ndarray:
    ev = trace.events
    kinds = (ev["kind"] == Kind.CPU_OP) | (ev["kind"] == Kind.USER_ANNOTATION)
    spans = np.flatnonzero(trace.names_matching(lambda s: s.startswith("Optimizer.")) & kinds)
    out = np.zeros(len(rows), dtype=bool)
    start, track = ev["start_ns"][rows], ev["track"][rows]
    for s in spans.tolist():
        out |= (start >= ev["start_ns"][s]) & (start < ev["end_ns"][s]) & (track == ev["track"][s])
    return out


def _base_us(ctx: Context) -> float:
    """The compute time the shares are of: device compute, or host operator time."""
    model = ctx.report.get("perf_model")
    if not model:
        raise Unavailable(f"needs {NEEDS}")
    totals = model["totals"]
    share = totals["compute_share"] if totals["time_base"] == "device" else 1.0
    return float(totals["device_us"]) * float(share or 0.0)


def _patterns(trace: Trace, events: np.ndarray) -> list[tuple[str, list[int]]]:
    """(pattern, positions in `events`) of each hand-written fused operator: PATTERNS'
    names on consecutive calls of one thread, casts skipped (`events` sorted by thread and
    start)."""
    ev = trace.events
    names = trace.strings.lookup(ev["name"][events])
    keep = [i for i, n in enumerate(names) if n and n not in _CASTS]
    at: dict[str, list[int]] = {}  # name -> its places in `keep`: only these can start a match
    for k, i in enumerate(keep):
        at.setdefault(names[i], []).append(k)
    found: list[tuple[str, list[int]]] = []
    taken: set[int] = set()
    for what, pattern in PATTERNS.items():
        want = [f"aten::{p}" for p in pattern]
        for k in at.get(want[0], []):
            pos = keep[k : k + len(want)]
            if len(pos) < len(want) or taken.intersection(pos):
                continue
            if [names[i] for i in pos] != want:
                continue
            if len({int(ev["track"][events[i]]) for i in pos}) == 1:
                found.append((what, pos))
                taken.update(pos)
    return found


def _chains(ctx: Context) -> dict[str, Any]:
    if "fusion.chains" in ctx.memo:
        return ctx.memo["fusion.chains"]
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    base = _base_us(ctx)
    work = op_work(trace)
    time_ns = call_time_ns(trace, work).astype(np.float64)
    rows = np.flatnonzero(work.status == COUNTED)
    if not len(rows) or base <= 0:
        raise Unavailable(f"needs {NEEDS}")
    ev = trace.events
    events = work.event[rows]
    order = np.lexsort((ev["start_ns"][events], ev["track"][events]))
    rows, events = rows[order], events[order]
    wise = (category_codes(work)[rows] == _ELEMENTWISE) & ~_in_optimizer(trace, events)
    wise &= ~trace.names_matching(lambda s: _GENERATORS.match(s) is not None)[events]
    shapes: dict[int, str] = {}
    chains: list[list[int]] = []
    run: list[int] = []
    last: tuple[int, str] | None = None
    for i in range(len(rows)):
        if not wise[i]:
            run, last = [], None
            continue
        code = int(ev["input_dims"][events[i]])
        if code not in shapes:
            shapes[code] = _first_shape(trace.strings[code]) if code >= 0 else ""
        key = (int(ev["track"][events[i]]), shapes[code])
        if last != key:
            run = []
            chains.append(run)
        run.append(i)
        last = key
    matches = _patterns(trace, events)
    matched = {i for _, m in matches for i in m}
    groups = [("", c) for c in chains if len(c) >= MIN_CHAIN and not set(c) <= matched]
    groups += matches
    timed = sorted(
        ((float(time_ns[rows[c]].sum()), what, c) for what, c in groups), key=lambda x: -x[0]
    )
    in_any = sorted({i for _, c in groups for i in c})
    total_ns = float(time_ns[rows[in_any]].sum()) if in_any else 0.0

    def evidence(ns: float, what: str, chain: list[int]) -> Evidence:
        names = [trace.strings[int(ev["name"][events[i]])].replace("aten::", "") for i in chain]
        text = " -> ".join(names[:6]) + (" ..." if len(names) > 6 else "")
        first, end = events[chain[0]], events[chain[-1]]
        if what:
            words = label(
                "fusible_pattern", pattern=what, pattern_zh=_PATTERNS_ZH[what], names=text,
                us=ns / 1000.0,
            )  # fmt: skip
        else:
            words = label("elementwise_chain", length=len(chain), names=text, us=ns / 1000.0)
        return Evidence(
            kind="time_range", page="timeline", value=ns / 1000.0, unit="us", name=names[0],
            start_ns=int(ev["start_ns"][first]), end_ns=int(ev["end_ns"][end]), **words,
        )  # fmt: skip

    out = {
        "share": total_ns / 1000.0 / base,
        "us": total_ns / 1000.0 / steps_count(ctx),
        "chains": len(groups) / steps_count(ctx),
        "evidence": tuple(evidence(*t) for t in timed[:EVIDENCE_ROWS]),
    }
    ctx.memo["fusion.chains"] = out
    return out


@fact(
    "fusion.elementwise_chain_share",
    "ratio",
    f"Share (0..1) of compute time (device compute, or host operator time on a CPU run) in "
    f"chains of {MIN_CHAIN} or more element-wise calls in a row on same-shaped inputs, "
    "outside the optimizer, and in hand-written RMSNorm / rotary embedding / SwiGLU "
    "sequences; evidence: the costliest chains and sequences, with their operators.",
    NEEDS,
)
def elementwise_chain_share(ctx: Context) -> Observed:
    got = _chains(ctx)
    return Observed(got["share"], got["evidence"])


@fact(
    "fusion.elementwise_chain_us",
    "us",
    "Time per step in those element-wise chains, microseconds.",
    NEEDS,
)
def elementwise_chain_us(ctx: Context) -> float:
    return float(_chains(ctx)["us"])


@fact(
    "fusion.elementwise_chains",
    "count",
    "Element-wise chains and hand-written fused-operator sequences per step.",
    NEEDS,
)
def elementwise_chains(ctx: Context) -> float:
    return float(_chains(ctx)["chains"])
