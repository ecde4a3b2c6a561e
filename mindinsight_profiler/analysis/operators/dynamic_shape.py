"""MindInsight's dynamic-shape view: each op type's and op's time per step, with its shapes.

For a dynamic-shape network the same op runs with other input shapes from step to step, so
its time changes with them. MindSpore writes, per step, every op's duration and input shapes
(`dynamic_shape_info_<rank>.json`, side table `dynamic_shape`); MindInsight 2.3.1 drew per
op type one curve over the steps and listed the ops of a step with their shapes.

MindInsight's curve (`GpuDynamicAnalyser`; the Ascend file's own `op_type` summary) is the
mean duration of one call of the type in that step: the writer sums the type's calls in the
step and divides by their number. Here, per type (all of them, most total time first):
`step_us` (the type's summed time in each step, 0 where it did not run), `step_calls` and
`step_mean_us` (MindInsight's curve; null where the type did not run, where MindInsight
drew 0), and over the whole file its calls, total, mean per call and share. Per op (the
`TOP_OPS` of most total time): the same, plus its distinct input shapes with their calls and
mean time (`TOP_SHAPES` of most calls). The step axis is the file's steps, ascending. Both
sides MindSpore writes (`gpu` device ops and `cpu` host ops) are counted, as MindInsight
counts them; a type lists the sides its ops ran on. Times are in microseconds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

#: Ops listed (most total time first); the types are all listed.
TOP_OPS = 50
#: Distinct shapes listed per op (most calls first).
TOP_SHAPES = 20
TABLE = "dynamic_shape"


def _us(ns: float) -> float:
    return round(ns / 1000.0, 3)


def _per_step(index: np.ndarray, dur: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Summed ns and calls in each step."""
    total = np.bincount(index, weights=dur, minlength=n)
    calls = np.bincount(index, minlength=n)
    return total, calls


def _series(total_ns: np.ndarray, calls: np.ndarray) -> dict[str, Any]:
    pairs = zip(total_ns.tolist(), calls.tolist(), strict=True)
    return {
        "step_us": [_us(v) for v in total_ns.tolist()],
        "step_calls": calls.tolist(),
        "step_mean_us": [_us(t / c) if c else None for t, c in pairs],
    }


def _shapes(shapes: list[str], dur: np.ndarray) -> tuple[int, list[dict[str, Any]]]:
    uniq, inv = np.unique(np.array(shapes, dtype=object), return_inverse=True)
    inv = inv.ravel()
    calls = np.bincount(inv, minlength=len(uniq))
    total = np.bincount(inv, weights=dur, minlength=len(uniq))
    order = np.lexsort((-total, -calls))[:TOP_SHAPES]
    rows = [
        {
            "shape": str(uniq[i]),
            "calls": int(calls[i]),
            "total_us": _us(float(total[i])),
            "mean_us": _us(float(total[i]) / int(calls[i])),
        }
        for i in order.tolist()
    ]
    return len(uniq), rows


def dynamic_shape_section(trace: Trace) -> dict[str, Any] | None:
    """The dynamic-shape view (module docstring); None without a dynamic-shape file."""
    t = trace.tables.get(TABLE)
    if t is None or len(t["step"]) == 0:
        return None
    lookup = trace.strings.lookup
    steps, step_index = np.unique(np.asarray(t["step"]), return_inverse=True)
    step_index = step_index.ravel()
    n = len(steps)
    dur = np.asarray(t["dur_ns"], dtype=np.float64)
    sides = lookup(t["side"])
    types = lookup(t["op_type"])
    names = lookup(t["op_name"])
    shapes = lookup(t["shape"])
    whole = float(dur.sum())

    type_rows = []
    type_of = np.array(types, dtype=object)
    uniq_types, type_inv = np.unique(type_of, return_inverse=True)
    type_inv = type_inv.ravel()
    for k, name in enumerate(uniq_types.tolist()):
        mask = type_inv == k
        total, calls = _per_step(step_index[mask], dur[mask], n)
        type_total = float(total.sum())
        count = int(calls.sum())
        type_rows.append(
            {
                "type": str(name),
                "sides": sorted({sides[i] for i in np.flatnonzero(mask).tolist()}),
                "calls": count,
                "total_us": _us(type_total),
                "mean_us": _us(type_total / count),
                "percent": round(100.0 * type_total / whole, 4) if whole else 0.0,
                "op_count": len({names[i] for i in np.flatnonzero(mask).tolist()}),
                **_series(total, calls),
            }
        )
    type_rows.sort(key=lambda r: (-r["total_us"], r["type"]))

    uniq_ops, op_inv = np.unique(np.array(names, dtype=object), return_inverse=True)
    op_inv = op_inv.ravel()
    op_total = np.bincount(op_inv, weights=dur, minlength=len(uniq_ops))
    op_rows = []
    for k in np.lexsort((uniq_ops, -op_total))[:TOP_OPS].tolist():
        rows = np.flatnonzero(op_inv == k)
        total, calls = _per_step(step_index[rows], dur[rows], n)
        count = int(calls.sum())
        shape_count, shape_rows = _shapes([shapes[i] for i in rows.tolist()], dur[rows])
        first = int(rows[0])
        op_rows.append(
            {
                "name": str(uniq_ops[k]),
                "type": types[first],
                "side": sides[first],
                "calls": count,
                "total_us": _us(float(op_total[k])),
                "mean_us": _us(float(op_total[k]) / count),
                "step_us": [_us(v) for v in total.tolist()],
                "shape_count": shape_count,
                "shapes": shape_rows,
            }
        )
    return {
        "layout": str(trace.meta.get("dynamic_shape_layout") or "gpu"),
        "steps": steps.tolist(),
        "call_count": len(names),
        "total_us": _us(whole),
        "op_count": len(uniq_ops),
        "types": type_rows,
        "ops": op_rows,
    }
