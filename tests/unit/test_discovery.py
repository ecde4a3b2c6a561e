"""Which runs, workers, spans and formats a folder holds."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import SNIFF_BYTES, discover, parse_name
from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.tracegen import op, write_trace


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


def _rank(path: Path, rank: int | None, world: int | None = 2, ts: float = 1000.0) -> Path:
    """A small trace of `rank` of `world` (no `distributedInfo` when rank is None)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    top = {} if rank is None else {"distributedInfo": {"backend": "nccl", "rank": rank,
                                                       "world_size": world}}  # fmt: skip
    return write_trace(path, [op("aten::mm", ts, 10), op("ProfilerStep#1", ts, 20)], **top)


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
    _rank(tmp_path / "kineto_run/worker0.11.pt.trace.json", 0)
    _rank(tmp_path / "kineto_run/worker0.12.pt.trace.json", 0)
    _rank(tmp_path / "kineto_run/worker1.11.pt.trace.json", 1)
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
    (tmp_path / "exported/trace.json").write_text(
        '\n {"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [{"ph": "X"}]}'
    )
    with gzip.open(tmp_path / "exported/rank-1.json.gz", "wt") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [], '
                '"distributedInfo": {"rank": 1, "world_size": 2}, "traceEvents": []}')  # fmt: skip
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


# --- what is a run and what is a rank ------------------------------------------------------


def _runs(path: Path) -> dict[str, list[str]]:
    return {r.name: r.workers for r in discover(path)}


def test_ranks_of_one_job_are_one_run(tmp_path: Path) -> None:
    _rank(tmp_path / "job/rank0.1.pt.trace.json", 0, 2)
    _rank(tmp_path / "job/rank1.1.pt.trace.json", 1, 2, ts=5000.0)
    (run,) = discover(tmp_path)
    assert (run.name, run.part, run.workers) == ("job", "", ["rank0", "rank1"])


def test_unrelated_single_process_traces_are_separate_runs(tmp_path: Path) -> None:
    _rank(tmp_path / "mixed/cnn.1.pt.trace.json", None)
    _rank(tmp_path / "mixed/cnn.2.pt.trace.json", None)
    _rank(tmp_path / "mixed/transformer.3.pt.trace.json", None)
    runs = discover(tmp_path)
    assert [(r.name, r.part, r.workers) for r in runs] == [
        ("mixed/cnn", "cnn", ["cnn"]),
        ("mixed/transformer", "transformer", ["transformer"]),
    ]
    assert [f.span for f in runs[0].files] == ["1", "2"]  # spans of a worker stay together
    assert {r.path for r in runs} == {tmp_path / "mixed"}


def test_duplicate_ranks_or_other_world_sizes_are_separate_runs(tmp_path: Path) -> None:
    _rank(tmp_path / "dup/a.pt.trace.json", 0, 2)
    _rank(tmp_path / "dup/b.pt.trace.json", 0, 2)
    _rank(tmp_path / "world/a.pt.trace.json", 0, 2)
    _rank(tmp_path / "world/b.pt.trace.json", 1, 4)
    assert _runs(tmp_path) == {
        "dup/a": ["a"], "dup/b": ["b"], "world/a": ["a"], "world/b": ["b"]
    }  # fmt: skip


def test_missing_distributed_info_on_one_worker_separates(tmp_path: Path) -> None:
    _rank(tmp_path / "job/rank0.pt.trace.json", 0, 2)
    _rank(tmp_path / "job/rank1.pt.trace.json", None)
    assert _runs(tmp_path) == {"job/rank0": ["rank0"], "job/rank1": ["rank1"]}


def test_ranks_that_started_hours_apart_are_separate_runs(tmp_path: Path) -> None:
    _rank(tmp_path / "job/rank0.pt.trace.json", 0, 2, ts=1e12)
    _rank(tmp_path / "job/rank1.pt.trace.json", 1, 2, ts=1e12 + 2 * 3600e6)
    assert _runs(tmp_path) == {"job/rank0": ["rank0"], "job/rank1": ["rank1"]}


def test_a_timestamp_cut_by_the_head_is_not_a_start(tmp_path: Path) -> None:
    """The head read to tell ranks apart ends where it ends: a timestamp it cuts short
    (`"ts": 4` of `"ts": 4776274979553.03`) must not read as a start hours before the other
    rank's (the two ranks of a real gloo run were split into two runs so)."""
    _rank(tmp_path / "job/rank1.pt.trace.json", 1, 2, ts=4_776_274_979_553.0)
    top = '{"distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}, "traceEvents": ['
    event = '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 4'
    pad = " " * (SNIFF_BYTES - len(top) - len(event))
    rest = '776274979553.0, "dur": 10}]}'
    (tmp_path / "job/rank0.pt.trace.json").write_text(top + pad + event + rest)
    assert _runs(tmp_path) == {"job": ["rank0", "rank1"]}


