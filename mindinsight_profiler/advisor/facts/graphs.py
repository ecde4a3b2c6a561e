"""Facts: what capturing the step in a CUDA/HIP graph could save, on GPU runs only.

A graph replays a captured sequence of kernels with one launch, so the device no longer
waits for each launch: the saving is the launch-bound idle time the host-overhead facts
measure (`kernels.launch_bound_us`: idle gaps before kernels shorter than their launch,
each capped at its launch). Graphs are a CUDA/HIP feature: on Ascend (task queue, ACL
graphs) these facts are unavailable, never translated into CUDA advice. A program that
already replays graphs, or a window that captures them, is not told to start.
"""

from __future__ import annotations

from mindinsight_profiler.advisor.facts.compute import gpu_trace, step_windows
from mindinsight_profiler.advisor.facts.registry import Context, Unavailable, fact
from mindinsight_profiler.model.kinds import Kind

_REPLAY = frozenset(
    {"cudaGraphLaunch", "cudaGraphLaunch_v10000", "hipGraphLaunch", "cuGraphLaunch"}
)


def _gpu_only(ctx: Context) -> None:
    if ctx.report.get("device_type") != "gpu":
        raise Unavailable("graph capture advice applies to CUDA/HIP GPUs only")


@fact(
    "graphs.replays_per_step",
    "count",
    "Graph launches (cudaGraphLaunch / hipGraphLaunch) per step: the program already replays "
    "captured graphs. GPU runs only.",
    "a GPU trace with runtime API events",
)
def replays_per_step(ctx: Context) -> float:
    _gpu_only(ctx)
    trace = gpu_trace(ctx)
    ev = trace.events
    if not (ev["kind"] == Kind.RUNTIME).any():
        raise Unavailable("the trace has no runtime API events")
    names, start, end = step_windows(ctx)
    calls = (ev["kind"] == Kind.RUNTIME) & trace.names_matching(lambda s: s in _REPLAY)
    at = ev["start_ns"][calls]
    inside = ((at >= start[0]) & (at < end[-1])).sum()
    return float(inside) / len(names)


@fact(
    "graphs.launch_bound_us",
    "us",
    "kernels.launch_bound_us on a GPU run: device idle time per step before launch-bound "
    "kernels, each gap capped at its launch, microseconds (what one graph launch per step "
    "instead of one launch per kernel could save).",
    "a GPU trace with launch correlations",
)
def launch_bound_us(ctx: Context) -> float:
    _gpu_only(ctx)
    value = ctx.value("kernels.launch_bound_us")
    if value is None:
        raise Unavailable(ctx.reason("kernels.launch_bound_us") or "needs launch correlations")
    return float(value)
