"""Facts: how DistributedDataParallel synchronises gradients per optimizer step.

DDP all-reduces the gradients during every backward pass unless the backward runs inside
`model.no_sync()`. Gradient accumulation (several micro-batches per optimizer step) that
forgets `no_sync()` therefore all-reduces after every micro-batch, although only the sum
at the optimizer step is used: k micro-batches move k times the gradients. The trace shows
it from the host ranges alone: DDP's `DistributedDataParallel.forward` span opens each
micro-batch, `Optimizer.step#...` closes the accumulation, and each all-reduce is enqueued
by a `c10d::` / `nccl:` operator on the training thread (gloo's `gloo:` ranges run on its
worker threads and are left out: their start says when the worker ran, not when the
backward asked). A burst is a micro-batch after whose forward at least one all-reduce is
enqueued before the next micro-batch or optimizer step.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.communication.naming import host_collective
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

NEEDS = "a PyTorch DDP trace (DistributedDataParallel.forward and Optimizer.step spans)"
_DDP_FORWARD = "DistributedDataParallel.forward"


def _starts(trace: Trace, mask: np.ndarray) -> np.ndarray:
    return np.sort(trace.events["start_ns"][mask])


def _enqueued_all_reduces(trace: Trace) -> np.ndarray:
    """Start times of the all-reduces the training thread enqueues (module doc)."""
    is_call = trace.names_matching(
        lambda s: s.startswith(("c10d::", "nccl:")) and host_collective(s) == "AllReduce"
    )
    host = (trace.kind == Kind.CPU_OP) | (trace.kind == Kind.USER_ANNOTATION)
    return _starts(trace, is_call & host)


def _bursts(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per optimizer step with a forward before it: micro-batches, bursts, the first
    micro-batch's start and the optimizer step's start (ns)."""
    if "ddp.bursts" in ctx.memo:
        return ctx.memo["ddp.bursts"]
    trace = ctx.trace
    if ctx.report.get("format") != FormatTag.KINETO or trace is None:
        raise Unavailable(f"needs {NEEDS}")
    annotation = trace.kind == Kind.USER_ANNOTATION
    forwards = _starts(trace, trace.names_matching(lambda s: s == _DDP_FORWARD) & annotation)
    steps = _starts(trace, trace.names_matching(lambda s: s.startswith("Optimizer.step#")))
    reduces = _enqueued_all_reduces(trace)
    if not len(forwards) or not len(steps) or not len(reduces):
        raise Unavailable(f"needs {NEEDS} and the all-reduces DDP enqueues")
    micro, bursts, begins, ends = [], [], [], []
    for i, end in enumerate(steps.tolist()):
        begin = steps[i - 1] if i else -np.inf
        mine = forwards[(forwards > begin) & (forwards < end)]
        if not len(mine):
            continue
        bounds = np.append(mine[1:], end)
        counts = np.searchsorted(reduces, bounds) - np.searchsorted(reduces, mine)
        micro.append(len(mine))
        bursts.append(int((counts > 0).sum()))
        begins.append(int(mine[0]))
        ends.append(end)
    if not micro:
        raise Unavailable("no optimizer step follows a DDP forward in the trace")
    out = (np.array(micro), np.array(bursts), np.array(begins, np.int64), np.array(ends, np.int64))
    ctx.memo["ddp.bursts"] = out
    return out


@fact(
    "ddp.allreduce_bursts_per_optimizer_step",
    "count",
    "DDP gradient all-reduce bursts per optimizer step: micro-batches (DistributedDataParallel"
    ".forward spans) after which the training thread enqueues an all-reduce before the next "
    "micro-batch or the optimizer step, averaged over the optimizer steps in the trace; more "
    "than 1 means gradient accumulation without no_sync(). Evidence: the optimizer steps.",
    NEEDS,
)
def bursts_per_step(ctx: Context) -> Observed:
    micro, bursts, begins, ends = _bursts(ctx)
    rows = zip(micro.tolist(), bursts.tolist(), begins.tolist(), ends.tolist(), strict=True)
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("ddp_bursts", bursts=b, micro=m),
            page="timeline",
            value=float(b),
            unit="bursts",
            start_ns=t0,
            end_ns=t1,
        )
        for m, b, t0, t1 in rows
        if b > 1
    )[:5]
    return Observed(float(bursts.mean()), evidence)


@fact(
    "ddp.micro_batches_per_optimizer_step",
    "count",
    "DDP forward passes (micro-batches) per optimizer step, averaged over the optimizer steps.",
    NEEDS,
)
def micro_per_step(ctx: Context) -> float:
    return float(_bursts(ctx)[0].mean())
