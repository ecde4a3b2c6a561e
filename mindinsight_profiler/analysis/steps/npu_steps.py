"""Per-step computing / communication / free time on a device, as Ascend tools define them.

torch_npu's `step_trace_time.csv` (and MindStudio Insight's overview) split each step's
device time this way, so users of Ascend compare against these figures:
- computing: time at least one compute kernel runs (union; communication ops excluded,
  copies not counted);
- communication: time at least one communication op runs (union);
- communication not overlapped: communication time with no compute kernel running;
  overlapped = communication - not overlapped;
- stage: first to last device task of the step (compute or communication), minus bubble;
- free: stage - computing - communication not overlapped (the device idles);
- bubble: time in receive ops (`*receive*`, pipeline parallelism);
- preparing: from the step's host start to its first device task.
A kernel belongs to the step whose window (from `find_steps`, device work included) holds
its start. The figures come from events only, so any format with kernels gets them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.steps.boundaries import Steps, find_steps
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import rows_by_group

FIELDS = (
    "computing_ns",
    "comm_not_overlapped_ns",
    "overlapped_ns",
    "communication_ns",
    "free_ns",
    "stage_ns",
    "bubble_ns",
    "comm_not_overlapped_excl_receive_ns",
    "preparing_ns",
)


@dataclass(frozen=True)
class NpuStepTimes:
    """One row per step (names as in `Steps`); `values[:, j]` is `FIELDS[j]` in ns."""

    names: list[str]
    values: np.ndarray  # shape (steps, len(FIELDS)), int64

    def column(self, field: str) -> np.ndarray:
        return self.values[:, FIELDS.index(field)]


def _step_row(
    compute: iv.Ranges, comm: iv.Ranges, receive: iv.Ranges, host_start: int
) -> list[int]:
    busy = iv.union(
        np.concatenate([compute.start, comm.start]), np.concatenate([compute.end, comm.end])
    )
    if len(busy) == 0:
        return [0] * len(FIELDS)
    computing = compute.total()
    communication = comm.total()
    not_overlapped = iv.subtract(comm, compute).total()
    receive_alone = iv.subtract(receive, compute).total()
    bubble = receive.total()
    stage = int(busy.end[-1] - busy.start[0]) - bubble
    return [
        computing,
        not_overlapped,
        communication - not_overlapped,
        communication,
        stage + bubble - computing - not_overlapped,
        stage,
        bubble,
        not_overlapped - receive_alone,
        int(busy.start[0]) - host_start,
    ]


def npu_step_times(trace: Trace, steps: Steps | None = None) -> NpuStepTimes:
    """Computing / communication / free per step (see module doc); empty if no kernels."""
    steps = find_steps(trace) if steps is None else steps
    ev = trace.events
    kernels = ev["kind"] == Kind.KERNEL
    comm = comm_kernel_mask(trace)
    receive = trace.names_matching(lambda s: "receive" in s.lower()) & comm
    out = np.zeros((len(steps), len(FIELDS)), dtype=np.int64)
    k = np.flatnonzero(kernels)
    step_of = np.searchsorted(steps.start_ns, ev["start_ns"][k], side="right") - 1
    inside = (step_of >= 0) & (ev["start_ns"][k] < steps.end_ns[np.clip(step_of, 0, None)])
    k, step_of = k[inside], step_of[inside]
    # Each step's kernels from one sort (in row order): a mask per step would make this
    # quadratic in a long capture; the interval work inside a step is vectorised.
    for j, mine in enumerate(rows_by_group(step_of, len(steps))):
        rows = k[mine]
        s, e = ev["start_ns"][rows], ev["end_ns"][rows]
        c, r = comm[rows], receive[rows]
        out[j] = _step_row(
            iv.union(s[~c], e[~c]), iv.union(s[c], e[c]), iv.union(s[r], e[r]),
            int(steps.host_start_ns[j]),
        )  # fmt: skip
    return NpuStepTimes(list(steps.names), out)
