"""Operator instance queries and type summaries, on a real trace."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.query import (
    instance_table,
    op_type_summary,
    query_instances,
)
from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.conftest import shared


@pytest.fixture(scope="module")
def setup() -> tuple:
    trace = read_kineto(
        shared("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    )
    return trace, instance_table(trace, op_tree(trace)), build_report(trace)


def test_rows_are_the_operator_calls(setup: tuple) -> None:
    _, table, report = setup
    assert len(table) == sum(o["calls"] for o in report["operators"])
    total = table.columns["device_self_ns"].sum() / 1000
    assert total == pytest.approx(sum(o["device_self_us"] for o in report["operators"]))


def test_pages_concatenate_to_the_sorted_filtered_rows(setup: tuple) -> None:
    _, table, _ = setup
    first = query_instances(table, sort="host_self_ns", name_contains="CONV", limit=1000)
    n = first["total"]
    assert n > 1000 and len(first["rows"]) == 1000
    assert all("conv" in r["name"].lower() for r in first["rows"])
    times = [r["host_self_us"] for r in first["rows"]]
    assert times == sorted(times, reverse=True)
    pages = [
        query_instances(table, sort="host_self_ns", name_contains="conv", offset=o, limit=37)
        for o in range(0, 333, 37)
    ]
    assert [r for p in pages for r in p["rows"]] == first["rows"][:333]
    assert all(p["total"] == n for p in pages)


def test_type_filters(setup: tuple) -> None:
    _, table, _ = setup
    only = query_instances(table, types_in=["add_", "mul_"], limit=1000)
    assert {r["type"] for r in only["rows"]} == {"add_", "mul_"}
    without = query_instances(table, types_not_in=["add_"], limit=1)
    assert (
        without["total"] == len(table) - query_instances(table, types_in=["add_"], limit=1)["total"]
    )


def test_bad_queries() -> None:
    with pytest.raises(ValueError):
        query_instances(_empty(), sort="nope")
    with pytest.raises(ValueError):
        query_instances(_empty(), limit=0)


def _empty():  # type: ignore[no-untyped-def]
    from mindinsight_profiler.analysis.operators.query import InstanceTable

    cols = {
        k: np.zeros(0, np.int64)
        for k in (
            "event",
            "name",
            "type",
            "start_ns",
            "host_self_ns",
            "host_total_ns",
            "device_self_ns",
            "device_total_ns",
        )
    }
    return InstanceTable(cols, [], [])


def test_type_summary_top_and_others(setup: tuple) -> None:
    _, table, _ = setup
    summary = op_type_summary(table, top=5)
    rows = summary["types"]
    assert len(rows) == 6 and rows[-1]["type"] == "others"
    assert sum(r["percent"] for r in rows) == pytest.approx(100.0)
    assert sum(r["calls"] for r in rows) == len(table)
    assert rows[0]["total_us"] >= rows[1]["total_us"] >= rows[4]["total_us"]
