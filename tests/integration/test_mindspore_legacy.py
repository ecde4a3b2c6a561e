"""Legacy MindSpore profiler folders (MindInsight's own fixtures) read into the model.

Reference figures are the files' own: the step-trace CSV's stage columns (syscnt, x10 ns)
and `aicore_intermediate_*_type.csv`; they are read here with the csv module, independently
of the reader.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.by_type import op_type_table
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.stages import step_stages
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.mindspore.reader_legacy import (
    is_mindspore_legacy,
    read_mindspore_legacy,
)
from tests.conftest import shared
from tests.integration.report_shape import keys, kineto_report

RUN2 = "mindspore_legacy/run_2/normal_run/profiler"
STEP_FILES = [
    (RUN2, 1),
    *[("mindspore_legacy/cluster_propose", r) for r in range(4)],
    ("mindspore_legacy/profiler_fixtures", 0),
    ("mindspore_legacy/profiler_fixtures", 10),
]


def _csv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r]
    return rows[0], rows[1:]


@pytest.mark.parametrize(("folder", "rank"), STEP_FILES)
def test_step_stages_equal_the_csv(folder: str, rank: int) -> None:
    # Tolerance: none. Points and stages are integers of syscnt (10 ns), so every stage
    # computed from the model's points must equal the file's stage column x 10 exactly.
    path = shared(folder)
    trace = read_mindspore_legacy(path, rank)
    stages = step_stages(trace)
    assert stages is not None
    header, rows = _csv_rows(path / f"step_trace_raw_{rank}_detail_time.csv")
    steps = [r for r in rows if r[0].isdigit() and int(r[0]) > 0]
    assert stages.step.tolist() == [int(r[0]) for r in steps]
    for stage in ("total", "iteration_interval", "fp_and_bp", "tail"):
        want = np.array([int(r[header.index(stage)]) for r in steps]) * 10
        np.testing.assert_array_equal(getattr(stages, f"{stage}_ns"), want, err_msg=stage)
    assert len(stages.reduce_names) == sum(c.endswith("_end_point") for c in header)
    for k, name in enumerate(stages.reduce_names):
        if name in header:  # the stage's own duration column, where the file has one
            want = np.array([int(r[header.index(name)]) for r in steps]) * 10
            np.testing.assert_array_equal(stages.reduce_ns[k], want, err_msg=name)


@pytest.mark.parametrize("rank", [0, 10])
def test_average_excludes_first_step(rank: int) -> None:
    # The fixture's average row is round(mean of steps 2..N) in syscnt: within 1 syscnt.
    path = shared("mindspore_legacy/profiler_fixtures")
    stages = step_stages(read_mindspore_legacy(path, rank))
    assert stages is not None
    header, rows = _csv_rows(path / f"step_trace_raw_{rank}_detail_time.csv")
    average = next(r for r in rows if r[0] == "-")
    got = stages.average_ns()
    for stage in ("total", "iteration_interval", "fp_and_bp", "tail"):
        assert abs(got[stage] - 10 * int(average[header.index(stage)])) <= 10, stage


def test_op_type_totals_equal_the_type_csv() -> None:
    path = shared(RUN2)
    table = op_type_table(read_mindspore_legacy(path))
    _, rows = _csv_rows(path / "aicore_intermediate_1_type.csv")
    want = {r[0]: (float(r[1]) * 1000.0, int(r[2])) for r in rows}
    got = dict(
        zip(table["op_type"], zip(table["total_us"], table["calls"], strict=True), strict=True)
    )
    assert set(got) == set(want)
    for op_type, (total_us, calls) in want.items():
        assert got[op_type][0] == pytest.approx(total_us, abs=1e-3), op_type  # 1 ns
        assert got[op_type][1] == calls, op_type
    assert sum(table["percent"]) == pytest.approx(100.0)


def test_op_totals_count_every_execution(tmp_path: Path) -> None:
    """An AI Core detail row with `execution_frequency` n took execution_time x n: the type
    totals (and so the advisor's shares) follow the run's own type file, which sums the same
    product. Made from run_2 with MatMul's rows marked as run 3 times each."""
    folder = tmp_path / "profiler"
    shutil.copytree(shared(RUN2), folder)
    detail = folder / "aicore_intermediate_1_detail.csv"
    header, rows = _csv_rows(detail)
    freq = [3 if "/MatMul-op" in r[0] else 1 for r in rows]
    with detail.open("w", newline="") as f:
        csv.writer(f).writerows([[*header, "execution_frequency"],
                                 *([*r, n] for r, n in zip(rows, freq, strict=True))])  # fmt: skip
    base = op_type_table(read_mindspore_legacy(shared(RUN2)))
    table = op_type_table(read_mindspore_legacy(folder))
    i, j = base["op_type"].index("MatMul"), table["op_type"].index("MatMul")
    assert table["total_us"][j] == pytest.approx(3 * base["total_us"][i])
    assert table["calls"][j] == 3 * base["calls"][i]
    conv = table["op_type"].index("Conv2D")
    assert table["total_us"][conv] == pytest.approx(
        base["total_us"][base["op_type"].index("Conv2D")]
    )
    assert table["percent"][j] > base["percent"][i]


def test_run2_contents() -> None:
    trace = read_mindspore_legacy(shared(RUN2))
    assert trace.meta["rank"] == 1 and trace.meta["skipped_files"] == []
    assert trace.meta["fp_point"] == "Default/EndOfSequence-op131"
    assert trace.meta["timeline_clock"] == "device"  # timeline aligned via the AI CPU file
    steps = trace.tables["step_trace"]
    kernels = trace.events["kind"] == 6
    # On the device clock, the step's kernels lie inside the step.
    inside = trace.events["start_ns"][kernels] >= steps["start_ns"][0] - 10**6
    assert inside.mean() > 0.9
    assert trace.tables["minddata_ops"]["op_id"].tolist() == [0, 1, 2, 3]
    assert trace.tables["data_queue_size"]["capacity"].tolist() == [64, 64]
    assert len(trace.tables["getnext"]["queue_size"]) == 3


def test_report_has_the_kineto_shape(tmp_path: Path) -> None:
    ms = build_report(read_trace(shared(RUN2)))
    kt = kineto_report(tmp_path)
    a, b = keys(ms), keys(kt)
    assert a["top"] == b["top"] and a["steps"] == b["steps"]
    assert a["breakdown_us"] == b["breakdown_us"] and a["kernels_row"] == b["kernels_row"]
    assert ms["format"] == "mindspore_legacy" and ms["steps"]["from_profiler_steps"]
    assert ms["gpu"] is None and ms["distributed"] is None  # not invented
    assert ms["steps"]["count"] == 1 and ms["kernels"]


def test_cluster_rank_selection_and_detection() -> None:
    path = shared("mindspore_legacy/cluster_propose")
    assert is_mindspore_legacy(path) and is_mindspore_legacy(shared(RUN2).parent)
    t = read_mindspore_legacy(path, 2)
    assert t.meta["ranks"] == [0, 1, 2, 3] and len(t.tables["hccl"]["step"]) > 0
    with pytest.raises(InputError, match="rank 7"):
        read_mindspore_legacy(path, 7)


STEP_HEADER = (
    "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
)
BAD_FILES = {
    "header_only": ("step_trace_raw_0_detail_time.csv", STEP_HEADER, "no data rows"),
    "missing_columns": (
        "step_trace_raw_0_detail_time.csv",
        "step_num,total\n1,5\n",
        "missing columns",
    ),
    "garbage_row": (
        "step_trace_raw_0_detail_time.csv",
        STEP_HEADER + "1,10,20,10,10,15,0,5,5\nxx\n",
        "row 3",
    ),
    "not_a_number": (
        "step_trace_raw_0_detail_time.csv",
        STEP_HEADER + "1,10,2x0,10,10,15,0,5,5\n",
        "not a number",
    ),
    "timeline_cut_short": (
        "ascend_timeline_display_0.json",
        '[{"name": "a", "ph": "X", "tid": "1", "ts": 1.5, "dur": 2, "pid": 1},{"na',
        "invalid JSON",
    ),
    "timeline_string_ts": (
        "ascend_timeline_display_0.json",
        '[{"name": "a", "ph": "X", "tid": "1", "ts": "1.5x", "dur": 2, "pid": 1}]',
        "ts is not a number",
    ),
    "type_csv_only_header": (
        "aicore_intermediate_0_detail.csv",
        "full_op_name,execution_time\n",
        "no data rows",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_one_input_error_naming_it(tmp_path: Path, case: str) -> None:
    name, text, expected = BAD_FILES[case]
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as info:
        read_mindspore_legacy(tmp_path)
    assert info.value.path == str(tmp_path / name) and expected in info.value.problem


def test_one_bad_optional_file_keeps_the_rest(tmp_path: Path) -> None:
    src = shared(RUN2)
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)  # a temporary copy, never into the repository
    (tmp_path / "minddata_pipeline_raw_1.csv").write_text("op_id,op_type\n")
    text = (src / "ascend_timeline_display_1.json").read_text()
    (tmp_path / "ascend_timeline_display_1.json").write_text(text[: len(text) // 2])
    trace = read_mindspore_legacy(tmp_path)
    skipped = " ".join(trace.meta["skipped_files"])
    assert "minddata_pipeline_raw_1.csv" in skipped and "ascend_timeline_display_1.json" in skipped
    # The pipeline falls back to pipeline_profiling_1.json (which also lists EpochCtrlOp).
    assert len(trace.tables["minddata_ops"]["op_id"]) == 5
    assert (
        len(trace.tables["step_trace"]["step"]) == 1
        and len(trace.tables["operators"]["name"]) == 105
    )
    # Without the timeline, the AI CPU kernels (absolute times) are the events.
    assert int((trace.events["kind"] == 6).sum()) == 5


def _timeline_run(tmp_path: Path) -> Path:
    """run_2 with MindSpore's other timeline processes added, as its profiler writes them
    (profiler/parser/base_timeline_generator.py): 10000 communication ops on a
    `stream_5xx_parallel_0`-style row, 12000 the tool's overlap analysis, the device's
    "Steps" row (tid 100000) and 11000 host CPU ops."""
    folder = tmp_path / "profiler"
    shutil.copytree(shared(RUN2), folder)
    path = folder / "ascend_timeline_display_1.json"
    events = json.loads(path.read_text())
    ops = [e for e in events if e.get("pid") == 1]
    t0, t1 = min(e["ts"] for e in ops), max(e["ts"] + e["dur"] for e in ops)
    span = t1 - t0
    events += [
        {"name": "AllReduce-op301", "ph": "X", "pid": 10000, "tid": "stream_519_parallel_0",
         "ts": t0 + 0.2 * span, "dur": 0.1 * span},
        {"name": "AllReduce-op302", "ph": "X", "pid": 10000, "tid": "stream_519_parallel_0",
         "ts": t0 + 0.5 * span, "dur": 0.1 * span},
        {"name": "Merged Computation Op", "ph": "X", "pid": 12000, "tid": 7999, "ts": t0,
         "dur": span},
        {"name": "1", "ph": "X", "pid": 1, "tid": 100000, "ts": t0, "dur": span},
        {"name": "InitDataSetQueue", "ph": "X", "pid": 11000, "tid": 100003, "ts": t0, "dur": 5.0},
    ]  # fmt: skip
    path.write_text(json.dumps(events))
    return folder


def test_timeline_processes_keep_their_meaning(tmp_path: Path) -> None:
    base = build_report(read_mindspore_legacy(shared(RUN2)))
    report = build_report(read_mindspore_legacy(_timeline_run(tmp_path)))
    names = {k["name"] for k in report["kernels"]}
    assert not names & {"AllReduce-op301", "Merged Computation Op", "1", "InitDataSetQueue"}
    assert {k["name"] for k in base["kernels"]} == names  # the device's own ops, as before
    kernel_us = sum(k["total_us"] for k in report["kernels"])
    assert kernel_us == pytest.approx(sum(k["total_us"] for k in base["kernels"]))
    # the two all-reduce ranges are communication (hidden behind compute in this run)
    (allreduce,) = [c for c in report["communication"]["collectives"] if c["name"] == "AllReduce"]
    assert allreduce["calls"] == 2 and base["communication"] is None
    assert sum(report["breakdown_us"].values()) == pytest.approx(report["steps"]["average_us"])


def test_unaligned_timeline_is_said_not_used(tmp_path: Path) -> None:
    """Without the AI CPU file the timeline cannot be put on the step clock: its kernels
    are left out with a warning, so no share can pass 100 % of a step."""
    folder = _timeline_run(tmp_path)
    (folder / "aicpu_intermediate_1.csv").unlink()
    trace = read_mindspore_legacy(folder)
    assert trace.meta["timeline_clock"] == "unaligned"
    assert any("could not be aligned" in w for w in trace.meta["warnings"])
    report = build_report(trace)
    assert report["kernels"] == []
    assert sum(report["breakdown_us"].values()) == pytest.approx(report["steps"]["average_us"])
