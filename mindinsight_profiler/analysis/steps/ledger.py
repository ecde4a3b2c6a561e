"""One ledger of each step's time: every nanosecond attributed once, to one cause.

The advisor's findings each claim part of the step (a data wait, launch overhead, idle
device...). Measured independently they overlap, and their savings added up past the
step. The ledger splits each step's wall time exclusively, by priority, into parts; a
finding's saving is a share of the parts it names (`advisor.ledger`), so the savings of a
run can be added and never exceed the step.

Parts, in priority order (the first that is active at an instant takes it):

- device_compute: a compute kernel runs (split by the performance model's category of the
  operator that launched it, matrix work first; `unmodelled` for the rest);
- exposed_copies: copies or sets run on the device, and no compute;
- exposed_communication: only collectives run (device kernels, or host collectives such as
  gloo on a CPU run);
- data_wait: the device is idle and the host waits in the data loader;
- sync_wait: the host blocks on the device (synchronize calls, synchronous copies, reading
  a device value, launching a device-to-host copy into pageable memory);
- host_launch: the host is in other runtime API calls (launches, allocations);
- host_compute: the host runs framework operators (on a CPU-only run: the compute itself);
- untracked: nothing profiled accounts for it (Python outside operators, sleeps, GC).

It refines the PyTorch plugin's step breakdown (same priorities and ranges; `sync_wait` is
carved out of its Runtime and CPU Exec), so its parts always sum to the step.

A step no profiled event accounts for (a MindSpore run timed only by its step trace, or a
timeline that covers some steps only) takes its parts from the step trace's points instead
(`analysis.steps.step_trace_ledger`: interval, FP+BP, tail and reduce stages).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import is_blocking_call, sync_copy_launches
from mindinsight_profiler.analysis.perf.calls import CATEGORIES as WORK_CATEGORIES
from mindinsight_profiler.analysis.perf.kernel_rows import kernel_owners
from mindinsight_profiler.analysis.perf.op_work import OpWork
from mindinsight_profiler.analysis.perf.perf_rows import category_codes
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.analysis.steps.breakdown import category_masks, covered
from mindinsight_profiler.analysis.steps.step_trace_ledger import step_trace_parts
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

PARTS = (
    "device_compute", "exposed_copies", "exposed_communication", "data_wait", "sync_wait",
    "host_launch", "host_compute", "untracked",
)  # fmt: skip
#: Device compute by what launched it: the model's categories, then kernels of no modelled call.
COMPUTE_PARTS = (*WORK_CATEGORIES, "unmodelled")
#: Host calls that wait on the device besides the runtime's blocking calls: reading a device
#: value (`.item()`, `.cpu()` of a scalar) synchronises through these operators.
_BLOCKING_OPS = frozenset({"aten::_local_scalar_dense", "aten::item"})


@dataclass(frozen=True)
class Ledger:
    """Per step (rows) ns of each part (PARTS) and of device compute by category."""

    per_step_ns: np.ndarray  # (steps, len(PARTS))
    compute_ns: np.ndarray  # (steps, len(COMPUTE_PARTS)); rows sum to device_compute
    #: "events"; "step_trace": every step timed by MindSpore's step points (step_trace_ledger);
    #: "events+step_trace": the steps without events timed by them
    source: str = "events"


def _sync_mask(trace: Trace) -> np.ndarray:
    ev = trace.events
    blocking = trace.names_matching(is_blocking_call) & (ev["kind"] == Kind.RUNTIME)
    blocking |= trace.names_matching(lambda s: s in _BLOCKING_OPS) & (ev["kind"] == Kind.CPU_OP)
    blocking |= sync_copy_launches(trace)
    return blocking


def part_ranges(trace: Trace) -> Iterator[tuple[str, iv.Ranges]]:
    """The time each part covers, before priorities are applied (untracked: the rest), in
    PARTS' order, one at a time (each part's working set is freed before the next)."""
    cat = category_masks(trace)
    masks = {
        "device_compute": cat["kernel"],
        "exposed_copies": lambda: cat["memcpy"]() | cat["memset"](),
        "exposed_communication": cat["communication"],
        "data_wait": cat["dataloader"],
        "sync_wait": lambda: _sync_mask(trace),
        "host_launch": cat["runtime"],
        "host_compute": cat["cpu_exec"],
    }
    for part, mask in masks.items():
        yield part, covered(trace, mask())


def _compute_ranges(trace: Trace, work: OpWork) -> list[iv.Ranges]:
    """Kernel time by the category of the counted call that launched it (COMPUTE_PARTS)."""
    ev = trace.events
    kernels, owner = kernel_owners(trace, work)
    is_kernel = ev["kind"][kernels] == Kind.KERNEL
    kernels, owner = kernels[is_kernel], owner[is_kernel]
    code = category_codes(work)[owner]
    out = []
    for c in range(len(WORK_CATEGORIES)):
        mine = kernels[code == c]
        out.append(iv.union(ev["start_ns"][mine], ev["end_ns"][mine]))
    return out


def step_ledger(trace: Trace, steps: Steps, work: OpWork) -> Ledger:
    """Split every step into PARTS by priority (see module doc)."""
    n = len(steps)
    out = np.zeros((n, len(PARTS)), dtype=np.int64)
    compute = np.zeros((n, len(COMPUTE_PARTS)), dtype=np.int64)
    if n == 0:
        return Ledger(out, compute)
    free = iv.union(steps.start_ns, steps.end_ns)
    for j, (_, ranges) in enumerate(part_ranges(trace)):
        claimed = iv.intersect(free, ranges)
        out[:, j] = iv.overlap_per_window(claimed, steps.start_ns, steps.end_ns)
        free = iv.subtract(free, claimed)
        if j == 0:  # device compute, by category in the model's order (matrix work first)
            left = claimed
            for k, ranges_k in enumerate(_compute_ranges(trace, work)):
                mine = iv.intersect(left, ranges_k)
                compute[:, k] = iv.overlap_per_window(mine, steps.start_ns, steps.end_ns)
                left = iv.subtract(left, mine)
            compute[:, -1] = iv.overlap_per_window(left, steps.start_ns, steps.end_ns)
    out[:, -1] = iv.overlap_per_window(free, steps.start_ns, steps.end_ns)
    empty = out[:, :-1].sum(axis=1) == 0  # steps no profiled event accounts for
    timed = step_trace_parts(trace, steps, PARTS) if empty.any() else None
    if timed is None:
        return Ledger(out, compute)
    out[empty], compute[empty] = timed[empty], 0  # those steps timed by MindSpore's step trace
    compute[empty, -1] = timed[empty, PARTS.index("device_compute")]
    return Ledger(out, compute, "step_trace" if empty.all() else "events+step_trace")
