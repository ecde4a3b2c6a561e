"""Operator statistics: calls, host and device time (self and total) per operator.

The operator tree is the model's `parent` links. Definitions (those of the PyTorch profiler
plugin, so numbers match its golden data):
- an operator whose only child has the same name is one call, not two (`aten::copy_` calling
  `aten::copy_` is one frame of dispatch, not two operators);
- host self = duration - the time covered by its children and by the runtime calls made
  inside it (overlaps counted once, so never negative);
- device self = device work (kernels, memcpy, memset) launched by its own runtime calls;
  device total = device self plus that of all descendants.
Everything is computed with array operations over the whole tree at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.categories import (
    host_range_mask,
    is_operator_row_name,
    is_step_name,
)
from mindinsight_profiler.analysis.intervals import covered_per_group
from mindinsight_profiler.analysis.operators.tensor_cores import is_tc_eligible_op, is_tc_kernel
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.links import innermost_enclosing
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.heap import release_free_memory


@dataclass(frozen=True)
class OpTree:
    """Per-node statistics of the operator tree (node = operator-tree event, local index)."""

    index: np.ndarray  # global event index of each node
    parent: np.ndarray  # local index of the parent node after same-name merging, or -1
    is_row: np.ndarray  # counted as an operator call (not merged, not a step/loader/optimizer)
    host_self_ns: np.ndarray
    host_total_ns: np.ndarray
    device_self_ns: np.ndarray
    device_total_ns: np.ndarray
    tc_eligible: np.ndarray
    tc_self_ns: np.ndarray
    tc_total_ns: np.ndarray


def _root(link: np.ndarray) -> np.ndarray:
    """Follow `link` (i -> link[i], fixed points are roots) to the end, by pointer jumping."""
    out = link.copy()
    while True:
        nxt = out[out]
        if np.array_equal(nxt, out):
            return out
        out = nxt


def accumulate_up(
    values: np.ndarray, parent: np.ndarray, gate: np.ndarray | None = None
) -> np.ndarray:
    """values[i] + sum over descendants, deepest first; `gate[p]` False stops the flow into p."""
    total = values.copy()
    # Depths by following only the chains still going, in int32 where positions fit: on
    # 7 M nodes the whole-array pointer jumps held five int64 arrays (270 MB) per call.
    index: type[np.signedinteger[Any]] = np.int32 if len(parent) < 2**31 else np.int64
    up = parent.astype(index)
    depth = np.zeros(len(parent), dtype=index)
    live = np.flatnonzero(up >= 0).astype(index)
    p = up[live]
    while len(live):
        depth[live] += 1
        p = up[p]
        going = p >= 0
        live, p = live[going], p[going]
    del up, live, p
    for d in range(int(depth.max(initial=0)), 0, -1):
        nodes = np.flatnonzero((depth == d) & (parent >= 0))
        if gate is not None:
            nodes = nodes[gate[parent[nodes]]]
        np.add.at(total, parent[nodes], total[nodes])
    return total


def _device_time_per_event(trace: Trace, callers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each event of `callers` (sorted indices): device ns (and tensor-core kernel ns) of
    the work it launched. Sized by the callers, not the trace: a large trace has millions."""
    ev = trace.events
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & (ev["caller"] >= 0))
    pos = np.searchsorted(callers, ev["caller"][dev])
    ok = pos < len(callers)
    ok[ok] = callers[pos[ok]] == ev["caller"][dev[ok]]
    dev, pos = dev[ok], pos[ok]
    dur = ev["end_ns"][dev] - ev["start_ns"][dev]
    device = np.bincount(pos, weights=dur, minlength=len(callers)).astype(np.int64)
    tc = trace.names_matching(is_tc_kernel)[dev] & (ev["kind"][dev] == Kind.KERNEL)
    tc_ns = np.bincount(pos[tc], weights=dur[tc], minlength=len(callers)).astype(np.int64)
    return device, tc_ns


