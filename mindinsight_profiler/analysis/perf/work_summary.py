"""What the work model says about a whole trace: FLOPs per step, and how much it covers.

Per step (`steps.boundaries.find_steps`; a counted call belongs to the step whose host
range contains its start): FLOPs and bytes of the counted calls, by category, with the
matrix part (GEMM, convolution, attention: what model-FLOPs utilisation is computed from)
apart. Over the trace: counted calls by name, unknown calls by name with their reason,
and the share of time the model covers: device time (kernels, copies and sets) launched
by counted calls or calls inside them, and operator host self time (duration less the
children's) of such calls; communication kernels are counted apart, as they are not
compute the model could cover. Device work whose launching operator is not covered is
attributed to the nearest enclosing unknown call, else to the launching operator itself.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.perf.calls import CATEGORIES, MATRIX_CATEGORIES, Unknown, Work
from mindinsight_profiler.analysis.perf.op_work import (
    COUNTED,
    UNKNOWN,
    OpWork,
    flagged_ancestor,
    launching_ops,
    reason,
)
from mindinsight_profiler.analysis.steps.boundaries import Steps, find_steps
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import rows_by_group


@dataclass(frozen=True)
class StepWork:
    """Counted work of one step; `bytes` sums the calls whose bytes are known."""

    name: str
    flops: int
    matrix_flops: int
    bytes: int
    flops_by_category: dict[str, int]
    counted_calls: int
    unknown_calls: int


@dataclass(frozen=True)
class UnknownOp:
    calls: int
    reason: str  # the most common reason among its calls
    reason_zh: str  # the same reason in Simplified Chinese


@dataclass(frozen=True)
class WorkSummary:
    steps: list[StepWork]
    counted: dict[str, int]  # name -> counted calls, most first
    unknown: dict[str, UnknownOp]  # name -> unknown calls outside counted ones, most first
    device_ns: int
    covered_device_ns: int
    communication_ns: int  # of device_ns: collectives (categories.comm_kernel_mask)
    host_self_ns: int
    covered_host_self_ns: int
    #: uncovered device time by the unknown call that launched it (or the launching op)
    uncovered_device_ns: dict[str, int] = field(default_factory=dict)

    @property
    def device_share(self) -> float | None:
        return self.covered_device_ns / self.device_ns if self.device_ns else None

    @property
    def compute_share(self) -> float | None:
        """Covered share of the device time that is not communication."""
        compute = self.device_ns - self.communication_ns
        return self.covered_device_ns / compute if compute > 0 else None

    @property
    def host_share(self) -> float | None:
        return self.covered_host_self_ns / self.host_self_ns if self.host_self_ns else None


def step_index(trace: Trace, work: OpWork, steps: Steps) -> np.ndarray:
    """Per row of `work`: the step whose host range holds the call's start (-1: none)."""
    start = trace.events["start_ns"][work.event]
    if not len(steps):
        return np.full(len(start), -1)
    i = np.searchsorted(steps.host_start_ns, start, side="right") - 1
    inside = (i >= 0) & (start < steps.host_end_ns[np.clip(i, 0, None)])
    return np.where(inside, i, -1)


def _steps(trace: Trace, work: OpWork) -> list[StepWork]:
    steps = find_steps(trace)
    names, step = steps.names, step_index(trace, work, steps)
    flops, bytes_ = work.flops(), work.bytes()
    cat_of = [r.category if isinstance(r, Work) else "" for r in work.results]
    category = np.array([CATEGORIES.index(c) if c else -1 for c in cat_of], np.int64)[work.result]
    counted_all = work.status == COUNTED
    unknown_all = work.status == UNKNOWN
    out = []  # each step's calls from one sort, in row order
    for rows, name in zip(rows_by_group(step, len(names)), names, strict=True):
        counted = rows[counted_all[rows]]
        by_cat = np.bincount(category[counted], weights=flops[counted], minlength=len(CATEGORIES))
        by_category = {c: int(v) for c, v in zip(CATEGORIES, by_cat.tolist(), strict=True) if v}
        matrix = sum(by_category.get(c, 0) for c in MATRIX_CATEGORIES)
        known = bytes_[counted]
        out.append(StepWork(
            name, int(flops[counted].sum()), matrix, int(known[known >= 0].sum()),
            by_category, len(counted), int(unknown_all[rows].sum()),
        ))  # fmt: skip
    return out


