"""Typed decoding of Kineto trace events into numpy column batches: the Python path.

`decode_batch` hands each chunk to the native scanner first (`kineto.native`), which gives
the same batch several times faster or declines the chunk; this module is the reference
that reads what it declines.

msgspec decodes each chunk of events into small structs (`kineto.events`); one pass per
column then builds numpy arrays, each a C-level `map` chain over the structs (a Python loop
or a list per column would cost more than the decoding itself). Strings are interned per
batch (`kineto.interner`) and remapped to the trace's table when batches are merged, so a
batch can be built in another process.
"""

from __future__ import annotations

from operator import attrgetter
from typing import cast

import msgspec
import numpy as np

from mindinsight_profiler.formats import phases, utf8
from mindinsight_profiler.formats.event_times import (
    BadTimes,
    durations_from_us,
    judge,
    number_text,
    times_from_int_us,
    times_from_text,
)
from mindinsight_profiler.formats.kineto import native
from mindinsight_profiler.formats.kineto.batch import (
    DEVICE_ARGS,
    MEMORY_ARGS,
    RANGES,
    Batch,
    in_range,
)
from mindinsight_profiler.formats.kineto.events import Args, Event, decode_events
from mindinsight_profiler.formats.kineto.interner import Interner
from mindinsight_profiler.formats.numbers import as_int
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, kind_of_category


def _ts_ns(events: list[Event]) -> tuple[np.ndarray, np.ndarray]:
    """(ns, problem code) of the events' `ts`: JSON integers (2021 traces) at once, texts
    parsed exactly (`event_times`)."""
    ts = list(map(_TS, events))
    types = set(map(type, ts))
    if types == {int}:
        return times_from_int_us(ts)
    if types <= {bytes}:
        return times_from_text(ts)
    return times_from_text(list(map(number_text, ts)))  # mixed (joined B/E pairs), or Raw


def _describe(e: Event, what: str) -> str:
    value = number_text(e.ts)[:40].decode("utf-8", "replace") if what == "ts" else repr(e.dur)
    return f" (name {e.name[:80]!r}, {what} {value})"


def _table_of(e: Event) -> str:
    """Which table `build_batch` puts an event in."""
    if e.ph in ("i", "I"):
        return "memory" if e.name == "[memory]" else "complete"
    return {"X": "complete", "s": "flows", "f": "flows", "t": "flows"}.get(e.ph, "")


def _kept(
    cols: dict[str, np.ndarray], problems: dict[str, np.ndarray], events: list[Event],
    decoded: list[Event], table: str,
) -> tuple[dict[str, np.ndarray], BadTimes]:  # fmt: skip
    """The columns without the rows whose times are unusable, and those rows counted (the
    first by its position among `decoded`, found only when there is one)."""
    keep, bad = judge(problems, lambda i, what: _describe(events[i], what))
    if bad.total:
        positions = [i for i, e in enumerate(decoded) if _table_of(e) == table]
        bad.first_index = positions[bad.first_index]
        cols = {k: v[keep] for k, v in cols.items()}
    return cols, bad


def _ids(args: list[Args], attr: str) -> np.ndarray:
    """Id args as int64; ids beyond int64 keep their low 63 bits (they are only compared)."""
    get = attrgetter(attr)
    try:
        return np.fromiter(map(get, args), np.int64, len(args))
    except OverflowError:
        return np.fromiter(map(as_int, map(get, args)), np.int64, len(args))


def _ranged(args: list[Args], attr: str, dtype: str, out_of_range: dict[str, int]) -> np.ndarray:
    """A numeric arg within its range (`batch.in_range`), others read as absent and counted."""
    lo, hi = RANGES[attr]
    values = [as_int(a.stream) for a in args] if attr == "stream" else _attrs(args, attr)
    floating = np.dtype(dtype).kind == "f"
    try:
        arr = np.fromiter(values, np.float64 if floating else np.int64, len(values))
    except OverflowError:  # an int beyond int64: out of range whatever its sign
        clamped = (min(max(v, lo - 1), hi + 1) for v in values)
        arr = np.fromiter(clamped, np.int64, len(values))
    return in_range(arr, attr, dtype, out_of_range)


