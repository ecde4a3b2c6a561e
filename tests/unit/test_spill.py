"""Spilled columns (`util.spill`, the Kineto merger's spill mode): the same values as on the
heap, no file left behind, and the same report from a trace read either way."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np
import pytest

from mindinsight_profiler.advisor import advise_report
from mindinsight_profiler.advisor.facts.registry import Context
from mindinsight_profiler.analysis.timeline.index import build_timeline_index
from mindinsight_profiler.cli.main import main as cli_main
from mindinsight_profiler.errors import ResourceError
from mindinsight_profiler.formats.kineto import merge
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.pipeline.advice import report_for
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.columns import is_mapped
from mindinsight_profiler.util import spill as spill_module
from mindinsight_profiler.util.spill import SpillFile, spill, spill_large
from tests.conftest import shared

TRACES = (
    "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
)


@pytest.fixture(autouse=True)
def spill_into(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "spill"
    folder.mkdir()
    monkeypatch.setenv(spill_module.SPILL_DIR_ENV, str(folder))
    return folder


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float64"])
def test_spill_keeps_values_and_leaves_no_file(dtype: str, spill_into: Path) -> None:
    values = (np.arange(-500, 70_000) % 120).astype(dtype)
    out = spill(values)
    assert out.dtype == values.dtype and np.array_equal(out, values)
    assert is_mapped(out) and not is_mapped(values)
    assert list(spill_into.iterdir()) == []  # unlinked from the start


def test_spilled_array_is_copy_on_write() -> None:
    out = spill(np.arange(10, dtype=np.int64))
    out[3] = -7  # a private page: allowed, and only this array sees it
    assert out[3] == -7
    again = spill(np.arange(10, dtype=np.int64))
    assert again[3] == 3


def test_spill_file_appends_fills_and_casts() -> None:
    out = SpillFile("int32")
    out.append(np.array([1, 2, 3], dtype=np.int64))  # cast to the file's dtype
    out.fill(-1, 5)
    out.append(np.array([], dtype=np.int32))
    out.append(np.array([9], dtype=np.int16))
    arr = out.array()
    assert arr.dtype == np.int32
    assert arr.tolist() == [1, 2, 3, -1, -1, -1, -1, -1, 9]
    with pytest.raises(ValueError, match="already mapped"):
        out.append(np.array([1]))
    with pytest.raises(ValueError, match="already mapped"):
        out.array()


def test_empty_and_odd_shapes() -> None:
    assert spill(np.empty(0, np.int64)).shape == (0,)
    square = np.ones((3, 3))
    assert spill(square) is square  # only columns are spilled
    empty = SpillFile("float64")
    assert empty.array().shape == (0,)


def _same_tables(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        assert np.array_equal(a[name], b[name], equal_nan=a[name].dtype.kind == "f"), name


@pytest.mark.parametrize("relative", TRACES)
@pytest.mark.parametrize("after_bytes", [0, 1 << 20])  # from the first batch; part-way
def test_spilled_read_equals_heap_read(
    relative: str, after_bytes: int, monkeypatch: pytest.MonkeyPatch, spill_into: Path
) -> None:
    path = shared(relative)
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "1")
    heap = read_kineto(path)
    monkeypatch.setattr(merge, "SPILL_AFTER_BYTES", after_bytes)
    spilled = read_kineto(path)
    for table in ("events", "memory", "flows"):
        _same_tables(getattr(heap, table), getattr(spilled, table))
    assert all(is_mapped(col) for col in spilled.events.values())
    assert not any(is_mapped(col) for col in heap.events.values())
    assert spilled.strings.to_list() == heap.strings.to_list() and spilled.tracks == heap.tracks
    assert list(spill_into.iterdir()) == []


def test_spilled_trace_gives_the_same_report(monkeypatch: pytest.MonkeyPatch) -> None:
    path = shared(TRACES[0])
    heap, _ = analyse_file(path)
    monkeypatch.setattr(merge, "SPILL_AFTER_BYTES", 0)
    spilled, _ = analyse_file(path)
    assert msgspec.json.encode(spilled) == msgspec.json.encode(heap)


def test_default_threshold_is_large() -> None:
    """Traces of the sizes most users have stay on the heap (no disk writes, no page
    faults): the default spills from 512 MB of columns, a trace of several GB of JSON."""
    if "MINDINSIGHT_SPILL_MB" in os.environ:
        pytest.skip("MINDINSIGHT_SPILL_MB is set in this environment")
    assert merge.SPILL_AFTER_BYTES == 512 << 20


def test_spill_large_moves_only_large_arrays() -> None:
    @dataclass
    class Pair:
        big: np.ndarray
        small: np.ndarray
        label: str

    big, small = np.arange(1000, dtype=np.int64), np.arange(3)
    got = spill_large(Pair(big, small, "x"), min_bytes=1000)
    assert is_mapped(got.big) and np.array_equal(got.big, big)
    assert got.small is small and got.label == "x"
    as_dict = spill_large({"big": big, "n": 3}, min_bytes=1000)
    assert is_mapped(as_dict["big"]) and as_dict["n"] == 3
    assert is_mapped(spill_large(big, min_bytes=1000))
    assert spill_large(small, min_bytes=1000) is small
    assert spill_large([big], min_bytes=1000)[0] is big  # lists are left alone


@pytest.fixture
def cached(tmp_path: Path) -> tuple[Path, Workspace]:
    path = shared(TRACES[0])
    ws = Workspace(tmp_path / "ws")
    analyse_file(path, ws)
    return path, ws


def test_memo_of_a_mapped_trace_spills_and_advice_is_unchanged(
    cached: tuple[Path, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ws = cached
    report = report_for(analyse_file(path, ws)[0], "", None)
    before = advise_report(report, lambda: load_trace(path, ws))
    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 1)  # every array of the memo
    ctx = Context(report, lambda: load_trace(path, ws))
    ctx.memo["early"] = {"values": np.arange(10)}  # no trace loaded yet: kept as it is
    assert ctx.trace is not None and is_mapped(ctx.trace.start_ns)
    ctx.memo["late"] = {"values": np.arange(10)}
    assert not is_mapped(ctx.memo["early"]["values"]) and is_mapped(ctx.memo["late"]["values"])
    after = advise_report(report, lambda: load_trace(path, ws))
    assert msgspec.to_builtins(after) == msgspec.to_builtins(before)


def test_timeline_index_of_a_mapped_trace_is_spilled_and_unchanged(
    cached: tuple[Path, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ws = cached
    heap = build_timeline_index(read_kineto(path))
    monkeypatch.setattr(spill_module, "SPILL_MIN_BYTES", 1)
    mapped = build_timeline_index(load_trace(path, ws))
    assert is_mapped(mapped["timeline_events"]["event"])
    assert is_mapped(mapped["timeline_summary"]["key"])
    assert not is_mapped(heap["timeline_events"]["event"])
    for table in heap:
        _same_tables(heap[table], mapped[table])


@pytest.mark.parametrize(
    ("text", "expected_mb"), [("", 512), ("0", 0), ("1.5", 1.5), ("abc", 512), ("-3", 512)]
)
def test_spill_threshold_from_the_environment(
    text: str, expected_mb: float, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(spill_module.SPILL_MB_ENV, text)
    assert spill_module.spill_after_bytes(default_mb=512) == int(expected_mb * 2**20)
    assert ("not a number" in caplog.text) == (text in ("abc", "-3"))


def test_a_folder_that_cannot_take_spill_files_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv(spill_module.SPILL_DIR_ENV, str(missing))
    with pytest.raises(ResourceError, match=f"{missing}.*MINDINSIGHT_SPILL_DIR"):
        spill(np.arange(10))


def test_the_cli_reports_unwritable_spill_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(spill_module.SPILL_DIR_ENV, str(tmp_path / "missing"))
    monkeypatch.setattr(merge, "SPILL_AFTER_BYTES", 0)
    status = cli_main(["analyse", str(shared(TRACES[0])), "--no-cache"])
    err = capsys.readouterr().err
    assert status == 1 and err.startswith("mindinsight: error: cannot write a spill file")
    assert "internal error" not in err and "Traceback" not in err
