"""The Python API (`open_run`) gives the figures of `mindinsight analyse --format json`.

Each run is analysed once by the CLI into a workspace and opened through the API on the
same workspace, so both read one cached report: a frame that drops, renames or reorders a
figure, or mixes up steps, fails here. Then the other groupings (from the trace), the
timeline window, the advice (against `mindinsight advise --format json`) and bad arguments.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mindinsight_profiler.api import Findings, Run, open_cluster, open_run
from mindinsight_profiler.api.frames import CATEGORIES, PERF_LEVELS
from mindinsight_profiler.cli.main import main as cli_main
from mindinsight_profiler.errors import InputError
from tests.conftest import shared

RUNS = {
    "kineto": "kineto/resnet50_num_workers_0",
    "ascend": "ascend_pytorch/level1/rank0_ascend_pt",
    "mindspore": "mindspore_legacy/run_2/normal_run/profiler",
}


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert cli_main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api-ws")


@pytest.fixture(params=sorted(RUNS))
def opened(
    request: pytest.FixtureRequest, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Run, dict[str, Any]]:
    path = shared(RUNS[request.param])
    report = _cli_json(capsys, "analyse", str(path), "--format", "json", "--workspace",
                       str(workspace))  # fmt: skip
    return open_run(path, workspace=workspace), report


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN (a frame's missing number) equal to None (the JSON's)."""
    missing = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
    return (missing(a) and missing(b)) or a == b


def _frame_equals_rows(frame: pd.DataFrame, rows: list[dict[str, Any]]) -> None:
    assert len(frame) == len(rows)
    for got, want in zip(frame.to_dict("records"), rows, strict=True):
        for key, value in want.items():
            assert _same(got[key], value), (key, got[key], value)


def test_the_report_is_the_cli_report(opened: tuple[Run, dict[str, Any]]) -> None:
    run, report = opened
    assert run.report == report


def test_steps_and_breakdown(opened: tuple[Run, dict[str, Any]]) -> None:
    run, report = opened
    steps = run.steps()
    s = report["steps"]
    assert steps["step"].tolist() == [str(n) for n in s["names"]]
    assert steps["start_ns"].tolist() == s["start_ns"]
    assert steps["duration_us"].tolist() == s["durations_us"]
    assert steps["in_average"].tolist() == [n not in s["covered"]["left_out"] for n in s["names"]]
    per_step = run.breakdown()
    assert list(per_step.columns) == [f"{c}_us" for c in CATEGORIES]
    assert per_step.to_dict("records") == [
        {f"{c}_us": row[c] for c in CATEGORIES} for row in report["breakdown_per_step_us"]
    ]
    average = run.breakdown(average=True)
    assert average.to_dict() == {f"{c}_us": report["breakdown_us"][c] for c in CATEGORIES}
    summary = run.summary()
    assert summary["average_step_us"] == s["average_us"] and summary["steps"] == s["count"]


def test_tables(opened: tuple[Run, dict[str, Any]]) -> None:
    run, report = opened
    _frame_equals_rows(run.operators(), report["operators"])
    _frame_equals_rows(run.kernels(), report["kernels"])
    model = report["perf_model"] or {}
    for level in PERF_LEVELS:
        _frame_equals_rows(run.perf_model(level), model.get(level) or [])
    collectives = (report["communication"] or {}).get("collectives") or []
    _frame_equals_rows(run.communication(), [
        {k: c[k] for k in ("name", "calls", "total_us", "bytes", "tool_wait_us")}
        for c in collectives
    ])  # fmt: skip
    _frame_equals_rows(
        run.communication(per_step=True), (report["communication"] or {}).get("steps") or []
    )


