"""Typed decoding of Kineto trace events into numpy column batches.

msgspec decodes each chunk of events into small structs that name only the fields the
analyses use (unknown keys are skipped in C); one pass per column then builds numpy arrays.
Strings are interned per batch and remapped to the trace's table when batches are merged,
so a batch can be built in another process.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import cast

import msgspec
import numpy as np
from msgspec import Raw

from mindinsight_profiler.formats.numbers import NumberFormatError, as_int, us_text_to_ns
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, kind_of_category

_EMPTY = Raw(b"")
_ZERO = Raw(b"0")


class _Args(msgspec.Struct, frozen=True, gc=False):
    """The `args` keys any analysis reads; everything else in `args` is skipped unparsed."""

    ext_id: int = msgspec.field(default=-1, name="External id")
    ext_id_lc: int = msgspec.field(default=-1, name="external id")  # 2021 runtimes/kernels
    corr: int = msgspec.field(default=-1, name="correlation")
    device: int = -1
    stream: int | str = -1  # AMD runtimes write "0x0"
    grid: Raw = _EMPTY
    block: Raw = _EMPTY
    regs: int = msgspec.field(default=-1, name="registers per thread")
    smem: int = msgspec.field(default=-1, name="shared memory")
    blocks_per_sm: float = msgspec.field(default=math.nan, name="blocks per SM")
    occupancy: float = msgspec.field(default=math.nan, name="est. achieved occupancy %")
    input_dims: Raw = msgspec.field(default=_EMPTY, name="Input Dims")
    input_types: Raw = msgspec.field(default=_EMPTY, name="Input type")
    concrete_inputs: Raw = msgspec.field(default=_EMPTY, name="Concrete Inputs")
    call_stack: Raw = msgspec.field(default=_EMPTY, name="Call stack")
    addr: int = msgspec.field(default=-1, name="Addr")
    nbytes: int = msgspec.field(default=0, name="Bytes")
    total_allocated: int = msgspec.field(default=-1, name="Total Allocated")
    total_reserved: int = msgspec.field(default=-1, name="Total Reserved")
    device_type: int = msgspec.field(default=-1, name="Device Type")
    device_id: int = msgspec.field(default=-1, name="Device Id")
    name: str = ""  # metadata events: process_name / thread_name
    labels: str = ""  # metadata events: process_labels


_NO_ARGS = _Args()


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = _ZERO  # raw text: parsed exactly to ns by `us_text_to_ns`
    dur: float = 0.0
    id: int | str | None = None
    args: _Args = _NO_ARGS


EVENTS_DECODER = msgspec.json.Decoder(list[_Event])


class TimestampError(ValueError):
    """`ts` of event `index` (within its batch) is not a finite number."""

    def __init__(self, index: int, text: bytes) -> None:
        self.index = index
        self.problem = f"ts is not a number: {text[:40]!r}"
        super().__init__(f"event {index}: {self.problem}")


@dataclass
class Batch:
    """Columns of one chunk, with chunk-local string and track tables."""

    events: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    flows: dict[str, np.ndarray]
    strings: list[str]  # local string table (names, categories, launch shapes, stacks)
    tracks: list[tuple[str, str]]  # local (pid, tid) table
    metadata: list[tuple[str, str, str, str]] = field(default_factory=list)
    count: int = 0  # events decoded, of any phase


class _Interner:
    """Chunk-local interning of hashable values with no Python-level work per value.

    `dict.setdefault` driven by `map` runs in C: each new value gets the running counter as
    a provisional code, and one vectorised lookup then renumbers new values densely.
    """

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}
        self.keys: list[Hashable] = []  # keys[code] is the value of `code`
        self._counter = itertools.count()

    def codes(self, values: Sequence[Hashable]) -> np.ndarray:
        """Dense int32 codes of `values`, adding new values to the table."""
        index = self.index
        before = len(index)
        provisional = np.fromiter(
            map(index.setdefault, values, self._counter), dtype=np.int64, count=len(values)
        )
        if len(index) == before:  # only known values: their stored codes are dense already
            return provisional.astype(np.int32)
        new_keys = list(index)[before:]
        issued = np.fromiter(map(index.__getitem__, new_keys), np.int64, len(new_keys))
        dense = np.arange(len(self.keys), len(self.keys) + len(new_keys), dtype=np.int64)
        index.update(zip(new_keys, dense.tolist(), strict=True))
        self.keys.extend(new_keys)
        # Provisional codes are all >= every dense code, so they cannot be confused.
        order = np.argsort(issued)
        pos = np.clip(np.searchsorted(issued[order], provisional), 0, len(order) - 1)
        hit = issued[order][pos] == provisional
        return np.where(hit, dense[order][pos], provisional).astype(np.int32)

    def raw_codes(self, values: list[Raw]) -> np.ndarray:
        """Codes for raw JSON texts (an empty text, i.e. an absent field, gives -1)."""
        out = self.codes(list(map(bytes, values)))
        empty = self.index.get(b"")
        if empty is not None:
            out[out == empty] = -1
        return out

    def strings(self) -> list[str]:
        """The table as strings; raw JSON texts are decoded once each here."""
        return [_raw_text(k) if isinstance(k, bytes) else str(k) for k in self.keys]


def _raw_text(raw: bytes) -> str:
    """A JSON string becomes its value; any other JSON value keeps its compact text."""
    if raw[:1] == b'"':
        return str(msgspec.json.decode(raw))
    return raw.decode("utf-8", "replace")


def _ts_ns(events: list[_Event]) -> np.ndarray:
    try:
        return us_text_to_ns(list(map(bytes, map(_TS, events))))
    except NumberFormatError as exc:
        raise TimestampError(exc.index, exc.text) from None


def _ints(args: list[_Args], attr: str, dtype: str) -> np.ndarray:
    return np.fromiter(map(attrgetter(attr), args), dtype=dtype, count=len(args))


def _attrs(events: list, attr: str) -> list:
    return list(map(attrgetter(attr), events))


_TS = attrgetter("ts")
_PID_TID = attrgetter("pid", "tid")


def _track_codes(events: list[_Event], tracks: _Interner) -> np.ndarray:
    return tracks.codes(list(map(_PID_TID, events)))


def _complete_columns(
    events: list[_Event], instant: np.ndarray, strings: _Interner, tracks: _Interner
) -> dict[str, np.ndarray]:
    """Columns of `X` events (and non-memory instants, marked by `instant`)."""
    n = len(events)
    cat = strings.codes(_attrs(events, "cat"))
    kind_of_code = np.array(
        [int(kind_of_category(s)) for s in strings.strings()] or [0], dtype=np.uint8
    )
    kind = kind_of_code[cat]
    kind[instant] = Kind.INSTANT
    start = _ts_ns(events)
    dur = np.fromiter(map(attrgetter("dur"), events), dtype=np.float64, count=n)
    dur_ns = np.rint(np.maximum(dur, 0.0) * 1000.0).astype(np.int64)
    args = _attrs(events, "args")
    ext = _ints(args, "ext_id", "int64")
    ext_lc = _ints(args, "ext_id_lc", "int64")
    cols: dict[str, np.ndarray] = {
        "start_ns": start,
        "end_ns": start + dur_ns,
        "kind": kind,
        "name": strings.codes(_attrs(events, "name")),
        "cat": cat,
        "track": _track_codes(events, tracks),
        # 2021 kernels/runtimes spell it "external id"; both mean the launching operator.
        "ext_id": np.where(ext >= 0, ext, ext_lc),
        "corr": _ints(args, "corr", "int64"),
    }
    dev = np.flatnonzero(np.isin(kind, [int(k) for k in DEVICE_KINDS]))
    dargs = list(map(args.__getitem__, dev.tolist()))
    for col, attr, dtype, fill in (
        ("device", "device", "int16", -1),
        ("stream", "stream", "int32", -1),
        ("regs", "regs", "int32", -1),
        ("smem", "smem", "int32", -1),
        ("blocks_per_sm", "blocks_per_sm", "float64", np.nan),
        ("occupancy", "occupancy", "float64", np.nan),
    ):
        full = np.full(n, fill, dtype=dtype)
        if attr == "stream":
            full[dev] = np.fromiter((as_int(a.stream) for a in dargs), dtype, len(dargs))
        else:
            full[dev] = _ints(dargs, attr, dtype)
        cols[col] = full
    for col, attr, rows in (
        ("grid", "grid", dev),
        ("block", "block", dev),
        ("input_dims", "input_dims", None),
        ("input_types", "input_types", None),
        ("concrete_inputs", "concrete_inputs", None),
        ("call_stack", "call_stack", None),
    ):
        full = np.full(n, -1, dtype=np.int32)
        if rows is None:
            rows = np.flatnonzero(np.isin(kind, [int(k) for k in OP_TREE_KINDS]))
        full[rows] = strings.raw_codes(
            list(map(attrgetter(attr), map(args.__getitem__, rows.tolist())))
        )
        cols[col] = full
    return cols


def _memory_columns(events: list[_Event], tracks: _Interner) -> dict[str, np.ndarray]:
    args = _attrs(events, "args")
    return {
        "ts_ns": _ts_ns(events),
        "track": _track_codes(events, tracks),
        "addr": _ints(args, "addr", "int64"),
        "bytes": _ints(args, "nbytes", "int64"),
        "total_allocated": _ints(args, "total_allocated", "int64"),
        "total_reserved": _ints(args, "total_reserved", "int64"),
        "device_type": _ints(args, "device_type", "int8"),
        "device_id": _ints(args, "device_id", "int16"),
    }


def _flow_id(value: int | str | None) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            return hash(value) & 0x7FFFFFFFFFFFFFFF
    return -1


def _flow_columns(
    events: list[_Event], strings: _Interner, tracks: _Interner
) -> dict[str, np.ndarray]:
    n = len(events)
    ids = _attrs(events, "id")
    try:  # Kineto's flow ids are ints; other writers may use strings ("0x1f")
        flow_id = np.fromiter(ids, np.int64, n)
    except (TypeError, ValueError, OverflowError):
        flow_id = np.fromiter(map(_flow_id, ids), np.int64, n)
    return {
        "ts_ns": _ts_ns(events),
        "track": _track_codes(events, tracks),
        "flow_id": flow_id,
        "phase": np.fromiter(map(ord, _attrs(events, "ph")), np.uint8, n),
        "cat": strings.codes(_attrs(events, "cat")),
    }


def decode_batch(data: bytes | memoryview) -> Batch:
    """Decode a JSON array of trace events into a column batch.

    Raises msgspec errors for malformed JSON or wrongly typed fields, TimestampError for a
    `ts` that is not a number.
    """
    decoded: list[_Event] = EVENTS_DECODER.decode(data)
    return build_batch(decoded)


def build_batch(decoded: list[_Event]) -> Batch:
    """Sort events by phase and build the columns of each table."""
    complete: list[_Event] = []
    instant_flags: list[bool] = []
    memory: list[_Event] = []
    flows: list[_Event] = []
    metadata: list[tuple[str, str, str, str]] = []
    for e in decoded:
        ph = e.ph
        if ph == "X":
            complete.append(e)
            instant_flags.append(False)
        elif ph in ("i", "I"):
            if e.name == "[memory]":
                memory.append(e)
            else:
                complete.append(e)
                instant_flags.append(True)
        elif ph in ("s", "f", "t"):
            flows.append(e)
        elif ph == "M":
            metadata.append((str(e.pid), str(e.tid), e.name, e.args.name or e.args.labels))
    strings = _Interner()
    tracks = _Interner()
    events = _complete_columns(complete, np.array(instant_flags, dtype=bool), strings, tracks)
    return Batch(
        events=events,
        memory=_memory_columns(memory, tracks),
        flows=_flow_columns(flows, strings, tracks),
        strings=strings.strings(),
        tracks=[(str(p), str(t)) for p, t in cast(list[tuple[object, object]], tracks.keys)],
        metadata=metadata,
        count=len(decoded),
    )
