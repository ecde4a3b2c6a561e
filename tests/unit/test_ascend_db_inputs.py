"""torch_npu's database export: a small planted database, and damaged or foreign files.

The planted database has the tables and columns of the real export (one step, one operator
launching one kernel, one CANN call), so the reader's links and side tables are checked
without the shared data. Damaged files (empty, truncated, garbage, another application's
SQLite file) are one `InputError` naming the file; a missing optional table or a bad
analysis.db is a warning in `meta["warnings"]`; nothing is ever a traceback. The truncation
sweep over a real database runs when ../shared/data is present.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared

S = 1_000_000_000_000  # a start time in ns
STRINGS = {
    1: "ProfilerStep#3",
    2: "aten::mm",
    3: "aclnnMm_MatMulCommon_MatMulV2",
    4: "AI_CORE",
    5: "MatMulV2",
    6: "KERNEL_AICORE",
    7: "aclnnMm",
    8: "launch",
    9: "2,2;2,2",
}
TABLES = {
    "STRING_IDS": "id INTEGER PRIMARY KEY, value TEXT",
    "ENUM_API_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "PYTORCH_API": "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, "
    "name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, "
    "inputShapes INTEGER, callchainId INTEGER, type INTEGER",
    "CONNECTION_IDS": "id INTEGER, connectionId INTEGER",
    "CANN_API": "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, "
    "connectionId INTEGER PRIMARY KEY, name INTEGER",
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, "
    "globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, "
    "streamId INTEGER, taskId INTEGER, modelId INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, "
    "mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputShapes INTEGER, waitNs INTEGER",
    "STEP_TIME": "id INTEGER, startNs INTEGER, endNs INTEGER",
    "RANK_DEVICE_MAP": "rankId INTEGER, deviceId INTEGER",
}
TID = (7 << 32) | 7  # pid 7, tid 7
ROWS = {
    "STRING_IDS": list(STRINGS.items()),
    "ENUM_API_TYPE": [(10000, "node"), (50001, "op")],
    "PYTORCH_API": [
        (str(S), str(S + 1000), TID, None, 1, -1, 0, None, None, None, 50001),
        (str(S + 100), str(S + 300), TID, 0, 2, -1, 0, None, 9, None, 50001),
    ],
    "CONNECTION_IDS": [(0, 42)],
    "CANN_API": [(S + 150, S + 250, 10000, TID, 42, 8)],
    "TASK": [(S + 400, S + 600, 0, 42, 1, 7, 6, -1, 2, 11, -1)],
    "COMPUTE_TASK_INFO": [(3, 1, 8, 0, 4, 5, 9, 0)],
    "STEP_TIME": [(3, S, S + 1000)],
    "RANK_DEVICE_MAP": [(0, 0)],
}


def _plant(folder: Path, skip: tuple[str, ...] = ()) -> Path:
    """A `*_ascend_pt` folder holding the planted database (minus the tables in `skip`)."""
    out = folder / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    path = out / "ascend_pytorch_profiler_0.db"
    conn = sqlite3.connect(path)
    for table, columns in TABLES.items():
        if table in skip:
            continue
        conn.execute(f"CREATE TABLE {table} ({columns})")
        rows = ROWS[table]
        conn.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)
    conn.commit()
    conn.close()
    return path


def _read(folder: Path) -> Trace:
    return read_ascend_pt(folder)


def test_planted_database_reads_with_links(tmp_path: Path) -> None:
    folder = tmp_path / "w0_ascend_pt"
    _plant(folder)
    trace = _read(folder)
    ev, s = trace.events, trace.strings
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    assert s.lookup(ev["name"][k]) == ["aclnnMm_MatMulCommon_MatMulV2"]
    rt = ev["caller"][k[0]]
    assert s[ev["name"][rt]] == "torch_to_npu" and s[ev["name"][ev["caller"][rt]]] == "aten::mm"
    assert s[ev["input_dims"][ev["caller"][rt]]] == "2,2;2,2"
    kd = trace.tables["kernel_details"]
    assert s.lookup(kd["op_type"]) == ["MatMulV2"] and kd["duration_ns"].tolist() == [200]
    assert kd["step_id"].tolist() == [3] and kd["block_dim"].tolist() == [8]
    assert {t.process_name for t in trace.tracks} == {"Python", "CANN", "Ascend Hardware"}
    assert "Node@launch" in s.lookup(ev["name"][ev["kind"] == Kind.RUNTIME])
    assert trace.meta["device_id"] == 0 and trace.meta["export"] == "db"
    assert any("analysis.db" in w for w in trace.meta["warnings"])


def test_missing_optional_table_is_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "w0_ascend_pt"
    _plant(folder, skip=("COMPUTE_TASK_INFO", "CONNECTION_IDS"))
    trace = _read(folder)
    warnings = " ".join(trace.meta["warnings"])
    assert "COMPUTE_TASK_INFO" in warnings and "CONNECTION_IDS" in warnings
    assert (trace.events["kind"] == Kind.KERNEL).sum() == 1  # named by its task type


def test_missing_step_marker_comes_from_step_time(tmp_path: Path) -> None:
    folder = tmp_path / "w0_ascend_pt"
    path = _plant(folder)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM PYTORCH_API WHERE name = 1")
    conn.commit()
    conn.close()
    trace = _read(folder)
    names = trace.strings.lookup(trace.events["name"][trace.events["kind"] == Kind.CPU_OP])
    assert "ProfilerStep#3" in names


@pytest.mark.parametrize("case", ["empty", "garbage", "truncated", "foreign", "no_rows"])
def test_bad_database_is_one_input_error(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "w0_ascend_pt"
    path = _plant(folder)
    if case == "empty":
        path.write_bytes(b"")
    elif case == "garbage":
        path.write_bytes(b"not a database at all\n" * 200)
    elif case == "truncated":
        path.write_bytes(path.read_bytes()[:1500])
    elif case == "foreign":
        path.unlink()
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE songs (title TEXT)")
        conn.commit()
        conn.close()
    else:
        conn = sqlite3.connect(path)
        for table in ("PYTORCH_API", "TASK", "CANN_API", "STEP_TIME"):
            conn.execute(f"DELETE FROM {table}")
        conn.commit()
        conn.close()
    with pytest.raises(InputError) as err:
        _read(folder)
    assert err.value.path == str(path)


@pytest.mark.parametrize("case", ["garbage", "foreign"])
def test_bad_analysis_db_is_a_warning(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "w0_ascend_pt"
    path = _plant(folder).with_name("analysis.db")
    if case == "garbage":
        path.write_bytes(b"\x00junk" * 100)
    else:
        sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    trace = _read(folder)
    assert any(str(path) in w for w in trace.meta["warnings"])


def test_neither_trace_view_nor_database(tmp_path: Path) -> None:
    (tmp_path / "w0_ascend_pt" / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    with pytest.raises(InputError, match=r"trace_view\.json.*ascend_pytorch_profiler\*\.db"):
        _read(tmp_path / "w0_ascend_pt")


def test_truncated_real_database_never_tracebacks(tmp_path: Path) -> None:
    src = shared("ascend_pytorch_db/level1/rank1_ascend_pt")
    data = (src / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_1.db").read_bytes()
    for cut in (100, 4096, len(data) // 4, len(data) // 2, len(data) - 4096):
        folder = tmp_path / f"c{cut}_ascend_pt"
        shutil.copytree(src, folder)
        (folder / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_1.db").write_bytes(data[:cut])
        try:
            _read(folder).check()
        except InputError as exc:
            assert "ascend_pytorch_profiler_1.db" in str(exc)
