"""Step trace section: each step split at its FP start and BP end, for every framework.

MindInsight's step-trace view (iteration interval | forward+backward | tail, with the
reduce stages drawn as lines) is the view users of MindSpore know; this builds the same
figures for MindSpore (from the step points MindSpore itself wrote, `analysis.step_trace`)
and for PyTorch (from points found in the operator tree, `analysis.fpbp_points`), in one
JSON-ready shape so the report and the UI need no per-framework branch.
Times are microseconds; absolute times are relative to the first step's start
(`origin_ns`). The average covers the report's step set (`boundaries.averaged_from`:
MindSpore's leaves out the first step, which carries graph compilation, as MindInsight
does; PyTorch's covers every step the profiler's schedule kept, as the plugin does), so
the overview, this page, the cluster page and the advisor describe the same steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.categories import (
    comm_kernel_mask,
    host_range_mask,
    is_comm_op_name,
)
from mindinsight_profiler.analysis.steps.boundaries import averaged_from, find_steps
from mindinsight_profiler.analysis.steps.covered import steps_covered
from mindinsight_profiler.analysis.steps.fpbp_points import find_points
from mindinsight_profiler.analysis.steps.stages import REDUCE_TABLE, STEP_TABLE
from mindinsight_profiler.model.trace import Trace

STAGES = ("total", "iteration_interval", "fp_and_bp", "tail")


@dataclass(frozen=True)
class StepPoints:
    """FP start / BP end operators the user configured for every run (`FP_POINT`/`BP_POINT`).

    Read once where settings enter (the CLI, the server's settings, the Profiler) and passed
    down: an analysis never reads the environment, so the same trace always gives the same
    section, and the cache key can name the points that shaped a cached report.
    """

    fp: str | None = None
    bp: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> StepPoints:
        return cls(environ.get("FP_POINT") or None, environ.get("BP_POINT") or None)


#: No configured points: both are found automatically.
AUTO_POINTS = StepPoints()


@dataclass(frozen=True)
class _Timeline:
    """Points of every step (ns) and its collectives, whatever framework they came from."""

    labels: list[str]
    start: np.ndarray
    fp: np.ndarray
    bp: np.ndarray
    end: np.ndarray
    fp_ops: list[str]
    bp_ops: list[str]
    coll_step: np.ndarray  # step position of each collective
    coll_name: list[str]
    coll_start: np.ndarray
    coll_end: np.ndarray


def step_trace_section(
    trace: Trace,
    fp_point: str | None = None,
    bp_point: str | None = None,
    configured: StepPoints = AUTO_POINTS,
    first: int | None = None,
) -> dict[str, Any] | None:
    """Per-step and average stages with the FP/BP points used; None without steps.

    `first`: index of the first step the average covers, the report's one rule
    (`boundaries.averaged_from`, applied here when None), so this page and the overview
    average the same steps.

    `fp_point`/`bp_point` (else the `configured` ones, shown as source `env`) name the
    operators to split at in operator traces; MindSpore's step-trace points are the device's
    own and are kept.
    """
    if STEP_TABLE in trace.tables and len(trace.tables[STEP_TABLE]["step"]):
        return _render(trace, _from_table(trace), "step_trace_table", *_ms_points(trace), first)
    fp_src = "argument" if fp_point else ("env" if configured.fp else "auto")
    bp_src = "argument" if bp_point else ("env" if configured.bp else "auto")
    fp_point = fp_point or configured.fp
    bp_point = bp_point or configured.bp
    tl = _from_operators(trace, fp_point, bp_point)
    if tl is None:
        return None
    fp = _point(fp_point, fp_src, tl.fp_ops)
    bp = _point(bp_point, bp_src, tl.bp_ops)
    return _render(trace, tl, "operator_tree", fp, bp, first)


def _point(name: str | None, source: str, per_step: list[str]) -> dict[str, Any]:
    """The point's name (the named one, or the most common automatic one) and its coverage."""
    if name is None:
        common = Counter(n for n in per_step if n).most_common(1)
        name = common[0][0] if common else None
    found = sum(1 for n in per_step if n and n == name)
    return {"name": name, "source": source, "steps_found": found}


def _ms_points(trace: Trace) -> tuple[dict[str, Any], dict[str, Any]]:
    n = len(trace.tables[STEP_TABLE]["step"])
    fp, bp = trace.meta.get("fp_point"), trace.meta.get("bp_point")
    return (
        {"name": fp, "source": "profiler", "steps_found": n if fp else 0},
        {"name": bp, "source": "profiler", "steps_found": n if bp else 0},
    )


def _from_table(trace: Trace) -> _Timeline:
    """MindSpore: the points as MindSpore wrote them (`step_trace_raw_*_detail_time.csv`).

    A reduce stage MindSpore did not record in a step has 0 for its points (in
    profiler_fixtures' rank 10, steps 21-40 hold no stage at all): it is left out of that
    step, as MindInsight leaves it out of the step's graph, instead of being drawn at
    syscnt 0, i.e. minutes before the step. The average still counts it as 0 there, as
    MindSpore's own average row does.
    """
    t = trace.tables[STEP_TABLE]
    order = np.argsort(t["step"], kind="stable")
    step = t["step"][order]
    n = len(step)
    fp_name = str(trace.meta.get("fp_point") or "")
    bp_name = str(trace.meta.get("bp_point") or "")
    red = trace.tables.get(REDUCE_TABLE)
    if red is None or len(red["step"]) == 0:
        pos = np.zeros(0, np.int64)
        names: list[str] = []
        rs = re = np.zeros(0, np.int64)
    else:
        pos = np.searchsorted(step, red["step"])
        ok = (pos < n) & (step[np.clip(pos, 0, n - 1)] == red["step"])
        ok &= (red["start_ns"] > 0) & (red["end_ns"] > red["start_ns"])  # recorded in the step
        pos, names = pos[ok], trace.strings.lookup(red["stage"][ok])
        rs, re = red["start_ns"][ok], red["end_ns"][ok]
    return _Timeline(
        labels=[str(s) for s in step.tolist()],
        start=t["start_ns"][order],
        fp=t["fp_ns"][order],
        bp=t["bp_ns"][order],
        end=t["end_ns"][order],
        fp_ops=[fp_name] * n,
        bp_ops=[bp_name] * n,
        coll_step=pos,
        coll_name=names,
        coll_start=rs,
        coll_end=re,
    )


def _from_operators(trace: Trace, fp_point: str | None, bp_point: str | None) -> _Timeline | None:
    """PyTorch (any operator trace): steps from `ProfilerStep#N`, points searched."""
    steps = find_steps(trace)
    if not steps.from_profiler_steps or len(steps) == 0:
        return None
    pts = find_points(trace, steps, fp_point, bp_point)
    ev = trace.events
    coll = np.flatnonzero(comm_kernel_mask(trace))
    if len(coll) == 0:  # CPU-only (gloo) runs: the outermost host collective ranges
        host_comm = host_range_mask(trace) & trace.names_matching(is_comm_op_name)
        par = ev["parent"]
        coll = np.flatnonzero(host_comm & ~((par >= 0) & host_comm[np.clip(par, 0, None)]))
    k = np.searchsorted(steps.start_ns, ev["start_ns"][coll], side="right") - 1
    inside = (k >= 0) & (ev["start_ns"][coll] < steps.end_ns[np.clip(k, 0, None)])
    coll, k = coll[inside], k[inside]
    return _Timeline(
        labels=list(steps.names),
        start=steps.start_ns,
        fp=pts.fp_ns,
        bp=pts.bp_ns,
        end=steps.end_ns,
        fp_ops=pts.fp_names,
        bp_ops=pts.bp_names,
        coll_step=k,
        coll_name=trace.strings.lookup(ev["name"][coll]),
        coll_start=ev["start_ns"][coll],
        coll_end=np.minimum(ev["end_ns"][coll], steps.end_ns[k]),
    )


def _us(ns: np.ndarray | int) -> Any:
    return (np.asarray(ns, dtype=np.float64) / 1000.0).tolist()


def _collectives(
    tl: _Timeline, origin: int, first_counted: int
) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Collectives of each step, and their average over the counted steps.

    A collective is keyed by name and ordinal among same-named ones of its step, so repeated
    all-reduces (DDP buckets) average position by position; absent in a step counts as 0,
    as in MindSpore's average row.
    """
    n = len(tl.labels)
    per_step: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    if len(tl.coll_step) == 0:
        return per_step, []
    uniq, name_id = np.unique(np.array(tl.coll_name, dtype=str), return_inverse=True)
    order = np.lexsort((tl.coll_start, name_id, tl.coll_step))
    step, nid = tl.coll_step[order], name_id[order]
    start, end = tl.coll_start[order], tl.coll_end[order]
    group = step * len(uniq) + nid
    pos = np.arange(len(order))
    first = np.maximum.accumulate(np.where(np.r_[True, group[1:] != group[:-1]], pos, 0))
    ordinal = pos - first
    key = nid * (int(ordinal.max()) + 1) + ordinal
    keys, inv = np.unique(key, return_inverse=True)
    counted = step >= first_counted
    total = np.bincount(inv[counted], weights=(end - start)[counted], minlength=len(keys))
    steps_counted = max(n - first_counted, 1)
    appear = np.full(len(keys), len(order))
    np.minimum.at(appear, inv, np.argsort(np.lexsort((start, step)), kind="stable"))
    average = [
        {
            "name": str(uniq[keys[j] // (int(ordinal.max()) + 1)]),
            "index": int(keys[j] % (int(ordinal.max()) + 1)),
            "duration_us": float(total[j]) / steps_counted / 1e3,
        }
        for j in np.argsort(appear, kind="stable").tolist()
    ]
    rel_s, rel_e, dur = _us(start - origin), _us(end - origin), _us(end - start)
    for j, s in enumerate(step.tolist()):
        row = {"name": str(uniq[nid[j]]), "start_us": rel_s[j], "end_us": rel_e[j]}
        per_step[s].append({**row, "duration_us": dur[j]})
    for rows in per_step:
        rows.sort(key=lambda r: r["start_us"])
    return per_step, average


def _render(
    trace: Trace,
    tl: _Timeline,
    source: str,
    fp: dict[str, Any],
    bp: dict[str, Any],
    first: int | None,
) -> dict[str, Any]:
    """The JSON-ready section (see module doc for units and the average)."""
    n = len(tl.labels)
    if first is None:
        first = averaged_from(trace, n)
    origin = int(tl.start[0])
    first_counted = first if n > first else 0
    stages = {
        "total": tl.end - tl.start,
        "iteration_interval": tl.fp - tl.start,
        "fp_and_bp": tl.bp - tl.fp,
        "tail": tl.end - tl.bp,
    }
    per_step, avg_coll = _collectives(tl, origin, first_counted)
    points = {"start": tl.start, "fp": tl.fp, "bp": tl.bp, "end": tl.end}
    rel = {p: _us(v - origin) for p, v in points.items()}
    per = {s: _us(v) for s, v in stages.items()}
    step_rows = []
    for i in range(n):
        row: dict[str, Any] = {"step": tl.labels[i]}
        row.update({f"{p}_us": rel[p][i] for p in points})
        row.update({f"{s}_us": per[s][i] for s in STAGES})
        row.update({"fp_op": tl.fp_ops[i], "bp_op": tl.bp_ops[i], "collectives": per_step[i]})
        step_rows.append(row)
    average: dict[str, Any] = {
        "steps": n - first_counted,
        "excludes_first_step": first_counted > 0,
        "covered": steps_covered(tl.labels, tl.labels[first_counted:], tl.labels[:first_counted]),
    }
    average.update({f"{s}_us": float(np.mean(v[first_counted:])) / 1e3 for s, v in stages.items()})
    average["collectives"] = avg_coll
    return {
        "source": source,
        "fp_point": fp,
        "bp_point": bp,
        "origin_ns": origin,
        "stages": list(STAGES),
        "steps": step_rows,
        "average": average,
    }
