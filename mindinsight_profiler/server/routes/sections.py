"""Report sections of one worker (overview, step trace, data pipeline, memory, ...), the
cluster summary over the run's workers, the diff of two runs and the advisor's findings.

All of them are views of the cached report: the same numbers `mindinsight analyse
--format json` prints, cut to the section asked for.
"""

from __future__ import annotations

from typing import Any

import msgspec
from flask import Blueprint

from mindinsight_profiler.advisor.model import SEVERITY_RANK
from mindinsight_profiler.analysis.cluster.view import cluster_view
from mindinsight_profiler.analysis.data_pipeline.minddata_steps import queue_steps
from mindinsight_profiler.analysis.diff import diff_reports
from mindinsight_profiler.analysis.pages import page_availability
from mindinsight_profiler.analysis.steps.fpbp_points import has_point_operator
from mindinsight_profiler.analysis.steps.stages import STEP_TABLE
from mindinsight_profiler.analysis.steps.step_trace import step_trace_section
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.registry import RunEntry
from mindinsight_profiler.server.routes.common import endpoint
from mindinsight_profiler.server.routes.places import add_places, add_workers
from mindinsight_profiler.server.services import services

bp = Blueprint("sections", __name__)


def _data_pipeline_summary(section: dict[str, Any] | None) -> dict[str, Any] | None:
    if not section:
        return None
    wait = section.get("data_wait") or {}
    return {
        "framework": section.get("framework"),
        "data_wait": {k: wait.get(k) for k in ("average_us", "covered", "share", "loader_share")},
        "verdict": section.get("verdict"),
    }


def _memory_peaks(section: dict[str, Any] | None) -> dict[str, Any] | None:
    if not section:
        return None
    keys = ("device", "peak_allocated", "peak_reserved")
    return {"devices": [{k: d.get(k) for k in keys} for d in section.get("devices") or []]}


OVERVIEW_KEYS = (
    "format", "framework", "device_type", "steps", "breakdown_us", "gpu", "npu", "op_types"
)  # fmt: skip


