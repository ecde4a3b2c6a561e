"""Facts: the messages this rank's collectives move (how many calls, how large).

A collective costs a fixed latency per call (a handshake per ring step, a kernel or a
worker hand-off) plus its bytes over the link's bandwidth. Many small calls per step are
latency-bound: DDP buckets far below `bucket_cap_mb`'s 25 MB default, a parameter
all-reduced on its own, FSDP units too fine. The sizes come from what each call records:
NCCL kernels their `In msg nelems` and `dtype` (the trace model's `comm_msg`), gloo's
`gloo:<collective>` ranges their tensor (`Input Dims` x the `Input type`'s element size).
Collective kernels without those args (traces before PyTorch recorded them) leave these
facts unavailable rather than guessed. A MindSpore run timed only by its step trace has
neither: its collective stages, sized by `hccl_raw`, stand in (comm_messages_ms).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.comm_messages_ms import step_trace_calls
from mindinsight_profiler.advisor.facts.compute import step_of
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.communication.host import host_collective_mask
from mindinsight_profiler.analysis.communication.naming import host_collective, kernel_collectives
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

#: A message below this is latency-bound on every interconnect a training job uses: NCCL
#: reaches its bus bandwidth only from a few MB, and msprof-analyze calls RDMA packets
#: under 1 MB small.
SMALL_BYTES = 1 << 20

#: Bytes per element of the dtypes profilers write in `Input type`.
DTYPE_BYTES = {
    "float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4,
    "short int": 2, "signed char": 1, "unsigned char": 1, "bool": 1,
    "c10::complex<float>": 8, "c10::complex<double>": 16, "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
}  # fmt: skip

#: Bytes per element of the c10 scalar types NCCL kernels write in `dtype`.
SCALAR_BYTES = {
    "Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4, "Short": 2,
    "Char": 1, "Byte": 1, "Bool": 1, "ComplexFloat": 8, "ComplexDouble": 16,
    "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1,
}  # fmt: skip

NEEDS = (
    "collectives that record their message sizes (NCCL kernels' In msg nelems, gloo ranges "
    "with record_shapes, MindSpore step-trace collectives sized by hccl_raw)"
)


def message_bytes(dims_text: str, types_text: str) -> int | None:
    """The bytes of a call's tensors from its `Input Dims` and `Input type` texts, or None
    when it recorded no shape or a dtype of unknown size."""
    try:
        dims, types = json.loads(dims_text), json.loads(types_text)
    except ValueError:
        return None
    if not isinstance(dims, list) or not isinstance(types, list) or len(dims) != len(types):
        return None
    total = 0
    for shape, dtype in zip(dims, types, strict=True):
        size = DTYPE_BYTES.get(dtype) if isinstance(dtype, str) else None
        if size is None or not isinstance(shape, list):
            continue
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape):
            return None
        total += size * int(np.prod(shape, dtype=np.int64))
    return total or None


def kernel_message_bytes(text: str) -> int | None:
    """The bytes of a kernel's `comm_msg` text (`[nelems, dtype, group size]`), or None."""
    try:
        nelems, dtype, _ = json.loads(text)
    except (ValueError, TypeError):
        return None
    size = SCALAR_BYTES.get(dtype) if isinstance(dtype, str) else None
    if size is None or not isinstance(nelems, int) or isinstance(nelems, bool) or nelems < 0:
        return None
    return nelems * size


def _sized(trace: Trace) -> tuple[np.ndarray, list[int | None], list[str]]:
    """(event rows, bytes or None, collective) of the calls: collective kernels where the
    trace has them, else gloo's host ranges."""
    ev = trace.events
    kernels = np.flatnonzero(comm_kernel_mask(trace) & (ev["kind"] == Kind.KERNEL))
    if len(kernels):
        texts = trace.strings.lookup(ev["comm_msg"][kernels])
        return kernels, [kernel_message_bytes(t) for t in texts], kernel_collectives(trace, kernels)
    rows = np.flatnonzero(host_collective_mask(trace))
    sizes = [
        message_bytes(d, t)
        for d, t in zip(trace.strings.lookup(ev["input_dims"][rows]),
                        trace.strings.lookup(ev["input_types"][rows]), strict=True)
    ]  # fmt: skip
    names = [host_collective(n) or n for n in trace.strings.lookup(ev["name"][rows])]
    return rows, sizes, names


