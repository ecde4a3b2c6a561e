"""FP start and BP end points of PyTorch steps, found in the operator tree.

MindSpore marks a step's forward start and backward end on the device; a PyTorch trace has
no such marks, so they are found from what the step does:
- FP start: the first top-level operator of the step that consumes the batch, i.e. the first
  one after the step's last DataLoader `__next__` that is not a host-to-device copy
  (`aten::to`, `aten::copy_`, ...) or `optimizer.zero_grad()`. Anything before it is input
  work and step bookkeeping (the iteration interval).
- BP end: the end of the last backward operator (`autograd::engine::evaluate_function: ...`,
  `*Backward*`, `AccumulateGrad`) that starts before the optimizer step (`Optimizer.step#...`),
  or of the device work it launched, whichever is later: on a GPU the host returns from
  backward long before its kernels finish.
Either point can be named instead (`FP_POINT` / `BP_POINT` env vars or arguments), as
MindSpore allows; a step without the named operator falls back to the automatic point.
Points are clipped into the step window so the three stages always sum to the step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis.categories import host_range_mask, is_dataloader_name
from mindinsight_profiler.analysis.steps.boundaries import Steps
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace

#: Host-to-device copies and the allocations that go with them: input work, not forward.
COPY_OPS = frozenset(
    {"aten::to", "aten::_to_copy", "aten::copy_", "aten::pin_memory", "aten::_pin_memory"}
)
#: Step bookkeeping that may come before the forward pass without touching the batch.
_NOT_FORWARD = ("Optimizer.zero_grad#",)
_BACKWARD = re.compile(r"(^autograd::engine::evaluate_function: )|(Backward\d*$)|AccumulateGrad$")
_NONE = np.iinfo(np.int64).max


def is_backward_name(name: str) -> bool:
    """Autograd engine ranges and the backward functions they run."""
    return _BACKWARD.search(name) is not None


def is_optimizer_step_name(name: str) -> bool:
    return name.startswith("Optimizer.step#")


@dataclass(frozen=True)
class StepPoints:
    """FP start and BP end per step (ns, inside the step window) and the operators used."""

    fp_ns: np.ndarray
    bp_ns: np.ndarray
    fp_names: list[str]
    bp_names: list[str]
    fp_found: np.ndarray  # bool per step: the named/automatic operator exists in the step
    bp_found: np.ndarray


def _step_of(steps: Steps, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Index of the step whose host window holds [start, end], or -1."""
    k = np.searchsorted(steps.host_start_ns, start, side="right") - 1
    kc = np.clip(k, 0, max(len(steps) - 1, 0))
    return np.where((k >= 0) & (end <= steps.host_end_ns[kc]), k, -1)


def _first_per_step(n: int, step: np.ndarray, key: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Event index with the smallest `key` in each step (-1 where a step has none)."""
    out = np.full(n, -1, dtype=np.int64)
    ok = step >= 0
    order = np.lexsort((key[ok], step[ok]))
    s, i = step[ok][order], idx[ok][order]
    first = np.r_[True, s[1:] != s[:-1]] if len(s) else np.zeros(0, bool)
    out[s[first]] = i[first]
    return out


def _device_end_under(trace: Trace, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(runtime index, device end) for device work launched inside a `mask` operator."""
    ev = trace.events
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & (ev["caller"] >= 0))
    rt = ev["caller"][dev]
    op = ev["caller"][rt]
    hit = np.zeros(len(dev), dtype=bool)
    while (op >= 0).any():  # walk up the operator tree, one level for all kernels at once
        hit |= (op >= 0) & mask[np.clip(op, 0, None)]
        op = np.where(op >= 0, ev["parent"][np.clip(op, 0, None)], -1)
    return rt[hit], ev["end_ns"][dev[hit]]


