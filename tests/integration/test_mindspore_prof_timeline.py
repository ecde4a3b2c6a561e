"""msprof device timelines (`PROF_*/device_<d>/timeline/`) in a legacy MindSpore folder.

The reference figures are the files' own, read here with the `json` module and nothing of
the reader: the `Ascend Hardware` tasks (kernels per op name and per stream), the HCCL ops,
the `step_trace_*` iterations, and msprof's own `Overlap Analysis` rows (its computing and
communication time per iteration), compared with the report within 0.1 %.

In `profiler_fixtures`, device 1's timeline is rank 1's (no step-trace CSV: the timeline's
own step trace gives the steps); device 0's does not match rank 0's step-trace CSV (they come
from different runs), so it is left out with a warning.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.model.kinds import COMMUNICATION_PROCESS, Kind
from tests.conftest import shared

FIXTURES = "mindspore_legacy/profiler_fixtures"
PROF_0 = "PROF_000001_20230818142704322_COJGGGCANRMICFBC"
PROF_1 = "PROF_000001_20230818142704567_GQFAMHBKGODKJMLA"
REL = 1e-3  # 0.1 %
COMPUTE_TASKS = {"AI_CORE", "AI_CPU"}


def _events(path: Path) -> tuple[dict[int, str], list[dict[str, Any]]]:
    events = json.loads(path.read_text())
    procs = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}  # fmt: skip
    return procs, [e for e in events if e.get("ph") == "X"]


def _iteration(path: Path) -> int:
    return int(path.stem.rsplit("_", 1)[1])


def _timeline(prof: str, device: int, kind: str) -> list[Path]:
    folder = shared(FIXTURES) / prof / f"device_{device}" / "timeline"
    return sorted(folder.glob(f"{kind}_*.json"), key=_iteration)


def _expected(prof: str, device: int) -> dict[str, Any]:
    """Figures of one device timeline, from its JSON files (see module doc)."""
    kernels: dict[str, list[float]] = defaultdict(list)
    streams: dict[int, list[float]] = defaultdict(list)
    hccl_ops: list[float] = []
    computing, communication, exposed = [], [], []
    for path in _timeline(prof, device, "msprof"):
        procs, events = _events(path)
        links = [
            e for e in events if procs[e["pid"]] == "HCCL" and "task type" in e.get("args", {})
        ]
        comm_streams = {e["args"]["stream id"] for e in links}
        overlap: dict[int, float] = defaultdict(float)
        for e in events:
            proc, args = procs[e["pid"]], e.get("args", {})
            if proc == "Ascend Hardware" and args.get("Task Type") in COMPUTE_TASKS:
                assert args["Stream Id"] not in comm_streams
                kernels[e["name"]].append(e["dur"])
                streams[args["Stream Id"]].append(e["dur"])
            elif proc == "HCCL" and "task type" not in args:
                hccl_ops.append(e["dur"])
            elif proc == "Overlap Analysis":
                overlap[e["tid"]] += e["dur"]  # 0 computing, 1 communication, 2 not overlapped
        computing.append(overlap[0])
        communication.append(overlap[1])
        exposed.append(overlap[2])
    (step_file, *_) = _timeline(prof, device, "step_trace")
    _, step_events = _events(step_file)
    iterations = sorted((e for e in step_events if e.get("cat") == "Iteration Time"),
                        key=lambda e: e["args"]["Iteration ID"])  # fmt: skip
    ends = [e["args"]["Iteration End"] for e in iterations]
    starts = [iterations[0]["ts"], *ends[:-1]]  # a step runs from the previous one's end
    return {
        "kernels": kernels,
        "streams": streams,
        "hccl_ops": hccl_ops,
        "computing_us": computing,
        "communication_us": communication,
        "exposed_us": exposed,
        "steps_us": [e - s for s, e in zip(starts, ends, strict=True)],
        "fp_bp_us": [e["args"]["BP End"] - e["args"]["FP Start"] for e in iterations],
    }


def _approx(values: list[float]) -> Any:
    return pytest.approx(values, rel=REL)


def _check_rank1(report: dict[str, Any], want: dict[str, Any]) -> None:
    got = {k["name"]: k for k in report["kernels"]}
    assert set(got) == set(want["kernels"])
    for name, durations in want["kernels"].items():
        assert got[name]["calls"] == len(durations), name
        assert got[name]["total_us"] == pytest.approx(sum(durations), rel=REL), name
    (allreduce,) = report["communication"]["collectives"]
    assert allreduce["name"] == "AllReduce" and allreduce["calls"] == len(want["hccl_ops"]) == 10
    assert allreduce["total_us"] == pytest.approx(sum(want["hccl_ops"]), rel=REL)
    npu = report["npu"]["steps"]
    assert [s["computing_us"] for s in npu] == _approx(want["computing_us"])
    assert [s["communication_us"] for s in npu] == _approx(want["communication_us"])
    breakdown = report["breakdown_per_step_us"]
    assert [b["kernel"] for b in breakdown] == _approx(want["computing_us"])
    assert [b["communication"] for b in breakdown] == _approx(want["exposed_us"])
    for row, step_us in zip(breakdown, report["steps"]["durations_us"], strict=True):
        assert sum(row.values()) == pytest.approx(step_us)  # no share above 100 %


def test_rank1_reads_device1_timeline() -> None:
    want = _expected(PROF_1, 1)
    trace = read_trace(shared(FIXTURES), worker="rank1")
    assert trace.meta["msprof_timeline"] == f"{PROF_1}/device_1"
    assert trace.meta["msprof_clock"] == "msprof_step_trace"
    report = build_report(trace)
    steps = report["steps"]
    assert steps["count"] == 10 and steps["names"] == [str(i) for i in range(1, 11)]
    assert steps["durations_us"] == _approx(want["steps_us"])
    fp_bp = [s["fp_and_bp_us"] for s in report["step_trace"]["steps"]]
    assert fp_bp == _approx(want["fp_bp_us"])
    _check_rank1(report, want)
    # per stream: the device kernels of each hardware stream
    ev = trace.events
    for stream, durations in want["streams"].items():
        mask = (ev["kind"] == Kind.KERNEL) & (ev["stream"] == stream)
        assert int(mask.sum()) == len(durations), stream
        total_us = float((ev["end_ns"] - ev["start_ns"])[mask].sum()) / 1000
        assert total_us == pytest.approx(sum(durations), rel=REL), stream
    # the collectives' own hardware tasks are not kernels: the HCCL op (no stream) counts once
    comm = [i for i, t in enumerate(trace.tracks) if t.process_name == COMMUNICATION_PROCESS]
    on_comm = np.isin(ev["track"], comm)
    assert set(ev["stream"][(ev["kind"] == Kind.KERNEL) & ~on_comm].tolist()) == set(
        want["streams"]
    )
    assert int(((ev["kind"] == Kind.KERNEL) & on_comm).sum()) == len(want["hccl_ops"])


def test_rank0_timeline_from_another_run_is_not_used() -> None:
    trace = read_trace(shared(FIXTURES), worker="rank0")
    assert trace.meta["msprof_timeline"] == f"{PROF_0}/device_0"
    assert trace.meta["msprof_clock"] == "unaligned"
    assert any("msprof timeline" in w and "not used" in w for w in trace.meta["warnings"])
    report = build_report(trace)
    assert report["kernels"] == [] and report["steps"]["count"] == 20


def _copy_top_files(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copy(f, dst / f.name)  # a temporary copy, never into the repository
    return dst


@pytest.mark.parametrize("worker", ["rank0", "rank10"])
def test_other_ranks_are_unchanged(tmp_path: Path, worker: str) -> None:
    src = shared(FIXTURES)
    without = _copy_top_files(src, tmp_path / src.name)
    have = build_report(read_trace(src, worker=worker))
    lack = build_report(read_trace(without, worker=worker))
    # the same figures; only what the warnings say of an unused timeline may differ
    assert {**have, "warnings": None} == {**lack, "warnings": None}
    assert all("timeline" in w["message"] for w in have["warnings"] + lack["warnings"])


def test_a_used_timeline_wins_over_prof(tmp_path: Path) -> None:
    """run_2's own timeline is used (aligned by its AI CPU file): a PROF folder beside it
    is not read, and the report is the same."""
    run2 = shared("mindspore_legacy/run_2/normal_run/profiler")
    folder = tmp_path / "profiler"
    shutil.copytree(run2, folder)
    shutil.copytree(shared(FIXTURES) / PROF_1, folder / PROF_1)
    trace = read_trace(folder)
    assert "msprof_timeline" not in trace.meta and trace.meta["timeline_clock"] == "device"
    base = build_report(read_trace(run2))
    assert build_report(trace)["kernels"] == base["kernels"]


def _prof_copy(tmp_path: Path, rank: int = 1) -> Path:
    """profiler_fixtures' rank-1 files (not its step trace) and device 1's PROF folder."""
    src = shared(FIXTURES)
    folder = tmp_path / "profiler"
    folder.mkdir()
    shutil.copy(src / "framework_raw_1.csv", folder / f"framework_raw_{rank}.csv")
    shutil.copytree(src / PROF_1, folder / PROF_1)
    return folder


def _timeline_dir(folder: Path) -> Path:
    return folder / PROF_1 / "device_1" / "timeline"


def test_damaged_msprof_file_falls_back_to_task_time_and_hccl(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    path = _timeline_dir(folder) / "msprof_1_0_3.json"
    path.write_text(path.read_text()[:5000])  # cut short
    trace = read_trace(folder, worker="rank1")
    assert any(
        "msprof_1_0_3.json" in s and "invalid JSON" in s for s in trace.meta["skipped_files"]
    )
    _check_rank1(build_report(trace), _expected(PROF_1, 1))


def test_an_unreadable_iteration_is_said(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    for kind in ("msprof", "task_time", "hccl"):
        (_timeline_dir(folder) / f"{kind}_1_0_4.json").write_text('[{"ph": "X", "ts": "x1"}]')
    trace = read_trace(folder, worker="rank1")
    skipped = " ".join(trace.meta["skipped_files"])
    assert skipped.count("ts is not a number") == 3 and "hccl_1_0_4.json" in skipped
    assert any("iterations [4]" in w for w in trace.meta["warnings"])
    report = build_report(trace)
    want = _expected(PROF_1, 1)
    assert sum(k["calls"] for k in report["kernels"]) == 9 * 139  # one iteration fewer
    assert report["npu"]["steps"][3]["computing_us"] == 0.0
    assert report["steps"]["durations_us"] == _approx(want["steps_us"])


def test_damaged_step_trace_file_is_skipped(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    (_timeline_dir(folder) / "step_trace_1_0_1.json").write_text("")
    (_timeline_dir(folder) / "step_trace_1_0_2.json").write_text(
        '[{"ph": "X", "name": "Iteration 1", "cat": "Iteration Time", "ts": 1, "dur": 2,'
        ' "args": {"Iteration ID": 1}}]'
    )
    trace = read_trace(folder, worker="rank1")
    skipped = " ".join(trace.meta["skipped_files"])
    assert "step_trace_1_0_1.json: the file is empty" in skipped
    assert "step_trace_1_0_2.json: 'Iteration 1': no 'FP Start'" in skipped
    assert build_report(trace)["steps"]["count"] == 10  # the other copies give the steps


def test_nothing_readable_is_one_input_error(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    (folder / "framework_raw_1.csv").write_text("")
    for f in _timeline_dir(folder).iterdir():
        f.write_text("{")
    with pytest.raises(InputError) as info:
        read_trace(folder, worker="rank1")
    assert info.value.path.endswith("framework_raw_1.csv")


def test_rank_comes_from_info_json(tmp_path: Path) -> None:
    """`info.json.<d>` names the device's rank (as MindInsight reads it); a damaged one is
    said and the device number is used."""
    folder = _prof_copy(tmp_path, rank=5)
    info = folder / PROF_1 / "device_1" / "info.json.1"
    doc = json.loads(info.read_text())
    info.write_text(json.dumps({**doc, "rank_id": 5}))
    assert read_trace(folder, worker="rank5").meta["msprof_clock"] == "msprof_step_trace"
    info.write_text("{")
    trace = read_trace(folder, worker="rank5")
    assert "msprof_timeline" not in trace.meta
    assert any("info.json.1" in w and "rank 1" in w for w in trace.meta["warnings"])


def _write_step_csv(folder: Path, offset_ns: int, shift_step: int | None = None) -> None:
    """A step-trace CSV of device 1's iterations on another clock (syscnt, 10 ns ticks)."""
    _, events = _events(_timeline(PROF_1, 1, "step_trace")[0])
    its = sorted((e for e in events if e.get("cat") == "Iteration Time"),
                 key=lambda e: e["args"]["Iteration ID"])  # fmt: skip

    def tick(us: float) -> int:
        return round((us * 1000 + offset_ns) / 10)

    rows = []
    prev = tick(its[0]["args"]["FP Start"])
    for e in its:
        a = e["args"]
        fp, bp, end = tick(a["FP Start"]), tick(a["BP End"]), tick(a["Iteration End"])
        if a["Iteration ID"] == shift_step:
            fp, bp = fp + 100_000, bp + 100_000  # 1 ms
        rows.append(
            [a["Iteration ID"], prev, end, end - prev, fp, bp, fp - prev, bp - fp, end - bp]
        )
        prev = end
    with (folder / "step_trace_raw_1_detail_time.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step_num", "start_point", "end_point", "total", "fp_point", "bp_point",
                    "iteration_interval", "fp_and_bp", "tail"])  # fmt: skip
        w.writerows(rows)


