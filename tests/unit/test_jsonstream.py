"""Chunked reading gives exactly the events of a whole-document read, however it is cut."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.formats import jsonstream
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.tracegen import assert_same_trace, op


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 97)
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 300)


def _events(n: int) -> list[dict]:
    # Names full of the boundary pattern, to tempt a wrong cut inside a string.
    return [op(f'op}},{{"x": {i}', i * 10, 5, ext=i + 1) for i in range(n)]


def _names(path: Path) -> list[str]:
    t = read_kineto(path)
    return [t.strings[c] for c in t.events["name"].tolist()]


@pytest.mark.parametrize("layout", ["indented", "compact", "bare_array", "tail_metadata"])
def test_chunked_equals_whole(tmp_path: Path, small_chunks: None, layout: str) -> None:
    events = _events(60)
    path = tmp_path / "t.json"
    if layout == "indented":
        path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}, indent=2))
    elif layout == "compact":
        path.write_text(json.dumps({"traceEvents": events}, separators=(",", ":")))
    elif layout == "bare_array":
        path.write_text(json.dumps(events))
    else:
        path.write_text(
            json.dumps({"traceEvents": events, "deviceProperties": [{"id": 0}], "traceName": "a]b"})
        )
    assert _names(path) == [e["name"] for e in events]
    if layout == "tail_metadata":
        assert read_kineto(path).meta["device_properties"] == [{"id": 0}]


def test_gzip_and_plain_agree(tmp_path: Path, small_chunks: None) -> None:
    doc = json.dumps({"traceEvents": _events(40)}, indent=1).encode()
    plain = tmp_path / "a.json"
    plain.write_bytes(doc)
    gz = tmp_path / "a.json.gz"
    gz.write_bytes(gzip.compress(doc))
    a, b = read_kineto(plain), read_kineto(gz)
    for col in ("start_ns", "end_ns", "name", "parent"):
        assert np.array_equal(a.events[col], b.events[col])


def test_parallel_read_is_identical(
    tmp_path: Path, small_chunks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": _events(200)}, indent=1))
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "1")
    one = read_kineto(path)
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "3")
    three = read_kineto(path)
    assert_same_trace(one, three)
