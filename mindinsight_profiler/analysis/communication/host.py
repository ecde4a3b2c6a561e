"""Collectives that run on the host: gloo on a CPU run, where no kernel records them.

A DistributedDataParallel job on CPUs (gloo) has no device timeline: each collective is a
`gloo:<collective>` range that ProcessGroupGloo records on its worker thread while the
work runs, from the moment this rank starts it until every peer has taken part (so a rank
that arrives first holds the range while it waits). The training thread meanwhile runs
operators, or blocks untraced until the work is done (DDP's end of backward). So on such a
run the communication is those ranges, the compute is the framework operators, and the
step splits into computation, overlap and exposed communication as a GPU step does with
kernels. The `c10d::` operators on the training thread only enqueue the work and the
`record_param_comms` ranges are bookkeeping: neither is the collective's duration.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis.categories import host_range_mask, is_comm_op_name
from mindinsight_profiler.analysis.communication.naming import host_collective
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace


def host_collective_mask(trace: Trace) -> np.ndarray:
    """The `gloo:<collective>` ranges of the trace (see module doc)."""
    named = trace.names_matching(lambda s: s.startswith("gloo:") and host_collective(s) is not None)
    return named & host_range_mask(trace)


def host_compute_mask(trace: Trace) -> np.ndarray:
    """Framework operators that are not communication: the compute of a CPU run."""
    ev = trace.events
    return (ev["kind"] == Kind.CPU_OP) & ~trace.names_matching(is_comm_op_name)
