"""Training steps: from `ProfilerStep#N` ranges, stretched to cover their device work.

A host step ends when Python has queued its kernels, but those kernels may run long after.
As the PyTorch profiler plugin did (its numbers are the reference), a step is extended to
the end of the last device work launched by runtime calls inside it, and starts no earlier
than the previous step's end. Trailing steps whose device work was cut off by the end of
profiling are dropped, so averages are not diluted by partial steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

_STEP = re.compile(r"^ProfilerStep#(\d+)$")
#: A last step with fewer than this share of the previous step's device work is partial.
TAIL_STEP_MIN_SHARE = 0.8


@dataclass(frozen=True)
class Steps:
    """Step windows in ns; `start_ns`/`end_ns` include device work, `host_*` do not."""

    names: list[str]
    start_ns: np.ndarray
    end_ns: np.ndarray
    host_start_ns: np.ndarray
    host_end_ns: np.ndarray
    from_profiler_steps: bool  # False: no ProfilerStep ranges, one step spans the trace

    def __len__(self) -> int:
        return len(self.names)

    @property
    def duration_ns(self) -> np.ndarray:
        return self.end_ns - self.start_ns


def host_steps(trace: Trace) -> tuple[list[str], np.ndarray, np.ndarray, bool]:
    """ProfilerStep ranges on host threads, or one range over all host operators."""
    ev = trace.events
    host = is_kind(ev["kind"], OP_TREE_KINDS)
    codes = trace.strings.codes_where(lambda s: _STEP.match(s) is not None)
    idx = np.flatnonzero(host & np.isin(ev["name"], codes))
    if len(idx):
        idx = idx[np.lexsort((ev["end_ns"][idx], ev["start_ns"][idx]))]
        names = [_STEP.match(s).group(1) for s in trace.strings.lookup(ev["name"][idx])]  # type: ignore[union-attr]
        return names, ev["start_ns"][idx], ev["end_ns"][idx], True
    if not host.any():
        host = np.ones(len(ev["kind"]), dtype=bool)
    if not host.any():
        return [], np.zeros(0, np.int64), np.zeros(0, np.int64), False
    lo = np.array([ev["start_ns"][host].min()])
    hi = np.array([ev["end_ns"][host].max()])
    return ["0"], lo, hi, False


def _device_extent_per_runtime(
    trace: Trace, rt: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each runtime call of `rt` (sorted event indices): first start, last end and count
    of the device work it launched. Sized by the calls, not the trace (13 M events: three
    int64 arrays of the trace's length were 320 MB)."""
    ev = trace.events
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & (ev["caller"] >= 0))
    callers = ev["caller"][dev]
    pos = np.clip(np.searchsorted(rt, callers), 0, len(rt) - 1)
    mine = rt[pos] == callers
    dev, pos = dev[mine], pos[mine]
    first = np.full(len(rt), np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(len(rt), np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(first, pos, ev["start_ns"][dev])
    np.maximum.at(last, pos, ev["end_ns"][dev])
    count = np.bincount(pos, minlength=len(rt)).astype(np.int64)
    return first, last, count


def find_steps(trace: Trace) -> Steps:
    """Steps of a trace, with device-side stretching and tail trimming (see module doc)."""
    names, host_start, host_end, real = host_steps(trace)
    n = len(names)
    start, end = host_start.copy(), host_end.copy()
    ev = trace.events
    rt = np.flatnonzero(ev["kind"] == Kind.RUNTIME)
    if n == 0 or len(rt) == 0:
        return Steps(names, start, end, host_start, host_end, real)
    first, last, count = _device_extent_per_runtime(trace, rt)
    # The step each runtime call lies in, entirely (calls straddling a boundary launch for none).
    i = np.searchsorted(host_start, ev["start_ns"][rt], side="right") - 1
    ic = np.clip(i, 0, n - 1)
    inside = (i >= 0) & (ev["end_ns"][rt] <= host_end[ic]) & (count > 0)
    step_of = ic[inside]
    rts = rt[inside]
    first, last, count = first[inside], last[inside], count[inside]
    dev_first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    dev_last = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    matched = np.zeros(n, dtype=np.int64)
    np.minimum.at(dev_first, step_of, first)
    np.maximum.at(dev_last, step_of, last)
    np.add.at(matched, step_of, count)
    if matched.sum() == 0:
        return Steps(names, start, end, host_start, host_end, real)

    prev_end = int(host_start[0])
    if matched[0] > 0:
        # Device work launched before the first step but still running delays its start.
        launched_in_step = np.zeros(len(ev["kind"]), dtype=bool)
        launched_in_step[rts] = True
        dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS))
        callers = ev["caller"][dev]
        outside = (callers < 0) | ~launched_in_step[np.clip(callers, 0, None)]
        ends = ev["end_ns"][dev][outside]
        earlier = ends[ends < dev_first[0]]
        if len(earlier):
            prev_end = max(prev_end, int(earlier.max()))
    for k in range(n):
        s = max(prev_end, int(host_start[k]))
        e = int(host_end[k])
        e = max(e, s) if matched[k] == 0 else max(e, int(dev_last[k]), s)
        start[k], end[k] = s, e
        prev_end = e

    keep = n
    launched = np.flatnonzero(matched > 0)
    if n > 1 and len(launched):
        keep = int(launched[-1]) + 1
        last_k = keep - 1
        if last_k > 0 and matched[last_k - 1] * TAIL_STEP_MIN_SHARE > matched[last_k]:
            keep = last_k
    sl = slice(0, keep)
    return Steps(names[sl], start[sl], end[sl], host_start[sl], host_end[sl], real)


def averaged_from(trace: Trace, count: int) -> int:
    """Index of the first step that averages cover: 1 for a MindSpore (legacy) step trace.

    MindSpore's step trace averages the steps after the first, which carries graph
    compilation (seconds, against a fraction of a second later); an overview or a rank
    comparison that counted it would call the rank that compiled longest the slowest.
    Kineto's steps are what the profiler's schedule kept after its own warm-up, and the
    PyTorch profiler plugin averages all of them.
    """
    table = trace.tables.get("step_trace")
    legacy = trace.meta.get("format") == FormatTag.MINDSPORE_LEGACY
    return 1 if legacy and table is not None and len(table["step"]) > 1 and count > 1 else 0