def test_timeline_is_placed_on_a_matching_step_csv(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    offset = -56_000_000_000_000  # the CSV's clock is 56,000 s behind msprof's
    _write_step_csv(folder, offset)
    trace = read_trace(folder, worker="rank1")
    assert trace.meta["msprof_clock"] == "step_trace_csv"
    assert abs(trace.meta["msprof_offset_ns"] - offset) <= 10
    report = build_report(trace)
    assert report["steps"]["count"] == 10
    _check_rank1(report, _expected(PROF_1, 1))


def test_timeline_off_the_step_csv_is_not_used(tmp_path: Path) -> None:
    folder = _prof_copy(tmp_path)
    _write_step_csv(folder, -56_000_000_000_000, shift_step=3)
    trace = read_trace(folder, worker="rank1")
    assert trace.meta["msprof_clock"] == "unaligned"
    assert any("cannot be placed on the steps" in w for w in trace.meta["warnings"])
    report = build_report(trace)
    assert report["kernels"] == [] and report["steps"]["count"] == 10
    # nothing of the timeline was read
    assert not [n for n in trace.meta["files_read"] if n.startswith(("msprof", "task_time"))]


def test_steps_from_msprof_files_without_step_trace_files(tmp_path: Path) -> None:
    """Each `msprof_*` file carries its iteration's step trace (on `Ascend Hardware`'s
    `Step Trace(Model ID:0)` thread): without the `step_trace_*` files the steps are the same."""
    folder = _prof_copy(tmp_path)
    for f in _timeline_dir(folder).glob("step_trace_*.json"):
        f.unlink()
    want = _expected(PROF_1, 1)
    report = build_report(read_trace(folder, worker="rank1"))
    assert report["steps"]["durations_us"] == _approx(want["steps_us"])
    _check_rank1(report, want)