def _attrs(events: list, attr: str) -> list:
    return list(map(attrgetter(attr), events))


_TS = attrgetter("ts")
_CAT = attrgetter("cat")
_PH = attrgetter("ph")
_NAME = attrgetter("name")
_PID_TID = attrgetter("pid", "tid")


def _track_codes(events: list[Event], tracks: Interner) -> np.ndarray:
    return tracks.codes(map(_PID_TID, events), len(events))


def _complete_columns(
    events: list[Event],
    instant: np.ndarray,
    strings: Interner,
    tracks: Interner,
    out_of_range: dict[str, int],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(columns, time problems) of `X` events (and non-memory instants, marked by `instant`,
    which last no time whatever their `dur`)."""
    n = len(events)
    cat = strings.codes(map(_CAT, events), n)
    kind_of_code = np.array(
        [int(kind_of_category(s)) for s in strings.strings()[0]] or [0], dtype=np.uint8
    )
    kind = kind_of_code[cat]
    kind[instant] = Kind.INSTANT
    start, ts_problem = _ts_ns(events)
    dur = np.fromiter(map(attrgetter("dur"), events), dtype=np.float64, count=n)
    dur[instant] = 0.0
    dur_ns, dur_problem = durations_from_us(dur)
    args = _attrs(events, "args")
    ext = _ids(args, "ext_id")
    ext_lc = _ids(args, "ext_id_lc")
    cols: dict[str, np.ndarray] = {
        "start_ns": start,
        "end_ns": start + dur_ns,
        "kind": kind,
        "name": strings.codes(map(_NAME, events), n),
        "cat": cat,
        "track": _track_codes(events, tracks),
        # 2021 kernels/runtimes spell it "external id"; both mean the launching operator.
        "ext_id": np.where(ext >= 0, ext, ext_lc),
        "corr": _ids(args, "corr"),
    }
    dev = np.flatnonzero(np.isin(kind, [int(k) for k in DEVICE_KINDS]))
    dargs = list(map(args.__getitem__, dev.tolist()))
    for col, attr, dtype, fill in DEVICE_ARGS:
        full = np.full(n, fill, dtype=dtype)
        full[dev] = _ranged(dargs, attr, dtype, out_of_range)
        cols[col] = full
    op_rows = np.flatnonzero(np.isin(kind, [int(k) for k in OP_TREE_KINDS]))
    op_args = list(map(args.__getitem__, op_rows.tolist()))
    for col, attr, rows, of in (
        ("grid", "grid", dev, dargs),
        ("block", "block", dev, dargs),
        ("input_dims", "input_dims", op_rows, op_args),
        ("input_types", "input_types", op_rows, op_args),
        ("concrete_inputs", "concrete_inputs", op_rows, op_args),
        ("call_stack", "call_stack", op_rows, op_args),
    ):
        full = np.full(n, -1, dtype=np.int32)
        full[rows] = strings.raw_codes(of, attr)
        cols[col] = full
    cols["comm_msg"] = _comm_msg(args, strings)
    return cols, {"ts": ts_problem, "dur": dur_problem}


def _comm_msg(args: list[Args], strings: Interner) -> np.ndarray:
    """String codes of `[nelems, dtype, group size]` (raw JSON texts) of the events whose
    args give a collective's message size; -1 elsewhere."""
    full = np.full(len(args), -1, dtype=np.int32)
    sized = np.fromiter(map(len, map(attrgetter("msg_nelems"), args)), np.int64, len(args))
    rows = np.flatnonzero(sized > 0)
    if len(rows):
        texts = [
            b"[%s,%s,%s]" % (bytes(a.msg_nelems), bytes(a.msg_dtype) or b"null",
                             bytes(a.group_size) or b"null")
            for a in map(args.__getitem__, rows.tolist())
        ]  # fmt: skip
        full[rows] = strings.codes(texts)
    return full


def _memory_columns(
    events: list[Event], tracks: Interner, out_of_range: dict[str, int]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    args = _attrs(events, "args")
    ts, problem = _ts_ns(events)
    cols = {"ts_ns": ts, "track": _track_codes(events, tracks), "addr": _ids(args, "addr")}
    for col, attr, dtype in MEMORY_ARGS:
        cols[col] = _ranged(args, attr, dtype, out_of_range)
    return cols, {"ts": problem}


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
    events: list[Event], strings: Interner, tracks: Interner
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    n = len(events)
    ids = _attrs(events, "id")
    try:  # Kineto's flow ids are ints; other writers may use strings ("0x1f")
        flow_id = np.fromiter(ids, np.int64, n)
    except (TypeError, ValueError, OverflowError):
        flow_id = np.fromiter(map(_flow_id, ids), np.int64, n)
    ts, problem = _ts_ns(events)
    return {
        "ts_ns": ts,
        "track": _track_codes(events, tracks),
        "flow_id": flow_id,
        "phase": np.fromiter(map(ord, map(_PH, events)), np.uint8, n),
        "cat": strings.codes(map(_CAT, events), n),
    }, {"ts": problem}


def complete_batch(pairs: list[tuple[Event, int]]) -> Batch:
    """The batch of the ranges that matched `B`/`E` pairs make (`(B event, duration ns)`)."""
    events = [msgspec.structs.replace(b, ph="X", dur=ns / 1000.0) for b, ns in pairs]
    batch = build_batch(events)
    batch.count = 0  # not events of the file: positions of later events stay right
    return batch


def decode_batch(data: bytes | memoryview) -> Batch:
    """Decode a JSON array of trace events into a column batch.

    Raises msgspec errors for malformed JSON or wrongly typed fields. Bytes that are not
    UTF-8 are read as U+FFFD and counted. The native scanner reads the chunk when it can
    (`kineto.native`: the same batch, several times faster); this is the reference path.
    """
    batch = native.scan_batch(data)
    if batch is not None:
        return batch
    try:
        decoded = decode_events(data)
        replaced = 0
    except UnicodeDecodeError:
        fixed, replaced = utf8.repaired(data)
        decoded = decode_events(fixed)
    batch = build_batch(decoded)
    batch.invalid_utf8 += replaced
    return batch


def build_batch(decoded: list[Event]) -> Batch:
    """Sort events by phase and build the columns of each table; events whose times are
    unusable are left out and counted (`event_times`)."""
    complete: list[Event] = []
    instant_flags: list[bool] = []
    memory: list[Event] = []
    flows: list[Event] = []
    metadata: list[tuple[str, str, str, str]] = []
    begin_end: list[Event] = []
    unknown = 0
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
        elif ph in ("B", "E"):
            begin_end.append(e)
        elif ph not in phases.KNOWN:
            unknown += 1
    strings = Interner()
    tracks = Interner()
    bad = BadTimes()
    out_of_range: dict[str, int] = {}
    tables = []
    for table, evs, (cols, problems) in (
        ("complete", complete, _complete_columns(
            complete, np.array(instant_flags, dtype=bool), strings, tracks, out_of_range
        )),
        ("memory", memory, _memory_columns(memory, tracks, out_of_range)),
        ("flows", flows, _flow_columns(flows, strings, tracks)),
    ):  # fmt: skip
        cols, table_bad = _kept(cols, problems, evs, decoded, table)
        bad.add(table_bad)
        tables.append(cols)
    table_strings, replaced = strings.strings()
    return Batch(
        events=tables[0],
        memory=tables[1],
        flows=tables[2],
        strings=table_strings,
        invalid_utf8=replaced,
        tracks=[(str(p), str(t)) for p, t in cast(list[tuple[object, object]], tracks.keys)],
        metadata=metadata,
        begin_end=begin_end,
        count=len(decoded),
        bad_times=bad,
        out_of_range=out_of_range,
        timed=len(complete) + len(memory) + len(flows),
        unknown_phase=unknown,
    )