def _by_name(trace: Trace, work: OpWork) -> tuple[dict[str, int], dict[str, UnknownOp]]:
    names = trace.events["name"][work.event].astype(np.int64)
    per_name = np.bincount(names[work.status == COUNTED], minlength=len(trace.strings))
    order = np.argsort(-per_name, kind="stable")
    counted = {trace.strings[int(c)]: int(per_name[c]) for c in order[per_name[order] > 0]}
    reasons: dict[str, Counter[tuple[str, str]]] = {}
    unknown_rows = np.flatnonzero(work.status == UNKNOWN)
    for code, r in zip(
        names[unknown_rows].tolist(), work.result[unknown_rows].tolist(), strict=True
    ):
        result = work.results[r]
        zh = result.zh if isinstance(result, Unknown) else reason(result)
        reasons.setdefault(trace.strings[code], Counter())[reason(result), zh] += 1
    unknown = {
        n: UnknownOp(sum(c.values()), *c.most_common(1)[0][0])
        for n, c in sorted(reasons.items(), key=lambda kv: -sum(kv[1].values()))
    }
    return counted, unknown


def _covered(trace: Trace, work: OpWork, nodes: np.ndarray) -> np.ndarray:
    """Whether each event of `nodes` is a counted call or inside one."""
    ev = trace.events
    counted = np.zeros(len(ev["kind"]), dtype=bool)
    counted[work.event[work.status == COUNTED]] = True
    return counted[nodes] | flagged_ancestor(ev["parent"], counted, nodes)


def _host_self(trace: Trace, work: OpWork) -> tuple[int, int]:
    """(operator host self time, the covered part), ns."""
    ev = trace.events
    tree = np.flatnonzero(is_kind(ev["kind"], OP_TREE_KINDS))
    dur = ev["end_ns"][tree] - ev["start_ns"][tree]
    # Sized by the tree, not the trace (two int64 arrays of 13 M events): children's time
    # by their parent's position in `tree` (only tree parents matter: the calls are tree
    # ranges; a reader that gave another parent is ignored, as a trace-wide table would).
    parent = ev["parent"][tree]
    pos = np.clip(np.searchsorted(tree, parent), 0, max(len(tree) - 1, 0))
    has = (parent >= 0) & (tree[pos] == parent)
    child_time = np.bincount(pos[has], weights=dur[has], minlength=len(tree))
    del parent, pos, has
    at = np.searchsorted(tree, work.event)  # operator calls (Kind.CPU_OP) are tree ranges
    self_ns = np.maximum(dur[at] - child_time[at].astype(np.int64), 0)
    covered = _covered(trace, work, work.event)
    return int(self_ns.sum()), int(self_ns[covered].sum())


def _device(trace: Trace, work: OpWork) -> tuple[int, int, int, dict[str, int]]:
    """(device ns, covered ns, communication ns, uncovered ns by the unknown call that
    launched it)."""
    ev = trace.events
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS))
    dur = ev["end_ns"][dev] - ev["start_ns"][dev]
    comm = int(dur[comm_kernel_mask(trace)[dev]].sum())
    op = launching_ops(trace, dev)
    has_op = op >= 0
    covered = np.zeros(len(dev), dtype=bool)
    covered[has_op] = _covered(trace, work, op[has_op])
    left = np.flatnonzero(has_op & ~covered)
    owner = _nearest_unknown(trace, work, op[left])
    names = trace.strings.lookup(ev["name"][owner])
    uncovered: Counter[str] = Counter()
    for name, ns in zip(names, dur[left].tolist(), strict=True):
        uncovered[name] += ns
    no_op = int(dur[~has_op].sum())
    if no_op:
        uncovered["(no operator)"] += no_op
    return int(dur.sum()), int(dur[covered].sum()), comm, dict(uncovered.most_common())


def _nearest_unknown(trace: Trace, work: OpWork, ops: np.ndarray) -> np.ndarray:
    """For each op: itself or its nearest ancestor of status unknown, else itself."""
    ev = trace.events
    unknown = np.zeros(len(ev["kind"]), dtype=bool)
    unknown[work.event[work.status == UNKNOWN]] = True
    found = np.where(unknown[ops], ops, -1)
    p = ev["parent"][ops]
    for _ in range(len(ev["kind"]) + 1):
        look = np.flatnonzero((found < 0) & (p >= 0))
        if not len(look):
            break
        hit = unknown[p[look]]
        found[look[hit]] = p[look[hit]]
        p[look] = ev["parent"][p[look]]
    return np.where(found >= 0, found, ops)


def summarise(trace: Trace, work: OpWork, with_steps: bool = True) -> WorkSummary:
    """Steps (unless `with_steps` is False: the report's section has its own), names and
    coverage of `work` (the output of `op_work(trace)`)."""
    counted, unknown = _by_name(trace, work)
    host, covered_host = _host_self(trace, work)
    device, covered_device, comm, uncovered = _device(trace, work)
    steps = _steps(trace, work) if with_steps else []
    return WorkSummary(
        steps, counted, unknown, device, covered_device, comm, host, covered_host, uncovered
    )