@endpoint(bp, "/runs/<run>/overview", schemas.Query, schemas.Overview)
def overview(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Steps, time breakdown (average and per step), GPU, operator types, data pipeline,
    memory peaks, distributed."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    r = access.report(target)
    return {
        **target.where(),
        **{k: r.get(k) for k in OVERVIEW_KEYS},
        "step_stages": _step_stages(r.get("step_trace")),
        "breakdown_per_step_us": r.get("breakdown_per_step_us") or [],
        "data_pipeline": _data_pipeline_summary(r.get("data_pipeline")),
        "memory": _memory_peaks(r.get("memory")),
        "distributed": r.get("distributed"),
        "parallel": r.get("parallel"),
        "perf": _perf_summary(r.get("perf_model")),
        "window": _window_summary(target, r.get("window")),
        "warnings": r.get("warnings") or [],
        "pages": page_availability(r, len(target.run.run.workers)),
    }


def _perf_summary(section: dict[str, Any] | None) -> dict[str, Any] | None:
    """MFU and the device it is measured against, for the overview's card."""
    if not section:
        return None
    totals = section["totals"]
    return {
        "device": section["device"]["name"],
        "unavailable": section["unavailable"],
        "unavailable_zh": section["unavailable_zh"],
        **{k: totals[k] for k in ("mfu", "hfu", "covered_share", "low_roof_share")},
        "step_mfu": [s["mfu"] for s in section["steps"]],
    }


def _window_summary(target: access.Target, section: dict[str, Any] | None) -> dict[str, Any] | None:
    """One-off work in the window for the overview's marker, each kind's longest event from
    the timeline's origin (the trace is read only when there is one: most runs have none)."""
    if not section:
        return None
    longest = section.get("longest") or {}
    if longest:
        zero = access.origin_ns(target)
        longest = {
            k: {**e, "start_ns": e["start_ns"] - zero, "end_ns": e["end_ns"] - zero}
            for k, e in longest.items()
        }
    keys = ("total_us", "share", "window_share", "limit")
    return {**{k: section.get(k) for k in keys}, "longest": longest}


def _step_stages(step_trace: dict[str, Any] | None) -> dict[str, Any] | None:
    """The step stages MindSpore's profiler recorded (not those we derive from operators:
    the overview's breakdown already says where a PyTorch step goes)."""
    if not step_trace or step_trace.get("source") != "step_trace_table":
        return None
    return {
        "fp_point": step_trace["fp_point"]["name"],
        "bp_point": step_trace["bp_point"]["name"],
        "average": step_trace["average"],
    }


def _section(run: str, p: dict[str, Any], key: str) -> dict[str, Any]:
    target = access.resolve(run, p.get("worker"), p.get("span"))
    return {**target.where(), "data": access.report(target).get(key)}


@endpoint(bp, "/runs/<run>/aicpu", schemas.Query, schemas.Section)
def aicpu(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """MindSpore's AI CPU tables: per op type and per op (null without an AI CPU file)."""
    return _section(run, p, "aicpu")


@endpoint(bp, "/runs/<run>/dynamic-shape", schemas.Query, schemas.Section)
def dynamic_shape(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """MindSpore's dynamic-shape view: time per step of each op type and op, with the ops'
    input shapes (null without a dynamic_shape_info file)."""
    return _section(run, p, "dynamic_shape")


@endpoint(bp, "/runs/<run>/perf-model", schemas.Query, schemas.Section)
def perf_model(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """FLOPs and bytes per operator, the roofline, MFU per step and the device used (null
    for inputs without operator calls); each row's longest call from the timeline's origin."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    section = access.report(target).get("perf_model")
    if section:
        zero = access.origin_ns(target)
        section = {**section, **{k: [_from_origin(r, zero) for r in section[k]]
                                 for k in ("operators", "shapes", "kernels")}}  # fmt: skip
    return {**target.where(), "data": section}


def _from_origin(row: dict[str, Any], zero: int) -> dict[str, Any]:
    """The row with `longest_call_ns` relative to the timeline's origin, as every time the
    API serves (the report's are absolute: epoch nanoseconds do not survive a browser's
    doubles, and the timeline takes times from its origin). A new dict: the report is shared."""
    return {**row, "longest_call_ns": [t - zero for t in row["longest_call_ns"]]}


@endpoint(bp, "/runs/<run>/mindspore-flops", schemas.Query, schemas.Section)
def mindspore_flops(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """MindSpore's own FLOPs files (summary, per operator, scope sankey), as MindInsight
    showed them (null without them)."""
    return _section(run, p, "mindspore_flops")


@endpoint(bp, "/runs/<run>/step-trace", schemas.StepTraceQuery, schemas.Section)
def step_trace(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Step trace: FP/BP points, stages and per-step iteration interval, FP+BP and tail."""
    if not p.get("fp_point") and not p.get("bp_point"):
        return _section(run, p, "step_trace")
    target = access.resolve(run, p.get("worker"), p.get("span"))
    return {**target.where(), "data": _step_trace_at(target, p.get("fp_point"), p.get("bp_point"))}


#: Recomputed step traces kept per trace (each is a few KB per hundred steps).
POINT_VARIANTS_KEPT = 16


def _step_trace_at(target: access.Target, fp: str | None, bp: str | None) -> dict[str, Any] | None:
    """The step trace split at the named operators, from the cached trace (memoized).

    A name that no host operator has is a 400 (a typo would otherwise silently give the
    automatic points); a name that exists but in no step gives the section with
    `steps_found` 0. MindSpore's points are the device's own and cannot be moved.
    """
    memo = access.derived(target, "step_trace_points")
    key = f"{fp}\0{bp}"
    if key in memo:
        found: dict[str, Any] | None = memo[key]
        return found
    trace = access.trace(target)
    if STEP_TABLE in trace.tables and len(trace.tables[STEP_TABLE]["step"]):
        name = "fp_point" if fp else "bp_point"
        raise ApiError(400, "bad_parameter",
                       f"{name}: this input's step points were written by the profiler "
                       "(MindSpore) and cannot be changed", parameter=name)  # fmt: skip
    for name, value in (("fp_point", fp), ("bp_point", bp)):
        if value and not has_point_operator(trace, value):
            raise ApiError(400, "bad_parameter", f"{name}: no operator named {value!r} in "
                           "this trace", parameter=name)  # fmt: skip
    first = access.report(target)["steps"]["averaged_from"]  # the report's step set
    section = step_trace_section(trace, fp, bp, services().settings.points, first)
    if len(memo) >= POINT_VARIANTS_KEPT:
        memo.clear()
    memo[key] = section
    return section


@endpoint(bp, "/runs/<run>/data-pipeline", schemas.Query, schemas.DataPipeline)
def data_pipeline(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Data pipeline: data wait per step, queues, workers, operators and the verdict."""
    out = _section(run, p, "data_pipeline")
    out["queue_steps"] = None
    if out["data"] and out["data"].get("framework") == "mindspore":
        target = access.resolve(run, p.get("worker"), p.get("span"))
        memo = access.derived(target, "queue_steps")
        if "value" not in memo:
            memo["value"] = queue_steps(access.trace(target))
        out["queue_steps"] = memo["value"]
    return out


@endpoint(bp, "/runs/<run>/memory", schemas.DeviceQuery, schemas.Section)
def memory(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Memory curves, peaks and the operators allocating most, per device (or one device)."""
    out = _section(run, p, "memory")
    device = p.get("device")
    if device is not None and out["data"] is not None:
        devices = [d for d in out["data"]["devices"] if d["device"] == device]
        if not devices:
            raise ApiError(404, "not_found", f"device {device!r} not in this worker's memory",
                           parameter="device")  # fmt: skip
        out["data"] = dict(out["data"], devices=devices)
    return out


@endpoint(bp, "/runs/<run>/communication", schemas.Query, schemas.Section)
def communication(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Communication of this rank: per-step computation/communication overlap, collectives."""
    return _section(run, p, "communication")


@endpoint(bp, "/runs/<run>/modules", schemas.Query, schemas.Section)
def modules(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Time per nn.Module (host and device, self and total), with each module's parent."""
    return _section(run, p, "modules")


@endpoint(bp, "/runs/<run>/cluster", schemas.ClusterQuery, schemas.ClusterView)
def cluster(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Cluster summary over every worker of the run: slowest rank, collective waiting, stages
    per rank, outlier ranks and the communication matrix."""
    return dict(access.run_view(run, p.get("span"), "cluster", _cluster_view))


def _cluster_view(entry: RunEntry, ranks: list[dict[str, Any]]) -> dict[str, Any]:
    return cluster_view(entry.id, entry.run.workers, ranks)


@endpoint(bp, "/runs/<run>/diff", schemas.DiffQuery, schemas.Diff)
def diff(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """This worker (before) against a worker of another run (after): what changed."""
    top = schemas.cap("top", p["top"], services().settings.max_page_size)
    target = access.resolve(run, p.get("worker"), p.get("span"))
    try:
        other = access.resolve(p["other"], p.get("other_worker"), p.get("other_span"))
    except ApiError as exc:
        raise ApiError(exc.status, exc.code, f"other: {exc.message}", parameter="other") from None
    result = diff_reports(access.report(target), access.report(other), top)
    covered = {
        "before_covered": access.report(target)["steps"]["covered"],
        "after_covered": access.report(other)["steps"]["covered"],
    }
    return {**target.where(), "other": other.where(), **result, **covered}


@endpoint(bp, "/runs/<run>/advice", schemas.AdviceQuery, schemas.Advice)
def advice(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """The advisor's ranked findings (at least `min_severity`), and what else was checked."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    found = access.advice(target)
    limit = SEVERITY_RANK[p["min_severity"]]
    shown = msgspec.structs.replace(  # the stored advice is shared: never change it
        found, findings=[f for f in found.findings if SEVERITY_RANK[f.severity] <= limit]
    )
    doc = msgspec.to_builtins(shown)
    add_places(doc["findings"], target)
    add_workers(
        doc["findings"], lambda: access.run_view(run, p.get("span"), "cluster", _cluster_view)
    )
    return {**target.where(), "advice": doc}
