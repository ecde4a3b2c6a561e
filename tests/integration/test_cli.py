"""The `mindinsight analyse` command as a user runs it, and the workspace cache behind it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.columns import is_mapped
from tests.conftest import shared
from tests.integration.cli import run_cli

RUN = "kineto/resnet50_num_workers_0"
BREAKDOWN_KEYS = {
    "kernel",
    "memcpy",
    "memset",
    "communication",
    "runtime",
    "dataloader",
    "cpu_exec",
    "other",
}


def test_json_contract(workspace: Path) -> None:
    r = run_cli("analyse", shared(RUN), "--format", "json", "--top", "5", "--workspace", workspace)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["steps"]["count"] == 6 and len(doc["steps"]["durations_us"]) == 6
    assert doc["steps"]["average_us"] == pytest.approx(177592, abs=1)
    assert set(doc["breakdown_us"]) == BREAKDOWN_KEYS
    assert doc["gpu"]["utilization"] == pytest.approx(55.51, abs=0.01)
    assert len(doc["operators"]) == 5 and len(doc["kernels"]) == 5
    for key in (
        "name",
        "calls",
        "host_self_us",
        "host_total_us",
        "device_self_us",
        "device_total_us",
    ):
        assert key in doc["operators"][0]
    for key in ("name", "calls", "total_us", "mean_us", "min_us", "max_us"):
        assert key in doc["kernels"][0]
    assert doc["worker"] == "worker0" and doc["span"] == "1623143089861"
    # Issue-4 sections: present on every report, null where the input has no such data.
    for key in ("step_trace", "op_types", "data_pipeline", "memory", "communication"):
        assert key in doc
    assert doc["communication"] is None  # a single GPU, no collectives
    assert doc["step_trace"]["fp_point"]["name"] == "aten::conv2d"
    assert doc["data_pipeline"]["data_wait"]["share"] == pytest.approx(0.3337, abs=0.005)
    assert doc["memory"]["devices"]


def test_table_output_and_span_selection(workspace: Path) -> None:
    r = run_cli(
        "analyse", shared(RUN), "--span", "1623143566756", "--top", "3", "--workspace", workspace
    )
    assert r.returncode == 0, r.stderr
    assert "Step time breakdown" in r.stdout and "GPU summary" in r.stdout
    assert "aten::cudnn_convolution_backward_weight" in r.stdout
    assert "worker0.1623143566756" in r.stdout
    assert "average of steps" not in r.stdout  # Kineto: every step


def test_table_says_mindspore_averages_leave_out_step_one(workspace: Path) -> None:
    cluster = shared("mindspore_legacy/cluster_propose")
    r = run_cli("analyse", cluster, "--worker", "rank2", "--workspace", workspace)
    assert r.returncode == 0, r.stderr
    assert "5 steps" in r.stdout and "average of steps 2-5 179.364ms" in r.stdout


def test_cpu_trace_has_no_gpu_section(workspace: Path) -> None:
    trace = shared("torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json")
    r = run_cli("analyse", trace, "--format", "json", "--workspace", workspace)
    doc = json.loads(r.stdout)
    assert doc["gpu"] is None and doc["steps"]["count"] == 5
    assert doc["breakdown_us"]["kernel"] == 0 and doc["breakdown_us"]["dataloader"] > 0


def test_cache_hit_change_and_corruption(tmp_path: Path) -> None:
    src = tmp_path / "run" / "worker0.1.pt.trace.json.gz"
    src.parent.mkdir()
    shutil.copy(shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz"), src)
    ws = Workspace(tmp_path / "ws")
    first, cached = analyse_file(src, ws)
    assert not cached
    again, cached = analyse_file(src, ws)
    assert cached and again == first  # read back typed from the cache's report.json
    assert list(src.parent.iterdir()) == [src]  # nothing written beside the user's data

    # A corrupt cache file is detected (checksum) and the entry rebuilt with the same result.
    entry = ws.entry(src)
    report_file = entry.dir / "report.json"
    report_file.write_bytes(report_file.read_bytes().replace(b"kernel", b"KERNEL", 1))
    rebuilt, cached = analyse_file(src, ws)
    assert not cached and rebuilt == again

    # A changed input gets a new entry: here, another trace under the same name.
    shutil.copy(shared("kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"), src)
    os.utime(src, ns=(1, 1))
    changed, cached = analyse_file(src, ws)
    assert not cached and changed.steps.average_us == pytest.approx(141068, abs=1)


def test_memory_mapped_reopen(tmp_path: Path) -> None:
    src = shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz")
    ws = Workspace(tmp_path / "ws")
    parsed = load_trace(src, ws)
    reopened = load_trace(src, ws)
    assert is_mapped(reopened.events["start_ns"])
    assert reopened.strings.to_list() == parsed.strings.to_list()
    for col in parsed.events:
        assert np.array_equal(reopened.events[col], parsed.events[col], equal_nan=True), col


def test_unusable_workspace_still_analyses(tmp_path: Path) -> None:
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the workspace folder should be")
    src = shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz")
    report, cached = analyse_file(src, Workspace(blocker / "ws"))
    assert not cached and report.steps.count == 6


def test_side_tables_survive_the_cache(tmp_path: Path) -> None:
    from mindinsight_profiler.formats.kineto.reader import read_kineto
    from mindinsight_profiler.store.cache import CacheEntry

    trace = read_kineto(shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz"))
    trace.tables["queue"] = {"step": np.arange(3), "depth": np.array([0.5, 1.0, 2.0])}
    entry = CacheEntry(tmp_path / "cache", "k")
    entry.save(trace, {})
    reopened = entry.load_trace()
    assert reopened is not None
    assert np.array_equal(reopened.tables["queue"]["depth"], [0.5, 1.0, 2.0])


def test_folder_of_traces_with_plain_json_names(workspace: Path) -> None:
    # HTA's data names traces `*.json.gz`, not `*.pt.trace.json.gz`.
    r = run_cli(
        "analyse", shared("hta/nccl_parser_config"), "--format", "json", "--workspace", workspace
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["breakdown_us"]["communication"] > 0


@pytest.mark.parametrize(
    "run",
    [
        "ascend_pytorch/level1",
        "mindspore_cpu/new_api_pynative",
        "mindspore_legacy/run_2/normal_run",
    ],
)
def test_every_format_through_the_cli(run: str, workspace: Path) -> None:
    for fmt in ("table", "json"):
        r = run_cli("analyse", shared(run), "--format", fmt, "--top", "5", "--workspace", workspace)
        assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc["breakdown_us"]) == BREAKDOWN_KEYS and doc["steps"]["count"] >= 1
    types = doc["op_types"]["types"]
    assert types and sum(t["percent"] for t in types) == pytest.approx(100.0)


def test_report_of_an_older_version_is_rebuilt(tmp_path: Path) -> None:
    src = shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz")
    ws = Workspace(tmp_path / "ws")
    analyse_file(src, ws)
    report_file = ws.entry(src).dir / "report.json"
    old = json.loads(report_file.read_text())
    old["report_version"] = 0
    old.pop("op_types")
    ws.entry(src).save(load_trace(src, ws), {"report": json.dumps(old).encode()})
    report, cached = analyse_file(src, ws)
    assert not cached and report.op_types is not None
    assert analyse_file(src, ws)[1]  # and the rebuilt report is cached again


@pytest.mark.parametrize(
    "change",
    [
        {"report_version": 0},  # an older version of the same shape
        {"steps": {"count": "six"}},  # a value of the wrong type
        {"surprise": 1},  # a key the contract does not declare
    ],
)
def test_cached_report_off_the_contract_is_rebuilt(tmp_path: Path, change: dict[str, Any]) -> None:
    src = shared(f"{RUN}/worker0.1623143089861.pt.trace.json.gz")
    ws = Workspace(tmp_path / "ws")
    first, _ = analyse_file(src, ws)
    old = json.loads((ws.entry(src).dir / "report.json").read_text())
    ws.entry(src).save(load_trace(src, ws), {"report": json.dumps({**old, **change}).encode()})
    report, cached = analyse_file(src, ws)
    assert not cached and report == first


def test_input_shapes_are_lists_in_json_and_one_line_in_tables(workspace: Path) -> None:
    """`--group-by name_input`: JSON rows carry the shapes as lists (not the trace's raw
    text), the table prints them compactly, one row per line."""
    run = shared(RUN)
    r = run_cli("analyse", run, "--format", "json", "--group-by", "name_input", "--top", "5",
                "--workspace", workspace)  # fmt: skip
    assert r.returncode == 0, r.stderr
    shapes = [o["input_shape"] for o in json.loads(r.stdout)["operators"]]
    assert all(isinstance(s, list) for s in shapes) and any(s for s in shapes)
    assert all(isinstance(d, int) for s in shapes for shape in s for d in shape)
    r = run_cli("analyse", run, "--group-by", "name_input", "--top", "5", "--workspace", workspace)
    lines = r.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "Input Shapes" in line)
    rows = lines[header + 2 : header + 7]
    assert len(rows) == 5 and all(row.startswith("aten::") for row in rows)
    assert "[32,256,56,56]" in r.stdout and "[]" not in r.stdout


def test_shape_text_from_any_layout() -> None:
    from mindinsight_profiler.analysis.operators.shapes import compact_shape, shape_list

    pretty = "[\n  [32, 64],\n  [],\n  [[2, 3], [2, 3]]\n]"  # as an indented trace holds it
    assert shape_list(pretty) == [[32, 64], [], [[2, 3], [2, 3]]]
    assert compact_shape(shape_list(pretty)) == "[32,64] [[2,3],[2,3]]"
    assert shape_list("") == [] and shape_list("2,3;2,3") == ["2,3;2,3"]
    assert compact_shape([[], []]) == "-"
