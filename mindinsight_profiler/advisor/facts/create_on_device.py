"""Facts: tensors made on the host and copied to the device right after.

`torch.ones(n).cuda()`, `torch.tensor(values).to(device)`, `torch.arange(n).to("npu")`:
the tensor is built in host memory, then copied host-to-device (from pageable memory: the
host waits for the copy). Created with `device=` it is filled on the device with no copy.
A hit here is a host-to-device copy whose operator (called from Python) comes right after
a creation operator on the same thread that launched no device work itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import gpu_trace, step_of
from mindinsight_profiler.advisor.facts.operators import steps_count
from mindinsight_profiler.advisor.facts.registry import Context, Observed, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.perf.op_work import launching_ops
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

NEEDS = "a device trace with operator events and host-to-device copies"
#: Operators that build a tensor from nothing but their arguments (not `aten::empty`: an
#: uninitialised tensor is an allocation that other operators make internally, and nobody
#: copies one on purpose).
CREATORS = frozenset(
    f"aten::{n}"
    for n in (
        "tensor", "lift_fresh", "scalar_tensor", "ones", "zeros", "full", "arange", "linspace",
        "eye", "rand", "randn", "randint", "randperm", "ones_like", "zeros_like",
        "full_like", "from_numpy", "as_tensor",
    )
)  # fmt: skip
EVIDENCE_ROWS = 5


def _is_h2d(name: str) -> bool:
    return "HtoD" in name or "H2D" in name or "HOST_TO_DEVICE" in name.upper()


def _calls(trace: Trace) -> np.ndarray:
    """Per event: whether it is an operator call (a namespaced CPU op such as `aten::to`;
    PyTorch 1.8 traces also write record_function ranges such as `ProfilerStep#5` as CPU
    ops, and those are not calls)."""
    return (trace.kind == Kind.CPU_OP) & trace.names_matching(lambda s: "::" in s)


def _top(trace: Trace, calls: np.ndarray, op: int) -> int:
    """The outermost operator call above `op` (the call made from Python)."""
    parent = trace.events["parent"]
    while parent[op] >= 0 and calls[parent[op]]:
        op = int(parent[op])
    return op


def _found(ctx: Context) -> dict[str, Any]:
    if "create_on_device" in ctx.memo:
        return ctx.memo["create_on_device"]
    trace = gpu_trace(ctx)
    ev = trace.events
    copies = np.flatnonzero((ev["kind"] == Kind.MEMCPY) & trace.names_matching(_is_h2d))
    copies = copies[step_of(ctx, ev["start_ns"][copies]) >= 0]
    calls = _calls(trace)
    launcher = launching_ops(trace, copies)
    tops = sorted({_top(trace, calls, int(o)) for o in launcher.tolist() if o >= 0})
    ops = np.flatnonzero(calls)
    up = ev["parent"][ops]
    ops = ops[(up < 0) | ~calls[np.clip(up, 0, None)]]
    ops = ops[np.lexsort((ev["start_ns"][ops], ev["track"][ops]))]
    where = {int(o): i for i, o in enumerate(ops.tolist())}
    # operators whose own calls launched device work (a creator that did is on the device)
    made_device = set(
        launching_ops(trace, np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS))).tolist()
    )
    hits: list[tuple[int, int]] = []
    for t in tops:
        i = where.get(t)
        if not i:
            continue
        prev = int(ops[i - 1])
        name = trace.strings[int(ev["name"][prev])]
        if ev["track"][prev] == ev["track"][t] and name in CREATORS and prev not in made_device:
            hits.append((prev, t))
    ns = [float(ev["end_ns"][t] - ev["start_ns"][c]) for c, t in hits]
    order = np.argsort(ns)[::-1][:EVIDENCE_ROWS]
    out = {
        "calls": len(hits) / steps_count(ctx),
        "us": sum(ns) / 1000.0 / steps_count(ctx),
        "evidence": tuple(
            Evidence(
                kind="time_range",
                page="timeline",
                value=ns[k] / 1000.0,
                unit="us",
                name=trace.strings[int(ev["name"][hits[k][0]])],
                start_ns=int(ev["start_ns"][hits[k][0]]),
                end_ns=int(ev["end_ns"][hits[k][1]]),
                **label(
                    "create_then_copy",
                    name=trace.strings[int(ev["name"][hits[k][0]])],
                    copy=trace.strings[int(ev["name"][hits[k][1]])],
                    us=ns[k] / 1000.0,
                ),
            )
            for k in order.tolist()
        ),
    }
    ctx.memo["create_on_device"] = out
    return out


@fact(
    "copies.created_on_host_calls",
    "count",
    "Host-to-device copies per step of a tensor the previous operator created on the host "
    "(aten::ones / zeros / tensor / arange ... then aten::to / copy_); evidence: the "
    "creation-and-copy ranges.",
    NEEDS,
)
def created_on_host_calls(ctx: Context) -> Observed:
    got = _found(ctx)
    return Observed(got["calls"], got["evidence"])


@fact(
    "copies.created_on_host_us",
    "us",
    "Host time per step from each such creation to the end of its copy, microseconds.",
    NEEDS,
)
def created_on_host_us(ctx: Context) -> float:
    return float(_found(ctx)["us"])
