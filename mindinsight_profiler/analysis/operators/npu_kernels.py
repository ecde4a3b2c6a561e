"""The AI Core facts of Ascend kernel rows: core, op type, block dim, inputs, PMU pipe ratios.

Ascend users read a kernel through `kernel_details.csv` (or the database's
`COMPUTE_TASK_INFO`/`TASK_PMU_INFO`): which core ran it, its launch width, the shapes, data
types and formats of its inputs, and where its cycles went (cube MAC, vector, scalar, the
MTE copy pipes). The readers keep those per kernel event in the `kernel_details` side table
(column `event` links a row to its event); here they are folded onto the kernel table's
groups so a row of the kernels page carries them.

A group of kernels of one name can mix launches: strings and the block dim are the group's
most frequent value among the calls that have one, and ratios are duration-weighted means
over the calls that have them. A ratio whose mean is 0 is left out: the text export writes
0 for the pipes of the other core (an AI Vector kernel's `aic_*`) where the database writes
nothing, and a row should read the same from either export.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.model.trace import Trace

Table = dict[str, list[Any]]
PMU_PREFIX = "pmu_"
TEXT_FACTS = ("accelerator_core", "op_type", "input_shapes", "input_dtypes", "input_formats")
#: kernel_details column of each text fact.
_SOURCE = {"accelerator_core": "core_type"}


def npu_kernel_columns(trace: Trace, k: np.ndarray, inv: np.ndarray, g: int) -> Table:
    """Extra kernel-table columns for the kernel events `k` grouped by `inv` into `g` rows.

    Empty when the trace has no linked `kernel_details` table (every non-Ascend input).
    """
    kd = trace.tables.get("kernel_details")
    if kd is None or "event" not in kd:
        return {}
    row_of = np.full(len(trace.events["start_ns"]), -1, dtype=np.int64)
    linked = kd["event"] >= 0
    row_of[kd["event"][linked]] = np.flatnonzero(linked)
    r = row_of[k]
    has = r >= 0
    rc = np.clip(r, 0, None)
    out: Table = {}
    for fact in TEXT_FACTS:
        col = kd.get(_SOURCE.get(fact, fact))
        codes = np.where(has, col[rc], -1) if col is not None else np.full(len(k), -1)
        out[fact] = [_text(s) for s in trace.strings.lookup(_mode(inv, codes, g))]
    dims = np.where(has, kd["block_dim"][rc], -1) if "block_dim" in kd else np.full(len(k), -1)
    out["block_dim"] = [None if d < 0 else int(d) for d in _mode(inv, dims, g).tolist()]
    dur = (trace.events["end_ns"] - trace.events["start_ns"])[k].astype(np.float64)
    out["pmu"] = _ratios(kd, r, has, inv, dur, g)
    cube = kd.get("cube_utilization_pct")
    out["cube_utilization"] = (
        [None] * g if cube is None else _weighted(np.where(has, cube[rc], np.nan), inv, dur, g)
    )
    return out


def _mode(inv: np.ndarray, codes: np.ndarray, g: int) -> np.ndarray:
    """Most frequent non-negative code per group (-1 where the group has none)."""
    out = np.full(g, -1, dtype=np.int64)
    ok = codes >= 0
    if not ok.any():
        return out
    width = int(codes.max()) + 1
    pairs, counts = np.unique(inv[ok].astype(np.int64) * width + codes[ok], return_counts=True)
    group, code = pairs // width, pairs % width
    order = np.lexsort((-counts, group))
    head = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    out[group[head]] = code[head]
    return out


def _weighted(values: np.ndarray, inv: np.ndarray, dur: np.ndarray, g: int) -> list[Any]:
    """Duration-weighted mean per group over the calls with a value (None without any)."""
    ok = np.isfinite(values)
    w = np.bincount(inv[ok], weights=dur[ok], minlength=g)
    s = np.bincount(inv[ok], weights=values[ok] * dur[ok], minlength=g)
    means = [
        None if wi <= 0 else round(si / wi, 4)
        for si, wi in zip(s.tolist(), w.tolist(), strict=True)
    ]
    return [m or None for m in means]  # 0 reads as "not measured" (see the module note)


def _text(cell: str) -> str | None:
    """The export's cell without the quotes it puts round shape lists; None when empty or
    "N/A" (the database stores the text the CSV writer leaves out)."""
    text = cell.strip('"')
    return None if text in ("", "N/A") else text


def _ratios(
    kd: dict[str, np.ndarray], r: np.ndarray, has: np.ndarray, inv: np.ndarray, dur: Any, g: int
) -> list[dict[str, float]]:
    """Per group, {pipe ratio name: mean} for the `*_ratio` PMU metrics above 0."""
    out: list[dict[str, float]] = [{} for _ in range(g)]
    rc = np.clip(r, 0, None)
    for col in sorted(c for c in kd if c.startswith(PMU_PREFIX) and c.endswith("_ratio")):
        values = np.where(has, kd[col][rc].astype(np.float64), np.nan)
        for i, mean in enumerate(_weighted(values, inv, dur, g)):
            if mean is not None:
                out[i][col.removeprefix(PMU_PREFIX)] = mean
    return out
