"""Which events count as data loading, communication, optimizer and so on.

Name conventions come from PyTorch itself (`enumerate(DataLoader)#...__next__`,
`Optimizer.step#SGD.step`, `nccl:all_reduce`, NCCL kernels named `nccl*`) and from torch_npu
(`HcclAllreduce` host ops, HCCL device ops named `hcom_allReduce__...`). Keeping them in one
place lets every analysis (and later the advisor) agree on what a category means.
"""

from __future__ import annotations

import re

import numpy as np

from mindinsight_profiler.model.kinds import COMMUNICATION_PROCESS, OP_TREE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace

COMM_OPS = frozenset(
    f"{lib}:{op}"
    for lib in ("nccl", "gloo")
    for op in ("broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter")
)
#: Runtime calls that block the host until the device (or a stream/event) is done, and the
#: synchronous copies/sets (no `Async`): CUDA, HIP and Ascend's ACL.
BLOCKING_CALLS = frozenset(
    f"{api}{name}"
    for api in ("cuda", "hip")
    for name in (
        "DeviceSynchronize",
        "StreamSynchronize",
        "EventSynchronize",
        "Memcpy",
        "Memset",
        "MemcpyWithStream",
        "Memcpy2D",
        "MemcpyPeer",
    )
) | {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuMemcpy"} | {
    "aclrtSynchronizeStream", "aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeDevice",
    "aclrtSynchronizeDeviceWithTimeout", "aclrtSynchronizeEvent",
    "aclrtSynchronizeEventWithTimeout", "aclrtMemcpy", "aclrtMemcpy2d", "aclrtMemset",
}  # fmt: skip
#: The level prefix torch_npu's exports give CANN API calls (`AscendCL@aclrtSynchronizeStream`).
_ACL_PREFIX = "AscendCL@"


def is_blocking_call(name: str) -> bool:
    """A runtime call that blocks the host (BLOCKING_CALLS), also under the `AscendCL@` prefix
    with which torch_npu's trace_view.json and db exports name every ACL call."""
    return name.removeprefix(_ACL_PREFIX) in BLOCKING_CALLS


_EXCLUDED_FROM_OP_TABLE = ("DataParallel.forward", "DistributedDataParallel.forward")


_INSTANCE_SUFFIX = re.compile(r"-op\d+$")


def op_type(name: str) -> str:
    """An operator's type: `aten::addmm` -> `addmm`; `Default/net/Conv2D-op12` -> `Conv2D`."""
    return _INSTANCE_SUFFIX.sub("", name.rsplit("/", 1)[-1]).rsplit("::", 1)[-1]


def is_dataloader_name(name: str) -> bool:
    """The DataLoader's `__next__` (and DataPipe) ranges that torch records each step."""
    return (name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__")) or (
        name.startswith("enumerate(DataPipe)#")
    )


def is_step_name(name: str) -> bool:
    return name.startswith("ProfilerStep#")


def is_comm_op_name(name: str) -> bool:
    """Host-side collective ranges: `nccl:*`/`gloo:*` record_functions, c10d and HCCL ops."""
    return name in COMM_OPS or name.startswith(("nccl:", "gloo:", "c10d::", "Hccl"))


#: Device collectives that are not NCCL's: PyTorch symmetric memory (NVLS `multimem_*`,
#: one/two-shot all-reduce over NVLink) and vLLM's custom all-reduce.
_SYMMETRIC_COMM_KERNEL = re.compile(
    r"(?:multimem_|one_shot_|two_shot_)(?:all_reduce|all_gather|reduce_scatter|reduce)"
    r"|cross_device_reduce"
)


def is_comm_kernel_name(name: str) -> bool:
    """NCCL/RCCL kernels (`ncclKernel_AllReduce_*`, `ncclDevKernel_*`), HCCL ops (`hcom_*`),
    symmetric-memory collectives (`multimem_all_reduce_kernel`, `one_shot_all_reduce`)."""
    return name.startswith(("nccl", "rccl", "hcom_")) or bool(_SYMMETRIC_COMM_KERNEL.search(name))


def is_operator_row_name(name: str) -> bool:
    """Ranges shown as operators: not steps, data loading, optimizer or DP/DDP wrappers."""
    return not (
        is_step_name(name)
        or is_dataloader_name(name)
        or name.startswith("Optimizer.")
        or name in _EXCLUDED_FROM_OP_TABLE
    )


def host_range_mask(trace: Trace) -> np.ndarray:
    """Operator-tree ranges on host threads (ops, annotations, 2021 `Python` ranges)."""
    return is_kind(trace.events["kind"], OP_TREE_KINDS)


def comm_kernel_mask(trace: Trace) -> np.ndarray:
    """Kernels that are communication: NCCL by name, or launched inside a collective op."""
    ev = trace.events
    kernels = ev["kind"] == Kind.KERNEL
    by_name = trace.names_matching(is_comm_kernel_name)
    comm_ops = trace.names_matching(is_comm_op_name) & host_range_mask(trace)
    mask = kernels & by_name
    comm_tracks = [i for i, t in enumerate(trace.tracks) if t.process_name == COMMUNICATION_PROCESS]
    if comm_tracks:  # MindSpore's timeline puts communication ops on their own process
        mask |= kernels & np.isin(ev["track"], comm_tracks)
    if comm_ops.any():
        # kernel -> runtime -> operator; the operator (or its parent) is a collective.
        rt = np.where(kernels, ev["caller"], -1)
        op = np.where(rt >= 0, ev["caller"][np.clip(rt, 0, None)], -1)
        for _ in range(2):
            hit = (op >= 0) & comm_ops[np.clip(op, 0, None)]
            mask |= kernels & hit
            op = np.where(op >= 0, ev["parent"][np.clip(op, 0, None)], -1)
    return mask


def is_pageable_d2h(name: str) -> bool:
    """A device-to-host copy into pageable memory ('Memcpy DtoH (Device -> Pageable)')."""
    return ("DtoH" in name or "Device -> " in name) and "Pageable" in name


def sync_copy_launches(trace: Trace) -> np.ndarray:
    """Mask of the runtime calls that launched a device-to-host copy into pageable memory.

    Such a copy cannot be asynchronous: cudaMemcpyAsync into pageable memory returns only
    once the copy is done, so it waits for all the work queued before it, exactly like a
    synchronize call (the copy behind `.item()` or `.cpu()` of a device tensor).
    """
    ev = trace.events
    out = np.zeros(len(ev["kind"]), dtype=bool)
    copies = np.flatnonzero((ev["kind"] == Kind.MEMCPY) & (ev["caller"] >= 0))
    copies = copies[trace.names_matching(is_pageable_d2h)[copies]]
    rt = ev["caller"][copies]
    out[rt[ev["kind"][rt] == Kind.RUNTIME]] = True
    return out
