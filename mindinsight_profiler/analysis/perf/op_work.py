"""Work of a trace's operator calls: per call, and counted once per step.

Every framework operator event (Kind.CPU_OP) is one row; its work comes from
`flops.WorkModel` on its recorded shapes, computed once per distinct (name, shapes,
types, concrete inputs). Operators nest: `aten::linear` calls `aten::t` and `aten::addmm`,
`aten::conv2d` calls `aten::convolution` down to `aten::cudnn_convolution`. Counting every
level would count the same products several times, so a call is **counted** when its work
is known and no enclosing call's work is known: the outermost modelled call speaks for
everything it calls (`linear` for its `addmm`, `conv2d` for the convolution stack, a fused
attention op for the copies it makes). Calls inside a counted call are **inside**; calls
whose work is unknown (`Unknown`) and calls that do no work of their own (`NoWork`: views,
wrappers, autograd nodes) are not counted, and the operators they call are judged on
their own, so an unmodelled wrapper never hides modelled work.

The status of every row follows: `counted`, `inside`, `no_work` or `unknown`. Device work
is covered when the operator that launched it is counted or inside a counted call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.perf.calls import (
    NoWork,
    OpCall,
    Result,
    Unknown,
    Work,
    call_from_texts,
)
from mindinsight_profiler.analysis.perf.flops import WorkModel
from mindinsight_profiler.analysis.perf.ops_conv import ConvShapes, backward_shapes
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.util.groups import unique_inverse

STATUSES = ("counted", "inside", "no_work", "unknown")
COUNTED, INSIDE, NO_WORK, UNKNOWN = range(4)


@dataclass(frozen=True)
class OpWork:
    """Per operator call (`event`: its index in the trace): which distinct `results` entry
    gives its work, and its status (an index into STATUSES)."""

    event: np.ndarray
    result: np.ndarray
    results: list[Result]
    status: np.ndarray

    def __len__(self) -> int:
        return len(self.event)

    def known(self) -> np.ndarray:
        """Per distinct result: whether it is a Work."""
        return np.array([isinstance(r, Work) for r in self.results], dtype=bool)

    def flops(self) -> np.ndarray:
        """FLOPs per call; -1 where the work is not known."""
        per = np.array([r.flops if isinstance(r, Work) else -1 for r in self.results], np.int64)
        return per[self.result] if len(self.results) else np.zeros(0, np.int64)

    def bytes(self) -> np.ndarray:
        """Bytes per call; -1 where they are not known."""
        per = [r.bytes if isinstance(r, Work) and r.bytes is not None else -1 for r in self.results]
        return np.array(per, np.int64)[self.result] if per else np.zeros(0, np.int64)


def _distinct_calls(trace: Trace, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct call, distinct index per row): by name, input shapes,
    input types and concrete inputs, combined two columns at a time (no row sort where the
    codes' span is small: `util.groups.unique_inverse`), each pair's columns freed first."""
    ev = trace.events

    def pair(left: str, right: str) -> np.ndarray:
        a = ev[left][rows].astype(np.int64) + 1
        b = ev[right][rows].astype(np.int64) + 1
        a *= int(b.max(initial=0)) + 1
        a += b
        del b
        return unique_inverse(a)[1]

    a = pair("name", "input_dims")
    b = pair("input_types", "concrete_inputs")
    a *= int(b.max(initial=0)) + 1
    a += b
    del b
    return unique_inverse(a)


def _text(trace: Trace, code: int) -> str:
    return trace.strings[code] if code >= 0 else ""


def _calls(trace: Trace, rows: np.ndarray) -> list[OpCall]:
    ev = trace.events
    return [
        call_from_texts(
            _text(trace, int(ev["name"][r])),
            _text(trace, int(ev["input_dims"][r])),
            _text(trace, int(ev["input_types"][r])),
            _text(trace, int(ev["concrete_inputs"][r])),
        )
        for r in rows.tolist()
    ]


def conv_shapes(calls: list[OpCall]) -> ConvShapes:
    """(input, weight, output) shapes named by the convolution backward calls of a trace."""
    shapes = ConvShapes()
    for call in calls:
        found = backward_shapes(call)
        if found:
            shapes.add(*found)
    return shapes


