"""Step trace section: MindSpore's points equal its CSV; PyTorch points found and overridable.

Expected values are read from the raw files (csv module for MindSpore) or from the events
themselves (PyTorch annotations), not from the section under test.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.data_pipeline.wait import loader_wait_per_step
from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.analysis.steps.boundaries import find_steps
from mindinsight_profiler.analysis.steps.step_trace import StepPoints, step_trace_section
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared
from tests.integration.test_mindspore_legacy import STEP_FILES
from tests.tracegen import op, write_trace

V100 = [
    "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
]
CPU_SMALL = [
    "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json",
    "torch_cpu/small/cnn_nw2_active5.1795320558072984922.pt.trace.json",
    "torch_cpu/small/transformer_nw0_active5.1795320562872505905.pt.trace.json",
    "torch_cpu/small/transformer_nw2_active5.1795320569240002887.pt.trace.json",
]
_TRACES: dict[str, Trace] = {}


def _trace(rel: str) -> Trace:
    if rel not in _TRACES:
        _TRACES[rel] = read_trace(shared(rel))
    return _TRACES[rel]


def _ns(us: float) -> int:
    return round(us * 1000)


def _assert_stages_sum(section: dict[str, Any]) -> None:
    # Exact in ns: every stage is a difference of the four points.
    for row in section["steps"]:
        parts = [_ns(row[f"{s}_us"]) for s in ("iteration_interval", "fp_and_bp", "tail")]
        assert sum(parts) == _ns(row["total_us"]), row["step"]
        assert min(parts) >= 0, row["step"]
        assert _ns(row["end_us"]) - _ns(row["start_us"]) == _ns(row["total_us"])


@pytest.mark.parametrize("rel", V100)
def test_v100_points_are_found(rel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FP_POINT", raising=False)
    monkeypatch.delenv("BP_POINT", raising=False)
    trace = _trace(rel)
    section = step_trace_section(trace)
    assert section is not None
    steps = find_steps(trace)
    assert [r["step"] for r in section["steps"]] == steps.names
    # ResNet-50: the batch goes DataLoader -> aten::to (H2D) -> conv1; backward ends with
    # the gradient accumulation of the last parameter, on the autograd thread.
    assert section["fp_point"] == {"name": "aten::conv2d", "source": "auto", "steps_found": 6}
    assert section["bp_point"]["name"] == "torch::autograd::AccumulateGrad"
    assert section["bp_point"]["steps_found"] == len(steps)
    _assert_stages_sum(section)
    np.testing.assert_array_equal([_ns(r["total_us"]) for r in section["steps"]], steps.duration_ns)
    # The DataLoader wait lies before FP start: all of it that falls inside the step window
    # (the window opens when the previous step's kernels end) is part of the interval.
    wait = loader_wait_per_step(trace, steps) - (steps.start_ns - steps.host_start_ns)
    for row, w in zip(section["steps"], wait.tolist(), strict=True):
        assert _ns(row["iteration_interval_us"]) >= w
        assert row["fp_and_bp_us"] > 100_000  # forward+backward of ResNet-50 on V100: >100 ms
    # One step set (docs/definitions.md): a Kineto trace averages every step, as the overview
    avg = section["average"]
    assert avg["steps"] == len(steps) and not avg["excludes_first_step"]
    want = np.mean([r["iteration_interval_us"] for r in section["steps"]])
    assert avg["iteration_interval_us"] == pytest.approx(want)
    report = build_report(trace)
    assert report["step_trace"]["average"]["total_us"] == pytest.approx(
        report["steps"]["average_us"]
    )
    later = step_trace_section(trace, first=1)  # a step set that leaves the first step out
    assert later is not None and later["average"]["steps"] == len(steps) - 1
    assert later["average"]["excludes_first_step"]


def test_v100_data_wait_shows_in_the_interval() -> None:
    # 0 workers: ~59 ms of every step waits for data; 4 workers: a few ms.
    nw0 = step_trace_section(_trace(V100[0]))
    nw4 = step_trace_section(_trace(V100[2]))
    assert nw0 is not None and nw4 is not None
    assert nw0["average"]["iteration_interval_us"] > 50_000
    # the average covers every step (one step set); the first also waits for the workers
    # to start, so the steady state is read from the steps after it
    later = [r["iteration_interval_us"] for r in nw4["steps"][1:]]
    assert max(later) < 10_000 < nw4["steps"][0]["iteration_interval_us"]
    assert nw4["average"]["iteration_interval_us"] < 0.25 * nw0["average"]["iteration_interval_us"]


def _annotation_starts(trace: Trace, name: str) -> np.ndarray:
    code = trace.strings.codes_where(lambda s: s == name)
    idx = np.flatnonzero(np.isin(trace.events["name"], code))
    return np.sort(trace.events["start_ns"][idx])


@pytest.mark.parametrize("rel", CPU_SMALL)
def test_cpu_points_follow_the_annotations(rel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FP_POINT", raising=False)
    monkeypatch.delenv("BP_POINT", raising=False)
    trace = _trace(rel)
    section = step_trace_section(trace)
    assert section is not None
    n = len(section["steps"])
    # The training script wraps each phase in record_function: forward, backward, optimizer_step.
    assert section["fp_point"] == {"name": "forward", "source": "auto", "steps_found": n}
    assert section["bp_point"]["name"].endswith("AccumulateGrad")
    _assert_stages_sum(section)
    origin = section["origin_ns"]
    fwd = _annotation_starts(trace, "forward")
    opt = _annotation_starts(trace, "optimizer_step")
    for row in section["steps"]:
        abs_fp = _ns(row["fp_us"]) + origin
        assert abs_fp in set(fwd.tolist())
        nxt = opt[opt > abs_fp][0]
        # CPU: BP end is the end of the last backward op, before the optimizer starts.
        assert _ns(row["fp_us"]) < _ns(row["bp_us"]) <= nxt - origin


def test_points_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    trace = _trace(V100[0])
    monkeypatch.delenv("FP_POINT", raising=False)
    monkeypatch.delenv("BP_POINT", raising=False)
    auto = step_trace_section(trace)
    same = step_trace_section(trace, fp_point="aten::conv2d")
    later = step_trace_section(trace, fp_point="Optimizer.zero_grad#SGD.zero_grad")
    configured = StepPoints.from_environ({"BP_POINT": "Optimizer.step#SGD.step"})
    opt_end = step_trace_section(trace, configured=configured)
    # The analysis never reads the environment itself: the edge (CLI, settings) passes it.
    monkeypatch.setenv("BP_POINT", "Optimizer.step#SGD.step")
    assert step_trace_section(trace) == auto
    missing = step_trace_section(trace, fp_point="no such op")
    assert auto and same and later and opt_end and missing
    assert same["fp_point"]["source"] == "argument"
    assert [r["fp_us"] for r in same["steps"]] == [r["fp_us"] for r in auto["steps"]]
    assert later["fp_point"] == {
        "name": "Optimizer.zero_grad#SGD.zero_grad",
        "source": "argument",
        "steps_found": 6,
    }
    for a, b in zip(auto["steps"], later["steps"], strict=True):
        # zero_grad runs after the loss: FP start moves later by the forward pass.
        moved = _ns(b["fp_us"]) - _ns(a["fp_us"])
        assert moved > 10_000_000
        assert _ns(b["iteration_interval_us"]) - _ns(a["iteration_interval_us"]) == moved
        assert _ns(a["fp_and_bp_us"]) - _ns(b["fp_and_bp_us"]) == moved
        assert b["total_us"] == a["total_us"]
    assert opt_end["bp_point"]["source"] == "env"
    assert opt_end["bp_point"]["steps_found"] == 6
    for a, b in zip(auto["steps"], opt_end["steps"], strict=True):
        # The optimizer's kernels are the last of the step: nothing is left for the tail.
        assert b["bp_us"] > a["bp_us"] and b["tail_us"] < a["tail_us"]
        assert b["tail_us"] < 100
    _assert_stages_sum(later)
    _assert_stages_sum(opt_end)
    # A name that is not in the trace: automatic points, and the result says none was found.
    assert missing["fp_point"] == {"name": "no such op", "source": "argument", "steps_found": 0}
    assert [r["fp_us"] for r in missing["steps"]] == [r["fp_us"] for r in auto["steps"]]


def _csv(path: Path) -> tuple[list[str], list[list[str]]]:
    rows = [r for r in csv.reader(path.read_text().splitlines()) if r]
    return rows[0], [r for r in rows[1:] if r[0].isdigit() and int(r[0]) > 0]


@pytest.mark.parametrize(("folder", "rank"), STEP_FILES)
def test_mindspore_equals_the_csv(folder: str, rank: int) -> None:
    path = shared(folder)
    section = step_trace_section(read_mindspore_legacy(path, rank))
    assert section is not None and section["source"] == "step_trace_table"
    header, rows = _csv(path / f"step_trace_raw_{rank}_detail_time.csv")
    assert [r["step"] for r in section["steps"]] == [r[0] for r in rows]
    for stage in ("total", "iteration_interval", "fp_and_bp", "tail"):
        want = [int(r[header.index(stage)]) * 10 for r in rows]  # syscnt = 10 ns
        assert [_ns(s[f"{stage}_us"]) for s in section["steps"]] == want, stage
        avg_rows = want[1:] if len(want) > 1 else want
        assert section["average"][f"{stage}_us"] == pytest.approx(np.mean(avg_rows) / 1000)
    stages = [c.removesuffix("_end_point") for c in header if c.endswith("_end_point")]
    for row, step in zip(rows, section["steps"], strict=True):
        got = {c["name"]: c for c in step["collectives"]}
        points = {
            s: (int(row[header.index(f"{s}_start_point")]) * 10,
                int(row[header.index(f"{s}_end_point")]) * 10)
            for s in stages
        }  # fmt: skip
        # A stage with 0 points was not recorded in this step (profiler_fixtures rank 10,
        # steps 21-40): not shown, as in MindInsight, rather than drawn at syscnt 0.
        recorded = [s for s, (start, end) in points.items() if start > 0 and end > start]
        assert set(got) == set(recorded)
        for s in recorded:
            start, end = points[s]
            assert _ns(got[s]["duration_us"]) == end - start
            assert _ns(got[s]["start_us"]) + section["origin_ns"] == start


def test_mindspore_point_names() -> None:
    section = step_trace_section(read_mindspore_legacy(shared(STEP_FILES[0][0]), 1))
    assert section is not None
    assert section["fp_point"]["name"] == "Default/EndOfSequence-op131"
    assert section["bp_point"]["name"] == "Default/AssignAdd-op138"
    assert section["fp_point"]["source"] == "profiler"


def test_no_steps_gives_none(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.json", [op("aten::add", 0, 10), op("aten::mul", 20, 5)])
    assert step_trace_section(read_trace(path)) is None


def test_nccl_trace_collectives(monkeypatch: pytest.MonkeyPatch) -> None:
    # HTA's NCCL sample: zero_grad runs before "## forward ##" and is not the forward start;
    # the NCCL all-reduce kernels of each step are listed inside that step's window.
    monkeypatch.delenv("FP_POINT", raising=False)
    monkeypatch.delenv("BP_POINT", raising=False)
    section = step_trace_section(_trace("hta/nccl_parser_config/nccl_data.json.gz"))
    assert section is not None
    assert section["fp_point"]["name"] == "## forward ##"
    _assert_stages_sum(section)
    for row in section["steps"]:
        assert row["collectives"], row["step"]
        for c in row["collectives"]:
            assert c["name"].startswith("nccl")
            assert row["start_us"] <= c["start_us"] <= c["end_us"] <= row["end_us"]
            assert c["duration_us"] == pytest.approx(c["end_us"] - c["start_us"])
    assert {c["name"] for c in section["average"]["collectives"]} == {
        c["name"] for row in section["steps"][1:] for c in row["collectives"]
    }
