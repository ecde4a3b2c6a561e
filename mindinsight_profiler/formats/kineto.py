"""Reader for PyTorch/Kineto traces (`*.pt.trace.json[.gz]`, 2021 and 2.x schemas).

Reads the document as a stream of event chunks (bounded memory), decodes each chunk into
column batches, merges the batches into one `Trace`, and fills the derived links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import jsonstream
from mindinsight_profiler.formats.chunked import decode_chunks
from mindinsight_profiler.formats.kineto_decode import (
    DOCUMENT_DECODER,
    EVENTS_DECODER,
    Batch,
    TimestampError,
    build_batch,
    decode_batch,
)
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.links import build_links
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    FLOW_COLUMNS,
    MEMORY_COLUMNS,
    Trace,
    Track,
    empty_columns,
)

#: A document that fails chunked decoding is re-read whole, for an exact error, up to this size.
WHOLE_DOCUMENT_LIMIT = 1 << 30
_META_KEYS = {
    "schemaVersion": "source_schema_version",
    "deviceProperties": "device_properties",
    "distributedInfo": "distributed_info",
    "traceName": "trace_name",
    "baseTimeNanoseconds": "base_time_ns",
    "displayTimeUnit": "display_time_unit",
    "Framework": "framework_name",
}


def _decode_meta(path: Path, text: bytes) -> dict[str, Any]:
    try:
        doc = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON outside traceEvents: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(path, "not a trace: the document is not a JSON object")
    return {_META_KEYS.get(str(k), str(k)): v for k, v in doc.items() if k != "traceEvents"}


class _Meta(msgspec.Struct):
    """Top-level keys of a trace document (decoding skips `traceEvents` without parsing it)."""

    schemaVersion: Any = None
    deviceProperties: Any = None
    distributedInfo: Any = None
    traceName: Any = None
    baseTimeNanoseconds: Any = None
    displayTimeUnit: Any = None
    Framework: Any = None


def _whole_meta(data: bytes) -> dict[str, Any]:
    if data.lstrip()[:1] != b"{":
        return {}
    meta = msgspec.json.decode(data, type=_Meta)
    return {_META_KEYS[f]: v for f in meta.__struct_fields__ if (v := getattr(meta, f)) is not None}


def _whole_document(path: Path, first_error: Exception) -> tuple[Batch, dict[str, Any]]:
    """Decode the document whole: either the chunked error was a false cut, or say exactly why."""
    data = jsonstream.read_whole(path, WHOLE_DOCUMENT_LIMIT)
    if data is None:
        raise InputError(path, f"invalid trace: {first_error}")
    try:
        if data.lstrip()[:1] == b"[":  # the bare-array form of the Chrome trace format
            events = EVENTS_DECODER.decode(data)
        else:
            events = DOCUMENT_DECODER.decode(data).traceEvents
    except msgspec.ValidationError as exc:
        raise InputError(path, f"not a valid Kineto trace: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}") from None
    return build_batch(events), _whole_meta(data)


def _read_batches(
    path: Path, progress: jsonstream.ProgressFn | None
) -> tuple[list[Batch], dict[str, Any]]:
    meta: dict[str, Any] = {}

    def on_piece(piece: jsonstream.Piece) -> None:
        if piece.kind == "whole":
            meta.update(_decode_meta(path, piece.data))
            raise InputError(path, "not a trace: no traceEvents array")
        if piece.kind == "head" and piece.data:
            meta.update(_decode_meta(path, piece.data + b'"traceEvents": []}'))
        elif piece.kind == "tail" and piece.data:
            meta.update(_decode_meta(path, b'{"traceEvents": []' + piece.data))

    try:
        try:
            return decode_chunks(path, decode_batch, on_piece, progress), meta
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            batch, whole_meta = _whole_document(path, exc)
            return [batch], {**meta, **whole_meta}
    except TimestampError as exc:
        raise InputError(path, exc.problem) from None
    except OverflowError as exc:
        raise InputError(path, f"a number does not fit 64 bits: {exc}") from None


def _merge(batches: list[Batch]) -> tuple[dict, dict, dict, StringTable, list, list]:
    """Concatenate batches, remapping their local string and track codes to global ones."""
    strings = StringTable()
    track_index: dict[tuple[str, str], int] = {}
    tables: dict[str, dict[str, list[np.ndarray]]] = {"events": {}, "memory": {}, "flows": {}}
    string_cols = {"name", "cat", "grid", "block", "input_dims", "input_types", "call_stack"}
    metadata: list[tuple[str, str, str, str]] = []
    for b in batches:
        smap = np.append(strings.merge(b.strings), np.int32(-1))  # code -1 stays -1
        tmap = np.array(
            [track_index.setdefault(t, len(track_index)) for t in b.tracks] + [-1], np.int32
        )
        for table_name, table in (("events", b.events), ("memory", b.memory), ("flows", b.flows)):
            out = tables[table_name]
            for col, values in table.items():
                if col in string_cols:
                    values = smap[values]
                elif col == "track":
                    values = tmap[values]
                out.setdefault(col, []).append(values)
        metadata.extend(b.metadata)
    merged = []
    for table_name, spec in (
        ("events", EVENT_COLUMNS),
        ("memory", MEMORY_COLUMNS),
        ("flows", FLOW_COLUMNS),
    ):
        parts = tables[table_name]
        n = sum(len(a) for a in parts.get(next(iter(spec)), []))
        cols = empty_columns(spec, n)
        for col, arrays in parts.items():
            cols[col] = np.concatenate(arrays).astype(spec[col][0], copy=False)
        merged.append(cols)
    tracks = list(track_index)
    return merged[0], merged[1], merged[2], strings, tracks, metadata


def _tracks(
    keys: list[tuple[str, str]],
    metadata: list[tuple[str, str, str, str]],
    events: dict[str, np.ndarray],
) -> list[Track]:
    process = {pid: v for pid, _, name, v in metadata if name == "process_name"}
    labels = {pid: v for pid, _, name, v in metadata if name == "process_labels"}
    thread = {(pid, tid): v for pid, tid, name, v in metadata if name == "thread_name"}
    device_tracks = set(np.unique(events["track"][is_kind(events["kind"], DEVICE_KINDS)]).tolist())
    out = []
    for i, (pid, tid) in enumerate(keys):
        pname = labels.get(pid) or process.get(pid, "")
        out.append(Track(pid, tid, pname, thread.get((pid, tid), ""), i in device_tracks))
    return out


def read_kineto(path: str | Path, progress: jsonstream.ProgressFn | None = None) -> Trace:
    """Read one Kineto trace file into the normalised model (links included)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    if path.stat().st_size == 0:
        raise InputError(path, "the file is empty")
    batches, meta = _read_batches(path, progress)
    events, memory, flows, strings, keys, metadata = _merge(batches)
    if len(events["start_ns"]) == 0 and len(memory["ts_ns"]) == 0:
        raise InputError(path, "the trace holds no events")
    meta.update(
        {
            "format": "kineto",
            "framework": "pytorch",
            "source": path.name,
            "event_count": sum(b.count for b in batches),
        }
    )
    trace = Trace(events, memory, flows, strings, _tracks(keys, metadata, events), meta)
    build_links(trace)
    return trace
