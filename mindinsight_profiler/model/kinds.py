"""Event kinds of the normalised model, and how source categories map onto them.

Kineto changed its category names in PyTorch 1.9 -> 2.x (`Operator` -> `cpu_op`, `Runtime`
-> `cuda_runtime`, ...). The plugin we replace missed `cuda_runtime` and so showed zero
device time on every 2.x trace; mapping both vocabularies onto one enum here is what keeps
every analysis schema-agnostic.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np


class Kind(IntEnum):
    """What an event is, independent of the framework and schema that wrote it."""

    OTHER = 0
    CPU_OP = 1  # framework operator on a host thread (aten::conv2d, ...)
    USER_ANNOTATION = 2  # record_function ranges on a host thread (ProfilerStep#3, forward, ...)
    PYTHON_FUNCTION = 3  # python stack frames (with_stack / with_modules)
    PYTHON = 4  # 2021-schema `Python` ranges
    RUNTIME = 5  # host-side launch/runtime API calls (cudaLaunchKernel, cuLaunchKernel, hip*)
    KERNEL = 6  # device kernels
    MEMCPY = 7  # device memory copies
    MEMSET = 8  # device memory sets
    GPU_ANNOTATION = 9  # record_function ranges mirrored on device streams
    TRACE = 10  # the profiler's own span ("PyTorch Profiler (0)")
    SYNC = 11  # device synchronisation events (cuda_sync)
    INSTANT = 12  # instant events other than memory records


#: The process name of a device track that holds communication ops rather than compute
#: (MindSpore's timeline labels its pid 10000 so); their kernels are communication.
COMMUNICATION_PROCESS = "Communication Op"

#: Host-side ranges that nest into the operator tree (python frames form their own tree).
OP_TREE_KINDS = (Kind.CPU_OP, Kind.USER_ANNOTATION, Kind.PYTHON)
#: Work executed on a device stream and launched by a runtime call.
DEVICE_KINDS = (Kind.KERNEL, Kind.MEMCPY, Kind.MEMSET)

_EXACT = {
    "operator": Kind.CPU_OP,
    "cpu_op": Kind.CPU_OP,
    "user_annotation": Kind.USER_ANNOTATION,
    "python_function": Kind.PYTHON_FUNCTION,
    "python": Kind.PYTHON,
    "runtime": Kind.RUNTIME,
    "kernel": Kind.KERNEL,
    "memcpy": Kind.MEMCPY,
    "gpu_memcpy": Kind.MEMCPY,
    "memset": Kind.MEMSET,
    "gpu_memset": Kind.MEMSET,
    "gpu_user_annotation": Kind.GPU_ANNOTATION,
    "trace": Kind.TRACE,
    "cuda_sync": Kind.SYNC,
    # Meta's MTIA: its on-device work is `mtia_ccp_events` (libkineto's MTIA_CCP_EVENTS, an
    # alias of CONCURRENT_KERNEL), its launches `mtia_runtime` (the `_runtime` rule below)
    "mtia_ccp_events": Kind.KERNEL,
    "concurrent_kernel": Kind.KERNEL,
}


def kind_of_category(category: str) -> Kind:
    """Map a source category to a kind; `*_runtime`/`*_driver` cover CUDA, HIP, XPU alike."""
    key = category.lower()
    kind = _EXACT.get(key)
    if kind is not None:
        return kind
    if key.endswith(("_runtime", "_driver")):
        return Kind.RUNTIME
    return Kind.OTHER


def is_kind(kinds: np.ndarray, wanted: tuple[Kind, ...]) -> np.ndarray:
    """Boolean mask of events whose kind is one of `wanted`."""
    return np.isin(kinds, np.array([int(k) for k in wanted], dtype=kinds.dtype))