def _calls(ctx: Context) -> dict[str, Any]:
    """Per sized call in the steps: bytes, duration (ns), step index, collective, start."""
    if "comm.messages" in ctx.memo:
        return dict(ctx.memo["comm.messages"])
    trace: Trace | None = ctx.trace
    if trace is None:
        raise Unavailable(f"needs the trace's events ({NEEDS})")
    rows, sizes, names = _sized(trace)
    if not len(rows):
        staged = step_trace_calls(ctx)
        if staged is None:
            raise Unavailable(f"needs {NEEDS}")
        ctx.memo["comm.messages"] = staged
        return dict(staged)
    ev = trace.events
    known = np.array([s is not None for s in sizes], dtype=bool)
    if not known.any():
        raise Unavailable(f"needs {NEEDS}: this trace's {len(rows)} calls record no size")
    step = step_of(ctx, ev["start_ns"][rows])
    keep = known & (step >= 0)
    if not keep.any():
        raise Unavailable("no collective call with a recorded size lies inside the steps")
    rows = rows[keep]
    names = [n for n, k in zip(names, keep.tolist(), strict=True) if k]
    out = {
        "bytes": np.array([s for s, k in zip(sizes, keep.tolist(), strict=True) if k], np.int64),
        "ns": ev["end_ns"][rows] - ev["start_ns"][rows],
        "step": step[keep],
        "name": names,
        "start_ns": ev["start_ns"][rows],
        "steps": len(ctx.report.get("steps", {}).get("names") or []) or 1,
    }
    ctx.memo["comm.messages"] = out
    return dict(out)


@fact(
    "comm.small_calls_per_step",
    "count",
    "Collective calls per step whose message is under 1 MiB (latency-bound), averaged over "
    "the steps; evidence: the sizes of the calls, largest first.",
    NEEDS,
)
def small_calls_per_step(ctx: Context) -> Observed:
    calls = _calls(ctx)
    small = calls["bytes"] < SMALL_BYTES
    sizes: dict[tuple[str, int], int] = {}
    for name, size in zip(calls["name"], calls["bytes"].tolist(), strict=True):
        sizes[(name, size)] = sizes.get((name, size), 0) + 1
    evidence = tuple(
        Evidence(
            kind="metric",
            **label("comm_message", name=name, kib=size / 1024, calls=n),
            page="communication",
            value=float(size),
            unit="bytes",
            name=name,
        )
        for (name, size), n in sorted(sizes.items(), key=lambda kv: -kv[0][1])[:10]
    )
    return Observed(float(small.sum()) / calls["steps"], evidence)


@fact(
    "comm.small_message_us",
    "us",
    "Time per step this rank's collectives spend in calls whose message is under 1 MiB "
    "(their durations summed, waiting included), microseconds.",
    NEEDS,
)
def small_message_us(ctx: Context) -> float:
    calls = _calls(ctx)
    small = calls["bytes"] < SMALL_BYTES
    return float(calls["ns"][small].sum()) / 1000.0 / calls["steps"]


@fact(
    "comm.small_message_share",
    "ratio",
    "Share (0..1) of this rank's collective time in the steps spent in calls whose message "
    "is under 1 MiB.",
    NEEDS,
)
def small_message_share(ctx: Context) -> float:
    calls = _calls(ctx)
    total = float(calls["ns"].sum())
    if total <= 0:
        raise Unavailable("the sized collectives take no time")
    return float(calls["ns"][calls["bytes"] < SMALL_BYTES].sum()) / total


@fact(
    "comm.small_message_transfer_us",
    "us",
    "comm.small_message_us less the share of it spent waiting for peers (comm.wait_us over "
    "this rank's sized collective time per step), microseconds: the per-call cost fusing "
    "the small calls can shorten. Measured on the calls themselves (their kernels or, on "
    "a MindSpore step trace, their stages), not on HCCL's transfer cost, which leaves out "
    "the per-call overhead; without comm.wait_us nothing is taken off.",
    NEEDS,
)
def small_message_transfer_us(ctx: Context) -> float:
    calls = _calls(ctx)
    small = float(calls["ns"][calls["bytes"] < SMALL_BYTES].sum()) / 1000.0 / calls["steps"]
    own = float(calls["ns"].sum()) / 1000.0 / calls["steps"]
    wait = ctx.value("comm.wait_us")
    if wait is None or own <= 0:
        return small
    return small * max(0.0, 1.0 - float(wait) / own)
