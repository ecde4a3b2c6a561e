"""MindSpore's AI CPU tables against `aicpu_intermediate_<rank>.csv`, read here with `csv`.

MindInsight 2.3.1 computes them (`AicpuTypeAnalyser`, `AicpuDetailAnalyser`) as: type = the
op name up to its first "-"; per type the calls, the summed `total_time` (ms -> us) and its
percent of all AI CPU time; per op the calls and the mean `total_time` and `dispatch_time`.
The same formulas are applied to the file below and must give the report's figures.
"""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.detect import read_trace
from tests.conftest import shared

RUN = "mindspore_legacy/run_2/normal_run/profiler"


def test_aicpu_tables_equal_the_file() -> None:
    folder = shared(RUN)
    rows = list(csv.DictReader((folder / "aicpu_intermediate_1.csv").open(newline="")))
    by_type: dict[str, list[dict[str, str]]] = defaultdict(list)
    by_op: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        by_type[r["kernel_type"].split("-")[0]].append(r)
        by_op[r["kernel_type"]].append(r)
    whole = sum(float(r["total_time"]) for r in rows) * 1000

    aicpu = build_report(read_trace(folder))["aicpu"]
    assert aicpu["call_count"] == len(rows) == 5
    types = {t["type"]: t for t in aicpu["types"]}
    assert set(types) == set(by_type)
    for name, calls in by_type.items():
        total = sum(float(r["total_time"]) for r in calls) * 1000
        assert types[name]["calls"] == len(calls)
        assert types[name]["total_us"] == pytest.approx(total, rel=1e-6)
        assert types[name]["percent"] == pytest.approx(100 * total / whole, abs=5e-3)
        dispatch = sum(float(r["dispatch_time"]) for r in calls) * 1000
        assert types[name]["dispatch_us"] == pytest.approx(dispatch, rel=1e-6)
    assert [t["total_us"] for t in aicpu["types"]] == sorted(types[n]["total_us"] for n in types)[
        ::-1
    ]
    ops = {o["name"]: o for o in aicpu["ops"]}
    for name, calls in by_op.items():
        n = len(calls)
        assert ops[name]["calls"] == n
        assert ops[name]["mean_us"] == pytest.approx(
            sum(float(r["total_time"]) for r in calls) * 1000 / n, rel=1e-6
        )
        assert ops[name]["mean_dispatch_us"] == pytest.approx(
            sum(float(r["dispatch_time"]) for r in calls) * 1000 / n, rel=1e-6
        )
    # InitData holds 81.56 % of the AI CPU time (7.906 of 9.694 ms), as MindInsight shows
    assert aicpu["types"][0]["type"] == "InitData"
    assert round(aicpu["types"][0]["percent"], 2) == 81.56


@pytest.mark.parametrize("relative", ["ascend_pytorch/level1/rank0_ascend_pt", "torch_cpu/small"])
def test_other_inputs_have_no_aicpu_table(relative: str) -> None:
    base = shared(relative)
    path = base if base.name.endswith("_ascend_pt") else next(base.glob("*.pt.trace.json"))
    assert build_report(read_trace(path))["aicpu"] is None