def _merge_same_name(
    trace: Trace, nodes: np.ndarray, local: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(merged, owner, effective parent, step) per node: a node that is the only child of a
    same-named operator is merged into it (its owner). Helpers of `op_tree`, split so that
    the temporaries of each die before the next starts (millions of nodes on big traces)."""
    ev = trace.events
    m = len(nodes)
    gparent = ev["parent"][nodes]
    parent = np.where(gparent >= 0, local[np.clip(gparent, 0, None)], -1)
    name = ev["name"][nodes]
    kind = ev["kind"][nodes]
    step = trace.names_matching(is_step_name)[nodes]

    children = np.bincount(parent[parent >= 0], minlength=m)
    pc = np.clip(parent, 0, None)
    mergeable = (kind == Kind.CPU_OP) & ~step
    merged = (parent >= 0) & mergeable & mergeable[pc] & (name == name[pc]) & (children[pc] == 1)
    owner = _root(np.where(merged, parent, np.arange(m)))
    eff_parent = np.where(merged | (parent < 0), -1, owner[pc])
    return merged, owner, eff_parent, step


def _launched(trace: Trace, local: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(device self, tensor-core self) ns per node, by the device work of its runtime calls."""
    ev = trace.events
    m = len(owner)
    # Runtime calls belong to the (owning) node of the operator that made them.
    rt = np.flatnonzero((ev["kind"] == Kind.RUNTIME) & (ev["caller"] >= 0))
    rt_node = local[ev["caller"][rt]]
    rt, rt_node = rt[rt_node >= 0], owner[rt_node[rt_node >= 0]]
    dev_ns, tc_ns = _device_time_per_event(trace, rt)
    device_self = np.bincount(rt_node, weights=dev_ns, minlength=m).astype(np.int64)
    tc_self = np.bincount(rt_node, weights=tc_ns, minlength=m).astype(np.int64)
    return device_self, tc_self


def _runtime_groups(
    trace: Trace, nodes: np.ndarray, local: np.ndarray, owner: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(runtime calls inside a node, the owning node of each): a runtime call counts
    against the innermost node that contains it on its thread (the plugin's tree puts it
    there), whichever operator its External id names."""
    ev = trace.events
    rt = np.flatnonzero(ev["kind"] == Kind.RUNTIME)
    inner = innermost_enclosing(trace, nodes, rt)
    rt, inner = rt[inner >= 0], inner[inner >= 0]
    return rt, owner[local[inner]]


def _inner_time(
    trace: Trace, nodes: np.ndarray, kids: np.ndarray, kid_parent: np.ndarray,
    rt: np.ndarray, rt_node: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Time (ns) of each node spent in its children and in the runtime calls made inside it
    (`_runtime_groups`): the union of those ranges within the node, so overlapping children
    are not counted twice."""
    ev = trace.events
    # each temporary freed as soon as it is used: on 20 M events each is ~100 MB; the groups
    # are node positions, int32 where they fit
    index = np.int32 if len(nodes) < 2**31 else np.int64
    group = np.concatenate([kid_parent.astype(index), rt_node.astype(index)])
    rows = np.concatenate([nodes[kids], rt])
    lo, hi = ev["start_ns"][nodes][group], ev["end_ns"][nodes][group]
    start = np.clip(ev["start_ns"][rows], lo, hi)
    end = ev["end_ns"][rows]
    del rows
    np.clip(end, lo, hi, out=end)
    del lo, hi
    return covered_per_group(group, start, end, len(nodes))


def op_tree(trace: Trace) -> OpTree:
    """Compute the per-node statistics of the operator tree (see module doc)."""
    ev = trace.events
    nodes = np.flatnonzero(host_range_mask(trace))
    m = len(nodes)
    local = np.full(len(ev["kind"]), -1, dtype=np.int32 if m < 2**31 else np.int64)
    local[nodes] = np.arange(m)
    merged, owner, eff_parent, step = _merge_same_name(trace, nodes, local)
    release_free_memory()  # each step's freed pages before the next step's (util.heap)
    device_self, tc_self = _launched(trace, local, owner)
    release_free_memory()
    alive = ~merged
    kids = np.flatnonzero(alive & (eff_parent >= 0))
    rt, rt_node = _runtime_groups(trace, nodes, local, owner)
    del local, owner  # before the union's working set: 110 MB on 13 M events
    # ...and what the searches freed goes back to the OS before it too (util.heap: else
    # the union's temporaries land on fresh pages beside the kept ones)
    release_free_memory()
    inner_time = _inner_time(trace, nodes, kids, eff_parent[kids], rt, rt_node)
    del kids, rt, rt_node
    kind = ev["kind"][nodes]
    dur = ev["end_ns"][nodes] - ev["start_ns"][nodes]
    host_self = dur - inner_time
    tree_parent = np.where(alive, eff_parent, -1)
    del inner_time, eff_parent
    release_free_memory()
    device_total = accumulate_up(device_self, tree_parent)
    release_free_memory()
    tc_total = accumulate_up(tc_self, tree_parent)
    release_free_memory()

    # Eligible for tensor cores: by name, by having launched one, or (for operators) by child.
    elig = trace.names_matching(is_tc_eligible_op)[nodes] | (tc_self > 0)
    elig = accumulate_up(elig.astype(np.int64), tree_parent, gate=(kind == Kind.CPU_OP) & ~step) > 0
    row_kind = (kind == Kind.CPU_OP) | (kind == Kind.USER_ANNOTATION)
    is_row = alive & row_kind & trace.names_matching(is_operator_row_name)[nodes]
    return OpTree(
        nodes,
        tree_parent,
        is_row,
        host_self,
        dur,
        device_self,
        device_total,
        elig,
        tc_self,
        tc_total,
    )
