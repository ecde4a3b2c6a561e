"""Facts: device-to-device copies (clone, copy_, contiguous, static graph inputs/outputs).

A copy inside device memory does no arithmetic: on a device-bound step it is time the
device spends moving bytes the program could have left in place (a `.contiguous()` after a
transpose, `clone()` of a tensor never written to, the static input and output copies of a
CUDA-graph-replayed compiled region). Kineto names them "Memcpy DtoD (Device -> Device)"
(peer copies between devices, "PtoP", are communication and left out).
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.compute import gpu_trace, step_of, step_windows
from mindinsight_profiler.advisor.facts.evidence import longest_events, totals_by
from mindinsight_profiler.advisor.facts.host import top_level_op
from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.model.kinds import Kind

NEEDS = "a GPU trace"


def _is_dtod(name: str) -> bool:
    return "DtoD" in name or "Device -> Device" in name


@fact(
    "copies.dtod_us",
    "us",
    "Average per-step device time of device-to-device copies ('Memcpy DtoD'), microseconds. "
    "Evidence: the top-level operators that issued them (e.g. CompiledFunction, aten::clone) "
    "and the longest copies on the timeline.",
    NEEDS,
)
def dtod_us(ctx: Context) -> Observed:
    if ctx.report.get("device_type") != "gpu":  # Ascend exports do not name copy directions
        raise Unavailable("needs a GPU trace (Kineto names device-to-device copies)")
    trace = gpu_trace(ctx)
    ev = trace.events
    copies = np.flatnonzero((ev["kind"] == Kind.MEMCPY) & trace.names_matching(_is_dtod))
    step = step_of(ctx, ev["start_ns"][copies])
    copies, step = copies[step >= 0], step[step >= 0]
    names, _, _ = step_windows(ctx)
    if not len(copies):
        return Observed(0.0)
    dur = ev["end_ns"][copies] - ev["start_ns"][copies]
    rt = ev["caller"][copies]
    op = np.where(rt >= 0, ev["caller"][np.clip(rt, 0, None)], -1)
    known = op >= 0
    top = np.full(len(op), -1, dtype=np.int64)
    top[known] = top_level_op(trace, op[known])
    ops = [s or "(no operator)" for s in trace.strings.lookup(
        np.where(top >= 0, ev["name"][np.clip(top, 0, None)], -1))]  # fmt: skip
    evidence = totals_by(
        ops,
        dur.tolist(),
        lambda name, ns, count: label("dtod_copies", name=name, calls=count, us=ns / 1000),
        str,
    )
    evidence += longest_events(trace, copies, names, step, ops)
    return Observed(float(dur.sum()) / 1000.0 / len(names), tuple(evidence))


@fact(
    "copies.dtod_share",
    "ratio",
    "copies.dtod_us divided by the average step time (0..1).",
    NEEDS,
)
def dtod_share(ctx: Context) -> float:
    us = ctx.value("copies.dtod_us")
    average = ctx.value("step.average_us")
    if us is None or not average:
        raise Unavailable(f"needs {NEEDS} and at least one step")
    return float(us) / float(average)
