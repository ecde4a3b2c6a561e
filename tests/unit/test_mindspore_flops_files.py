"""Damaged MindSpore FLOPs files are warnings, never crashes: the file is skipped and named,
or its bad lines are left out and counted; the rest of the run loads.

Each case writes a good `flops_summary_0.json` beside the damaged file, so the run still
reads and `mindspore_flops` still answers (with the summary). The last test runs the fuzz
engine's mutation classes (`tests/fuzz/mutate.py`) over both files, a few seeds each.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mindinsight_profiler.analysis.perf.mindspore_flops import mindspore_flops
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.mindspore import cluster_files as cf
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from mindinsight_profiler.model.trace import Trace
from tests.fuzz.mutate import CLASSES, EVENT_ONLY, mutate

SUMMARY = '{"FLOPs": 12.5, "FLOPS": 3.0, "FLOPS_Utilization": 1.5}'
HEADER = "op_full_name, MFLOPs(10^6), GFLOPS(10^9), FLOPS utilization(%)\n"
GOOD_LINE = "Default/MatMul-op1, 12.5, 3.0, 1.5\n"
SCOPE = {
    "data": {
        "nodes": [{"name": "Total"}, {"name": "Default"}],
        "links": [{"source": "Total", "target": "Default", "value": 12.5}],
    },
    "max_scope_num": 1,
}

#: (file, text, the reason the skip names)
BAD_FILES = {
    "ops_empty": ("flops_0.txt", "", "empty"),
    "ops_header_only": ("flops_0.txt", HEADER, "no operator line"),
    "ops_no_name_column": ("flops_0.txt", "MFLOPs, GFLOPS\n1, 2\n", "operator name"),
    "ops_unknown_column": ("flops_0.txt", "op_name, MFLOPs, speed\na, 1, 2\n", "'speed'"),
    "ops_twice": ("flops_0.txt", "op_name, MFLOPs, FLOPs\na, 1, 2\n", "twice"),
    "ops_mixed": ("flops_0.txt", "op_name, MFLOPs, MFLOPs(cube), MFLOPs(vec)\n", "mixes"),
    "ops_half_split": ("flops_0.txt", "op_name, MFLOPs(cube), GFLOPS(vec)\na, 1, 2\n", "both"),
    "ops_rate_only": ("flops_0.txt", "op_name, GFLOPS\na, 1\n", "no MFLOPs"),
    "ops_all_lines_bad": ("flops_0.txt", HEADER + "a, x, 1, 1\n", "no operator line"),
    "ops_not_text": ("flops_0.txt", "\x00\x01\x02" * 40, "operator name: ['\\x00\\x01"),
    "scope_truncated": ("flops_scope_0.json", json.dumps(SCOPE)[:40], "invalid JSON"),
    "scope_a_list": ("flops_scope_0.json", "[1, 2]", "not a FLOPs sankey"),
    "scope_no_links": ("flops_scope_0.json", '{"data": {"nodes": []}}', "not a FLOPs sankey"),
    "scope_no_depth": ("flops_scope_0.json", json.dumps({"data": SCOPE["data"]}), "max_scope"),
    "scope_bool_depth": (
        "flops_scope_0.json",
        json.dumps({**SCOPE, "max_scope_num": True}),
        "max_scope_num",
    ),
    "scope_no_node": (
        "flops_scope_0.json",
        json.dumps({"data": {"nodes": [{"id": 1}], "links": []}, "max_scope_num": 1}),
        "no scope nodes",
    ),
}


def _read(folder: Path, files: dict[str, str]) -> Trace:
    folder.mkdir(exist_ok=True)
    (folder / "flops_summary_0.json").write_text(SUMMARY)
    for name, text in files.items():
        (folder / name).write_text(text)
    return read_mindspore_legacy(folder, 0)


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_skipped_and_named(tmp_path: Path, case: str) -> None:
    name, text, reason = BAD_FILES[case]
    trace = _read(tmp_path / "p", {name: text})
    skipped = [s for s in trace.meta["skipped_files"] if name in s]
    assert len(skipped) == 1 and reason in skipped[0], trace.meta["skipped_files"]
    assert any(name in w and "skipped" in w for w in trace.meta["warnings"])
    got = mindspore_flops(trace)
    assert got is not None and got.summary is not None and got.summary.mflops == 12.5
    if name == "flops_0.txt":
        assert got.layout is None and got.ops == [] and "mindspore_flops" not in trace.tables
    else:
        assert got.scope is None and "flops_scope" not in trace.meta


def test_bad_lines_are_left_out_and_counted(tmp_path: Path) -> None:
    bad = [
        "Default/A-op2, nan, 1, 1",
        "Default/A-op3, -1, 1, 1",
        "Default/A-op4, 1e999, 1, 1",
        "Default/A-op5, 1, inf, 1",
        "Default/A-op6, abc, 1, 1",
        "Default/A-op7, 1, 1",  # a cell short
        "Default/A-op8, 1, 1, 1, 1",  # a cell too many
        ", 1, 1, 1",  # no name
        "Default/A-op9, , 1, 1",  # MindInsight skips these too
        "Default/A-op10, 1e300, 1, 1",  # beyond any count: sums would not stay finite
    ]
    text = HEADER + GOOD_LINE + "\n".join(bad) + "\n"
    trace = _read(tmp_path / "p", {"flops_0.txt": text})
    assert trace.meta["skipped_files"] == []
    assert any(w.startswith(f"flops_0.txt: {len(bad)} lines") for w in trace.meta["warnings"])
    got = mindspore_flops(trace)
    assert got is not None
    assert [op.name for op in got.ops] == ["Default/MatMul-op1"] and got.line_count == 1


def test_bad_scope_entries_are_left_out_and_counted(tmp_path: Path) -> None:
    data: dict[str, Any] = json.loads(json.dumps(SCOPE["data"]))
    data["nodes"] += [{"name": "Default"}, {"name": ""}, "Gradients"]  # repeated, empty, no object
    data["links"] += [
        {"source": "Total", "target": "Gradients", "value": 1.0},  # no such node
        {"source": "Total", "target": "Default", "value": "12"},  # a text
        {"source": "Total", "target": "Default", "value": True},
        {"source": "Total", "target": "Default", "value": -1},
        {"source": "Total", "target": "Default"},
        [],
    ]
    doc = json.dumps({"data": data, "max_scope_num": 1})
    trace = _read(tmp_path / "p", {"flops_scope_0.json": doc})
    assert any(w.startswith("flops_scope_0.json: 9 scope nodes") for w in trace.meta["warnings"])
    got = mindspore_flops(trace)
    assert got is not None and got.scope is not None
    assert [n.name for n in got.scope.nodes] == ["Total", "Default"]
    assert [(k.source, k.target, k.value) for k in got.scope.links] == [("Total", "Default", 12.5)]


def test_summary_parts_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "flops_summary_0.json"
    path.write_text('{"cube_FLOPs": 1e308, "vec_FLOPs": 1e308, "cube_FLOPS": 1, "vec_FLOPS": 1}')
    with pytest.raises(InputError, match="out of range"):
        cf.read_flops_summary_parts(path)
    path.write_text('{"FLOPs": 2, "FLOPS": 1, "cube_FLOPs": -1}')
    with pytest.raises(InputError, match="cube FLOPs is negative"):
        cf.read_flops_summary_parts(path)
    path.write_text('{"FLOPs": 2, "FLOPS": 1, "cube_FLOPs": 1.5}')
    summary, parts = cf.read_flops_summary_parts(path)
    assert summary == {"flops": 2.0, "flops_per_second": 1.0, "utilization": None}
    assert parts == {
        "cube_flops": 1.5,
        "vector_flops": None,
        "cube_flops_per_second": None,
        "vector_flops_per_second": None,
    }


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [float(value)] if isinstance(value, int | float) else []


@pytest.mark.parametrize("cls", [c for c in CLASSES if c not in EVENT_ONLY])
def test_mutated_files_never_crash_the_read(tmp_path: Path, cls: str) -> None:
    """Every mutation class of the fuzz engine, 4 seeds, on each FLOPs file: the read gives
    a trace (the summary is intact), and every figure is a finite number from 0 up."""
    good = {"flops_0.txt": HEADER + GOOD_LINE * 3, "flops_scope_0.json": json.dumps(SCOPE)}
    for seed in range(4):
        for name in good:
            rng = random.Random(f"mindspore-flops-{cls}-{name}-{seed}")
            mutant = mutate(good[name].encode(), name, cls, rng)
            folder = tmp_path / f"{name}-{seed}"
            folder.mkdir()
            (folder / name).write_bytes(mutant.data)
            trace = _read(folder, {n: t for n, t in good.items() if n != name})
            got = mindspore_flops(trace)
            assert got is not None and got.summary is not None, mutant.detail
            numbers = _numbers(msgspec.to_builtins(got))
            assert all(math.isfinite(n) and n >= 0 for n in numbers), mutant.detail