def test_one_worker_with_two_spans_is_one_run(tmp_path: Path) -> None:
    _rank(tmp_path / "w/worker0.11.pt.trace.json", None)
    _rank(tmp_path / "w/worker0.12.pt.trace.json", None, ts=9e12)
    (run,) = discover(tmp_path)
    assert (run.name, run.part, [f.span for f in run.files]) == ("w", "", ["11", "12"])


def test_separate_runs_have_their_own_ids_and_cli_worker_picks_its_run(tmp_path: Path) -> None:
    from mindinsight_profiler.server.registry import RunRegistry

    _rank(tmp_path / "mixed/cnn.pt.trace.json", None)
    _rank(tmp_path / "mixed/other.pt.trace.json", None)
    entries = RunRegistry(tmp_path).scan()
    assert sorted(e.name for e in entries.values()) == ["mixed/cnn", "mixed/other"]
    assert len(set(entries)) == 2
    r = run_cli("analyse", tmp_path / "mixed", "--worker", "other", "--format", "json",
                "--no-cache")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "2 runs found, analysing mixed/other" in r.stderr


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("torch_cpu/small", {
            "small/cnn_nw0_active5": 1, "small/cnn_nw2_active5": 2,
            "small/transformer_nw0_active5": 1, "small/transformer_nw2_active5": 1,
        }),
        ("hta/trace_filter", {"trace_filter": 2}),
        ("kineto/resnet50_num_workers_0", {"resnet50_num_workers_0": 2}),
        # MindSpore legacy folders side by side, each holding its own rank0..N: three runs
        # (they were one run whose `--worker rank0` always meant cluster_propose's)
        ("mindspore_legacy", {
            "cluster_propose": 4, "minddata_pipeline": 4, "profiler_fixtures": 3,
            "run_2/normal_run": 1,
        }),
        # Ascend rank folders side by side are the ranks of one run
        ("ascend_pytorch", {"level0": 2, "level1": 2}),
    ],
)  # fmt: skip
def test_real_data_runs(folder: str, expected: dict[str, int]) -> None:
    """(run name -> number of files) on the shared data."""
    runs = discover(shared(folder))
    assert {r.name: len(r.files) for r in runs} == expected
    if folder == "hta/trace_filter":
        assert runs[0].workers == ["sampled_rank-0", "sampled_rank-1"]


def test_a_file_that_is_no_trace_splits_no_job(tmp_path: Path) -> None:
    """A worker whose file is not a trace at all (broken, a link elsewhere) says nothing
    about its job: the others decide, and it stays in their run (to fail when read)."""
    _rank(tmp_path / "job/rank0.pt.trace.json", 0, 2)
    _rank(tmp_path / "job/rank1.pt.trace.json", 1, 2)
    (tmp_path / "job/broken.pt.trace.json").write_text("root:x:0:0:root:/root:/bin/bash\n")
    assert _runs(tmp_path) == {"job": ["broken", "rank0", "rank1"]}


def test_run_option_picks_a_run_by_name_in_every_command(tmp_path: Path) -> None:
    _rank(tmp_path / "mixed/cnn.pt.trace.json", None)
    _rank(tmp_path / "mixed/other.pt.trace.json", None)
    for command in ("analyse", "advise", "cluster"):
        extra = ["--no-cache"] if command == "analyse" else ["--workspace", str(tmp_path / "ws")]
        r = run_cli(command, tmp_path / "mixed", "--run", "other", "--format", "json", *extra)
        assert r.returncode == 0, (command, r.stderr)
        assert "2 runs found" in r.stderr and " mixed/other (others: mixed/cnn;" in r.stderr
        assert "--run NAME" in r.stderr
    r = run_cli("cluster", tmp_path / "mixed", "--run", "nope", "--workspace", str(tmp_path / "w"))
    assert r.returncode != 0 and "no run called 'nope'; runs: mixed/cnn, mixed/other" in r.stderr


def test_by_worker_is_select_of_every_worker() -> None:
    """One pass gives what a `select` per worker gives (first span; a span asked for)."""
    from mindinsight_profiler.formats.discovery import Run, TraceFile

    pairs = (("w1", "9"), ("w0", "2"), ("w1", "3"), ("w0", "1"), ("w2", "3"))
    files = [TraceFile(w, s, Path(f"/r/{w}.{s}.pt.trace.json")) for w, s in pairs]
    run = Run("r", Path("/r"), files)
    assert run.by_worker() == {w: run.select(w) for w in run.workers}
    assert [f.span for f in run.by_worker().values()] == ["1", "3", "3"]
    assert run.by_worker("3") == {w: run.select(w, "3") for w in ("w1", "w2")}
    assert run.by_worker("7") == {}