def _fp_auto(trace: Trace, steps: Steps) -> np.ndarray:
    """First top-level operator per step after its last DataLoader fetch, copies skipped."""
    ev = trace.events
    host = host_range_mask(trace)
    step_ranges = host & trace.names_matching(lambda s: s.startswith("ProfilerStep#"))
    parent = ev["parent"]
    top = np.flatnonzero(host & (parent >= 0) & step_ranges[np.clip(parent, 0, None)])
    step = _step_of(steps, ev["start_ns"][top], ev["end_ns"][top])
    loader = trace.names_matching(is_dataloader_name)[top]
    copy = trace.names_matching(lambda s: s in COPY_OPS or s.startswith(_NOT_FORWARD))[top]
    last_load = np.full(len(steps), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(last_load, step[(step >= 0) & loader], ev["start_ns"][top][(step >= 0) & loader])
    after = ev["start_ns"][top] > last_load[np.clip(step, 0, None)]
    cand = np.where(after & ~copy & ~loader, step, -1)
    return _first_per_step(len(steps), cand, ev["start_ns"][top], top)


def _last_end(
    trace: Trace, steps: Steps, mask: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per step: latest end of `mask` ops starting in [lo, hi) and of their device work."""
    ev = trace.events
    idx = np.flatnonzero(mask)
    k = _step_of(steps, ev["start_ns"][idx], ev["start_ns"][idx])
    kc = np.clip(k, 0, None)
    inside = (k >= 0) & (ev["start_ns"][idx] >= lo[kc]) & (ev["start_ns"][idx] < hi[kc])
    k = np.where(inside, k, -1)
    last = _first_per_step(len(steps), k, -ev["end_ns"][idx], idx)
    end = np.where(last >= 0, ev["end_ns"][np.clip(last, 0, None)], -1)
    rt, dev_end = _device_end_under(trace, mask)
    rk = _step_of(steps, ev["start_ns"][rt], ev["start_ns"][rt])
    rkc = np.clip(rk, 0, None)
    ok = (rk >= 0) & (ev["start_ns"][rt] >= lo[rkc]) & (ev["start_ns"][rt] < hi[rkc])
    np.maximum.at(end, rk[ok], dev_end[ok])
    return last, end


def find_points(
    trace: Trace, steps: Steps, fp_point: str | None = None, bp_point: str | None = None
) -> StepPoints:
    """FP start and BP end of every step (see module doc); names override the search."""
    ev = trace.events
    host = host_range_mask(trace)
    n = len(steps)
    fp_idx = _fp_auto(trace, steps)
    if fp_point:
        named = np.flatnonzero(host & trace.names_matching(lambda s: s == fp_point))
        k = _step_of(steps, ev["start_ns"][named], ev["end_ns"][named])
        chosen = _first_per_step(n, k, ev["start_ns"][named], named)
        fp_idx = np.where(chosen >= 0, chosen, fp_idx)
    fp_found = fp_idx >= 0
    fp = np.where(fp_found, ev["start_ns"][np.clip(fp_idx, 0, None)], steps.start_ns)
    fp = np.clip(fp, steps.start_ns, steps.end_ns)

    opt = host & trace.names_matching(is_optimizer_step_name)
    opt_idx = np.flatnonzero(opt)
    ok = _step_of(steps, ev["start_ns"][opt_idx], ev["end_ns"][opt_idx])
    first_opt = _first_per_step(n, ok, ev["start_ns"][opt_idx], opt_idx)
    hi = np.where(first_opt >= 0, ev["start_ns"][np.clip(first_opt, 0, None)], _NONE)
    bp_idx, bp = _last_end(trace, steps, host & trace.names_matching(is_backward_name), fp, hi)
    if bp_point:
        named_mask = host & trace.names_matching(lambda s: s == bp_point)
        n_idx, n_end = _last_end(trace, steps, named_mask, steps.host_start_ns, np.full(n, _NONE))
        bp_idx = np.where(n_idx >= 0, n_idx, bp_idx)
        bp = np.where(n_idx >= 0, n_end, bp)
    bp_found = bp_idx >= 0
    # No backward (inference, or a step cut short): the forward runs to the step's end.
    bp = np.clip(np.where(bp_found, bp, steps.end_ns), fp, steps.end_ns)
    return StepPoints(
        fp_ns=fp,
        bp_ns=bp,
        fp_names=_names(trace, fp_idx),
        bp_names=_names(trace, bp_idx),
        fp_found=fp_found,
        bp_found=bp_found,
    )


def _names(trace: Trace, idx: np.ndarray) -> list[str]:
    codes = np.where(idx >= 0, trace.events["name"][np.clip(idx, 0, None)], -1)
    return trace.strings.lookup(codes)


def has_point_operator(trace: Trace, name: str) -> bool:
    """Whether any host operator is called `name` (a point naming none can never be found)."""
    codes = trace.strings.codes_where(lambda s: s == name)
    if len(codes) == 0:
        return False
    return bool((host_range_mask(trace) & np.isin(trace.events["name"], codes)).any())
