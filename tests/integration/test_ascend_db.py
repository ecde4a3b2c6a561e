"""torch_npu's database export (`export_type=db`): our figures against the database's own.

The DB folders (`ascend_pytorch_db/level1/rank{0,1}_ascend_pt`) hold no trace_view.json, only
`ascend_pytorch_profiler_<rank>.db` and `analysis.db`. Our step split (computed from the
kernel events) must agree with analysis.db's `StepTraceTime`, and kernel counts, totals and
per-op-type figures with SQL run directly on the database, within 0.1 % (they agree to the
nanosecond: both sides sum the same integer ns).

The text export `ascend_pytorch/level1` is the same kind of job (same model, same profiler
settings, two ranks) but another run, so values differ run to run (step time, kernel
durations, launch counts); it is compared by shape: the same sections, kinds of events,
tracks and side tables, and the same counts where the workload fixes them (kernels per op
type, collectives, steps).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.npu_types import op_type_statistics
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.boundaries import find_steps
from mindinsight_profiler.analysis.steps.npu_steps import FIELDS, npu_step_times
from mindinsight_profiler.formats.ascend.reader import is_ascend_pt, read_ascend_pt
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared
from tests.integration.test_ascend_pt import _compatible

RANKS = [0, 1]
DB_RUN = "ascend_pytorch_db/level1"
TEXT_RUN = "ascend_pytorch/level1"
TOLERANCE = 1e-3  # 0.1 %

_cache: dict[str, Trace] = {}


def _trace(relative: str) -> Trace:
    if relative not in _cache:
        _cache[relative] = read_ascend_pt(shared(relative))
    return _cache[relative]


def _db(rank: int) -> Trace:
    return _trace(f"{DB_RUN}/rank{rank}_ascend_pt")


def _text(rank: int) -> Trace:
    return _trace(f"{TEXT_RUN}/rank{rank}_ascend_pt")


def _sql(rank: int, query: str) -> list[tuple[Any, ...]]:
    out = shared(f"{DB_RUN}/rank{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT")
    path = out / f"ascend_pytorch_profiler_{rank}.db"
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def _close(ours: float, theirs: float) -> bool:
    return abs(ours - theirs) <= TOLERANCE * abs(theirs)


@pytest.mark.parametrize("rank", RANKS)
def test_db_folder_reads(rank: int) -> None:
    trace = _db(rank)
    trace.check()
    assert trace.meta["format"] == "ascend_pt" and trace.meta["framework"] == "pytorch"
    assert trace.meta["export"] == "db"
    assert trace.meta["rank"] == rank and trace.meta["device_id"] == rank
    assert trace.meta["device_name"] == "Ascend910B"  # NPU_INFO: the device table's key
    assert trace.meta["profiler_level"] == "Level1"
    assert trace.meta["distributed_info"]["backend"] == "hccl"
    assert trace.meta["warnings"] == []
    for table in ("step_trace_time", "communication", "communication_matrix", "kernel_details"):
        assert len(next(iter(trace.tables[table].values()))), table


@pytest.mark.parametrize("rank", RANKS)
def test_step_times_match_analysis_db(rank: int) -> None:
    trace = _db(rank)
    ours = npu_step_times(trace)
    ref = trace.tables["step_trace_time"]  # analysis.db StepTraceTime
    assert [int(s) for s in ours.names] == ref["step"].tolist() == [50]
    for field in FIELDS:
        for mine, theirs in zip(ours.column(field).tolist(), ref[field].tolist(), strict=True):
            assert _close(mine, theirs) if theirs else mine == 0, (field, mine, theirs)
    # The step is the ProfilerStep range, which STEP_TIME records too.
    ((start, end),) = _sql(rank, "SELECT startNs, endNs FROM STEP_TIME")
    steps = find_steps(trace)
    assert steps.host_start_ns.tolist() == [start] and steps.host_end_ns.tolist() == [end]


@pytest.mark.parametrize("rank", RANKS)
def test_kernels_match_the_database(rank: int) -> None:
    trace = _db(rank)
    ev = trace.events
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    dur = ev["end_ns"][k] - ev["start_ns"][k]
    ((n_compute, t_compute),) = _sql(
        rank,
        "SELECT COUNT(*), SUM(t.endNs - t.startNs) FROM TASK t "
        "JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId",
    )
    ((n_comm, t_comm),) = _sql(rank, "SELECT COUNT(*), SUM(endNs - startNs) FROM COMMUNICATION_OP")
    assert len(k) == n_compute + n_comm == 191
    assert _close(int(dur.sum()), t_compute + t_comm)
    # Per op type and core, as msprof's op_statistic groups them.
    rows = _sql(
        rank,
        "SELECT o.value, y.value, COUNT(*), SUM(t.endNs - t.startNs), MIN(t.endNs - t.startNs), "
        "MAX(t.endNs - t.startNs) FROM TASK t "
        "JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
        "JOIN STRING_IDS o ON o.id = c.opType JOIN STRING_IDS y ON y.id = c.taskType "
        "GROUP BY 1, 2",
    )
    theirs = {(a, b): (n, tot, lo, hi) for a, b, n, tot, lo, hi in rows}
    ours = op_type_statistics(trace)
    assert ours is not None
    mine = {
        (a, b): (n, tot, lo, hi)
        for a, b, n, tot, lo, hi in zip(
            *(ours[c] for c in ("op_type", "core_type", "count", "total_ns", "min_ns", "max_ns")),
            strict=True,
        )
    }
    assert set(mine) == set(theirs)
    for key, (n, *times) in theirs.items():
        assert mine[key][0] == n, key
        assert all(_close(a, b) for a, b in zip(mine[key][1:], times, strict=True)), key
    # The op_statistic side table says the same.
    st = trace.tables["op_statistic"]
    assert int(st["total_ns"].sum()) == t_compute and int(st["count"].sum()) == n_compute


@pytest.mark.parametrize("rank", RANKS)
def test_links_and_kinds(rank: int) -> None:
    trace = _db(rank)
    ev = trace.events
    kd = trace.tables["kernel_details"]
    assert len(np.unique(kd["event"])) == len(kd["event"]) == int((ev["kind"] == Kind.KERNEL).sum())
    # Every kernel (collectives included) reaches its operator: kernel -> launch -> operator.
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    rt = ev["caller"][k]
    assert (rt >= 0).all() and (ev["kind"][rt] == Kind.RUNTIME).all()
    assert (ev["kind"][ev["caller"][rt]] == Kind.CPU_OP).all()
    names = trace.strings.lookup(ev["name"][k])
    assert sum(n.startswith("hcom_") for n in names) == 4
    # AI Core PMU metrics: every compute kernel but the 2 DSA tasks has them.
    compute = kd["stream_id"] >= 0
    assert int(np.isfinite(kd["pmu_aic_total_cycles"][compute]).sum()) == int(compute.sum()) - 2


@pytest.mark.parametrize("rank", RANKS)
def test_same_shape_as_the_text_export(rank: int) -> None:
    """Same job, another run: compared by shape and by what the workload fixes (see doc)."""
    db, text = _db(rank), _text(rank)
    processes = {(t.process_name, t.is_device) for t in db.tracks}
    assert processes == {(t.process_name, t.is_device) for t in text.tracks}
    assert {t.thread_name for t in db.tracks if t.is_device} == {
        t.thread_name for t in text.tracks if t.is_device
    }
    assert set(np.unique(db.events["kind"]).tolist()) == set(
        np.unique(text.events["kind"]).tolist()
    )
    for kind in (Kind.KERNEL, Kind.CPU_OP, Kind.PYTHON_FUNCTION):
        assert (db.events["kind"] == kind).sum() == (text.events["kind"] == kind).sum(), kind
    # cube_utilization(%) is msprof's own derivation (block dim over the device's AI Core
    # count, times aicore_time/duration); the database stores no core count to redo it.
    text_only = {"kernel_details": {"cube_utilization_pct"}}
    for name in text.tables:
        if name in db.tables:
            assert set(text.tables[name]) - text_only.get(name, set()) <= set(db.tables[name]), name
    missing = set(text.tables) - set(db.tables)
    assert missing <= ({"overlap_analysis"} if rank == 1 else set()), missing
    mine, theirs = op_type_statistics(db), op_type_statistics(text)
    assert mine is not None and theirs is not None
    counts = {
        (a, c): n for a, c, n in zip(mine["op_type"], mine["core_type"], mine["count"], strict=True)
    }
    assert sum(counts.values()) == sum(theirs["count"])
    assert len(find_steps(db)) == len(find_steps(text)) == 1
    a, b = (json.loads(json.dumps(build_report(t))) for t in (db, text))
    assert _compatible(a, b) == []
    assert a["communication"] is not None and a["memory"] is not None


def test_discovery_offers_the_db_folders() -> None:
    runs = discover(shared(DB_RUN))
    assert len(runs) == 1
    files = runs[0].files
    assert sorted(f.worker for f in files) == ["rank0", "rank1"]
    assert {f.format for f in files} == {"ascend_pt"}
    assert all(is_ascend_pt(f.path) for f in files)


def test_reading_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    src = shared(f"{DB_RUN}/rank1_ascend_pt")
    folder = tmp_path / "rank1_ascend_pt"
    shutil.copytree(src, folder)
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    read_ascend_pt(folder)
    after = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # no -wal/-shm/journal created, nothing changed


def test_operator_shapes_and_dtypes_read_as_the_text_export_has_them() -> None:
    """The DB export writes PYTORCH_API's shapes into inputDtypes and the dtypes into
    inputShapes; the reader puts them back (with a warning), so both exports give each
    operator call the same shapes and dtypes (the text export's "Input Dims"/"Input type")."""

    def first_call(trace: Trace, name: str) -> tuple[str, str]:
        names = trace.strings.lookup(trace.events["name"])
        k = names.index(name)
        dims, types = trace.events["input_dims"][k], trace.events["input_types"][k]
        return trace.strings[int(dims)], trace.strings[int(types)]

    for op in ("aten::conv2d", "aten::addmm"):
        assert first_call(_db(0), op) == first_call(_text(0), op), op
    assert first_call(_text(0), "aten::conv2d") == (
        "32,3,224,224;64,3,11,11;64;;;;",
        "float;float;float;ScalarList;ScalarList;ScalarList;Scalar",
    )
    assert _db(0).meta["pytorch_api_swapped"] is True
    assert "pytorch_api_swapped" not in _text(0).meta
