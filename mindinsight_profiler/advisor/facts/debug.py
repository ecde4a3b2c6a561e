"""Facts: debugging APIs left on in training (autograd anomaly detection).

`torch.autograd.set_detect_anomaly(True)` (or `detect_anomaly()`) leaves two marks in a
trace, whatever the device:
- in the backward, after every autograd node (inside the engine's
  `autograd::engine::evaluate_function: ...` range), a NaN check of its outputs:
  `aten::isnan` -> `aten::any` -> `aten::item`, which on a GPU is also a sync per node;
- in the forward, the Python stack of every node, stored by
  `torch/fx/traceback.py: format_stack` (seen when the trace has Python frames).
User code rarely calls `isnan` inside the autograd engine (a custom backward or a hook
might, once or twice), so checks by the dozen there mean anomaly mode.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

_ENGINE = "autograd::engine::evaluate_function:"
#: The operators of one anomaly-mode check (the outermost of each nest is timed).
_CHECK = frozenset(
    {"aten::isnan", "aten::ne", "aten::any", "aten::_is_any_true", "aten::item"}
    | {"aten::_local_scalar_dense"}
)
NEEDS = "operators in a PyTorch trace with steps"


def _inside(trace: Trace, rows: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Mask over `rows`: starts inside one of `ranges` (events) on the same thread."""
    ev = trace.events
    out = np.zeros(len(rows), dtype=bool)
    for track in np.unique(ev["track"][rows]).tolist():
        mine = ranges[ev["track"][ranges] == track]
        if not len(mine):  # a thread with operators but no backward-engine node
            continue
        union = iv.union(ev["start_ns"][mine], ev["end_ns"][mine])
        on_track = ev["track"][rows] == track
        out[on_track] = iv.contains(union, ev["start_ns"][rows[on_track]])
    return out


def _anomaly(ctx: Context) -> dict[str, np.ndarray]:
    """The anomaly checks inside the backward and the forward's stack captures, in steps."""
    if "debug.anomaly" in ctx.memo:
        return ctx.memo["debug.anomaly"]
    trace = ctx.trace
    if trace is None or not (trace.kind == Kind.CPU_OP).any():
        raise Unavailable(f"needs {NEEDS}")
    ev = trace.events
    engine = np.flatnonzero(trace.names_matching(lambda s: s.startswith(_ENGINE)))
    check = trace.names_matching(lambda s: s in _CHECK) & (ev["kind"] == Kind.CPU_OP)
    isnan = np.flatnonzero(check & trace.names_matching(lambda s: s == "aten::isnan"))
    parent = np.clip(ev["parent"], 0, None)
    outer = np.flatnonzero(check & ~((ev["parent"] >= 0) & check[parent]))
    stacks = np.flatnonzero(
        (ev["kind"] == Kind.PYTHON_FUNCTION)
        & trace.names_matching(lambda s: "fx/traceback.py" in s and s.endswith("format_stack"))
    )
    out = {
        "isnan": isnan[_inside(trace, isnan, engine)] if len(engine) else isnan[:0],
        "checks": outer[_inside(trace, outer, engine)] if len(engine) else outer[:0],
        "stacks": stacks,
    }
    for key, rows in out.items():
        out[key] = rows[step_of(ctx, ev["start_ns"][rows]) >= 0]
    ctx.memo["debug.anomaly"] = out
    return out


@fact(
    "config.anomaly_checks",
    "count",
    "NaN checks (aten::isnan) per step inside the autograd engine's per-node ranges: "
    "autograd anomaly detection checks every backward node's outputs.",
    NEEDS,
)
def anomaly_checks(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(_anomaly(ctx)["isnan"]) / len(names)


@fact(
    "config.anomaly_us",
    "us",
    "Per-step time of anomaly detection, microseconds: the backward's NaN checks (isnan, "
    "any, item) plus the forward's stack captures (torch/fx/traceback.py format_stack, "
    "when the trace has Python frames). Evidence: the longest of them.",
    NEEDS,
)
def anomaly_us(ctx: Context) -> Observed:
    found = _anomaly(ctx)
    trace = ctx.trace
    assert trace is not None
    ev = trace.events
    names, _, _ = step_windows(ctx)
    rows = np.concatenate([found["checks"], found["stacks"]])
    busy = iv.union(ev["start_ns"][rows], ev["end_ns"][rows])
    total = float((busy.end - busy.start).sum()) / 1000.0
    step = step_of(ctx, ev["start_ns"][rows])
    evidence = longest_events(trace, rows, names, step, [None] * len(rows))
    return Observed(total / len(names), tuple(evidence))
