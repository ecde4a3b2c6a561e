"""A damaged `dynamic_shape_info_<rank>.json` is skipped and named; the rest of the run loads.

Each case writes a bad file into a temporary copy of a real legacy MindSpore run (run_2,
rank 1): the reader must name the file in `meta["skipped_files"]` with the reason, read
every other file as before and give a report whose `dynamic_shape` is null; rows that are
bad inside a good file are left out with one warning naming the file. The section's cuts
(ops, shapes) are checked on a generated file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.operators.dynamic_shape import TOP_OPS, TOP_SHAPES
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from tests.conftest import shared

RUN2 = "mindspore_legacy/run_2/normal_run/profiler"
NAME = "dynamic_shape_info_1.json"

BAD = {
    "truncated": ('{"operator": {"1": [{"step": 1, "op_name": "Add-op1", "dur": 3', "invalid JSON"),
    "empty": ("", "empty"),
    "a_list": ("[1, 2]", "not a JSON object"),
    "other_layout": ('{"kernel": {}}', "neither an 'operator'"),
    "rows_not_a_list": ('{"operator": {"1": {"op_name": "Add"}}}', "not a list of rows"),
    "no_good_row": ('{"operator": {"1": [{"op_name": "A-op1", "dur": "x"}]}}', "no operator rows"),
}


@pytest.fixture
def run_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "profiler"
    shutil.copytree(shared(RUN2), folder)  # a temporary copy, never into the shared data
    return folder


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_is_skipped_and_named(run_copy: Path, case: str) -> None:
    text, reason = BAD[case]
    (run_copy / NAME).write_text(text)
    trace = read_mindspore_legacy(run_copy)
    skipped = [s for s in trace.meta["skipped_files"] if NAME in s]
    assert len(skipped) == 1 and reason in skipped[0], trace.meta["skipped_files"]
    assert "dynamic_shape" not in trace.tables
    # The rest loads as without the file.
    assert len(trace.tables["operators"]["name"]) == 105
    assert len(trace.tables["step_trace"]["step"]) == 1
    report = build_report(trace)
    assert report["dynamic_shape"] is None and report["aicpu"] is not None


def test_bad_rows_are_left_out_with_a_warning(run_copy: Path) -> None:
    rows = [
        {"step": 1, "op_side": "gpu", "op_type": "Add", "op_name": "Add-op1", "dur": 2.5,
         "shape_info": ["[2]"]},
        {"step": 1, "op_side": "gpu", "op_type": "Add", "op_name": "Add-op1", "dur": None},
        {"step": 2, "op_side": "gpu", "op_name": "", "dur": 1.0},
        "not a row",
        {"step": 2, "op_side": "cpu", "op_name": "Cast-op2", "dur": 4.0, "shape_info": []},
    ]  # fmt: skip
    (run_copy / NAME).write_text(json.dumps({"operator": {"1": rows[:2], "2": rows[2:]}}))
    trace = read_mindspore_legacy(run_copy)
    assert not [s for s in trace.meta["skipped_files"] if NAME in s]
    warned = [w for w in trace.meta["warnings"] if NAME in w]
    assert len(warned) == 1 and "3 operator rows" in warned[0]
    ds = build_report(trace)["dynamic_shape"]
    assert ds["call_count"] == 2 and ds["steps"] == [1, 2]
    cast = next(t for t in ds["types"] if t["type"] == "Cast")  # type from the name
    assert cast["sides"] == ["cpu"] and cast["step_mean_us"] == [None, 4.0]


def test_ops_and_shapes_are_cut(run_copy: Path) -> None:
    rows = {}
    for step in (1, 2):
        rows[str(step)] = [
            {"step": step, "op_side": "gpu", "op_type": "Mul", "op_name": f"Mul-op{i}",
             "dur": float(i + 1), "shape_info": [f"[{i}]"]}
            for i in range(TOP_OPS + 10)
        ] + [
            {"step": step, "op_side": "gpu", "op_type": "Reshape", "op_name": "Reshape-op0",
             "dur": 1000.0 + k, "shape_info": [f"[{step}, {k}]"]}
            for k in range(TOP_SHAPES)
        ]  # fmt: skip
    (run_copy / NAME).write_text(json.dumps({"operator": rows}))
    ds = build_report(read_mindspore_legacy(run_copy))["dynamic_shape"]
    assert ds["op_count"] == TOP_OPS + 11 and len(ds["ops"]) == TOP_OPS
    assert [t["type"] for t in ds["types"]] == ["Reshape", "Mul"]  # all types, largest first
    totals = [o["total_us"] for o in ds["ops"]]
    assert totals == sorted(totals, reverse=True) and ds["ops"][0]["name"] == "Reshape-op0"
    reshape = ds["ops"][0]
    assert reshape["shape_count"] == 2 * TOP_SHAPES and len(reshape["shapes"]) == TOP_SHAPES
    assert reshape["calls"] == 2 * TOP_SHAPES and reshape["step_us"][0] == pytest.approx(
        sum(1000.0 + k for k in range(TOP_SHAPES))
    )
