"""Trace events as damage or other writers leave them: each class the fuzzer found, on the
smallest input that shows it (tests/fuzz finds them at scale). Every case ends in an
`InputError` naming the file, or in a read whose warnings say what was lost and a report
without negative times; never another exception, never a silent default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.stats import op_tree
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.schema import report_builtins, to_report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from tests.fuzz.oracle import report_problems
from tests.tracegen import kernel, op, runtime

# --- helpers -----------------------------------------------------------------------------


def _write(tmp_path: Path, events: list[Any], name: str = "w.pt.trace.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def _ops(n: int, tid: int = 1) -> list[dict]:
    return [op(f"aten::op{i}", 100 + 10 * i, 5, tid=tid) for i in range(n)]


def _sound(trace: Trace) -> dict[str, Any]:
    """The report, checked as the fuzzer checks it."""
    report = report_builtins(to_report(build_report(trace)))
    assert list(report_problems(report)) == []
    return report


def _names(trace: Trace) -> list[str]:
    return trace.strings.lookup(trace.events["name"])


# --- bytes that are not UTF-8 ------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_read_with_one_warning(tmp_path: Path) -> None:
    events = [*_ops(3), op("aten::bad", 200, 5, **{"Input Dims": "x"})]
    text = json.dumps({"traceEvents": events}).encode()
    text = text.replace(b"aten::bad", b"aten::b\xffd").replace(
        b'"Input Dims": "x"', b'"Input Dims": "\xfe"'
    )
    path = tmp_path / "w.pt.trace.json"
    path.write_bytes(text)
    trace = read_trace(path)
    assert "aten::b\ufffdd" in _names(trace)
    [warning] = trace.meta["warnings"]
    assert str(path) in warning and "2 byte sequence(s) that are not UTF-8" in warning
    _sound(trace)


def test_invalid_utf8_outside_a_string_is_still_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "w.pt.trace.json"
    path.write_bytes(
        json.dumps({"traceEvents": _ops(3)}).encode().replace(b', "tid"', b',\xff "tid"', 1)
    )
    with pytest.raises(InputError, match="invalid JSON"):
        read_trace(path)


# --- nesting too deep --------------------------------------------------------------------


@pytest.mark.parametrize("where", ["args", "unknown key", "after the events"])
def test_json_nested_thousands_deep_is_one_error(tmp_path: Path, where: str) -> None:
    """msgspec (and Python) raise RecursionError beyond ~1000 levels: an input error here."""
    deep = '{"a":' * 10_000 + "1" + "}" * 10_000
    text = json.dumps({"traceEvents": _ops(3)})
    if where == "args":
        text = text.replace('"args": {}', f'"args": {{"Input Dims": {deep}}}', 1)
    elif where == "unknown key":
        text = text.replace('"args": {}', f'"args": {{}}, "x": {deep}', 1)
    else:
        text = text[:-1] + f', "deviceProperties": {deep}}}'
    path = tmp_path / "w.pt.trace.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_trace(path)
    assert err.value.path == str(path) and "nested too deeply" in err.value.problem


# --- times: missing, not numbers, out of range -------------------------------------------


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"dur": 9.2e15}, "dur out of range"),  # wrapped int64: negative step times
        ({"dur": 1e18}, "dur out of range"),
        ({"dur": -5}, "negative dur"),
        ({"ts": -1}, "negative ts"),
        ({"ts": 1e17}, "ts out of range"),
        ({"ts": None}, "no ts"),  # landed at 0: negative self times
        ({"dur": None}, "no dur"),
        ({"ts": "abc"}, "ts is not a number"),
    ],
)
def test_one_event_with_an_unusable_time_is_left_out_and_counted(
    tmp_path: Path, change: dict, problem: str
) -> None:
    events = _ops(5)
    bad = dict(events[2], name="aten::bad")
    for key, value in change.items():
        if value is None:
            del bad[key]
        else:
            bad[key] = value
    events[2] = bad
    path = _write(tmp_path, events)
    trace = read_trace(path)
    assert "aten::bad" not in _names(trace) and len(trace) == 4
    [warning] = trace.meta["warnings"]
    assert str(path) in warning and f"1 {problem}" in warning and "aten::bad" in warning
    assert "event 2" in warning  # its position in traceEvents
    _sound(trace)


def test_most_events_with_unusable_times_are_an_error(tmp_path: Path) -> None:
    events = [{k: v for k, v in e.items() if k != "ts"} for e in _ops(5)]
    events.append(op("aten::fine", 10, 5))
    path = _write(tmp_path, events)
    with pytest.raises(InputError) as err:
        read_trace(path)
    assert err.value.path == str(path)
    assert err.value.problem.startswith("event 0: no ts") and "5 of 6 events" in err.value.problem


def test_times_of_instants_memory_and_flows_are_checked_too(tmp_path: Path) -> None:
    events = [
        *_ops(6),
        {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": -3, "args": {"Bytes": 8}},
        {"ph": "s", "cat": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": "x", "name": "f"},
        {"ph": "i", "name": "mark", "pid": 1, "tid": 1, "ts": 150, "dur": 1e300},  # dur ignored
    ]
    trace = read_trace(_write(tmp_path, events))
    assert len(trace.memory["ts_ns"]) == 0 and len(trace.flows["ts_ns"]) == 0
    [warning] = trace.meta["warnings"]
    assert "2 of 9 events" in warning and "negative ts" in warning
    instant = np.flatnonzero(trace.kind == Kind.INSTANT)
    assert (trace.end_ns[instant] == trace.start_ns[instant]).all()


def test_ascend_trace_view_times_follow_the_same_rule(tmp_path: Path) -> None:
    root = _ascend(tmp_path, extra=[
        {"ph": "X", "cat": "cpu_op", "name": "aten::bad", "pid": 1, "tid": 1,
         "ts": "1020.000", "dur": "9300000000000000"},
    ])  # fmt: skip
    trace = read_ascend_pt(root)
    assert "aten::bad" not in _names(trace)
    [warning] = [w for w in trace.meta["warnings"] if "trace_view.json" in w]
    assert "dur out of range" in warning and "aten::bad" in warning
    _sound(trace)


# --- other phases ------------------------------------------------------------------------


def test_begin_end_pairs_become_ranges(tmp_path: Path) -> None:
    """B/E pairs nest like brackets per thread (file order breaks ties); the result is the
    same as the X events they stand for."""
    be = [
        {"ph": "B", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 10},
        {"ph": "B", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 12},
        {"ph": "B", "cat": "cpu_op", "name": "other", "pid": 1, "tid": 2, "ts": 13},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 15},
        {"ph": "E", "pid": 1, "tid": 2, "ts": 16},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 20},
    ]
    trace = read_trace(_write(tmp_path, be))
    times = zip(trace.start_ns.tolist(), trace.end_ns.tolist(), strict=True)
    spans = dict(zip(_names(trace), times, strict=True))
    assert spans == {
        "outer": (10_000, 20_000),
        "inner": (12_000, 15_000),
        "other": (13_000, 16_000),
    }
    parent = dict(zip(_names(trace), trace.events["parent"].tolist(), strict=True))
    assert _names(trace)[parent["inner"]] == "outer" and parent["outer"] == -1
    assert trace.meta["warnings"] == []


def test_unbalanced_begin_end_are_left_out_with_a_warning(tmp_path: Path) -> None:
    events = [
        *_ops(3),
        {"ph": "B", "cat": "cpu_op", "name": "never_closed", "pid": 1, "tid": 1, "ts": 500},
        {"ph": "E", "pid": 1, "tid": 9, "ts": 90},  # nothing open on thread 9
    ]
    trace = read_trace(_write(tmp_path, events))
    assert "never_closed" not in _names(trace) and len(trace) == 3
    assert any("2 B/E duration event(s)" in w for w in trace.meta["warnings"])
    _sound(trace)


def test_ascend_begin_end_pairs_become_ranges(tmp_path: Path) -> None:
    root = _ascend(tmp_path, extra=[
        {"ph": "B", "cat": "cpu_op", "name": "aten::be", "pid": 1, "tid": 1, "ts": "1060.000"},
        {"ph": "E", "pid": 1, "tid": 1, "ts": "1070.500"},
    ])  # fmt: skip
    trace = read_ascend_pt(root)
    i = _names(trace).index("aten::be")
    assert (trace.start_ns[i], trace.end_ns[i]) == (1_060_000, 1_070_500)


def test_device_work_only_is_analysed(tmp_path: Path) -> None:
    """A GPU-only export (kernels and runtimes, no operator): no operator to attach to."""
    events = [runtime("cudaLaunchKernel", 8, 1, corr=1), kernel("k1", 10, 5, corr=1),
              kernel("k2", 20, 5, corr=2)]  # fmt: skip
    report = _sound(read_trace(_write(tmp_path, events)))
    assert [k["name"] for k in report["kernels"]] == ["k1", "k2"]
    assert report["operators"] == []


def test_ascend_device_tasks_only_are_analysed(tmp_path: Path) -> None:
    """trace_view.json without operators (cut out, or events without name/pid/cat): the
    launch flows still make runtime records, which have no operator to be inside."""
    trace = read_ascend_pt(_ascend(tmp_path, host=False, extra=_HOST[3:]))
    report = _sound(trace)
    assert [k["name"] for k in report["kernels"]] == ["Add1"]


def test_ascend_events_without_name_pid_or_args_are_read(tmp_path: Path) -> None:
    bare = [
        {"ph": "X", "ts": "1050.000", "dur": 1},
        {"ph": "X", "name": "n", "ts": "1051", "dur": 1},
        {"ph": "s", "ts": "1052"},
        {"ph": "f", "ts": "1053", "id": 7},
    ]
    _sound(read_ascend_pt(_ascend(tmp_path, extra=bare)))


# --- self time ---------------------------------------------------------------------------


def test_host_self_time_never_goes_negative(tmp_path: Path) -> None:
    """Seen in HTA's simple_add trace: a runtime call made inside a child operator, whose
    External id names the parent, was subtracted from both; and overlapping children (a
    duplicated or damaged event) were summed. Time inside a node counts once."""
    events = [
        op("parent", 0, 100, ext=1),
        op("child", 10, 40, ext=2),
        runtime("cudaMalloc", 20, 20, corr=5, ext=1),  # inside child, names parent
        op("overlap_a", 60, 30),
        op("overlap_b", 70, 25),  # overlaps overlap_a without nesting
    ]
    trace = read_trace(_write(tmp_path, events))
    tree = op_tree(trace)
    names = trace.strings.lookup(trace.events["name"][tree.index])
    self_ns = dict(zip(names, tree.host_self_ns.tolist(), strict=True))
    # parent: 100 - child [10, 50) - overlaps [60, 95) = 25; child: 40 - runtime 20 = 20
    assert self_ns["parent"] == 25_000 and self_ns["child"] == 20_000
    assert min(self_ns.values()) >= 0
    _sound(trace)


# --- an Ascend folder in a few events ------------------------------------------------------

_HOST = [
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
     "ts": "1000.000", "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
     "ts": "1010.500", "dur": 20},
    {"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": 7, "pid": 1, "tid": 1,
     "ts": "1010.500"},
    {"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": 7, "pid": 9, "tid": 2,
     "ts": "1040.250"},
]  # fmt: skip
_DEVICE = [
    {"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "X", "name": "Add1", "pid": 9, "tid": 2, "ts": "1040.250", "dur": 5.5,
     "args": {"Task Type": "AI_CORE", "Physic Stream Id": 2}},
]  # fmt: skip


def _ascend(tmp_path: Path, extra: list[dict] | None = None, host: bool = True) -> Path:
    root = tmp_path / "host_1_2_ascend_pt"
    out = root / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    events = (_HOST if host else []) + _DEVICE + (extra or [])
    (out / "trace_view.json").write_text(json.dumps(events))
    return root


# --- args and trace metadata ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("arg", "value"),
    [
        ("est. achieved occupancy %", 1e308),  # was an infinite occupancy on the gpu page
        ("est. achieved occupancy %", -5),
        ("blocks per SM", 1e308),
        ("device", 70000),  # was "does not fit 64 bits" for an int16 column
        ("stream", 2**40),
        ("registers per thread", -5),
    ],
)
def test_args_out_of_range_are_read_as_absent_with_a_warning(
    tmp_path: Path, arg: str, value: float
) -> None:
    events = [op("aten::mm", 5, 20, ext=1), runtime("cudaLaunchKernel", 8, 1, corr=1, ext=1),
              kernel("k1", 10, 5, corr=1), op("ProfilerStep#1", 0, 40)]  # fmt: skip
    events[2]["args"][arg] = value
    path = _write(tmp_path, events)
    trace = read_trace(path)
    [warning] = trace.meta["warnings"]
    assert str(path) in warning and f"1 value(s) of args {arg!r} out of range" in warning
    _sound(trace)


def test_ids_beyond_int64_are_still_ids(tmp_path: Path) -> None:
    events = [op("aten::mm", 5, 20, ext=2**63), runtime("cudaLaunchKernel", 8, 1, corr=2**64 + 1),
              kernel("k1", 10, 5, corr=2**64 + 1)]  # fmt: skip
    trace = read_trace(_write(tmp_path, events))
    k = int(np.flatnonzero(trace.kind == Kind.KERNEL)[0])
    assert _names(trace)[int(trace.events["caller"][k])] == "cudaLaunchKernel"


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ({"distributedInfo": [1]}, "distributedInfo is not an object"),  # failed the report
        ({"distributedInfo": {"rank": "a", "world_size": -1}}, "rank, world_size"),
        ({"deviceProperties": [{"id": 0, "name": 5, "totalGlobalMem": "x"}]}, "2 entry"),
        ({"deviceProperties": "x"}, "deviceProperties is not a list"),
    ],
)
def test_trace_metadata_of_the_wrong_type_is_left_out(
    tmp_path: Path, top: dict, expected: str
) -> None:
    events = [op("aten::mm", 5, 20, ext=1), runtime("cudaLaunchKernel", 8, 1, corr=1, ext=1),
              kernel("k1", 10, 5, corr=1)]  # fmt: skip
    path = tmp_path / "w.pt.trace.json"
    path.write_text(json.dumps({**top, "traceEvents": events}))
    trace = read_trace(path)
    [warning] = trace.meta["warnings"]
    assert str(path) in warning and expected in warning
    report = _sound(trace)
    assert report["distributed"] in (None, {})


def test_events_of_no_known_phase_are_counted_counters_are_not(tmp_path: Path) -> None:
    odd = [dict(op("odd", 300, 5), ph=ph) for ph in ("", "Z", "x")]
    counter = {"ph": "C", "name": "mem", "pid": 1, "tid": 1, "ts": 310, "args": {"v": 1}}
    no_ph = {k: v for k, v in op("no_ph", 320, 5).items() if k != "ph"}
    trace = read_trace(_write(tmp_path, [*_ops(6), *odd, counter, no_ph]))
    assert len(trace) == 6
    [warning] = trace.meta["warnings"]
    assert "4 event(s) of no known phase ('ph') left out" in warning


@pytest.mark.parametrize("stream", [-1_000_000, "x", 2**40])
def test_an_ascend_stream_out_of_range_is_absent(tmp_path: Path, stream: object) -> None:
    """-1000000 became 2^63 - 10^6 (the low 63 bits kept for ids): OverflowError in int32."""
    device = [dict(_DEVICE[1], name="Add2", ts="1050.000", args={"Physic Stream Id": stream})]
    trace = read_ascend_pt(_ascend(tmp_path, extra=device))
    i = _names(trace).index("Add2")
    assert trace.events["stream"][i] == -1
    if stream != "x":
        assert any("'Physic Stream Id'(s) out of range" in w for w in trace.meta["warnings"])
