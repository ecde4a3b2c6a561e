"""Which runs, workers, spans and formats a folder holds."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import discover, parse_name
from tests.integration.cli import run_cli
from tests.tracegen import op, write_trace


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


def test_parse_names() -> None:
    assert parse_name("worker0.1623143089861.pt.trace.json.gz") == ("worker0", "1623143089861")
    assert parse_name("rank-0.Apr_03_18_51_38.1102.pt.trace.json") == (
        "rank-0.Apr_03_18_51_38",
        "1102",
    )
    assert parse_name("w.pt.trace.json") == ("w", "")
    assert parse_name("nccl_data.json.gz") is None
    assert parse_name("nccl_data.json.gz", strict=False) == ("nccl_data", "")


def test_logdir_with_runs_of_every_format(tmp_path: Path) -> None:
    _touch(tmp_path / "kineto_run/worker0.11.pt.trace.json.gz")
    _touch(tmp_path / "kineto_run/worker0.12.pt.trace.json.gz")
    _touch(tmp_path / "kineto_run/worker1.11.pt.trace.json")
    _touch(tmp_path / "npu_run/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json")
    _touch(tmp_path / "npu_run/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json")
    _touch(tmp_path / "ms_run/profiler/host_1_2_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json")
    _touch(tmp_path / "legacy_run/profiler/step_trace_raw_0_detail_time.csv")
    _touch(tmp_path / "legacy_run/profiler/step_trace_raw_1_detail_time.csv")
    _touch(tmp_path / "legacy_run/profiler/ascend_timeline_display_0.json")
    runs = {r.name: r for r in discover(tmp_path)}
    assert set(runs) == {"kineto_run", "npu_run", "ms_run/profiler", "legacy_run"}
    assert runs["kineto_run"].workers == ["worker0", "worker1"]
    assert runs["kineto_run"].select().span == "11"
    assert [(f.worker, f.format) for f in runs["npu_run"].files] == [
        ("rank0", "ascend_pt"),
        ("rank1", "ascend_pt"),
    ]
    assert [(f.worker, f.format) for f in runs["ms_run/profiler"].files] == [
        ("host_1_2", "mindspore2")
    ]
    legacy = runs["legacy_run"].files
    assert [(f.worker, f.format) for f in legacy] == [
        ("rank0", "mindspore_legacy"),
        ("rank1", "mindspore_legacy"),
    ]


def test_fallback_to_any_json_only_without_profiler_folders(tmp_path: Path) -> None:
    (tmp_path / "hta").mkdir()
    with gzip.open(tmp_path / "hta/nccl_data.json.gz", "wt") as f:
        f.write('{"schemaVersion": 1, "traceEvents": []}')
    assert [f.worker for r in discover(tmp_path) for f in r.files] == ["nccl_data"]
    _touch(tmp_path / "hta/x_ascend_pt/profiler_info_0.json")  # a trace stays a trace
    assert sorted(f.format for r in discover(tmp_path) for f in r.files) == ["ascend_pt", "kineto"]


def test_plain_named_traces_are_taken_by_their_text(tmp_path: Path) -> None:
    """Beside other runs, `*.json[.gz]` files are runs when they start like a trace (what
    `export_chrome_trace` writes, HTA's data), and other JSON is left alone."""
    _touch(tmp_path / "named/worker0.pt.trace.json")
    _touch(tmp_path / "npu/rank0_ascend_pt/profiler_info_0.json")
    (tmp_path / "exported").mkdir()
    (tmp_path / "exported/trace.json").write_text('\n {"traceEvents": [{"ph": "X"}]}')
    with gzip.open(tmp_path / "exported/rank-1.json.gz", "wt") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [], "traceEvents": []}')
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/train.json").write_text('{"lr": 0.1, "schedule": "cosine"}')
    (tmp_path / "configs/list.json").write_text('[{"traceEvents": 1}]')
    (tmp_path / "configs/broken.json.gz").write_bytes(b"\x1f\x8b not gzip")
    # a folder with a named trace keeps only that one, as before
    (tmp_path / "named/export.json").write_text('{"traceEvents": []}')
    runs = {r.name: r for r in discover(tmp_path)}
    assert set(runs) == {"named", "npu", "exported"}
    assert runs["exported"].workers == ["rank-1", "trace"]
    assert runs["named"].workers == ["worker0"]


def test_json_beside_traces_is_noted_not_read(tmp_path: Path) -> None:
    """CUDA-graph capture writes `execution_details.json` beside its traces: in a folder of
    plain-named traces (nothing else to go by) it is not taken as a worker, and the run says
    it was left out; the CLI analyses the real trace and prints the note."""
    run_dir = tmp_path / "graphs"
    run_dir.mkdir()
    write_trace(run_dir / "capture.json", [op("aten::mm", 0, 10), op("ProfilerStep#1", 0, 20)])
    (run_dir / "execution_details.json").write_text('{"graphs": [{"id": 0, "nodes": 12}]}')
    (run,) = discover(tmp_path)
    assert run.workers == ["capture"]
    assert run.notes == ["execution_details.json: not a trace (no traceEvents at its start), "
                         "ignored"]  # fmt: skip
    r = run_cli("analyse", run_dir, "--format", "json", "--no-cache")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "note: graphs: execution_details.json: not a trace" in r.stderr


def test_worker_folder_given_directly_and_missing_path(tmp_path: Path) -> None:
    folder = _touch(tmp_path / "a_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json").parents[1]
    assert [(f.worker, f.format) for r in discover(folder) for f in r.files] == [
        ("a", "mindspore2")
    ]
    with pytest.raises(InputError, match="no such file"):
        discover(tmp_path / "missing")
