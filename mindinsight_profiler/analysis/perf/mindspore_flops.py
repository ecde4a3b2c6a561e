"""MindSpore's own FLOPs counts, as MindInsight 2.3.1 showed them (docs/perf-model.md).

MindSpore's Ascend profiler counts the floating point operations of each AI Core operator
from hardware counters and writes a summary, a line per operator and a sankey per name
scope (`formats.mindspore.flops_files`, `cluster_files`). MindInsight's routes hand the
summary and the sankey to the page as the files hold them (`FlopsAnalyser`), and its AI
Core detail table joins each operator's line to it by full name (`AicoreDetailAnalyser`).
So this takes the figures as written, never recomputes them: the product's own work model
(`op_work`) is a second, independent count that these can be checked against.

Where MindInsight's table mislabels a column, ours does not: with a 3-figure line it shows
the utilisation under "MFLOPs(10^6 vector)", with a 6-figure line the cube utilisation
there and the vector MFLOPs under "GFLOPS(10^9 vector)"; each figure here keeps its own
name (tests/integration/test_mindinsight_flops.py shows both).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindinsight_profiler.analysis.schema.perf_mindspore import (
    MindSporeFlops,
    MindSporeFlopsOp,
    MindSporeFlopsScope,
    MindSporeFlopsSummary,
    MindSporeScopeLink,
    MindSporeScopeNode,
)
from mindinsight_profiler.formats.mindspore.flops_files import COLUMNS, FLOPS_TABLE
from mindinsight_profiler.formats.mindspore.legacy_ops import OPERATORS_TABLE
from mindinsight_profiler.model.trace import Trace

#: Operators listed (MindInsight's order); the counts and totals cover all of them.
OP_LIMIT = 1000


def _summary(meta: dict[str, Any]) -> MindSporeFlopsSummary | None:
    flops = meta.get("flops_summary")
    if flops is None:
        return None
    parts = meta.get("flops_summary_parts") or {}
    return MindSporeFlopsSummary(
        mflops=flops["flops"],
        gflops_per_second=flops["flops_per_second"],
        utilization_percent=flops["utilization"],
        cube_mflops=parts.get("cube_flops"),
        cube_gflops_per_second=parts.get("cube_flops_per_second"),
        vector_mflops=parts.get("vector_flops"),
        vector_gflops_per_second=parts.get("vector_flops_per_second"),
    )


def _scope(meta: dict[str, Any]) -> MindSporeFlopsScope | None:
    scope = meta.get("flops_scope")
    if scope is None:
        return None
    return MindSporeFlopsScope(
        nodes=[MindSporeScopeNode(name=n) for n in scope["nodes"]],
        links=[MindSporeScopeLink(**link) for link in scope["links"]],
        max_scope_num=scope["max_scope_num"],
    )


def _shown_us(us: float) -> float:
    """An average time as MindInsight shows (and sorts) it: 3 places, 6 below 1 us."""
    return round(us, 6) if us < 1 else round(us, 3)


def _times(trace: Trace) -> dict[str, tuple[float, int, int]]:
    """Average us per call (as MindInsight shows it), calls and the first row of each AI Core
    operator name in its detail file (the order MindInsight's table starts from)."""
    t = trace.tables.get(OPERATORS_TABLE)
    if t is None:
        return {}
    sums: dict[str, list[int]] = {}
    for row, (name, total, calls) in enumerate(
        zip(
            trace.strings.lookup(t["name"]),
            t["total_ns"].tolist(),
            t["calls"].tolist(),
            strict=True,
        )
    ):
        acc = sums.setdefault(name, [0, 0, row])
        acc[0] += total
        acc[1] += calls
    return {
        n: (_shown_us(total / calls / 1000.0), calls, row)
        for n, (total, calls, row) in sums.items()
        if calls
    }


def _figure(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _line_totals(cols: dict[str, np.ndarray], layout: str) -> tuple[np.ndarray, np.ndarray]:
    """MFLOPs and GFLOPS of each line: the file's, or the sums of its cube and vector parts
    (NaN where a part is missing: the layout has no such column)."""
    if layout == "total":
        return cols["mflops"], cols["gflops_per_second"]
    return (
        cols["cube_mflops"] + cols["vector_mflops"],
        cols["cube_gflops_per_second"] + cols["vector_gflops_per_second"],
    )


def _ops(trace: Trace, layout: str) -> tuple[list[MindSporeFlopsOp], int, float]:
    """Per operator name (its last line), MindInsight's order; lines read; their MFLOPs.

    Vectorised over the lines: MindSpore 2.x writes one per task, millions in a long run."""
    t = trace.tables[FLOPS_TABLE]
    cols = {c: np.asarray(t[c], dtype=np.float64) for c in COLUMNS}
    mflops, rate = _line_totals(cols, layout)
    codes = np.asarray(t["name"])
    n = len(codes)
    uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    last = n - 1 - np.unique(codes[::-1], return_index=True)[1]  # MindInsight keeps the last
    lines = np.bincount(inverse, minlength=len(uniq))
    sums = np.bincount(inverse, weights=mflops, minlength=len(uniq))
    names = trace.strings.lookup(uniq)
    times = _times(trace)
    ops = []
    order: list[tuple[float, int]] = []
    for k in np.argsort(first, kind="stable").tolist():  # first appearance in the file
        i = int(last[k])
        figures = {c: _figure(cols[c][i]) for c in COLUMNS}
        hit = times.get(names[k])
        avg, calls = (hit[0], hit[1]) if hit else (None, None)
        order.append((-hit[0], hit[2]) if hit else (math.inf, len(order)))
        ops.append(
            MindSporeFlopsOp(
                name=names[k],
                mflops=float(mflops[i]),
                gflops_per_second=_figure(rate[i]),
                utilization_percent=figures["utilization_percent"],
                cube_mflops=figures["cube_mflops"],
                cube_gflops_per_second=figures["cube_gflops_per_second"],
                cube_utilization_percent=figures["cube_utilization_percent"],
                vector_mflops=figures["vector_mflops"],
                vector_gflops_per_second=figures["vector_gflops_per_second"],
                vector_utilization_percent=figures["vector_utilization_percent"],
                lines=int(lines[k]),
                lines_mflops=float(sums[k]),
                avg_time_us=avg,
                calls=calls,
            )
        )
    # The AI Core detail table: average time descending, ties in its file's order (a stable
    # sort of its rows); the operators it does not have after them, in this file's order.
    ranked = sorted(range(len(ops)), key=order.__getitem__)
    return [ops[i] for i in ranked], n, math.fsum(mflops.tolist())


def mindspore_flops(trace: Trace) -> MindSporeFlops | None:
    """MindSpore's FLOPs of the trace's rank (module docstring); None without its files."""
    summary = _summary(trace.meta)
    scope = _scope(trace.meta)
    layout = trace.meta.get("flops_ops_layout")
    if FLOPS_TABLE not in trace.tables or layout not in ("total", "cube_vector"):
        layout = None
    if summary is None and scope is None and layout is None:
        return None
    ops: list[MindSporeFlopsOp] = []
    line_count, lines_mflops = 0, None
    if layout is not None:
        ops, line_count, lines_mflops = _ops(trace, layout)
    return MindSporeFlops(
        summary=summary,
        layout=layout,
        op_count=len(ops),
        line_count=line_count,
        lines_mflops=lines_mflops,
        ops=ops[:OP_LIMIT],
        scope=scope,
    )
