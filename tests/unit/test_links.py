"""Nesting and launch links of the model, on hand-made traces."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.trace import Trace
from tests.tracegen import kernel, op, runtime, write_trace


def _by_name(trace: Trace) -> dict[str, int]:
    return {trace.strings[c]: i for i, c in enumerate(trace.events["name"].tolist())}


def test_parent_by_containment_per_thread(tmp_path: Path) -> None:
    events = [
        op("outer", 0, 100),
        op("inner", 10, 20),
        op("leaf", 10, 5),
        op("zero_at_end", 30, 0),  # at inner's end: belongs to outer, not inner
        op("sibling", 40, 10),
        op("other_thread", 15, 5, tid=2),
        op("overlaps", 45, 10),  # crosses sibling's end: nearest range covering it is outer
    ]
    t = read_kineto(write_trace(tmp_path / "t.json", events))
    ix = _by_name(t)
    parent = {n: t.events["parent"][i] for n, i in ix.items()}
    assert parent["outer"] == -1
    assert parent["inner"] == ix["outer"]
    assert parent["leaf"] == ix["inner"]
    assert parent["zero_at_end"] == ix["outer"]
    assert parent["sibling"] == ix["outer"]
    assert parent["other_thread"] == -1
    assert parent["overlaps"] == ix["outer"]


def test_identical_ranges_nest_in_file_order(tmp_path: Path) -> None:
    t = read_kineto(write_trace(tmp_path / "t.json", [op("a", 0, 10), op("b", 0, 10)]))
    ix = _by_name(t)
    assert t.events["parent"][ix["b"]] == ix["a"]


def test_runtime_links_by_external_id_and_falls_back_to_containment(tmp_path: Path) -> None:
    events = [
        op("aten::mm", 0, 50, ext=7),
        runtime("cudaLaunchKernel", 10, 5, corr=100, ext=7),
        # External id equal to the correlation id, pointing at no operator (HTA data has this)
        op("aten::add", 60, 30, ext=8),
        runtime("cudaLaunchKernel", 70, 5, corr=101, ext=101),
        kernel("gemm", 20, 40, corr=100),
        kernel("add_kernel", 80, 10, corr=101),
        kernel("orphan", 95, 1, corr=999),
    ]
    t = read_kineto(write_trace(tmp_path / "t.json", events))
    ix = _by_name(t)
    caller = t.events["caller"]
    runtimes = [
        i for i, n in enumerate(t.events["name"].tolist()) if t.strings[n] == "cudaLaunchKernel"
    ]
    assert caller[runtimes[0]] == ix["aten::mm"]
    assert caller[runtimes[1]] == ix["aten::add"]
    assert caller[ix["gemm"]] == runtimes[0]
    assert caller[ix["add_kernel"]] == runtimes[1]
    assert caller[ix["orphan"]] == -1


def test_external_id_of_an_operator_on_another_thread_is_not_trusted(tmp_path: Path) -> None:
    events = [
        op("wrong", 0, 100, ext=5, tid=2),
        op("right", 0, 100, ext=6, tid=1),
        runtime("cudaLaunchKernel", 10, 5, corr=1, ext=5, tid=1),
    ]
    t = read_kineto(write_trace(tmp_path / "t.json", events))
    ix = _by_name(t)
    assert t.events["caller"][ix["cudaLaunchKernel"]] == ix["right"]
