"""Facts: host waits for a device the trace does not hold (host-side-only traces of GPU jobs).

Some traces keep only the host threads of a job that ran on accelerators (a trace cut to
its CPU events, a fixture, a profiler run with the CPU activity only): no kernel, no
runtime call, so `sync.blocking_*` (which read cudaStreamSynchronize & co.) cannot tell.
The job's device still shows in its host operators: NCCL collectives and
`record_stream` exist only with a device. There, the operators that read device memory
back on the host, `.item()` (`_local_scalar_dense`) and `.to()`/`.cpu()` of a small tensor
(`copy_` under `_to_copy`), block until the device has finished everything queued before
them: a scalar read or a copy of a few kilobytes costs microseconds on the host, so what
they take beyond that is the wait.
"""

from __future__ import annotations

import json

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind
from mindinsight_profiler.model.trace import Trace

#: A read-back call counts when it lasts this long (ns): the host part is microseconds.
MIN_WAIT_NS = 100_000
#: ... and its input holds at most this many elements (a scalar, lengths, a small index).
MAX_ELEMENTS = 16_384

NEEDS = "a host-only trace of a job that ran on a device (NCCL or record_stream operators)"


def _device_marker(name: str) -> bool:
    """Host operators that exist only when the job has a device."""
    return name.startswith(("nccl:", "ncclKernel", "hccl")) or name in {
        "aten::record_stream",
        "cudaStreamSynchronize",
    }


def ran_on_device(trace: Trace | None) -> bool:
    """Whether a trace without device events names operators only a device job has."""
    return trace is not None and bool(trace.names_matching(_device_marker).any())


def _elements(dims_text: str) -> int | None:
    """Elements of the first tensor input, from the JSON text of "Input Dims"."""
    try:
        dims = json.loads(dims_text)
    except ValueError:
        return None
    if not isinstance(dims, list) or not dims or not isinstance(dims[0], list):
        return None
    if any(not isinstance(d, int) for d in dims[0]):
        return None
    return int(np.prod(dims[0])) if dims[0] else 1


def _readbacks(ctx: Context) -> tuple[Trace, np.ndarray, np.ndarray]:
    """(trace, read-back calls that waited, their step)."""
    trace = ctx.trace
    if trace is None or not (trace.kind == Kind.CPU_OP).any():
        raise Unavailable(f"needs {NEEDS}")
    ev = trace.events
    if np.isin(ev["kind"], DEVICE_KINDS).any() or (ev["kind"] == Kind.RUNTIME).any():
        raise Unavailable("the trace holds the device's work: sync.blocking_* judge its syncs")
    if not ran_on_device(trace):
        raise Unavailable(f"needs {NEEDS}")
    scalar = trace.strings.codes_where(lambda s: s == "aten::_local_scalar_dense")
    copy = trace.strings.codes_where(lambda s: s == "aten::copy_")
    to_copy = trace.strings.codes_where(lambda s: s == "aten::_to_copy")
    parent = np.clip(ev["parent"], 0, None)
    under_to = (ev["parent"] >= 0) & np.isin(ev["name"][parent], to_copy)
    kind = (ev["kind"] == Kind.CPU_OP) & (
        np.isin(ev["name"], scalar) | (np.isin(ev["name"], copy) & under_to)
    )
    long = (ev["end_ns"] - ev["start_ns"]) >= MIN_WAIT_NS
    rows = np.flatnonzero(kind & long)
    small = [
        ev["input_dims"][i] < 0
        or (n := _elements(trace.strings[int(ev["input_dims"][i])])) is None
        or n <= MAX_ELEMENTS
        for i in rows
    ]
    rows = rows[np.asarray(small, dtype=bool)] if len(rows) else rows
    step = step_of(ctx, ev["start_ns"][rows])
    return trace, rows[step >= 0], step[step >= 0]


@fact(
    "sync.readback_calls",
    "count",
    "Per step, on a host-only trace of a device job: .item() / .to() / .cpu() read-backs of "
    "small tensors (at most 16,384 elements) lasting 0.1 ms or more, i.e. waiting for the "
    "device.",
    NEEDS,
)
def readback_calls(ctx: Context) -> float:
    names, _, _ = step_windows(ctx)
    return len(_readbacks(ctx)[1]) / len(names)


@fact(
    "sync.readback_us",
    "us",
    "Average per-step host time in those read-backs, microseconds: the host waiting for the "
    "device. Evidence: the longest calls as timeline ranges.",
    NEEDS,
)
def readback_us(ctx: Context) -> Observed:
    trace, rows, step = _readbacks(ctx)
    names, _, _ = step_windows(ctx)
    ev = trace.events
    dur = ev["end_ns"][rows] - ev["start_ns"][rows]
    top = trace.strings.lookup(ev["name"][np.clip(ev["parent"][rows], 0, None)])
    evidence = longest_events(trace, rows, names, step, top)
    return Observed(float(dur.sum()) / 1000.0 / len(names), tuple(evidence))
