"""Exposed communication of a MindSpore run timed only by its step trace.

Without a kernel timeline nothing says what overlaps; the step trace still times each
collective stage, and what runs after the BP point (the backward's end) has no compute to
hide behind. Two readings: the data-parallel reduce stages (`_parallel_` columns) after BP,
and otherwise what the step-trace ledger booked as exposed communication, which is also
what savings claimed from that part are capped by.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.steps.stages import REDUCE_TABLE, STEP_TABLE


def step_trace_ledger(ctx: Context) -> tuple[float, float, list[float]] | None:
    """The step-trace ledger's exposed communication (collective stages after the BP point,
    analysis/steps/step_trace_ledger.py) on a run with collectives: the time the ledger
    books and savings are capped by. None else."""
    ledger = ctx.report.get("ledger") or {}
    average = ledger.get("average_us") or {}
    if ledger.get("source") != "step_trace" or not ctx.report.get("communication"):
        return None
    parts, rows = ledger.get("parts") or [], ledger.get("per_step_us") or []
    if "exposed_communication" not in parts or not rows:
        return None
    per_step = [float(r[parts.index("exposed_communication")] or 0.0) for r in rows]
    step = sum(float(v or 0.0) for v in average.values())
    return (float(average.get("exposed_communication") or 0.0), step, per_step) if step else None


def reduce_after_backward(ctx: Context) -> tuple[float, float, list[float]] | None:
    """MindSpore's step trace: per step, the time its data-parallel all-reduce stages
    (`stream_<s>_parallel_<n>` columns) run after the backward end (BP point). Before it
    backward compute hides them; after it only the optimizer could, and it needs the reduced
    gradients, so that part is exposed. None without such stages."""
    trace = ctx.trace
    if trace is None:
        return None
    steps, red = trace.tables.get(STEP_TABLE), trace.tables.get(REDUCE_TABLE)
    if steps is None or red is None or not len(red["step"]):
        return None
    parallel = np.array(["_parallel_" in n for n in trace.strings.lookup(red["stage"])], bool)
    if not parallel.any():
        return None
    per_step, totals = [], []
    for i in np.argsort(steps["step"], kind="stable").tolist():
        step = int(steps["step"][i])
        bp, end = int(steps["bp_ns"][i]), int(steps["end_ns"][i])
        mine = parallel & (red["step"] == step) & (red["start_ns"] > 0)
        mine &= red["end_ns"] > red["start_ns"]
        starts = np.maximum(red["start_ns"][mine], bp)
        ends = np.minimum(red["end_ns"][mine], end)
        keep = ends > starts
        u = iv.union(starts[keep], ends[keep])
        per_step.append(u.total() / 1000.0)
        totals.append(float(end - int(steps["start_ns"][i])) / 1000.0)
    if not per_step or not sum(totals):
        return None
    return float(np.mean(per_step)), float(np.mean(totals)), per_step