def flagged_ancestor(parent: np.ndarray, flag: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """For each event of `nodes`: whether a strict ancestor (by `parent`) has `flag` set."""
    out = np.zeros(len(nodes), dtype=bool)
    p = parent[nodes]
    for _ in range(len(parent) + 1):  # parents come from time containment: no cycles
        live = np.flatnonzero(p >= 0)
        if not len(live):
            break
        out[live] |= flag[p[live]]
        p[live] = parent[p[live]]
    return out


#: Convolution backward calls that record no output_mask (PyTorch before 2.1, torch_npu) ->
#: the mask's position; which gradients were computed is read from what the call makes,
#: operators or kernels: `cudnn_convolution_backward_input`/`_weight` (2021 PyTorch),
#: Ascend's `Conv2DBackpropInput`/`Conv2DBackpropFilter`, cuDNN's `dgrad`/`wgrad` kernels.
MASK_FROM_CHILDREN = {
    "aten::convolution_backward": 10,
    "aten::cudnn_convolution_backward": 10,
    "aten::miopen_convolution_backward": 9,
}
_GRAD_INPUT = re.compile(r"backward_input|BackpropInput|dgrad", re.IGNORECASE)
_GRAD_WEIGHT = re.compile(r"backward_weight|BackpropFilter|wgrad", re.IGNORECASE)


def _with_concrete(call: OpCall, i: int, text: str) -> OpCall:
    values = list(call.concrete) + [""] * (i + 1 - len(call.concrete))
    values[i] = text
    return OpCall(call.name, call.shapes, call.dtypes, tuple(values), call.outputs)


def launching_ops(trace: Trace, dev: np.ndarray) -> np.ndarray:
    """For each device event of `dev`: the operator whose runtime call launched it (the
    runtime call's caller), -1 when no operator did."""
    ev = trace.events
    runtime = ev["caller"][dev]
    return np.where(runtime >= 0, ev["caller"][np.clip(runtime, 0, None)], -1)


def compute_device_events(trace: Trace) -> np.ndarray:
    """Device work (kernels, copies, sets) that is not communication: what an operator's
    compute is measured by."""
    ev = trace.events
    return np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS) & ~comm_kernel_mask(trace))


def _made_by(trace: Trace, ops: np.ndarray) -> dict[int, str]:
    """Per event of `ops`: the names of the operators it calls and of the device work it
    launches (through its runtime calls), joined by spaces."""
    ev = trace.events
    kids = np.flatnonzero(np.isin(ev["parent"], ops) & (ev["kind"] == Kind.CPU_OP))
    dev = np.flatnonzero(is_kind(ev["kind"], DEVICE_KINDS))
    launcher = launching_ops(trace, dev)
    dev, launcher = dev[np.isin(launcher, ops)], launcher[np.isin(launcher, ops)]
    out: dict[int, set[str]] = {}
    for owner, made in ((ev["parent"][kids], kids), (launcher, dev)):
        names = trace.strings.lookup(ev["name"][made])
        for o, name in zip(owner.tolist(), names, strict=True):
            out.setdefault(o, set()).add(name)
    return {o: " ".join(sorted(names)) for o, names in out.items()}


def _masks_from_children(
    trace: Trace, rows: np.ndarray, inverse: np.ndarray, calls: list[OpCall],
    results: list[Result], model: WorkModel,
) -> np.ndarray:  # fmt: skip
    """Complete convolution backward calls without an output_mask (see MASK_FROM_CHILDREN):
    appends their results and returns the updated result index per row."""
    inverse = inverse.copy()
    todo = [
        j
        for j, c in enumerate(calls)
        if c.name in MASK_FROM_CHILDREN and isinstance(results[j], Unknown)
    ]
    targets = rows[np.isin(inverse, todo)]
    if not len(targets):
        return inverse
    made = _made_by(trace, targets)
    done: dict[tuple[int, bool, bool], int] = {}
    for row, k in zip(targets.tolist(), np.searchsorted(rows, targets).tolist(), strict=True):
        names = made.get(row, "")
        key = (int(inverse[k]), bool(_GRAD_INPUT.search(names)), bool(_GRAD_WEIGHT.search(names)))
        if not (key[1] or key[2]):
            continue  # nothing says which gradients were computed: it stays unknown
        if key not in done:
            call = calls[key[0]]
            mask = f"[{key[1]}, {key[2]}]"
            done[key] = len(results)
            results.append(model(_with_concrete(call, MASK_FROM_CHILDREN[call.name], mask)))
        inverse[k] = done[key]
    return inverse


#: Gradient calls of a 2021 convolution backward that lack their size argument (position
#: 0) -> the position of that size's tensor in the enclosing `cudnn_convolution_backward`
#: (self, grad_output, weight, ...): when the trace's shapes name several weights for one
#: (input, output) pair, the enclosing call names the one.
SIZE_FROM_PARENT = {
    "aten::cudnn_convolution_backward_input": 0,
    "aten::cudnn_convolution_backward_weight": 2,
}


