"""MindSpore 2.x `*_ascend_ms` folders (real MindSpore 2.10 CPU runs) read into the model.

The reference is MindSpore's own per-type table, `FRAMEWORK/cpu_op_type_info_0.csv`, read
here with the csv module; our totals are computed from the timeline events and, separately,
from the per-instance detail table.
"""

from __future__ import annotations

import csv
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.operators.by_type import op_type_table, op_type_table_from_events
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.mindspore.reader_v2 import is_mindspore2, read_mindspore2
from mindinsight_profiler.model.kinds import Kind
from tests.conftest import SHARED_DATA, shared
from tests.integration.report_shape import keys, kineto_report

RUNS = sorted(
    str(p.relative_to(SHARED_DATA)) for p in (SHARED_DATA / "mindspore_cpu").glob("*/*_ascend_ms")
)
#: Measured agreement is <= 5e-6 relative (the CSV keeps 6 significant digits).
TOLERANCE = 1e-3


def _type_info(run: Path) -> dict[str, tuple[float, int]]:
    rows = list(csv.DictReader((run / "FRAMEWORK/cpu_op_type_info_0.csv").open()))
    return {
        r["op_type"]: (float(r["total_compute_time"]) * 1000.0, int(r["type_occurrences"]))
        for r in rows
    }


@pytest.mark.parametrize("run", RUNS or ["mindspore_cpu/(missing)"])
def test_type_totals_equal_cpu_op_type_info(run: str) -> None:
    path = shared(run)
    trace = read_mindspore2(path)
    want = _type_info(path)
    for table in (op_type_table_from_events(trace), op_type_table(trace)):
        got = dict(
            zip(table["op_type"], zip(table["total_us"], table["calls"], strict=True), strict=True)
        )
        assert set(got) == set(want)
        for op_type, (total_us, calls) in want.items():
            assert got[op_type][0] == pytest.approx(total_us, rel=TOLERANCE), op_type
            assert got[op_type][1] == calls, op_type


def test_string_timestamps_are_exact() -> None:
    path = shared(RUNS[0]) if RUNS else shared("mindspore_cpu/(missing)")
    trace = read_mindspore2(path)
    raw = json.loads((path / "ASCEND_PROFILER_OUTPUT/trace_view.json").read_text())
    x = [e for e in raw if e["ph"] == "X"]
    want = sorted((int(Decimal(e["ts"]) * 1000), int(Decimal(e["dur"]) * 1000)) for e in x)
    got = sorted(
        zip(trace.start_ns.tolist(), (trace.end_ns - trace.start_ns).tolist(), strict=True)
    )
    assert got == want


def test_memory_and_minddata() -> None:
    run = shared("mindspore_cpu/legacy_pynative_dataproc_extras")
    trace = read_mindspore2(next(run.glob("*_ascend_ms")))
    lines = next(run.glob("*/FRAMEWORK/cpu_ms_memory_record_0.txt")).read_text().splitlines()
    assert len(trace.memory["ts_ns"]) == len(lines) - 1
    assert int(trace.memory["bytes"].sum()) == int(trace.memory["total_allocated"][-1])
    md = read_mindspore2(
        next(shared("mindspore_cpu/legacy_pynative_mdprofiler").glob("*_ascend_ms"))
    )
    assert md.strings.lookup(md.tables["minddata_ops"]["op_type"])[-1] == "GeneratorOp"
    assert len(md.tables["data_queue_size"]["step"]) == 20  # one queue line per step


def test_report_has_the_kineto_shape(tmp_path: Path) -> None:
    run = shared(RUNS[0]) if RUNS else shared("mindspore_cpu/(missing)")
    assert is_mindspore2(run) and is_mindspore2(run.parent)  # the run folder, or its parent
    ms = build_report(read_trace(run))
    kt = kineto_report(tmp_path)
    a, b = keys(ms), keys(kt)
    assert a["top"] == b["top"] and a["steps"] == b["steps"]
    assert a["breakdown_us"] == b["breakdown_us"] and a["operators_row"] == b["operators_row"]
    assert ms["format"] == "mindspore2" and ms["gpu"] is None and ms["distributed"] is None
    assert ms["kernels"] == [] and ms["operators"]
    assert not ms["steps"]["from_profiler_steps"]  # no step markers on CPU: one span


def _copy_run(tmp_path: Path) -> Path:
    src = next(shared("mindspore_cpu/new_api_pynative").glob("*_ascend_ms"))
    dst = tmp_path / src.name
    shutil.copytree(src, dst)  # a temporary copy, never into the repository
    return dst


TV = "ASCEND_PROFILER_OUTPUT/trace_view.json"
EVENT = '{"ph": "X", "name": "Default/MatMul-op1", "pid": 2, "tid": 0, "ts": "%s", "dur": "1.5"}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" + EVENT % "12.5" + ', {"ph": "X", "na', "invalid JSON"),
        ("[" + EVENT % "12.5x" + "]", "ts is not a number"),
        ("[" + EVENT % "" + "]", "ts is not a number"),
        ('{"traceEvents": []}', "not a trace_view array"),
        ("", "empty"),
    ],
)
def test_bad_trace_view_is_one_input_error(tmp_path: Path, text: str, expected: str) -> None:
    run = _copy_run(tmp_path)
    (run / TV).write_text(text)
    with pytest.raises(InputError) as info:
        read_mindspore2(run)
    assert info.value.path == str(run / TV) and expected in info.value.problem


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "cpu_op_detail_info_0.csv",
            "op_side,op_type,op_name,full_op_name,op_occurrences\n",
            "missing columns",
        ),
        (
            "cpu_op_detail_info_0.csv",
            "op_type,full_op_name,op_occurrences,op_total_time(ms)\n",
            "no data rows",
        ),
        (
            "cpu_ms_memory_record_0.txt",
            "Timestamp(ns),Total Allocated(Byte),Total Reserved(Byte)\n1,2\n",
            "row 2",
        ),
    ],
)
def test_bad_optional_file_is_skipped(tmp_path: Path, name: str, text: str, expected: str) -> None:
    run = _copy_run(tmp_path)
    (run / "FRAMEWORK" / name).write_text(text)
    trace = read_mindspore2(run)
    assert len(trace.events["kind"]) > 0 and (trace.events["kind"] == Kind.CPU_OP).sum() == 230
    skipped = trace.meta["skipped_files"]
    assert (
        len(skipped) == 1 and str(run / "FRAMEWORK" / name) in skipped[0] and expected in skipped[0]
    )


def test_without_trace_view_the_execute_timestamps_are_the_timeline(tmp_path: Path) -> None:
    run = _copy_run(tmp_path)
    (run / TV).unlink()
    trace = read_mindspore2(run)
    assert (trace.events["kind"] == Kind.CPU_OP).sum() == 230
    want = _type_info(run)
    table = op_type_table_from_events(trace)
    got = dict(zip(table["op_type"], table["total_us"], strict=True))
    for op_type, (total_us, _) in want.items():
        assert got[op_type] == pytest.approx(total_us, rel=TOLERANCE), op_type
