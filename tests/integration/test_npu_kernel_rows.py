"""Ascend kernel rows carry the AI Core facts users read in `kernel_details.csv` / the DB.

Expected values are computed here straight from the export (Python's `csv` on the text
export, SQL on the database export), independently of the readers: per kernel name, the
most frequent accelerator core, op type and block dim, and the duration-weighted mean of
each PMU pipe ratio, within 0.1 %. Non-Ascend inputs must not gain the fields.
"""

from __future__ import annotations

import csv
import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.operators.tables import kernel_table, rows
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.detect import read_trace
from tests.conftest import shared

TEXT = "ascend_pytorch/level1/rank0_ascend_pt"
DB = "ascend_pytorch_db/level1/rank0_ascend_pt"
TOLERANCE = 1e-3


def _rows(relative: str) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in rows(kernel_table(read_ascend_pt(shared(relative))))}


def _mode(values: list[Any]) -> Any:
    present = [v for v in values if v not in ("", "N/A", None)]
    return Counter(present).most_common(1)[0][0] if present else None


def _csv_expected() -> dict[str, dict[str, Any]]:
    path = shared(TEXT) / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            by_name[row["Name"]].append(row)
    out = {}
    for name, calls in by_name.items():
        dur = [float(c["Duration(us)"]) for c in calls]
        ratios = {}
        for col in calls[0]:
            if col.endswith("_ratio"):
                vals = [float(c[col]) if c[col] not in ("", "N/A") else None for c in calls]
                pairs = [(v, d) for v, d in zip(vals, dur, strict=True) if v is not None]
                w = sum(d for _, d in pairs)
                mean = sum(v * d for v, d in pairs) / w if w else 0.0
                if round(mean, 4):
                    ratios[col] = mean
        out[name] = {
            "accelerator_core": _mode([c["Accelerator Core"] for c in calls]),
            "op_type": _mode([c["Type"] for c in calls]),
            "block_dim": _mode([int(c["Block Dim"]) for c in calls]),
            "input_dtypes": _mode([c["Input Data Types"] for c in calls]),
            "pmu": ratios,
        }
    return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(b), 1e-4) + 5e-5  # 4-place rounding


def test_text_export_rows_equal_kernel_details_csv() -> None:
    got, expected = _rows(TEXT), _csv_expected()
    assert set(got) == set(expected)
    with_pmu = 0
    for name, exp in expected.items():
        row = got[name]
        for key in ("accelerator_core", "op_type", "block_dim", "input_dtypes"):
            assert row[key] == exp[key], (name, key)
        assert set(row["pmu"]) == set(exp["pmu"]), name
        for metric, value in exp["pmu"].items():
            assert _close(row["pmu"][metric], value), (name, metric, row["pmu"][metric], value)
        with_pmu += bool(row["pmu"])
    assert with_pmu >= 20  # the fixture is a level1 export with AI Core metrics


def test_db_export_rows_equal_compute_task_info() -> None:
    path = shared(DB) / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    sql = """SELECT n.value, c.value, t.value, i.blockDim, d.value
             FROM COMPUTE_TASK_INFO i JOIN STRING_IDS n ON n.id = i.name
             JOIN STRING_IDS c ON c.id = i.taskType JOIN STRING_IDS t ON t.id = i.opType
             LEFT JOIN STRING_IDS d ON d.id = i.inputDataTypes"""
    by_name: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for name, *facts in db.execute(sql):
        by_name[name].append(tuple(facts))
    got = _rows(DB)
    assert by_name and set(by_name) <= set(got)
    for name, calls in by_name.items():
        row = got[name]
        assert row["accelerator_core"] == _mode([c[0] for c in calls]), name
        assert row["op_type"] == _mode([c[1] for c in calls]), name
        assert row["block_dim"] == _mode([c[2] for c in calls]), name
        assert row["input_dtypes"] == _mode([c[3] for c in calls]), name
    assert sum(bool(r.get("pmu")) for r in got.values()) >= 20


def test_text_and_db_exports_agree_on_each_kernels_facts() -> None:
    """Two runs of the same job: each kernel's core, op type, block dim and the set of busy
    pipes are the workload's, so they are equal; ratio values differ run to run. Names that
    end in an instance number (`trans_TransData_17`, `hcom_allReduce__586_0_1`) are numbered
    per run, so the same name can be another instance."""
    text, db = _rows(TEXT), _rows(DB)
    common = [n for n in text if n in db and not re.search(r"_\d+$", n)]
    assert len(common) >= 30
    for name in common:
        for key in ("accelerator_core", "op_type", "block_dim", "input_shapes", "input_dtypes"):
            assert text[name][key] == db[name][key], (name, key)
        shared_pipes = set(text[name]["pmu"]) & set(db[name]["pmu"])
        assert shared_pipes == set(text[name]["pmu"]), name


@pytest.mark.parametrize("relative", ["torch_cpu/small", "kineto"])
def test_other_inputs_have_no_npu_columns(relative: str) -> None:
    base = shared(relative)
    trace_file = next(p for p in sorted(base.rglob("*.pt.trace.json*")))
    table = kernel_table(read_trace(Path(trace_file)))
    assert "accelerator_core" not in table and "pmu" not in table
