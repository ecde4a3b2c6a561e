"""The step ledger of a MindSpore run timed only by its step trace.

A MindSpore 1.x Ascend run often comes as `step_trace_raw_*_detail_time.csv` (and HCCL or
cluster files) with no operator or kernel timeline inside its steps, so the event ledger
(`analysis.steps.ledger`) finds nothing there and calls the whole step untracked. The step
trace still says what the device did with each step, on the device's own clock, and the
ledger is built from its points instead (each step from its start to its end):

- iteration interval (step start .. FP start): in dataset sink mode the device waits there
  for the next batch on the chip queue (MindInsight: "reading data from the data queue";
  its data preparation page is where to look). Only the measured part of that wait is
  data_wait: each step's GetNext dequeue wait (`minddata_aicpu_*.txt`, one per step, the
  same rows the data pipeline section reads) up to the interval. GetNext runs on the device
  only in sink mode, so these waits exist only there. The rest of the interval (host work,
  graph launch, and all of it without GetNext waits, where nothing ties it to data) stays
  untracked;
- FP + BP (FP start .. BP end): device_compute (unmodelled: the step trace names no
  operator). Communication stages the step trace records inside FP..BP (pipeline Send /
  Receive) run on their own streams, and the file cannot tell whether compute waited for
  them, so they are not carved out;
- tail (BP end .. step end): the reduce stages' time after BP end (their union, clipped to
  the tail) is exposed_communication (the gradient all-reduce the step waits for after
  its last backward op); the rest of the tail (optimizer update) device_compute.

The parts sum to each step's duration exactly (integer ns; points out of order are clipped
into the step, time of the step window outside the step trace's own range is untracked).
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.analysis.steps.stages import REDUCE_TABLE, STEP_TABLE
from mindinsight_profiler.model.trace import Trace

#: Table of the device's GetNext dequeue waits (`formats.mindspore.minddata`).
GETNEXT_TABLE = "getnext"


def _getnext_wait(trace: Trace, n: int) -> np.ndarray:
    """Each step-trace row's GetNext dequeue wait (ns), zeros when not one per step.

    As the data pipeline section pairs them: the k-th dequeue with the k-th step (the file
    carries no step number); a file of another length cannot be paired and counts for none.
    """
    g = trace.tables.get(GETNEXT_TABLE)
    if g is None or len(g["start_ns"]) != n:
        return np.zeros(n, np.int64)
    order = np.argsort(g["start_ns"], kind="stable")  # in time order, as the steps
    return np.maximum(g["end_ns"][order] - g["start_ns"][order], 0).astype(np.int64)


def _tail_comm(trace: Trace, step: np.ndarray, bp: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per step-trace row: ns of its reduce stages' union inside BP end .. step end."""
    out = np.zeros(len(step), np.int64)
    red = trace.tables.get(REDUCE_TABLE)
    if red is None or len(red["step"]) == 0:
        return out
    pos = np.searchsorted(step, red["step"])
    ok = (pos < len(step)) & (step[np.clip(pos, 0, len(step) - 1)] == red["step"])
    ok &= (red["start_ns"] > 0) & (red["end_ns"] > red["start_ns"])  # recorded in the step
    pos = pos[ok]
    s = np.maximum(red["start_ns"][ok], bp[pos])
    e = np.minimum(red["end_ns"][ok], end[pos])
    keep = e > s
    merged = iv.union(s[keep], e[keep])
    return iv.overlap_per_window(merged, bp, end).astype(np.int64)


def step_trace_parts(
    trace: Trace, steps: Steps, parts: tuple[str, ...]
) -> np.ndarray | None:  # fmt: skip
    """Per step (rows of `steps`) ns of each of `parts`, or None without a step trace.

    Steps the step trace has no row for are wholly untracked.
    """
    t = trace.tables.get(STEP_TABLE)
    if t is None or len(t["step"]) == 0 or len(steps) == 0:
        return None
    order = np.argsort(t["step"], kind="stable")
    step = t["step"][order]
    start, end = t["start_ns"][order], t["end_ns"][order]
    fp = np.clip(t["fp_ns"][order], start, end)
    bp = np.clip(t["bp_ns"][order], fp, end)
    wait = _getnext_wait(trace, len(step))
    comm = _tail_comm(trace, step, bp, end)
    col = {p: i for i, p in enumerate(parts)}
    out = np.zeros((len(steps), len(parts)), np.int64)
    row_of = {str(s): k for k, s in enumerate(step.tolist())}
    for i, name in enumerate(steps.names):
        k = row_of.get(name)
        w0, w1 = int(steps.start_ns[i]), int(steps.end_ns[i])
        if k is None:
            out[i, col["untracked"]] = w1 - w0
            continue
        # the step trace's points clipped into the step window, so the parts add up to it
        a, f, b, z = (int(np.clip(v, w0, w1)) for v in (start[k], fp[k], bp[k], end[k]))
        data = min(int(wait[k]), f - a)
        tail_comm = min(int(comm[k]), z - b)
        out[i, col["data_wait"]] = data
        out[i, col["device_compute"]] = (b - f) + (z - b - tail_comm)
        out[i, col["exposed_communication"]] = tail_comm
        out[i, col["untracked"]] = (w1 - w0) - data - (b - f) - (z - b)
    return out
