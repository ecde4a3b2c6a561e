"""Step-time breakdown: where each step's wall time goes, by category priority.

Categories are taken in priority order Kernel > Memcpy > Memset > Communication > Runtime >
DataLoader > CPU Exec; each gets the part of the step not already claimed by a higher one,
and what is left is Other. So the parts of a step always sum to the step's duration, and
overlapping activity (a kernel running during a DataLoader wait) is counted once, as the
higher-priority category. This is the PyTorch profiler plugin's definition, kept so the
numbers match the reference users know.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import (
    comm_kernel_mask,
    host_range_mask,
    is_comm_op_name,
    is_dataloader_name,
    is_step_name,
)
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

CATEGORIES = (
    "kernel",
    "memcpy",
    "memset",
    "communication",
    "runtime",
    "dataloader",
    "cpu_exec",
    "other",
)


@dataclass(frozen=True)
class Breakdown:
    """Per-step nanoseconds of each category (rows: steps, columns: CATEGORIES)."""

    per_step_ns: np.ndarray  # shape (steps, len(CATEGORIES))
    step_ns: np.ndarray

    def average_ns(self, first: int = 0) -> dict[str, float]:
        """Mean of each category over the steps from index `first` (see steps.averaged_from)."""
        if len(self.step_ns) <= first:
            return dict.fromkeys(CATEGORIES, 0.0)
        mean = self.per_step_ns[first:].mean(axis=0)
        return {c: float(v) for c, v in zip(CATEGORIES, mean, strict=True)}


def category_masks(trace: Trace) -> dict[str, Callable[[], np.ndarray]]:
    """Which events each category covers, before priorities are applied: each mask is
    built when called, so a caller holds one category's at a time (13 MB each at 13 M
    events, and the union of each is worked out before the next is built)."""
    kind = trace.events["kind"]
    comm_kernels = comm_kernel_mask(trace)
    host = host_range_mask(trace)
    loader = trace.names_matching(is_dataloader_name) & host
    comm_ops = trace.names_matching(is_comm_op_name) & host
    return {
        "kernel": lambda: (kind == Kind.KERNEL) & ~comm_kernels,
        "memcpy": lambda: kind == Kind.MEMCPY,
        "memset": lambda: kind == Kind.MEMSET,
        "communication": lambda: comm_kernels | comm_ops,
        "runtime": lambda: kind == Kind.RUNTIME,
        "dataloader": lambda: loader,
        "cpu_exec": lambda: host & ~loader & ~comm_ops & ~trace.names_matching(is_step_name),
    }


def covered(trace: Trace, mask: np.ndarray) -> iv.Ranges:
    """The time the events of `mask` cover (`intervals.union_where`: bounded memory)."""
    return iv.union_where(trace.events["start_ns"], trace.events["end_ns"], mask)


def category_ranges(trace: Trace) -> Iterator[tuple[str, iv.Ranges]]:
    """The time covered by each category, before priorities are applied, one at a time."""
    for c, mask in category_masks(trace).items():
        yield c, covered(trace, mask())


def step_breakdown(trace: Trace, steps: Steps) -> Breakdown:
    """Split every step into the categories by priority (see module doc)."""
    n = len(steps)
    out = np.zeros((n, len(CATEGORIES)), dtype=np.int64)
    if n == 0:
        return Breakdown(out, steps.duration_ns)
    free = iv.union(steps.start_ns, steps.end_ns)
    for j, (_, ranges) in enumerate(category_ranges(trace)):
        claimed = iv.intersect(free, ranges)
        out[:, j] = iv.overlap_per_window(claimed, steps.start_ns, steps.end_ns)
        free = iv.subtract(free, claimed)
    out[:, -1] = iv.overlap_per_window(free, steps.start_ns, steps.end_ns)
    return Breakdown(out, steps.duration_ns)