def _position(rows: np.ndarray, event: int) -> int:
    """Index of `event` in the sorted `rows`, -1 when it is not one of them."""
    k = int(np.searchsorted(rows, event))
    return k if k < len(rows) and rows[k] == event else -1


def _sizes_from_parents(
    trace: Trace, rows: np.ndarray, distinct: np.ndarray, inverse: np.ndarray,
    calls: list[OpCall], results: list[Result], model: WorkModel,
) -> np.ndarray:  # fmt: skip
    """Complete the calls of SIZE_FROM_PARENT from their parent's shapes (`distinct`: each
    row's call, `inverse`: its result so far); appends results and returns the new result
    index per row."""
    ev = trace.events
    inverse = inverse.copy()
    todo = [
        j
        for j, c in enumerate(calls)
        if c.name in SIZE_FROM_PARENT and isinstance(results[j], Unknown)
    ]
    done: dict[tuple[int, int], int] = {}
    for k in np.flatnonzero(np.isin(distinct, todo)).tolist():
        parent = _position(rows, int(ev["parent"][rows[k]]))
        if parent < 0 or calls[distinct[parent]].name != "aten::cudnn_convolution_backward":
            continue
        key = (int(distinct[k]), int(distinct[parent]))
        if key not in done:
            call = calls[key[0]]
            size = calls[key[1]].tensor(SIZE_FROM_PARENT[call.name])
            if size is None:
                continue
            done[key] = len(results)
            results.append(model(_with_concrete(call, 0, str(size))))
        inverse[k] = done[key]
    return inverse


def op_work(trace: Trace) -> OpWork:
    """Work and status of every operator call of `trace` (see module doc)."""
    ev = trace.events
    rows = np.flatnonzero(ev["kind"] == Kind.CPU_OP)
    if not len(rows):
        return OpWork(rows, np.zeros(0, np.int32), [], np.zeros(0, np.uint8))
    first, inverse = _distinct_calls(trace, rows)
    calls = _calls(trace, rows[first])
    model = WorkModel(conv_shapes(calls))
    results = [model(call) for call in calls]
    distinct = inverse
    inverse = _masks_from_children(trace, rows, distinct, calls, results, model)
    inverse = _sizes_from_parents(trace, rows, distinct, inverse, calls, results, model)
    is_work = np.array([isinstance(r, Work) for r in results], dtype=bool)[inverse]
    known = np.zeros(len(ev["kind"]), dtype=bool)
    known[rows[is_work]] = True
    inside = flagged_ancestor(ev["parent"], known, rows)
    no_work = np.array([isinstance(r, NoWork) for r in results], dtype=bool)[inverse]
    status = np.full(len(rows), UNKNOWN, dtype=np.uint8)
    status[no_work] = NO_WORK
    status[is_work] = COUNTED
    status[inside] = INSIDE
    return OpWork(rows, inverse.astype(np.int32), results, status)


def covered_events(trace: Trace, work: OpWork) -> np.ndarray:
    """Per event: whether it is a counted call or inside one (False for non-operators)."""
    flag = np.zeros(len(trace.events["kind"]), dtype=bool)
    flag[work.event[work.status == COUNTED]] = True
    out = flag.copy()
    out[work.event[work.status == INSIDE]] = True
    return out


def reason(result: Result) -> str:
    """The words for a row: an Unknown's reason, a Work's note, why a NoWork does none."""
    if isinstance(result, Unknown):
        return result.reason
    if isinstance(result, NoWork):
        return result.why
    return result.note


def work_table(trace: Trace, work: OpWork) -> dict[str, list]:
    """The per-call table: event, name, flops, bytes (-1: unknown), category, dtype,
    status and reason (the note of a known call, the reason of an unknown one)."""
    per = work.results
    return {
        "event": work.event.tolist(),
        "name": trace.strings.lookup(trace.events["name"][work.event]),
        "flops": work.flops().tolist(),
        "bytes": work.bytes().tolist(),
        "category": [
            per[i].category if isinstance(per[i], Work) else "" for i in work.result.tolist()
        ],
        "dtype": [per[i].dtype if isinstance(per[i], Work) else "" for i in work.result.tolist()],
        "status": [STATUSES[s] for s in work.status.tolist()],
        "reason": [reason(per[i]) for i in work.result.tolist()],
    }
