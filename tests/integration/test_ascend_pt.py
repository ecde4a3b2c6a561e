"""Ascend PyTorch (torch_npu) output: our figures from events against the tool's own files.

Tolerance: every compared figure within 0.1 % (relative) of the tool's value. Measured on
the four rank folders: step figures agree to <= 1e-5 relative, op-type statistics to
<= 5e-5 (the tool prints microseconds with 3 decimals; we sum exact nanoseconds).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.npu_types import op_type_statistics
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.npu_steps import FIELDS, npu_step_times
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend.reader import is_ascend_pt, read_ascend_pt
from mindinsight_profiler.formats.ascend.tables import read_csv_table
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import Trace
from tests.conftest import SHARED_DATA, shared
from tests.tracegen import kernel, op, runtime, write_trace

RANKS = [f"ascend_pytorch/level{lv}/rank{r}_ascend_pt" for lv in (0, 1) for r in (0, 1)]
TOLERANCE = 1e-3  # 0.1 %

_cache: dict[str, Trace] = {}


def _trace(relative: str) -> Trace:
    if relative not in _cache:
        _cache[relative] = read_ascend_pt(shared(relative))
    return _cache[relative]


def _close(ours: float, theirs: float) -> bool:
    return abs(ours - theirs) <= TOLERANCE * abs(theirs)


@pytest.mark.parametrize("rank", RANKS)
def test_step_times_match_step_trace_time(rank: str) -> None:
    trace = _trace(rank)
    ours = npu_step_times(trace)
    ref = trace.tables["step_trace_time"]
    assert [int(s) for s in ours.names] == ref["step"].tolist()
    for field in FIELDS:
        for mine, theirs in zip(ours.column(field).tolist(), ref[field].tolist(), strict=True):
            assert _close(mine, theirs), (field, mine, theirs)
    # The tool's invariants hold for our figures too.
    v = {f: ours.column(f) for f in FIELDS}
    assert (v["computing_ns"] > 0).all() and (v["communication_ns"] > 0).all()
    np.testing.assert_array_equal(
        v["stage_ns"], v["computing_ns"] + v["comm_not_overlapped_ns"] + v["free_ns"]
    )


@pytest.mark.parametrize("rank", [r for r in RANKS if "level1" in r])
def test_op_statistics_match_op_statistic(rank: str) -> None:
    trace = _trace(rank)
    ours = op_type_statistics(trace)
    assert ours is not None
    ref = trace.tables["op_statistic"]
    s = trace.strings
    theirs = {
        (s[t], s[c]): (n, tot, avg, lo, hi)
        for t, c, n, tot, avg, lo, hi in zip(
            *(ref[k].tolist() for k in ("op_type", "core_type", "count", "total_ns", "avg_ns")),
            ref["min_ns"].tolist(),
            ref["max_ns"].tolist(),
            strict=True,
        )
    }
    mine = {
        (t, c): (n, tot, avg, lo, hi)
        for t, c, n, tot, avg, lo, hi in zip(
            *(ours[k] for k in ("op_type", "core_type", "count", "total_ns", "avg_ns")),
            ours["min_ns"],
            ours["max_ns"],
            strict=True,
        )
    }
    assert set(mine) == set(theirs)
    for key, (n, *times) in theirs.items():
        assert mine[key][0] == n, key
        for a, b in zip(mine[key][1:], times, strict=True):
            assert _close(a, b), (key, a, b)


@pytest.mark.parametrize("rank", RANKS)
def test_model_links_and_kinds(rank: str) -> None:
    trace = _trace(rank)
    ev = trace.events
    kd = trace.tables["kernel_details"]
    # Every kernel_details row is one kernel event, and those are all the kernels.
    assert (kd["event"] >= 0).all() and len(np.unique(kd["event"])) == len(kd["event"])
    assert len(kd["event"]) == int((ev["kind"] == Kind.KERNEL).sum())
    # Kernels reach their operator: kernel -> launch record -> operator.
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    rt = ev["caller"][k]
    assert (rt >= 0).all()
    assert (ev["kind"][rt] == Kind.RUNTIME).all()
    assert (ev["kind"][ev["caller"][rt]] == Kind.CPU_OP).all()
    # HCCL ops are communication; ProfilerStep ranges are host operators.
    comm_names = trace.strings.lookup(ev["name"][k])
    assert sum(n.startswith("hcom_") for n in comm_names) == 4
    assert trace.meta["format"] == "ascend_pt" and trace.meta["framework"] == "pytorch"
    assert trace.meta["rank"] == int(rank[-len("0_ascend_pt")])
    assert trace.meta["device_id"] == trace.meta["rank"]  # NPU:<rank> in these runs
    assert trace.meta["warnings"] == []


def _compatible(a: Any, b: Any, where: str = "$") -> list[str]:
    """Where two reports differ in structure. A null (a figure one format cannot provide)
    or an empty list matches anything; dicts must have the same keys, all the way down."""
    if a is None or b is None or a == [] or b == []:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{where}: keys {sorted(set(a) ^ set(b))}"]
        return [e for k in a for e in _compatible(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        return _compatible(a[0], b[0], f"{where}[0]")
    return [] if isinstance(a, (dict, list)) == isinstance(b, (dict, list)) else [where]


NPU_KERNEL_FACTS = {"accelerator_core", "op_type", "block_dim", "pmu", "cube_utilization"}
NPU_KERNEL_FACTS |= {"input_shapes", "input_dtypes", "input_formats"}


def test_report_has_the_kineto_shape(tmp_path: Path) -> None:
    kineto = read_kineto(
        write_trace(
            tmp_path / "k.pt.trace.json",
            [
                op("ProfilerStep#1", 0, 100),
                op("aten::mm", 10, 50),
                runtime("cudaLaunchKernel", 12, 5, corr=1),
                kernel("gemm", 20, 30, corr=1),
            ],
            distributedInfo={"rank": 0, "world_size": 2, "backend": "nccl"},
        )
    )
    expected = build_report(kineto)
    for rank in RANKS:
        report = build_report(_trace(rank))
        json.dumps(report)  # JSON-ready
        # Ascend kernel rows add the AI Core facts of kernel_details (and nothing else)
        assert set(report["kernels"][0]) - set(expected["kernels"][0]) == NPU_KERNEL_FACTS
        report["kernels"] = [
            {k: v for k, v in r.items() if k not in NPU_KERNEL_FACTS} for r in report["kernels"]
        ]
        assert _compatible(report, expected) == [], rank
        assert report["steps"]["from_profiler_steps"] and report["steps"]["count"] == 1
        assert report["breakdown_us"]["communication"] > 0
        gpu = report["gpu"]
        assert gpu["sm_efficiency"] is None and gpu["occupancy"] is None  # no such NPU data
        assert gpu["devices"][0]["name"] is None
        assert all(r["blocks_per_sm"] is None for r in report["kernels"])
        assert report["distributed"]["backend"] == "hccl"


def test_detection() -> None:
    folder = shared(RANKS[0])
    assert is_ascend_pt(folder) and is_ascend_pt(folder / "ASCEND_PROFILER_OUTPUT")
    assert not is_ascend_pt(folder / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    assert not is_ascend_pt(folder.parent)
    ms = sorted((SHARED_DATA / "mindspore_cpu").glob("*/*_ascend_ms"))
    assert not any(is_ascend_pt(p) for p in ms)


# --- malformed inputs: a small valid folder, then one defect at a time ---------------------

_TRACE = [
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}},
    {"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
     "ts": "1000.000", "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
     "ts": "1010.500", "dur": 20},
    {"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": 7, "pid": 1, "tid": 1,
     "ts": "1010.500"},
    {"ph": "X", "name": "Add1", "pid": 9, "tid": 2, "ts": "1040.250", "dur": 5.5,
     "args": {"Task Type": "AI_CORE", "Physic Stream Id": 2, "connection_id": 3}},
    {"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": 7, "pid": 9, "tid": 2,
     "ts": "1040.250"},
]  # fmt: skip
_CSV = {
    "step_trace_time.csv": "Step,Computing,Communication(Not Overlapped),Overlapped,"
    "Communication,Free,Stage\r\n1,5.5\t,0,0,0,0,5.5\t\r\n",
    "kernel_details.csv": "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
    'Input Shapes\r\n1,Add1,Add,AI_VECTOR_CORE,1040.250\t,5.5,"""2,3;\r\n2,3"""\r\n',
}


def _folder(tmp_path: Path, **files: str | bytes) -> Path:
    root = tmp_path / "host_1_2_ascend_pt"
    out = root / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (root / "profiler_info_3.json").write_text('{"rank_id": 3, "config": {}}')
    contents: dict[str, str | bytes] = {"trace_view.json": json.dumps(_TRACE), **_CSV, **files}
    for name, data in contents.items():
        path = out / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def test_small_folder_reads_with_csv_traps(tmp_path: Path) -> None:
    trace = read_ascend_pt(_folder(tmp_path))
    ev = trace.events
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    assert ev["start_ns"][k].tolist() == [1_040_250] and ev["end_ns"][k].tolist() == [1_045_750]
    kd = trace.tables["kernel_details"]
    assert kd["start_ns"].tolist() == [1_040_250] and kd["event"].tolist() == k.tolist()
    assert trace.strings[int(kd["input_shapes"][0])] == '"2,3;\r\n2,3"'
    assert trace.tables["step_trace_time"]["computing_ns"].tolist() == [5500]
    op_row = ev["caller"][ev["caller"][k[0]]]
    assert trace.strings[int(ev["name"][op_row])] == "aten::add"
    assert trace.meta["rank"] == 3 and npu_step_times(trace).column("computing_ns")[0] == 5500


BAD_CSV: dict[str, tuple[str | bytes, str]] = {
    "header only": ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,"
                    "Free,Stage\r\n", "header only"),
    "missing columns": ("Step,Computing\r\n1,2\r\n", "missing columns: Communication"),
    "garbage row": ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,"
                    "Free,Stage\r\n1,2,3\r\n", "row 2: 3 cells"),
    "not a number": ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,"
                     "Free,Stage\r\n1,x\t,0,0,0,0,0\r\n", "row 2: Computing is not a number"),
    "text junk": ("\x00\x01\x02garbage\r\n", "missing columns"),
    "binary junk": (b"\xff\xfe\x00\x81garbage\r\n", "unreadable CSV"),
    "empty": ("", "empty"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_CSV))
def test_bad_csv_is_one_input_error(tmp_path: Path, case: str) -> None:
    text, expected = BAD_CSV[case]
    path = tmp_path / "step_trace_time.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as err:
        read_csv_table(path, StringTable())
    assert err.value.path == str(path) and expected in err.value.problem


@pytest.mark.parametrize("case", sorted(BAD_CSV))
def test_bad_optional_file_is_skipped_with_a_warning(tmp_path: Path, case: str) -> None:
    text, expected = BAD_CSV[case]
    trace = read_ascend_pt(_folder(tmp_path, **{"step_trace_time.csv": text}))
    assert "step_trace_time" not in trace.tables
    assert "kernel_details" in trace.tables and len(trace) > 0  # the good files still load
    [warning] = trace.meta["warnings"]
    assert "step_trace_time.csv" in warning and expected in warning


BAD_TRACE = {
    "cut short": (json.dumps(_TRACE)[:-60], "truncated"),
    # one bad time among many leaves that event out with a warning (test_malformed_events);
    # most of them bad is an error
    "ts not a number": (
        re.sub(r'"ts": "[^"]*"', '"ts": "10:40"', json.dumps(_TRACE)),
        "ts is not a number (name 'ProfilerStep#1', ts \"10:40\")",
    ),
    "dur not a number": (
        re.sub(r'"dur": [0-9.]+', '"dur": "x"', json.dumps(_TRACE)),
        "dur is not a number",
    ),
    "not an array": ('{"traceEvents": []}', "bare JSON array"),
    "wrong type": (json.dumps(_TRACE).replace('"name": "Add1"', '"name": 5'), "$[5].name"),
    "empty": ("", "empty"),
    "no events": ("[]", "no events"),
}


@pytest.mark.parametrize("case", sorted(BAD_TRACE))
def test_bad_trace_view_is_one_input_error(tmp_path: Path, case: str) -> None:
    text, expected = BAD_TRACE[case]
    root = _folder(tmp_path, **{"trace_view.json": text})
    with pytest.raises(InputError) as err:
        read_ascend_pt(root)
    assert err.value.path.endswith("trace_view.json"), err.value
    assert expected in err.value.problem, err.value.problem


def test_missing_trace_view_is_required(tmp_path: Path) -> None:
    """Without trace_view.json (and without the database export) the error names both."""
    root = _folder(tmp_path)
    (root / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").unlink()
    with pytest.raises(InputError, match=r"no trace_view\.json .* no ascend_pytorch_profiler"):
        read_ascend_pt(root)


DB_RANKS = [f"ascend_pytorch_db/level1/rank{r}_ascend_pt" for r in (0, 1)]


@pytest.mark.parametrize("rank", RANKS + DB_RANKS)
def test_report_shows_the_tools_step_view(rank: str, tmp_path: Path) -> None:
    """`analyse --format json` carries step_trace_time.csv's figures (the `npu` section; for a
    DB-only export, analysis.db's StepTraceTime) and, for NPU utilization, the share of time a
    compute kernel runs: HCCL is not compute."""
    trace = _trace(rank)
    report = build_report(trace)
    npu = report["npu"]
    ref = trace.tables["step_trace_time"]
    assert [r["step"] for r in npu["steps"]] == [str(s) for s in ref["step"].tolist()]
    for row, i in zip(npu["steps"], range(len(ref["step"])), strict=True):
        for field in FIELDS:
            theirs = float(ref[field][i]) / 1000.0
            assert _close(row[field.removesuffix("_ns") + "_us"], theirs), (field, row, theirs)
    computing = np.mean(ref["computing_ns"]) / 1000.0
    assert _close(npu["average"]["computing_us"], computing)
    util = report["gpu"]["utilization"]
    span = report["steps"]["average_us"] * report["steps"]["count"]
    assert util == pytest.approx(100.0 * computing * len(ref["step"]) / span, rel=0.02)
    assert util < 0.5 * 100.0 * npu["average"]["stage_us"] / report["steps"]["average_us"]


@pytest.mark.parametrize("rank", [r for r in RANKS if "level1" in r])
def test_report_op_types_are_the_tools(rank: str) -> None:
    """The overview's op types are op_statistic.csv's (kernel op types, cores summed): e.g.
    Conv2D 723 us and TransData among the largest, not the framework's aten::conv2d."""
    trace = _trace(rank)
    report = build_report(trace)
    ref = trace.tables["op_statistic"]
    s = trace.strings
    theirs: dict[str, float] = {}
    for t, tot in zip(s.lookup(ref["op_type"]), ref["total_ns"].tolist(), strict=True):
        theirs[t] = theirs.get(t, 0.0) + tot / 1000.0
    comm = {t for t in theirs if t.lower().startswith("hcom")}
    types = report["op_types"]
    assert types["by"] == "kernel_ns"
    for row in types["types"]:
        if row["type"] != "others":
            assert _close(row["total_us"], theirs[row["type"]]), row
    top = [row["type"] for row in types["types"][:3]]
    assert "TransData" in top and not comm & set(top)
    rows = {(r["op_type"], r["core_type"]): r for r in report["npu"]["op_types"]}
    assert ("MatMulV2", "AI_CORE") in rows


def test_level0_export_without_op_types_has_no_nameless_type() -> None:
    """Level 0 writes "N/A" as every kernel's Type: there are no kernel op types, so the
    report falls back to the operators' own types rather than one nameless type at 100 %."""
    report = build_report(_trace(RANKS[0]))
    assert report["npu"]["op_types"] is None
    types = report["op_types"]["types"]
    assert types and all(t["type"] for t in types)
    assert report["op_types"]["by"] != "kernel_ns"
