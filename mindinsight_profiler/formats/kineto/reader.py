"""Reader for PyTorch/Kineto traces (`*.pt.trace.json[.gz]`, 2021 and 2.x schemas).

Reads the document as a stream of event chunks, decodes each chunk into a column batch and
folds it into the trace's columns at once (memory follows the model, not the JSON text),
then fills the derived links.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import jsonstream, notices, phases, utf8
from mindinsight_profiler.formats.chunked import ChunkError, iter_decoded
from mindinsight_profiler.formats.event_times import settle
from mindinsight_profiler.formats.kineto import meta as kineto_meta
from mindinsight_profiler.formats.kineto.decode import complete_batch, decode_batch
from mindinsight_profiler.formats.kineto.merge import ColumnMerger
from mindinsight_profiler.formats.side_files import TOO_DEEP, decode_json
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.links import build_links
from mindinsight_profiler.model.trace import Trace, Track
from mindinsight_profiler.util.heap import release_free_memory
from mindinsight_profiler.util.spill import spill

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
        doc = decode_json(path, text)
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid JSON outside traceEvents: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(path, "not a trace: the document is not a JSON object")
    return {_META_KEYS.get(str(k), str(k)): v for k, v in doc.items() if k != "traceEvents"}


_VALIDATION_PATH = re.compile(r"`\$\[(\d+)\]")
_BYTE_POSITION = re.compile(r"\(byte (\d+)\)")


def _document_error(path: Path, exc: ChunkError, events_before: int, bare: bool) -> InputError:
    """The error of a chunk, with positions counted in the whole document, as if it had
    been decoded whole (event index in `traceEvents`, byte offset of the decompressed text)."""
    error = exc.error
    if isinstance(error, RecursionError):
        return InputError(path, f"{TOO_DEEP} (in the events from byte {exc.offset})")
    if isinstance(error, OverflowError):
        return InputError(path, f"a number does not fit 64 bits: {error}")
    if isinstance(error, msgspec.ValidationError):
        prefix = "$" if bare else "$.traceEvents"
        text = _VALIDATION_PATH.sub(
            lambda m: f"`{prefix}[{events_before + int(m.group(1))}]", str(error)
        )
        return InputError(path, f"not a valid Kineto trace: {text}")
    if isinstance(error, msgspec.DecodeError):
        # Chunk positions count from the "[" put before its events.
        text = _BYTE_POSITION.sub(
            lambda m: f"(byte {exc.offset + int(m.group(1)) - 1})", str(error)
        )
        return InputError(path, f"invalid JSON: {text}")
    raise error


def _read_columns(
    path: Path, progress: jsonstream.ProgressFn | None
) -> tuple[ColumnMerger, dict[str, Any]]:
    """Stream the events through the typed decoder into merged columns, and the metadata."""
    meta: dict[str, Any] = {}
    bare = [False]

    def on_piece(piece: jsonstream.Piece) -> None:
        if piece.kind == "whole":
            meta.update(_decode_meta(path, piece.data))
            raise InputError(path, "not a trace: no traceEvents array")
        if piece.kind == "head":
            bare[0] = not piece.data.strip()
            if piece.data:
                meta.update(_decode_meta(path, piece.data + b'"traceEvents": []}'))
        elif piece.kind == "tail" and piece.data:
            meta.update(_decode_meta(path, b'{"traceEvents": []' + piece.data))

    merger = ColumnMerger()
    batches = iter_decoded(path, decode_batch, on_piece, progress)
    with contextlib.closing(batches):
        try:
            for batch in batches:
                merger.add(batch)
        except ChunkError as exc:
            raise _document_error(path, exc, merger.count, bare[0]) from None
    return merger, meta


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


@notices.collected
def read_kineto(path: str | Path, progress: jsonstream.ProgressFn | None = None) -> Trace:
    """Read one Kineto trace file into the normalised model (links included)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    if path.stat().st_size == 0:
        raise InputError(path, "the file is empty")
    merger, meta = _read_columns(path, progress)
    if merger.invalid_utf8:
        notices.warn(path, utf8.replaced_warning(merger.invalid_utf8))
    if merger.begin_end:
        pairs, unmatched = phases.paired(merger.begin_end)
        merger.begin_end = []
        if pairs:
            merger.add(complete_batch(pairs))
        if unmatched:
            notices.warn(path, phases.unmatched_warning(unmatched))
    settle(path, merger.bad_times, merger.timed)
    if merger.unknown_phase:
        notices.warn(path, phases.unknown_warning(merger.unknown_phase))
    for name, n in sorted(merger.out_of_range.items()):
        notices.warn(path, f"{n} value(s) of args {name!r} out of range read as absent")
    events, memory, flows = merger.columns()
    if len(events["start_ns"]) == 0 and len(memory["ts_ns"]) == 0:
        raise InputError(path, "the trace holds no events")
    meta = kineto_meta.checked(path, meta)
    meta.update(
        {
            "format": FormatTag.KINETO,
            "framework": "pytorch",
            "source": path.name,
            "event_count": merger.count,
        }
    )
    tracks = _tracks(merger.tracks, merger.metadata, events)
    trace = Trace(events, memory, flows, merger.strings, tracks, meta)
    build_links(trace)
    if merger.spilled:  # a trace of gigabytes: its link columns join the others in files
        for col in ("parent", "caller"):
            trace.events[col] = spill(trace.events[col])
    release_free_memory()
    return trace
