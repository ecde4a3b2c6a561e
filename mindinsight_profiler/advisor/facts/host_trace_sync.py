"""Facts: waits for the device seen in a host-only trace of a GPU job.

Profiling with activities=[CPU] only leaves no kernel, copy or runtime call in the trace,
so the synchronisation facts that read them are unavailable; yet reading a device scalar
(`.item()` -> `aten::_local_scalar_dense`) still blocks the host until the device has run
everything queued before it. On the host a scalar read takes microseconds, so in a job that
runs on GPUs (it launches NCCL collectives, which exist only on CUDA/ROCm devices) a read of
a millisecond or more is the host waiting for the device. A CPU-only job has no such
collectives and leaves the fact unavailable: there a slow scalar read means a busy host.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events, totals_by
from mindinsight_profiler.advisor.facts.host import top_level_op
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind

NEEDS = "a host-only trace (no device events) of a job that launches NCCL collectives"
#: A host-side scalar read is microseconds; one this long waited for the device.
MIN_WAIT_NS = 1_000_000


@fact(
    "sync.host_trace_wait_us",
    "us",
    "Host-only traces of GPU jobs: average per step of the time in device scalar reads "
    "(aten::_local_scalar_dense, behind .item()) of 1 ms or more, microseconds: the host "
    "waiting for the device. Evidence: the operators and the longest reads.",
    NEEDS,
)
def host_trace_wait_us(ctx: Context) -> Observed:
    trace = ctx.trace
    if trace is None:
        raise Unavailable("needs the trace of this worker")
    ev = trace.events
    if is_kind(ev["kind"], DEVICE_KINDS).any():
        raise Unavailable("the trace has device events: the device sync facts apply")
    if not trace.names_matching(lambda s: s.startswith("nccl:")).any():
        raise Unavailable(f"needs {NEEDS}")
    reads = np.flatnonzero(
        (ev["kind"] == Kind.CPU_OP)
        & trace.names_matching(lambda s: s == "aten::_local_scalar_dense")
        & (ev["end_ns"] - ev["start_ns"] >= MIN_WAIT_NS)
    )
    step = step_of(ctx, ev["start_ns"][reads])
    reads, step = reads[step >= 0], step[step >= 0]
    names, _, _ = step_windows(ctx)
    dur = ev["end_ns"][reads] - ev["start_ns"][reads]
    outer = [s or "(no operator)" for s in trace.strings.lookup(
        ev["name"][top_level_op(trace, reads)])]  # fmt: skip
    evidence = totals_by(
        outer,
        dur.tolist(),
        lambda name, ns, count: label(
            "api_calls", api="aten::_local_scalar_dense", where=name, calls=count, us=ns / 1000
        ),
        str,
    )
    evidence += longest_events(trace, reads, names, step, outer)
    return Observed(float(dur.sum()) / 1000.0 / len(names), tuple(evidence))
