"""MindSpore step stages (FP/BP), computed from the step points in the model.

A step runs from the previous step's end (the first from its own start point) to its
iteration end; within it, FP start and BP end split it into (MindInsight's definitions):
- iteration interval = FP start - step start (waiting for data, host work between steps);
- FP + BP = BP end - FP start (the forward and backward pass);
- tail = step end - BP end (gradient all-reduce and optimizer update after BP);
- each reduce stage = its end - its start.
The average excludes the first step, which carries compilation and warm-up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.model.trace import Trace

STEP_TABLE = "step_trace"
REDUCE_TABLE = "step_trace_reduce"
STAGES = ("total", "iteration_interval", "fp_and_bp", "tail")


@dataclass(frozen=True)
class StepStages:
    """Per-step stage durations in ns; `reduce_ns[k]` is stage `reduce_names[k]` per step."""

    step: np.ndarray
    total_ns: np.ndarray
    iteration_interval_ns: np.ndarray
    fp_and_bp_ns: np.ndarray
    tail_ns: np.ndarray
    reduce_names: list[str]
    reduce_ns: np.ndarray  # shape (len(reduce_names), steps)

    def __len__(self) -> int:
        return len(self.step)

    def average_ns(self) -> dict[str, float]:
        """Mean of each stage over the steps after the first (all steps if there is one)."""
        rows = slice(1, None) if len(self.step) > 1 else slice(None)
        out = {s: float(np.mean(getattr(self, f"{s}_ns")[rows])) for s in STAGES}
        for name, values in zip(self.reduce_names, self.reduce_ns, strict=True):
            out[name] = float(np.mean(values[rows]))
        return out


def step_stages(trace: Trace) -> StepStages | None:
    """Stage durations of every step, or None when the trace has no step points."""
    table = trace.tables.get(STEP_TABLE)
    if table is None or len(table["step"]) == 0:
        return None
    order = np.argsort(table["step"], kind="stable")
    step = table["step"][order]
    start, fp = table["start_ns"][order], table["fp_ns"][order]
    bp, end = table["bp_ns"][order], table["end_ns"][order]
    names, reduce_ns = _reduce_stages(trace, step)
    return StepStages(
        step=step,
        total_ns=end - start,
        iteration_interval_ns=fp - start,
        fp_and_bp_ns=bp - fp,
        tail_ns=end - bp,
        reduce_names=names,
        reduce_ns=reduce_ns,
    )


def _reduce_stages(trace: Trace, steps: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Reduce-stage durations as a (stage, step) matrix; a stage absent in a step is 0."""
    table = trace.tables.get(REDUCE_TABLE)
    if table is None or len(table["step"]) == 0:
        return [], np.zeros((0, len(steps)), dtype=np.int64)
    codes, stage_idx = np.unique(table["stage"], return_inverse=True)
    # Stages in the order they first appear (the CSV's column order), not by string code.
    first = np.full(len(codes), len(stage_idx), dtype=np.int64)
    np.minimum.at(first, stage_idx, np.arange(len(stage_idx)))
    rank = np.empty(len(codes), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(codes))
    step_pos = np.searchsorted(steps, table["step"])
    out = np.zeros((len(codes), len(steps)), dtype=np.int64)
    ok = (step_pos < len(steps)) & (steps[np.clip(step_pos, 0, len(steps) - 1)] == table["step"])
    np.add.at(out, (rank[stage_idx][ok], step_pos[ok]), (table["end_ns"] - table["start_ns"])[ok])
    names = trace.strings.lookup(codes[np.argsort(first, kind="stable")])
    return names, out
