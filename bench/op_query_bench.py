"""Operator-table page queries on a million-row instance table (target: <= 20 ms each).

Builds the operator instance table of the x15 input, tiles it to >= 1 M rows, then times
page queries (sort keys, name and type filters, deep offsets). Sort orders are computed
once per key and cached, as the server will keep them; that one-time cost is reported too.

Usage: python bench/op_query_bench.py [--trace PATH] [--rows N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import numpy as np

from mindinsight_profiler.analysis.operators.query import (
    SORTABLE,
    InstanceTable,
    instance_table,
    op_type_summary,
    query_instances,
)
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.formats.kineto.reader import read_kineto

DEFAULT = Path("/tmp/mi-bench-inputs/x15/worker0.1623143089861.pt.trace.json.gz")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trace", type=Path, default=DEFAULT)
    ap.add_argument("--rows", type=int, default=1_000_000)
    a = ap.parse_args()
    trace = read_kineto(a.trace)
    base = instance_table(trace, op_tree(trace))
    reps = -(-a.rows // len(base))
    table = InstanceTable(
        {k: np.tile(v, reps) for k, v in base.columns.items()}, base.names, base.types
    )
    print(f"{len(table):,} instance rows ({len(base):,} x {reps})")
    t = time.perf_counter()
    for key in SORTABLE:
        table.order(key)
    print(f"one-time sort orders for {len(SORTABLE)} keys: {time.perf_counter() - t:.2f} s")
    rng = random.Random(0)
    cases = []
    for _ in range(200):
        cases.append(
            {
                "sort": rng.choice(SORTABLE),
                "descending": rng.random() < 0.7,
                "name_contains": rng.choice([None, None, "conv", "add", "batch_norm"]),
                "types_not_in": rng.choice([None, ["add_"]]),
                "offset": rng.choice([0, 50, 10_000, 500_000]),
                "limit": 50,
            }
        )
    times = []
    for case in cases:
        t = time.perf_counter()
        query_instances(table, **case)  # type: ignore[arg-type]
        times.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    op_type_summary(table, top=10)
    summary_ms = (time.perf_counter() - t) * 1000
    print(
        f"page queries: median {statistics.median(times):.1f} ms, p95 "
        f"{sorted(times)[int(0.95 * len(times))]:.1f} ms, max {max(times):.1f} ms "
        f"(target <= 20 ms); type summary {summary_ms:.1f} ms"
    )


if __name__ == "__main__":
    main()
