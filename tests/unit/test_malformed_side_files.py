"""Summary and metadata files as damage leaves them (the classes tests/fuzz found, each on a
minimal folder): a value out of range is read as absent with a warning, a file that cannot
be read is skipped with a warning naming it, an optional file never takes the run down,
and nothing ends in another exception or in garbage numbers."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.data_pipeline.cpu_steps import _per_step
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.schema import report_builtins, to_report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.mindspore.legacy_ops import read_timeline
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from mindinsight_profiler.model.trace import Trace
from tests.fuzz.oracle import report_problems
from tests.unit.test_malformed_events import _DEVICE, _HOST

DEEP = '{"a":' * 10_000 + "1" + "}" * 10_000


def _sound(trace: Trace) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a NaN cast to int, an overflow
        report = report_builtins(to_report(build_report(trace)))
    assert list(report_problems(report)) == []
    return report


def _ascend(tmp_path: Path, **files: str | bytes) -> Path:
    """A minimal torch_npu folder; `files` by name, under ASCEND_PROFILER_OUTPUT unless the
    name starts with `../` (beside it)."""
    root = tmp_path / "host_1_2_ascend_pt"
    out = root / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "trace_view.json").write_text(json.dumps(_HOST + _DEVICE))
    for name, data in files.items():
        path = root / name[3:] if name.startswith("../") else out / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def _warned(trace: Trace, name: str) -> list[str]:
    return [w for w in trace.meta["warnings"] if name in w]


KERNELS = "Name,Start Time(us),Duration(us),aic_mac_ratio,Block Dim\r\n"


def test_numbers_out_of_range_are_read_as_absent_with_a_warning(tmp_path: Path) -> None:
    csv = KERNELS + "Add1,1040.250\t,5.5,9223372036854775808,-4\r\nAdd1,1041,1e308,0.5,2\r\n"
    trace = read_ascend_pt(_ascend(tmp_path, **{"kernel_details.csv": csv}))
    kd = trace.tables["kernel_details"]
    # the row whose duration is out of range cannot be placed: left out
    assert kd["start_ns"].tolist() == [1_040_250]
    assert np.isnan(kd["pmu_aic_mac_ratio"][0]) and kd["block_dim"].tolist() == [-1]
    said = " ".join(_warned(trace, "kernel_details.csv"))
    for expected in ("aic_mac_ratio out of range", "Block Dim out of range", "Duration(us)"):
        assert expected in said, said
    _sound(trace)


@pytest.mark.parametrize("cell", ["nan", "inf", "Infinity", "1e999", "x"])
def test_a_count_that_is_no_finite_number_skips_the_file(tmp_path: Path, cell: str) -> None:
    """Was StopIteration (the error path looked for a cell that `float` rejects)."""
    head = "OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us)\r\n"
    csv = head + f"Add,{cell},5,5,5,5\r\n"
    trace = read_ascend_pt(_ascend(tmp_path, **{"op_statistic.csv": csv}))
    assert "op_statistic" not in trace.tables
    [warning] = _warned(trace, "op_statistic.csv")
    assert "Count is not a number" in warning


def test_communication_summaries_with_bad_values_are_read(tmp_path: Path) -> None:
    """Was OverflowError (1e308 ms * 1e6 rounded) and ValueError/TypeError ("abc", null)."""
    info = {"Elapse Time(ms)": 1e308, "Wait Time(ms)": "abc", "Idle Time(ms)": None,
            "Transit Time(ms)": -2, "Synchronization Time(ms)": 0.5}  # fmt: skip
    comm = {"step1": {"collective": {"allreduce": {"Communication Time Info": info}}}}
    link = {"Transit Time(ms)": 1e308, "Bandwidth(GB/s)": None, "Transit Size(MB)": "x"}
    matrix = {"step1": {"collective": {"allreduce": {"0-1": link}}}}
    root = _ascend(
        tmp_path,
        **{"communication.json": json.dumps(comm), "communication_matrix.json": json.dumps(matrix)},
    )
    trace = read_ascend_pt(root)
    c, m = trace.tables["communication"], trace.tables["communication_matrix"]
    assert c["elapse_ns"].tolist() == [-1] and c["sync_ns"].tolist() == [500_000]
    assert c["wait_ns"].tolist() == [-1] and c["transit_ns"].tolist() == [-1]
    assert m["time_ns"].tolist() == [-1] and np.isnan(m["size_mb"]).all()
    said = " ".join(trace.meta["warnings"])
    assert "'Elapse Time(ms)' out of range" in said and "'Wait Time(ms)' is not a number" in said
    _sound(trace)


@pytest.mark.parametrize("link", ["99999999999-1", "\u00b2-1"])
def test_a_link_that_is_no_rank_pair_skips_the_matrix(tmp_path: Path, link: str) -> None:
    matrix = {"step1": {"collective": {"allreduce": {link: {}}}}}
    trace = read_ascend_pt(_ascend(tmp_path, **{"communication_matrix.json": json.dumps(matrix)}))
    assert "communication_matrix" not in trace.tables
    assert _warned(trace, "communication_matrix.json")


@pytest.mark.parametrize("name", ["../profiler_info_3.json", "../profiler_metadata.json"])
@pytest.mark.parametrize(
    "text",
    [DEEP, '{"rank_id": "x", "config": [1], "world_size": true, "ENV_VARIABLES": 5}', "[1]",
     "\xff\xfe"],
)  # fmt: skip
def test_an_unsound_metadata_file_never_takes_the_run_down(
    tmp_path: Path, name: str, text: str
) -> None:
    """Was RecursionError (nested 10,000 deep), AttributeError (config a list)."""
    data = text.encode("latin-1") if text.startswith("\xff") else text.encode()
    trace = read_ascend_pt(_ascend(tmp_path, **{name: data}))
    assert trace.meta["rank"] is None and trace.meta["world_size"] is None
    assert trace.meta["environment"] is None and trace.meta["profiler_config"] is None
    if text != '{"rank_id": "x", "config": [1], "world_size": true, "ENV_VARIABLES": 5}':
        [warning] = _warned(trace, name[3:])
        assert "skipped" in warning
    _sound(trace)


def test_memory_rows_without_a_component_or_a_size(tmp_path: Path) -> None:
    """Was IndexError (an absent component code read as a string), and a NaN size cast to
    int64 (garbage freed bytes)."""
    rec = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\r\n"
    rec += ",1000,1,2,NPU:0\r\nPTA,1001,1,2,NPU:0\r\n"
    opm = "Name,Size(KB),Allocation Time(us),Release Time(us),Device Type\r\n"
    opm += "aten::add,,1010,1020,NPU:0\r\naten::add,4,1011,,NPU:0\r\n"
    trace = read_ascend_pt(
        _ascend(tmp_path, **{"memory_record.csv": rec, "operator_memory.csv": opm})
    )
    report = _sound(trace)
    devices = [d["device"] for d in report["memory"]["devices"]]
    assert sorted(devices) == ["NPU:0", "NPU:0 PTA"], devices


def test_a_csv_with_a_few_bytes_that_are_not_utf8_is_read(tmp_path: Path) -> None:
    rows = "".join(f"Add{i},{1100 + i}.250\t,5.5,0.5,2\r\n" for i in range(5))
    csv = (KERNELS + "Add\xff1,1040.250\t,5.5,0.5,2\r\n" + rows).encode("latin-1")
    trace = read_ascend_pt(_ascend(tmp_path, **{"kernel_details.csv": csv}))
    assert trace.strings[int(trace.tables["kernel_details"]["name"][0])] == "Add\ufffd1"
    [warning] = _warned(trace, "kernel_details.csv")
    assert "1 byte sequence(s) that are not UTF-8" in warning


# --- MindSpore legacy ----------------------------------------------------------------------

STEP_CSV = (
    "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
    "1,10,20,10,10,15,0,5,5\n"
)


def _legacy(tmp_path: Path, **files: str | bytes) -> Path:
    (tmp_path / "step_trace_raw_0_detail_time.csv").write_text(STEP_CSV)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data.encode() if isinstance(data, str) else data)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("step_trace_point_info.json", DEEP, "nested too deeply"),
        ("pipeline_profiling_0.json", DEEP, "nested too deeply"),
        ("minddata_cpu_utilization_0.json", DEEP, "nested too deeply"),
        ("minddata_cpu_utilization_0.json",
         '{"device_info": {"user_utilization": [10, 18446744073709551616]}}', "within [0, 100]"),
        ("minddata_cpu_utilization_0.json", '{"op_info": [[1, 2]]}', "not a list of objects"),
        ("minddata_cpu_utilization_0.json", '{"op_info": [{"metrics": 5}]}', "not an object"),
        ("aicore_intermediate_0_detail.csv", "full_op_name,execution_time\na-op1,-1\n",
         "out of range"),
        ("aicore_intermediate_0_detail.csv",
         "full_op_name,execution_time,execution_frequency\na-op1,1e18,3\n", "out of range"),
        ("aicore_intermediate_0_detail.csv",
         "full_op_name,execution_time,execution_frequency\na-op1,10,9223372036854775807\n",
         "out of range"),
        ("device_queue_profiling_0.txt", "0 0 1 1e300 100\n", "out of range"),
        ("minddata_aicpu_0.txt", "GetNext_dequeue_wait 9223372036854775807 2 3\n",
         "out of range"),
    ],
)  # fmt: skip
def test_a_bad_optional_mindspore_file_is_skipped_with_its_reason(
    tmp_path: Path, name: str, text: str, reason: str
) -> None:
    trace = read_mindspore_legacy(_legacy(tmp_path, **{name: text}))
    [skipped] = [s for s in trace.meta["skipped_files"] if name in s]
    assert reason in skipped, skipped
    assert any(name in w and "skipped" in w for w in trace.meta["warnings"])
    assert len(trace.tables["step_trace"]["step"]) == 1  # the rest is read
    _sound(trace)


def test_a_mindspore_timeline_with_begin_end_and_bad_times(tmp_path: Path) -> None:
    events = [
        {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1.5, "dur": 2},
        {"ph": "X", "name": "late", "pid": 1, "tid": 1, "ts": 3, "dur": 9.3e15},
        {"ph": "B", "name": "b", "pid": 1, "tid": 1, "ts": 5},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 7},
        {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 8, "dur": 1},
    ]
    path = tmp_path / "ascend_timeline_display_0.json"
    path.write_text(json.dumps(events))
    with notices.gathering() as said:
        timeline = read_timeline(path)
    assert timeline["name"] == ["a", "c", "b"]
    assert timeline["end_ns"].tolist() == [3_500, 9_000, 7_000]
    [warning] = said
    assert str(path) in warning and "1 dur out of range" in warning and "late" in warning


# --- the gathering of warnings -------------------------------------------------------------


def test_warnings_are_gathered_per_read_once_each() -> None:
    with notices.gathering() as outer:
        notices.warn("a.csv", "bad")
        notices.warn("a.csv", "bad")
        with notices.gathering() as inner:
            notices.warn("b.csv", "worse")
    assert outer == ["a.csv: bad"] and inner == ["b.csv: worse"]


def test_a_required_file_is_still_an_error(tmp_path: Path) -> None:
    root = _ascend(tmp_path)
    (root / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text("[" + DEEP + "]")
    with pytest.raises(InputError, match="nested too deeply"):
        read_ascend_pt(root)


def test_cpu_series_of_different_lengths_per_step() -> None:
    """Real MindData files hold series of 3, 4 and 8 samples; a system series shorter than
    its user series was IndexError."""
    series = {"device_user": [10.0, 20.0, 30.0], "device_sys": [1.0, 2.0]}
    out = _per_step(series, ["1", "1", "2"])
    assert out["steps"] == ["1", "2"] and out["device_pct"] == [16.5, None]


def test_dynamic_shape_rows_with_a_step_out_of_range_are_left_out(tmp_path: Path) -> None:
    """A step of 2^70 went into an int64 column (OverflowError, outside the optional read)."""
    row = {"op_side": "fwd", "op_type": "MatMul", "op_name": "MatMul-op1", "dur": 5.0}
    doc = {"operator": {"1": [dict(row, step=2**70), dict(row, step=2), dict(row, step=-3)]}}
    trace = read_mindspore_legacy(
        _legacy(tmp_path, **{"dynamic_shape_info_0.json": json.dumps(doc)})
    )
    assert trace.tables["dynamic_shape"]["step"].tolist() == [2]
    assert any("2 operator rows" in w for w in trace.meta["warnings"])
    _sound(trace)