def test_sections(opened: tuple[Run, dict[str, Any]]) -> None:
    run, report = opened
    trace_steps = (report["step_trace"] or {}).get("steps") or []
    _frame_equals_rows(run.step_trace(), [
        {**{k: v for k, v in r.items() if k != "collectives"},
         "collectives": len(r["collectives"])}
        for r in trace_steps
    ])  # fmt: skip
    wait = (report["data_pipeline"] or {}).get("data_wait") or {}
    frame = run.data_pipeline()
    assert frame["data_wait_us"].tolist() == (wait.get("per_step_us") or [])
    assert frame["step"].tolist() == [str(n) for n in wait.get("steps") or []]
    devices = (report["memory"] or {}).get("devices") or []
    memory = run.memory()
    assert memory["device"].tolist() == [d["device"] for d in devices]
    assert [
        _same(a, d["peak_allocated"])
        for a, d in zip(memory["peak_allocated_bytes"], devices, strict=True)
    ] == [True] * len(devices)


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_advice_is_the_cli_advice(
    kind: str, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared(RUNS[kind])
    want = _cli_json(capsys, "advise", str(path), "--format", "json", "--workspace",
                     str(workspace))  # fmt: skip
    findings = open_run(path, workspace=workspace).advise()
    assert isinstance(findings, Findings) and findings.to_dict() == want
    frame = findings.frame()
    assert frame["id"].tolist() == [f["id"] for f in want["findings"]]
    savings = [f["estimated_saving_us"] for f in want["findings"]]
    assert all(_same(a, b) for a, b in zip(frame["saving_us"], savings, strict=True))
    for f in want["findings"][:3]:
        evidence = findings.evidence(f["id"])
        assert evidence["label"].tolist() == [e["label"] for e in f["evidence"]]
    with pytest.raises(KeyError, match="no finding 'nope'"):
        findings["nope"]
    assert "<table" in findings._repr_html_()


def test_other_groupings_read_the_trace(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared(RUNS["kineto"])
    want = _cli_json(capsys, "analyse", str(path), "--format", "json", "--workspace",
                     str(workspace), "--group-by", "name_input",
                     "--kernel-group-by", "name_op_launch")  # fmt: skip
    run = open_run(path, workspace=workspace)
    _frame_equals_rows(run.operators(group_by="name_input"), want["operators"])
    _frame_equals_rows(run.kernels(group_by="name_op_launch"), want["kernels"])
    with pytest.raises(ValueError, match="group_by must be one of name, name_input"):
        run.operators(group_by="type_of_thing")


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_timeline_window(kind: str, workspace: Path) -> None:
    run = open_run(shared(RUNS[kind]), workspace=workspace)
    trace = run.trace()
    steps = run.steps()
    if len(steps):
        t0 = int(steps["start_ns"][0])
        t1 = t0 + int(steps["duration_us"][0] * 1000)
    else:
        t0, t1 = int(trace.start_ns.min()), int(trace.end_ns.max())
    inside = int(((trace.end_ns > t0) & (trace.start_ns < t1)).sum())
    window = run.timeline(t0, t1, limit=max(inside, 1))
    assert len(window) == inside > 0
    assert window["start_ns"].is_monotonic_increasing
    assert ((window["end_ns"] > t0) & (window["start_ns"] < t1)).all()
    longest = float(window["duration_us"].max())
    long = run.timeline(t0, t1, min_duration_ns=int(longest * 1000), limit=max(inside, 1))
    assert 0 < len(long) <= len(window) and (long["duration_us"] >= longest).all()
    track = str(window["track"].iloc[-1])
    one = run.timeline(t0, t1, tracks=[track], limit=max(inside, 1))
    assert set(one["track"]) == {track}
    if inside > 1:
        with pytest.raises(ValueError, match=f"more than limit={inside - 1:,}"):
            run.timeline(t0, t1, limit=inside - 1)
    with pytest.raises(ValueError, match="none of \\['no/such'\\] is a track"):
        run.timeline(t0, t1, tracks=["no/such"])


def test_html_display(workspace: Path) -> None:
    html = open_run(shared(RUNS["kineto"]), workspace=workspace)._repr_html_()
    assert "<svg" in html and "average step" in html and "<table" in html


def test_bad_paths_and_names(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no profiler output found"):
        open_run(tmp_path, workspace=None)
    with pytest.raises(InputError, match="no run has worker nobody"):
        open_run(shared("kineto"), worker="nobody", workspace=None)
    with pytest.warns(UserWarning, match="runs found, opening"):
        run = open_run(shared("kineto"), workspace=None)
    with pytest.raises(ValueError, match="level must be one of operators"):
        run.perf_model("everything")


def test_open_run_is_exported_lazily() -> None:
    import mindinsight_profiler

    assert mindinsight_profiler.open_run is open_run


@pytest.mark.parametrize("rel", ["hta/trace_filter", "mindspore_legacy/cluster_propose"])
def test_cluster_is_the_cli_cluster(
    rel: str, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared(rel)
    want = _cli_json(capsys, "cluster", str(path), "--format", "json", "--workspace",
                     str(workspace), "--jobs", "1")  # fmt: skip
    cluster = open_cluster(path, workspace=workspace, jobs=1)
    assert cluster.view == want and not cluster.failed
    _frame_equals_rows(cluster.ranks(), want["ranks"])
    _frame_equals_rows(cluster.stages(), want["stages"])
    assert cluster.collectives()["name"].tolist() == [c["name"] for c in want["collectives"]]
    assert cluster.slowest == want["slowest"]
    worker = want["workers"][-1]
    assert cluster.run(worker).worker == worker
    assert "<table" in cluster._repr_html_()
