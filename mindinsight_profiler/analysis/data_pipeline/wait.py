"""Time each step spent waiting for its batch, from the DataLoader ranges of the trace."""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis.categories import host_range_mask, is_dataloader_name
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.model.trace import Trace


def loader_wait_per_step(trace: Trace, steps: Steps) -> np.ndarray:
    """ns of `enumerate(DataLoader)#...__next__` ranges inside each step's host window."""
    ev = trace.events
    idx = np.flatnonzero(trace.names_matching(is_dataloader_name) & host_range_mask(trace))
    out = np.zeros(len(steps), dtype=np.int64)
    if len(idx) == 0 or len(steps) == 0:
        return out
    start, end = ev["start_ns"][idx], ev["end_ns"][idx]
    k = np.searchsorted(steps.host_start_ns, start, side="right") - 1
    inside = (k >= 0) & (end <= steps.host_end_ns[np.clip(k, 0, None)])
    np.add.at(out, k[inside], (end - start)[inside])
    return out
