"""How long each modelled operator call took, and which calls are recomputation.

Achieved throughput is work over time, so the time must be the time the work ran: on a
trace with device work, the device time of the kernels (and copies and sets) a call
launched itself or through the operators it calls, summed (a call's kernels run one after
another on its stream); on a CPU-only trace, where operators compute on the host, the
call's own duration. Communication kernels launched inside a call are not its compute and
are left out.

Activation checkpointing runs forward operators again during the backward pass; their
FLOPs are hardware work but not model work (MFU leaves them out, HFU keeps them). They are
the calls under a range whose name says checkpoint (`CheckpointFunctionBackward`,
`torch.utils.checkpoint` record functions, MindSpore's `recompute` scopes).
"""

from __future__ import annotations

import re

import numpy as np

from mindinsight_profiler.analysis.perf.op_work import (
    OpWork,
    compute_device_events,
    flagged_ancestor,
    launching_ops,
)
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace

_RECOMPUTE = re.compile(r"checkpoint|recompute", re.IGNORECASE)


def has_device_work(trace: Trace) -> bool:
    return bool(is_kind(trace.events["kind"], DEVICE_KINDS).any())


def call_time_ns(trace: Trace, work: OpWork) -> np.ndarray:
    """Per row of `work`: its time in ns (see the module doc), inclusive of nested calls."""
    ev = trace.events
    if not has_device_work(trace):
        return (ev["end_ns"][work.event] - ev["start_ns"][work.event]).astype(np.int64)
    dev = compute_device_events(trace)
    op = launching_ops(trace, dev)
    keep = op >= 0
    dur = (ev["end_ns"][dev] - ev["start_ns"][dev])[keep].astype(np.float64)
    node = op[keep]
    acc = np.zeros(len(ev["kind"]), dtype=np.float64)
    # carry every kernel's time up its launcher's ancestors: one pass per nesting level
    for _ in range(len(ev["kind"]) + 1):
        if not len(node):
            break
        np.add.at(acc, node, dur)
        up = ev["parent"][node]
        live = up >= 0
        node, dur = up[live], dur[live]
    return np.rint(acc[work.event]).astype(np.int64)


def recomputed(trace: Trace, work: OpWork) -> np.ndarray:
    """Per row of `work`: whether the call runs under a checkpoint/recompute range."""
    ev = trace.events
    flagged_codes = trace.strings.codes_where(lambda s: _RECOMPUTE.search(s) is not None)
    if not len(flagged_codes):
        return np.zeros(len(work.event), dtype=bool)
    flag = np.isin(ev["name"], flagged_codes)
    return flag[work.event] | flagged_ancestor(ev["parent"], flag, work.event)
