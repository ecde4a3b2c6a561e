"""Facts: metrics computed and read every step by the user's code, outside the model.

Operators whose Python stack reaches no module forward, autograd, optimizer, DataLoader,
loss or profiler frame are called by the training loop itself: moving a batch, or computing
statistics. When such code also reads many values back (`.item()`, `.tolist()`), it is
per-step metric logging: per-parameter gradient norms read one by one cost 0.7-0.9 ms of a
6.3 ms step (issue 18, holdout plant grad_logging: 81 small operators and 54 `.item()` per
step), where a healthy loop reads one loss value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.python_hot import NEEDS, step_thread_frames
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import is_step_name
from mindinsight_profiler.model.kinds import Kind

#: Frames of the training machinery: operators below them are the model's, the loss's, the
#: optimizer's, the data pipeline's or the profiler's, not the loop's own computations.
MACHINERY = (
    "nn.Module:", "torch/nn/modules/", "torch/nn/functional", "torch/nn/utils/",
    "torch/nn/parallel/", "torch/autograd/", "run_backward", "torch/optim/",
    "torch/utils/data/", "torch/profiler/", "torch/_dynamo/", "torch/distributed/",
    "torch/amp/", "torch/cuda/amp/", "torch_npu/", "mindspore/",
)  # fmt: skip
#: Operators that read a device value into Python (.item(), bool(), .tolist() element).
READS = ("aten::item", "aten::_local_scalar_dense", "aten::is_nonzero")
#: A longer gap between two such operators is other work (a tokeniser, a data load), not the
#: Python that loops over the values (10-50 us per value, on a loaded CPU).
GLUE_NS = 200_000
#: Python frames searched upward from an operator for the one that encloses it.
_DEPTH = 128


def _innermost_frame(
    starts: np.ndarray, ends: np.ndarray, parent: np.ndarray, t0: np.ndarray, t1: np.ndarray
) -> np.ndarray:
    """Position of the innermost frame (sorted by start) around each [t0, t1), or -1."""
    k = np.searchsorted(starts, t0, side="right") - 1
    for _ in range(_DEPTH):
        up = (k >= 0) & (ends[np.clip(k, 0, None)] < t1)
        if not up.any():
            break
        k = np.where(up, parent[np.clip(k, 0, None)], k)
    return k


def _logging(ctx: Context) -> dict[str, Any]:
    """Per user line: top-level operators outside the machinery, reads, time (memoised)."""
    if "pylog" in ctx.memo:
        return ctx.memo["pylog"]
    trace, frames, parent, owner, _ = step_thread_frames(ctx)
    names, _, _ = step_windows(ctx)
    ev = trace.events
    # names are judged once each (codes_where), not once per frame: traces hold millions
    codes = trace.strings.codes_where(lambda n: any(m in n for m in MACHINERY))
    machinery = np.isin(ev["name"][frames], codes).tolist()
    for i, p in enumerate(parent.tolist()):  # parents first: inherited down the stack
        machinery[i] = machinery[i] or (p >= 0 and machinery[p])
    tracks = np.unique(ev["track"][frames])
    top = np.flatnonzero((ev["kind"] == Kind.CPU_OP) & np.isin(ev["track"], tracks))
    pk = ev["parent"][top]
    nested = (pk >= 0) & (ev["kind"][np.clip(pk, 0, None)] == Kind.CPU_OP)
    top = top[~nested & ~trace.names_matching(is_step_name)[top]]
    top = top[np.argsort(ev["start_ns"][top], kind="stable")]
    step = step_of(ctx, ev["start_ns"][top])
    top, step = top[step >= 0], step[step >= 0]
    where = _innermost_frame(ev["start_ns"][frames], ev["end_ns"][frames], parent,
                             ev["start_ns"][top], ev["end_ns"][top])  # fmt: skip
    line = np.where(where >= 0, owner[np.clip(where, 0, None)], -1)
    outside = (line >= 0) & ~np.array([*machinery, True])[where]
    reads = np.isin(ev["name"][top], trace.strings.codes_where(lambda s: s in READS))
    s, e = ev["start_ns"][top], ev["end_ns"][top]
    ns = (e - s).astype(np.int64)
    # Python between two such operators of one step, with no other operator between them,
    # belongs to the same computation (looping over parameters, building the dict).
    gap = np.clip(s[1:] - e[:-1], 0, None)
    glue = outside[:-1] & outside[1:] & (step[:-1] == step[1:]) & (gap <= GLUE_NS)
    ns[1:] += np.where(glue, gap, 0)
    per: dict[str, list[float]] = {}
    lines = trace.strings.lookup(ev["name"][frames[line[outside]]])
    for n, t, r in zip(lines, ns[outside].tolist(), reads[outside].tolist(), strict=True):
        acc = per.setdefault(n, [0.0, 0.0, 0.0])
        acc[0], acc[1], acc[2] = acc[0] + 1, acc[1] + r, acc[2] + t
    out = {n: (ops / len(names), rd / len(names), t / 1000 / len(names))
           for n, (ops, rd, t) in per.items()}  # fmt: skip
    ctx.memo["pylog"] = out
    return out


def _top(ctx: Context) -> tuple[str, tuple[float, float, float]]:
    per = _logging(ctx)
    if not per:
        return "", (0.0, 0.0, 0.0)
    name = max(per, key=lambda n: (per[n][1], per[n][2]))
    return name, per[name]


@fact(
    "logging.reads_per_step",
    "count",
    "Values read back into Python per step (.item(), bool(), .tolist() elements: "
    "aten::item) by operators the user's code calls outside the model, loss, backward, "
    "optimizer and data loading, in the user line that reads most.",
    NEEDS,
)
def reads_per_step(ctx: Context) -> float:
    return _top(ctx)[1][1]


@fact(
    "logging.per_step_us",
    "us",
    "Average per step of the time of the operators of logging.reads_per_step's line (with "
    "the Python between consecutive ones), microseconds: metrics computed every step. "
    "Evidence: the lines, with their operators and reads per step.",
    NEEDS,
)
def per_step_us(ctx: Context) -> Observed:
    per = _logging(ctx)
    ranked = sorted(per.items(), key=lambda kv: -kv[1][1])[:5]
    evidence = tuple(
        Evidence(
            kind="operator",
            **label("step_logging", line=n, ops=ops, reads=rd, us=us),
            page="operators",
            value=round(us, 3),
            unit="us",
            name=n,
        )
        for n, (ops, rd, us) in ranked
        if rd > 0
    )
    return Observed(_top(ctx)[1][2], evidence)


@fact(
    "logging.line",
    "text",
    "The user function of logging.reads_per_step, as file(line): name.",
    NEEDS,
)
def logging_line(ctx: Context) -> str:
    return _top(ctx)[0]


step_share("logging.per_step_share", "logging.per_step_us", NEEDS)
