"""What each communication kernel is called: the collective the user asked for.

A kernel's own name says how NCCL ran it, not what was asked: an all-to-all runs as
`ncclDevKernel_SendRecv`, so naming collectives by kernel would show "SendRecv × 10" where
the user wrote `all_to_all`. The host side knows: the kernel's launch (`caller`) sits inside
the collective's range (`nccl:all_to_all`, `c10d::alltoall_base_`, `gloo:all_reduce`), so the
name comes from there when the trace links them, and from the kernel otherwise. The names
are the CamelCase of the collective (`AllToAll`, `AllReduce`), as NCCL and HCCL write them.
"""

from __future__ import annotations

import re

import numpy as np

from mindinsight_profiler.model.trace import Trace

_KERNEL_TYPE = (
    re.compile(r"^(?:nccl|rccl)(?:Dev)?Kernel_([A-Za-z]+)"),  # ncclKernel_AllReduce_RING_LL_..
    re.compile(r"^hcom_([A-Za-z]+)"),  # hcom_allReduce__586_0_1
    # PyTorch symmetric memory (NVLS multimem, one/two-shot) and vLLM's custom all-reduce
    re.compile(r"(?:multimem_|one_shot_|two_shot_)(all_reduce|all_gather|reduce_scatter|reduce)"),
    re.compile(r"cross_device_(reduce)"),
    # MindSpore op names; msprof's HCCL ops add `_<n>` (`Default/AllReduce-op534_0`)
    re.compile(r"^(?:.*/)?(?:stream_\d+_\d+_)?([A-Za-z]+?)(?:-op\d+(?:_\d+)?)?$"),
)

#: Host-side collective ranges: `nccl:` / `gloo:` record_functions and c10d operators.
_HOST_PREFIXES = ("nccl:", "gloo:", "c10d::")
#: Variants of one collective (`all_gather_into_tensor_coalesced`, `_allgather_base_`).
_VARIANTS = ("_into_tensor_coalesced", "_tensor_coalesced", "_coalesced", "_into_tensor",
             "_tensor", "_base")  # fmt: skip
#: c10d's operator names that are not the collective's words.
_C10D = {"allreduce": "all_reduce", "allgather": "all_gather", "alltoall": "all_to_all",
         "recv_any_source": "recv"}  # fmt: skip
#: Host names that are bookkeeping around a collective, not one.
_NOT_COLLECTIVE = frozenset({"record_param_comms", "wait", "work_wait"})
_WORDS = re.compile(r"[a-z]+(?:_[a-z]+)*")


def _camel(words: str) -> str:
    """`all_to_all` -> `AllToAll`; `allReduce` -> `AllReduce`."""
    parts = [p for p in words.split("_") if p]
    return "".join(p[0].upper() + p[1:] for p in parts)


def collective_type(name: str) -> str:
    """A communication kernel's collective by its own name: `ncclKernel_AllReduce_RING_LL..`
    -> `AllReduce`; `hcom_allReduce__5` -> `AllReduce`; `multimem_all_reduce_kernel` ->
    `AllReduce`; `stream_41_0_AllReduce-op4582`, `Default/AllReduce-op534_0` -> `AllReduce`.
    Unknown names stay as they are.
    """
    for pattern in _KERNEL_TYPE:
        m = pattern.search(name)
        if m:
            return _camel(m.group(1))
    return name


def host_collective(name: str) -> str | None:
    """The collective a host range stands for (`nccl:all_to_all`, `c10d::alltoall_base_` ->
    `AllToAll`, `nccl:send 0->1` -> `Send`), or None when the range is not one."""
    prefix = next((p for p in _HOST_PREFIXES if name.startswith(p)), None)
    if prefix is None:
        return None
    words = name[len(prefix) :].split(" ", 1)[0].strip("_")
    for suffix in _VARIANTS:
        words = words.removesuffix(suffix)
    words = _C10D.get(words, words)
    if words in _NOT_COLLECTIVE or not _WORDS.fullmatch(words):
        return None
    return _camel(words)


def kernel_collectives(trace: Trace, kernels: np.ndarray) -> list[str]:
    """The collective of each kernel in `kernels` (event indices): the host collective its
    launch sits in (up to three ranges up), else the kernel's own name."""
    ev = trace.events
    names = trace.strings.lookup(ev["name"][kernels])
    out = [collective_type(n) for n in names]
    runtime = ev["caller"][kernels]
    op = np.where(runtime >= 0, ev["caller"][np.clip(runtime, 0, None)], -1)
    # the launch's enclosing range: a runtime's caller is its innermost operator
    found: list[str | None] = [None] * len(out)
    for _ in range(3):
        has = op >= 0
        if not has.any():
            break
        for i, name in zip(np.flatnonzero(has).tolist(), trace.strings.lookup(ev["name"][op[has]]),
                           strict=True):  # fmt: skip
            if found[i] is None:
                found[i] = host_collective(name)
        op = np.where(has, ev["parent"][np.clip(op, 0, None)], -1)
    return [f if f is not None else k for f, k in zip(found, out, strict=True)]
