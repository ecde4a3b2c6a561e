"""Streaming a trace gives the answers of a whole-document decode, whatever the cuts.

Cuts that fall inside an event (an args list of objects holds the `}, {"` boundary pattern)
are joined back, a tail with brackets of its own is cut where the events really end, errors
name the same event and byte as a whole-document decode, and a helper process that dies is
taken over by the parent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import chunked, jsonstream
from mindinsight_profiler.formats.kineto.decode import decode_batch
from mindinsight_profiler.formats.kineto.events import Event as _Event
from mindinsight_profiler.formats.kineto.reader import read_kineto
from tests.tracegen import assert_same_trace, op


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 97)
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 300)


def _nested(n: int) -> list[dict]:
    # args "shapes" is a list of objects: `}, {"` inside an event tempts the chunker.
    return [
        op(f"op{i}", i * 10, 5, ext=i + 1, shapes=[{"a": i}, {"b": [i, {"c": i}]}, {"d": i}])
        for i in range(n)
    ]


def _false_cuts(path: Path) -> int:
    """How many chunks end inside an event (fail to decode on their own)."""
    count = 0
    for piece in jsonstream.iter_pieces(path):
        if piece.kind == "events":
            try:
                decode_batch(piece.data)  # events pieces come framed as a JSON array
            except msgspec.DecodeError:
                count += 1
    return count


@pytest.mark.parametrize("processes", ["1", "3"])
def test_cuts_inside_events_are_joined(
    tmp_path: Path, small_chunks: None, monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", processes)
    events = _nested(120)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}, indent=1))
    assert _false_cuts(path) > 5  # the test tempts what it means to test
    trace = read_kineto(path)
    assert [trace.strings[c] for c in trace.events["name"].tolist()] == [e["name"] for e in events]
    assert trace.events["ext_id"].tolist() == [e["args"]["External id"] for e in events]
    assert trace.meta["event_count"] == len(events)


@pytest.mark.parametrize("chunks", ["small", "default"])
def test_tail_with_brackets_is_cut_where_the_events_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: str
) -> None:
    if chunks == "small":
        monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 97)
        monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 300)
    events = _nested(40)
    doc = {
        "traceEvents": events,
        "deviceProperties": [{"id": 0, "name": "A]}"}, {"id": 1}],
        "traceName": "x], y",
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    trace = read_kineto(path)
    assert len(trace) == len(events)
    assert trace.meta["device_properties"] == doc["deviceProperties"]
    assert trace.meta["trace_name"] == doc["traceName"]


class _Whole(msgspec.Struct):
    traceEvents: list[_Event]


def _whole_error(data: bytes) -> str:
    """The error of decoding the document whole (the old reader's answer)."""
    with pytest.raises(msgspec.DecodeError) as info:
        msgspec.json.decode(data, type=_Whole)
    return str(info.value)


BAD_EVENT = {
    "wrong_type": ('"dur": 5', '"dur": "x"'),
    "nan": ('"dur": 5', '"dur": NaN'),
    "syntax": ('"dur": 5', '"dur": 5 5'),
    "args_type": ('"External id": 58', '"External id": 58, "device": []'),
}


@pytest.mark.parametrize("bad", sorted(BAD_EVENT))
def test_errors_name_the_place_in_the_whole_document(
    tmp_path: Path, small_chunks: None, bad: str
) -> None:
    events = [json.dumps(e) for e in _nested(80)]
    old, new = BAD_EVENT[bad]
    assert old in events[57]
    events[57] = events[57].replace(old, new)
    data = ('{"traceEvents": [\n' + ",\n".join(events) + "\n]}").encode()
    path = tmp_path / "t.json"
    path.write_bytes(data)
    expected = _whole_error(data)
    assert "traceEvents[57]" in expected or "(byte " in expected
    with pytest.raises(InputError) as info:
        read_kineto(path)
    assert expected in str(info.value)


_CRASH_ENV = "MI_TEST_PARENT_PID"


def _decode_or_die(data: bytes) -> list[str]:
    """Names of a chunk; a helper process (not the parent) dies on the chunk with `crash`."""
    if os.getpid() != int(os.environ[_CRASH_ENV]) and b'"crash"' in data:
        os._exit(3)
    return [e.name for e in msgspec.json.decode(data, type=list[_Event])]


def test_a_dead_helper_is_taken_over(
    tmp_path: Path, small_chunks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_CRASH_ENV, str(os.getpid()))
    events = [op("crash" if i == 31 else f"op{i}", i, 1) for i in range(200)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}, indent=1))
    names = [n for chunk in chunked.decode_chunks(path, _decode_or_die, lambda p: None, None, 3)
             for n in chunk]  # fmt: skip
    assert names == [e["name"] for e in events]


def test_parallel_equals_single_on_nested_events(
    tmp_path: Path, small_chunks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": _nested(300)}))
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "1")
    one = read_kineto(path)
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "4")
    four = read_kineto(path)
    assert_same_trace(one, four)
