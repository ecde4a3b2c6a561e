"""Alternative groupings partition the same calls and times as the by-name tables."""

from __future__ import annotations

from collections import defaultdict

import pytest

from mindinsight_profiler.analysis.report import grouped_tables
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared


@pytest.mark.parametrize(
    "trace",
    [
        "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json",
        "hta/nccl_parser_config/nccl_data.json.gz",
    ],
)
def test_groupings_partition_the_by_name_rows(trace: str) -> None:
    t = read_kineto(shared(trace))
    ops, kernels = grouped_tables(t)
    for group in ("name_input", "name_stack"):
        rows, _ = grouped_tables(t, group)
        sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        for r in rows:
            s = sums[r["name"]]
            s[0] += r["calls"]
            s[1] += r["host_total_us"]
            s[2] += r["device_total_us"]
        for o in ops:
            assert sums[o["name"]][0] == o["calls"]
            assert sums[o["name"]][1] == pytest.approx(o["host_total_us"], abs=0.01)
            assert sums[o["name"]][2] == pytest.approx(o["device_total_us"], abs=0.01)
    _, by_launch = grouped_tables(t, kernels_by="name_op_launch")
    assert sum(k["calls"] for k in by_launch) == sum(k["calls"] for k in kernels)
    assert sum(k["total_us"] for k in by_launch) == pytest.approx(
        sum(k["total_us"] for k in kernels)
    )
