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

Each range records its tensor (`Input Dims`, `Input type`), so the message of every call
is known: the bytes one call reduces or gathers on this rank.
"""

from __future__ import annotations

import json

import numpy as np

from mindinsight_profiler.analysis.categories import host_range_mask, is_comm_op_name
from mindinsight_profiler.analysis.communication.naming import host_collective
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

#: Bytes per element of the dtypes profilers write in `Input type`.
DTYPE_BYTES = {
    "float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "half": 2, "bfloat16": 2,
    "float16": 2, "long int": 8, "int": 4, "long": 8, "short int": 2, "signed char": 1,
    "unsigned char": 1, "bool": 1, "c10::complex<float>": 8, "c10::complex<double>": 16,
    "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1,
}  # fmt: skip


def host_collective_mask(trace: Trace) -> np.ndarray:
    """The `gloo:<collective>` ranges of the trace (see module doc)."""
    named = trace.names_matching(lambda s: s.startswith("gloo:") and host_collective(s) is not None)
    return named & host_range_mask(trace)


def host_compute_mask(trace: Trace) -> np.ndarray:
    """Framework operators that are not communication: the compute of a CPU run."""
    ev = trace.events
    return (ev["kind"] == Kind.CPU_OP) & ~trace.names_matching(is_comm_op_name)


def message_bytes(trace: Trace, calls: np.ndarray) -> list[int | None]:
    """Per call (event indices): the bytes of its tensors (`Input Dims` x the dtype's
    size), None when the range recorded no shapes or an unknown dtype."""
    ev = trace.events
    dims = trace.strings.lookup(ev["input_dims"][calls])
    types = trace.strings.lookup(ev["input_types"][calls])
    out: list[int | None] = []
    for d, t in zip(dims, types, strict=True):
        out.append(_bytes(d, t))
    return out


def _bytes(dims_text: str, types_text: str) -> int | None:
    try:
        dims, types = json.loads(dims_text), json.loads(types_text)
    except (ValueError, TypeError):
        return None
    if not isinstance(dims, list) or not isinstance(types, list) or len(dims) != len(types):
        return None
    total = 0
    for shape, dtype in zip(dims, types, strict=True):
        size = DTYPE_BYTES.get(dtype) if isinstance(dtype, str) else None
        if not isinstance(shape, list) or size is None:
            continue
        if not all(isinstance(x, int) and x >= 0 for x in shape):
            return None
        total += size * int(np.prod(shape, dtype=np.float64))
    return total or None
