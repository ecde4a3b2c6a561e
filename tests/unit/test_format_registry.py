"""The format registry: every tag has one spec, and the reader dispatch, the report's
framework and the cache key follow the spec rather than comparing format strings."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mindinsight_profiler.analysis.report import framework
from mindinsight_profiler.formats import registry
from mindinsight_profiler.formats.detect import TAGS, read_trace
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.keys import cache_variant
from tests.tracegen import op, write_trace


def test_every_tag_has_exactly_one_spec() -> None:
    assert sorted(TAGS) == sorted(FormatTag)
    assert all(registry.spec_of(tag).tag is tag for tag in FormatTag)  # type: ignore[union-attr]
    assert registry.spec_of("no-such-format") is None


def test_frameworks_come_from_the_specs() -> None:
    assert [framework(t) for t in FormatTag] == ["pytorch", "pytorch", "mindspore", "mindspore"]
    assert framework(None) == "unknown"


def test_read_trace_calls_the_registered_reader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[tuple[Path, str]] = []

    def fake(path: Path, worker: str, progress: object) -> Trace:
        calls.append((path, worker))
        raise RuntimeError("read by the registered reader")

    spec = dataclasses.replace(registry.spec_of("mindspore2"), read=fake)  # type: ignore[type-var]
    others = [s for s in registry.FORMATS if s.tag != FormatTag.MINDSPORE2]
    monkeypatch.setattr(registry, "FORMATS", (*others, spec))
    with pytest.raises(RuntimeError, match="registered reader"):
        read_trace(tmp_path, "mindspore2", "w0")
    assert calls == [(tmp_path, "w0")]


def test_the_cache_key_names_the_worker_only_where_a_folder_holds_several() -> None:
    assert cache_variant("mindspore_legacy", "rank3") == "rank3"
    assert cache_variant("kineto", "worker0") == ""
    assert cache_variant("ascend_pt", "rank1") == ""


def _toy_reader(path: Path, worker: str, progress: object) -> Trace:
    """A toy format: `<worker>_toy/` folders holding a Kineto trace as `events.json`."""
    return read_kineto(path / "events.json", None)


def test_a_new_format_is_one_spec_registered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Discovery, the reader dispatch and the cache key follow a registered spec alone."""
    toy = FormatSpec(
        "toy",  # type: ignore[arg-type]  # a real format adds a FormatTag member too
        "pytorch",
        _toy_reader,
        detect=lambda tree, rel: tree.name(rel).endswith("_toy"),
        workers=lambda tree, rel: [(tree.name(rel).removesuffix("_toy"), rel)],
    )
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, toy))
    (tmp_path / "run" / "node7_toy").mkdir(parents=True)
    write_trace(tmp_path / "run" / "node7_toy" / "events.json", [op("aten::mm", 0, 10)])
    (run,) = discover(tmp_path)
    (file,) = run.files
    assert (file.worker, file.format, file.path.name) == ("node7", "toy", "node7_toy")
    trace = read_trace(file.path, file.format, file.worker)
    assert trace.strings.to_list().count("aten::mm") == 1
    assert framework("toy") == "pytorch" and cache_variant("toy", "node7") == ""
