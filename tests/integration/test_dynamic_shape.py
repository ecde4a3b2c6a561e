"""MindSpore's dynamic-shape view against `dynamic_shape_info_<rank>.json`, read here with `json`.

MindInsight 2.3.1 (`GpuDynamicAnalyser`) draws per op type the mean duration of one call in
each step: the GPU writer (`GpuFrameWorkParser._get_one_step_info`) sums a type's calls in
the step and divides by their number, and writes that as `operator_type[step][type][2]`.
Here the same figures are computed from the file's `operator` rows and must equal the
report's (within 0.1 %), and the writer's own `operator_type` aggregate must agree with them.
The Ascend layout (`DynamicFrameWorkParser`) is checked on a file written as that writer
writes it, in a temporary copy of a real run.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.report import build_report
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from tests.conftest import shared

FIXTURES = "mindspore_legacy/profiler_fixtures"
RUN2 = "mindspore_legacy/run_2/normal_run/profiler"
REL = 1e-3  # 0.1 %


def _section(folder: Path, rank: int | None = None) -> dict[str, Any] | None:
    report = build_report(read_mindspore_legacy(folder, rank))
    section: dict[str, Any] | None = report["dynamic_shape"]
    return section


def test_gpu_file_per_type_and_op() -> None:
    folder = shared(FIXTURES)
    doc = json.loads((folder / "dynamic_shape_info_0.json").read_text())
    rows = [r for step_rows in doc["operator"].values() for r in step_rows]
    steps = sorted({int(r["step"]) for r in rows})
    per_type: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    per_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        per_type[r["op_type"]][int(r["step"])].append(r["dur"])
        per_op[r["op_name"]].append(r)
    whole = sum(r["dur"] for r in rows)

    ds = _section(folder, 0)
    assert ds is not None and ds["layout"] == "gpu"
    assert ds["steps"] == steps == list(range(1, 10))
    assert ds["call_count"] == len(rows) == 19
    assert ds["total_us"] == pytest.approx(whole, rel=REL)
    types = {t["type"]: t for t in ds["types"]}
    assert set(types) == set(per_type) == {"GetNext", "InitDataSetQueue", "Add"}
    for name, by_step in per_type.items():
        t = types[name]
        total = sum(sum(v) for v in by_step.values())
        calls = sum(len(v) for v in by_step.values())
        assert t["calls"] == calls
        assert t["total_us"] == pytest.approx(total, rel=REL)
        assert t["mean_us"] == pytest.approx(total / calls, rel=REL)
        assert t["percent"] == pytest.approx(100 * total / whole, rel=REL)
        assert t["step_calls"] == [len(by_step.get(s, [])) for s in steps]
        for i, s in enumerate(steps):
            durs = by_step.get(s, [])
            assert t["step_us"][i] == pytest.approx(sum(durs), rel=REL, abs=1e-9)
            if durs:
                assert t["step_mean_us"][i] == pytest.approx(sum(durs) / len(durs), rel=REL)
            else:
                assert t["step_mean_us"][i] is None
            # The writer's own aggregate: [total, calls, mean] per type and step.
            written = doc["operator_type"].get(str(s), {}).get(name)
            if written is None:
                assert not durs
            else:
                assert t["step_us"][i] == pytest.approx(written[0], rel=REL)
                assert t["step_calls"][i] == written[1]
                assert t["step_mean_us"][i] == pytest.approx(written[2], rel=REL)
    assert [t["total_us"] for t in ds["types"]] == sorted((t["total_us"] for t in ds["types"]),
                                                          reverse=True)  # fmt: skip
    # GetNext ran twice in step 1 (153.52 us per call) and not in step 9.
    get_next = types["GetNext"]
    assert get_next["step_mean_us"][0] == pytest.approx(153.52) and get_next["step_calls"][0] == 2
    assert get_next["step_mean_us"][-1] is None and get_next["step_us"][-1] == 0.0

    ops = {o["name"]: o for o in ds["ops"]}
    assert set(ops) == set(per_op) and ds["op_count"] == len(per_op)
    for name, calls in per_op.items():
        o = ops[name]
        total = sum(r["dur"] for r in calls)
        assert o["calls"] == len(calls) and o["type"] == calls[0]["op_type"]
        assert o["side"] == calls[0]["op_side"] == "gpu"
        assert o["total_us"] == pytest.approx(total, rel=REL)
        assert o["mean_us"] == pytest.approx(total / len(calls), rel=REL)
        for i, s in enumerate(steps):
            want = sum(r["dur"] for r in calls if int(r["step"]) == s)
            assert o["step_us"][i] == pytest.approx(want, rel=REL, abs=1e-9)
        shapes = {"; ".join(r["shape_info"]) for r in calls}
        assert o["shape_count"] == len(shapes)
        assert {v["shape"] for v in o["shapes"]} == shapes
        assert sum(v["calls"] for v in o["shapes"]) == len(calls)
    assert ops["Add-op6"]["shapes"][0]["shape"] == "[32, 1]; [32, 1]"


def _ascend_file(ops: dict[str, tuple[list[float], list[str]]]) -> dict[str, Any]:
    """A dynamic_shape_info file as MindSpore's `DynamicFrameWorkParser` writes it: per type
    its ops with their time and shape per step, and `op_type`: per type the mean over its
    ops of their time in each step."""
    doc: dict[str, Any] = defaultdict(list)
    by_type: dict[str, list[list[float]]] = defaultdict(list)
    for name, (times, shapes) in ops.items():
        op_type = name.split("-")[0]
        detail = {"op_exe_time": times, "op_shape": shapes, "op_exe_occurrences": len(times)}
        doc[op_type].append({name: detail})
        by_type[op_type].append(times)
    doc["op_type"] = {
        t: [round(sum(col) / len(col), 4) for col in zip(*series, strict=True)]
        for t, series in by_type.items()
    }
    return dict(doc)


def test_ascend_file_follows_the_writers_own_mean(tmp_path: Path) -> None:
    folder = tmp_path / "profiler"
    shutil.copytree(shared(RUN2), folder)  # a temporary copy, never into the shared data
    doc = _ascend_file({
        "MatMul-op1": ([10.0, 20.0, 30.0], ["1,2;2,3", "2,2;2,3", "4,2;2,3"]),
        "MatMul-op2": ([30.0, 40.0, 50.0], ["1,4;4,3", "1,4;4,3", "1,4;4,3"]),
        "ReLU-op3": ([5.5, 5.5, 7.0], ["8", "16", "32"]),
    })  # fmt: skip
    (folder / "dynamic_shape_info_1.json").write_text(json.dumps(doc))
    ds = _section(folder)
    assert ds is not None and ds["layout"] == "ascend" and ds["steps"] == [1, 2, 3]
    types = {t["type"]: t for t in ds["types"]}
    for op_type, curve in doc["op_type"].items():
        assert types[op_type]["step_mean_us"] == pytest.approx(curve, rel=REL)
        assert types[op_type]["sides"] == ["ascend"]
    assert types["MatMul"]["step_us"] == [40.0, 60.0, 80.0]
    assert types["MatMul"]["op_count"] == 2 and types["MatMul"]["calls"] == 6
    op1 = next(o for o in ds["ops"] if o["name"] == "MatMul-op1")
    assert op1["shape_count"] == 3 and op1["step_us"] == [10.0, 20.0, 30.0]
    # The rest of the run is read as before.
    assert build_report(read_mindspore_legacy(folder))["aicpu"] is not None


@pytest.mark.parametrize(
    "relative",
    [RUN2, "mindspore_legacy/cluster_propose", "ascend_pytorch/level1/rank0_ascend_pt",
     "torch_cpu/small"],
)  # fmt: skip
def test_inputs_without_the_file_have_no_section(relative: str) -> None:
    base = shared(relative)
    if base.name.endswith("_ascend_pt") or "mindspore_legacy" in relative:
        path = base
    else:
        path = next(base.glob("*.pt.trace.json"))
    assert build_report(read_trace(path))["dynamic_shape"] is None


def test_other_ranks_of_the_fixtures_have_none() -> None:
    assert _section(shared(FIXTURES), 10) is None
