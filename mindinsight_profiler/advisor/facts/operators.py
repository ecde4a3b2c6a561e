"""Facts: operator types, float64 compute and hand-written attention.

They read the report's operator-type table, and the trace's operator tree when they need
per-call detail (input dtypes, the order of the operators a Python line called).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.facts.sync_inferred import ran_on_device
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis.categories import is_comm_op_name
from mindinsight_profiler.analysis.operators.stats import OpTree, op_tree
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace


def _trace(ctx: Context, needs: str) -> Trace:
    trace = ctx.trace
    if trace is None or not (trace.kind == Kind.CPU_OP).any():
        raise Unavailable(f"needs {needs}")
    return trace


def tree_of(ctx: Context, trace: Trace) -> OpTree:
    """The operator tree, built once per advice (several facts share it)."""
    if "op_tree" not in ctx.memo:
        ctx.memo["op_tree"] = op_tree(trace)
    return ctx.memo["op_tree"]


def steps_count(ctx: Context) -> int:
    count = int((ctx.report.get("steps") or {}).get("count") or 0)
    if not count:
        raise Unavailable("needs at least one step")
    return count


# --- the hottest operator type -------------------------------------------------------------


def _top_type(ctx: Context) -> dict[str, Any]:
    # Communication has rules of its own: the share is of compute operator time.
    section = ctx.report.get("op_types") or {}
    # Annotations (`## backward ##`, `ProfilerStep#3`) are ranges, not operator types.
    compute = [
        t for t in section.get("types") or []
        if not is_comm_op_name(str(t.get("type"))) and not str(t.get("type")).startswith("#")
    ]  # fmt: skip
    types = [t for t in compute if t.get("type") != "others"]
    total = sum(float(t.get("total_us") or 0.0) for t in compute)
    if not types or not total:
        raise Unavailable("needs operator times")
    steps = ctx.report.get("steps") or {}
    if total < 0.01 * sum(steps.get("durations_us") or [0.0]):
        raise Unavailable("operators take under 1 % of the steps' time: no type to rank")
    top = max(types, key=lambda t: t.get("total_us") or 0.0)
    return dict(top, by=section.get("by"), percent=100.0 * float(top["total_us"]) / total)


@fact(
    "operator.top_type_share",
    "ratio",
    "Share (0..1) of compute operator time taken by the single most expensive operator type "
    "(device time when the run has any, else host self time; MindSpore: AI Core time; "
    "communication operators are left out: they have rules of their own).",
    "operator times",
)
def top_type_share(ctx: Context) -> Observed:
    top = _top_type(ctx)
    evidence = Evidence(
        kind="operator_type",  # a type, not an operator's name: the page opens its type view
        **label("op_type_share", type=top["type"], pct=top["percent"]),
        page="operators",
        value=float(top["total_us"]),
        unit="us",
        name=str(top["type"]),
    )
    return Observed(float(top["percent"]) / 100.0, (evidence,))


@fact("operator.top_type", "text", "Name of the most expensive operator type.", "operator times")
def top_type(ctx: Context) -> str:
    return str(_top_type(ctx)["type"])


@fact(
    "operator.on_host",
    "bool",
    "Whether operator times are host CPU time because the run has no accelerator (a "
    "CPU-only PyTorch or MindSpore run): there an operator's self time is the compute, and "
    "the table also holds every call's dispatch and the record_function ranges, which a "
    "device-time table does not, so one type's share reads lower for the same dominance. "
    "False on a host-only trace of a job that ran on a device (NCCL, record_stream).",
    "operator times",
)
def on_host(ctx: Context) -> bool:
    _top_type(ctx)  # unavailable exactly when there is no operator table to judge
    if ctx.report.get("device_type") != "cpu":
        return False
    # a host-only trace of a job that ran on a device: its operators launch, not compute
    return not ran_on_device(ctx.trace) if ctx.load_trace else True


# --- float64 compute -----------------------------------------------------------------------

_FLOAT64 = ("double", "c10::double", "complex<double>", "c10::complex<double>")


def _has_float64_tensor(types_text: str, dims_text: str) -> bool:
    """Whether the call computes in float64: its first tensor input of at least one
    dimension is a double (the operand that sets an operator's compute type).

    0-dim double inputs are Python floats that torch wraps (`x / 8.0`, `lr`), not data; a
    call with many inputs (a compiled graph's `CompiledFunction`) that merely includes a
    double among float32 operands does not compute in float64.
    """
    try:
        types, dims = json.loads(types_text), json.loads(dims_text) if dims_text else []
    except ValueError:
        return False
    dims = dims if isinstance(dims, list) else []
    for i, t in enumerate(types if isinstance(types, list) else []):
        if i < len(dims) and isinstance(dims[i], list) and len(dims[i]) > 0:
            if isinstance(dims[i][0], list):
                continue  # a tensor list: no element type of its own here
            return isinstance(t, str) and t.lower() in _FLOAT64
    return False


def _float64_calls(trace: Trace, rows: np.ndarray) -> np.ndarray:
    """Mask over `rows`: the calls with a float64 tensor input (decided per distinct text)."""
    ev = trace.events
    # one int64 key per (types, dims) pair of string codes (>= -1): a 1-D unique, not the
    # row-wise one (axis=0 sorts a structured view: 2 s on 8 M calls)
    key = (ev["input_types"][rows].astype(np.int64) + 1) << 32 | (
        ev["input_dims"][rows].astype(np.int64) + 1
    )
    keys, inverse = np.unique(key, return_inverse=True)
    unique = np.column_stack([(keys >> 32) - 1, (keys & 0xFFFFFFFF) - 1])
    decided = np.array(
        [
            t >= 0
            and _has_float64_tensor(trace.strings[int(t)], trace.strings[int(d)] if d >= 0 else "")
            for t, d in unique.tolist()
        ],
        dtype=bool,
    )
    return decided[inverse.ravel()] if len(unique) else np.zeros(len(rows), dtype=bool)


def _float64(ctx: Context) -> dict[str, Any]:
    if "float64" in ctx.memo:
        return ctx.memo["float64"]
    trace = _trace(ctx, "a PyTorch trace with operator input types (record_shapes=True)")
    codes = trace.events["input_types"]
    if not (codes >= 0).any():
        raise Unavailable("needs operator input types (torch.profiler record_shapes=True)")
    tree = tree_of(ctx, trace)
    device = tree.device_self_ns[tree.is_row]
    time = device if device.any() else tree.host_self_ns[tree.is_row]
    rows = tree.index[tree.is_row]
    is_f64 = _float64_calls(trace, rows)
    names = trace.events["name"][rows][is_f64]
    per_name = np.bincount(names, weights=time[is_f64], minlength=len(trace.strings))
    top = [int(c) for c in np.argsort(-per_name)[:5] if per_name[c] > 0]
    out = {
        "share": float(time[is_f64].sum() / time.sum()) if time.sum() else 0.0,
        "us": float(time[is_f64].sum()) / 1000.0 / steps_count(ctx),
        "top": [(trace.strings[c], float(per_name[c]) / 1000.0) for c in top],
        "basis": "device" if device.any() else "host",
    }
    ctx.memo["float64"] = out
    return out


@fact(
    "precision.float64_share",
    "ratio",
    "Share (0..1) of operator self time (device time when the run has any, else host) spent "
    "in operator calls with a float64 (double) input; evidence: the costliest such operators.",
    "operator input types (record_shapes=True)",
)
def float64_share(ctx: Context) -> Observed:
    got = _float64(ctx)
    evidence = tuple(
        Evidence(
            kind="operator",
            **label("float64_inputs", name=name),
            page="operators",
            value=us,
            unit="us",
            name=name,
        )
        for name, us in got["top"]
    )
    return Observed(got["share"], evidence)


@fact(
    "precision.float64_us",
    "us",
    "Operator self time with float64 inputs per step, microseconds.",
    "operator input types (record_shapes=True)",
)
def float64_us(ctx: Context) -> float:
    return float(_float64(ctx)["us"])


# --- attention written by hand -------------------------------------------------------------

#: Operator sequences that a fused kernel replaces: (first, middle, last) name sets, with at
#: most `_GAP` other operators between neighbours (scale, mask, dropout).
FUSIBLE = {
    "attention": (
        ("aten::matmul", "aten::bmm", "aten::baddbmm"),
        ("aten::softmax", "aten::_softmax", "aten::_safe_softmax"),
        ("aten::matmul", "aten::bmm"),
    ),
}
_GAP = 3


def _attention(ctx: Context) -> list[tuple[int, int, int]]:
    """(track, start_ns, end_ns) of each matmul -> softmax -> matmul called from Python."""
    if "attention" in ctx.memo:
        return ctx.memo["attention"]
    trace = _trace(ctx, "a PyTorch trace with operator events")
    ev = trace.events
    parent = ev["parent"]
    top = (ev["kind"] == Kind.CPU_OP) & (
        (parent < 0) | (ev["kind"][np.clip(parent, 0, None)] != Kind.CPU_OP)
    )
    idx = np.flatnonzero(top)
    idx = idx[np.lexsort((ev["start_ns"][idx], ev["track"][idx]))]
    first, middle, last = (
        trace.names_matching(lambda s, names=names: s in names)[idx]
        for names in FUSIBLE["attention"]
    )
    track = ev["track"][idx]
    found = []
    for m in np.flatnonzero(middle).tolist():
        a = next((p for p in range(m - 1, max(m - 2 - _GAP, -1), -1) if first[p]), None)
        b = next((p for p in range(m + 1, min(m + 2 + _GAP, len(idx))) if last[p]), None)
        if a is not None and b is not None and track[a] == track[m] == track[b]:
            found.append((int(track[m]), int(ev["start_ns"][idx[a]]), int(ev["end_ns"][idx[b]])))
    ctx.memo["attention"] = found
    return found


@fact(
    "operator.manual_attention_per_step",
    "count",
    "Hand-written attention blocks per step: matmul/bmm -> softmax -> matmul/bmm called "
    "one after another from Python (at most 3 operators between), which one "
    "scaled_dot_product_attention call would replace; evidence: their time ranges.",
    "a PyTorch trace with operator events",
)
def manual_attention_per_step(ctx: Context) -> Observed:
    found = _attention(ctx)
    evidence = tuple(
        Evidence(
            kind="time_range",
            **label("attention_sequence"),
            page="timeline",
            value=(end - start) / 1000.0,
            unit="us",
            name="attention",
            start_ns=start,
            end_ns=end,
        )
        for _, start, end in found
    )
    return Observed(len(found) / steps_count(ctx), evidence)


@fact(
    "operator.manual_attention_us",
    "us",
    "Time per step from the first matmul to the last matmul of the hand-written attention "
    "blocks (host), microseconds.",
    "a PyTorch trace with operator events",
)
def manual_attention_us(ctx: Context) -> float:
    return sum(end - start for _, start, end in _attention(ctx)) / 1000.0 / steps_count(ctx)
