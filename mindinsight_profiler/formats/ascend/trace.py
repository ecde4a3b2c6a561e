"""Decode the Ascend export's `trace_view.json` into model columns.

The file is a bare JSON array of Chrome-trace events whose `ts` (and sometimes `dur`) are
JSON strings. It is streamed in chunks like a Kineto trace; `ts`/`dur` are kept as raw text
and parsed exactly to int64 ns. What an event is depends on the process that holds it
(named by `M` events that may come anywhere in the array), so kinds are decided after all
chunks are read:

- `Python` process: `cpu_op` -> CPU_OP (ProfilerStep#N included), `python_function` ->
  PYTHON_FUNCTION, task-queue `enqueue`/`dequeue` ranges -> OTHER;
- `CANN` process: AscendCL / node launch / HCCL host API calls -> RUNTIME;
- `Ascend Hardware` streams: tasks by `Task Type` (see `task_kind`);
- `HCCL`: collective ops (`hcom_*`, carrying `connection_id`) -> KERNEL, their per-link
  plane tasks -> OTHER;
- `Overlap Analysis`: the tool's own computing/communication/free intervals, returned as a
  side table, not as events; counter (`C`) events are not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import numpy as np
from msgspec import Raw

from mindinsight_profiler.formats import phases, utf8
from mindinsight_profiler.formats.event_times import BadTimes, judge, times_from_text
from mindinsight_profiler.formats.numbers import as_int
from mindinsight_profiler.model.kinds import Kind, kind_of_category

_EMPTY = Raw(b"")

#: Hardware task types that copy memory, that synchronise streams, and that do nothing.
COPY_TASKS = frozenset({"PCIE_DMA_SQE", "SDMA_SQE", "SDMA", "MEMCPY_ASYNC"})
SYNC_TASKS = frozenset(
    {"EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "Notify Wait", "Notify Record", "Write Value"}
)
IDLE_TASKS = frozenset({"PLACE_HOLDER_SQE"})


class _Args(msgspec.Struct, frozen=True, gc=False):
    """The `args` keys the model uses; all others are skipped unparsed."""

    connection_id: int | str = -1
    task_type: str = msgspec.field(default="", name="Task Type")
    stream: int | str = msgspec.field(default=-1, name="Physic Stream Id")
    input_dims: Raw = msgspec.field(default=_EMPTY, name="Input Dims")
    input_types: Raw = msgspec.field(default=_EMPTY, name="Input type")
    call_stack: Raw = msgspec.field(default=_EMPTY, name="Call stack")
    name: str = ""  # metadata events: process_name / thread_name
    labels: str = ""  # metadata events: process_labels


_NO_ARGS = _Args()


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = _EMPTY  # a JSON string ("1736...410.320") or number, parsed exactly; empty: absent
    dur: Raw = _EMPTY
    id: int | str | None = None
    args: _Args = _NO_ARGS


EVENTS_DECODER = msgspec.json.Decoder(list[_Event])


@dataclass
class Decoded:
    """The events of one chunk, sorted by phase (kept as structs: chunks are small)."""

    ranges: list[_Event] = field(default_factory=list)
    flows: list[_Event] = field(default_factory=list)
    metadata: list[_Event] = field(default_factory=list)
    begin_end: list[_Event] = field(default_factory=list)  # paired once all are read
    #: parsed times (ns) of `ranges` ("ts", "dur") and of `flows` ("flow_ts"), set by `usable`
    times: dict[str, np.ndarray] = field(default_factory=dict)
    count: int = 0
    unknown_phase: int = 0  # events whose `ph` is none of the format's
    invalid_utf8: int = 0  # byte sequences that were not UTF-8, read as U+FFFD


def decode_chunk(data: bytes | memoryview) -> Decoded:
    """Decode a JSON array of events, keeping complete, flow and metadata events."""
    out = Decoded()
    try:
        events: list[_Event] = EVENTS_DECODER.decode(data)
    except UnicodeDecodeError:
        fixed, out.invalid_utf8 = utf8.repaired(data)
        events = EVENTS_DECODER.decode(fixed)
    out.count = len(events)
    out.unknown_phase = phases.unknown([e.ph for e in events])
    for e in events:
        if e.ph == "X":
            out.ranges.append(e)
        elif e.ph in ("s", "f", "t"):
            out.flows.append(e)
        elif e.ph == "M":
            out.metadata.append(e)
        elif e.ph in ("B", "E"):
            out.begin_end.append(e)
    return out


def _times(events: list[_Event], attr: str) -> tuple[np.ndarray, np.ndarray]:
    raws = [bytes(getattr(e, attr)) for e in events]
    return times_from_text(raws, duration=attr == "dur", quoted=True)


def usable(
    events: list[_Event], attrs: tuple[str, ...]
) -> tuple[list[_Event], dict[str, np.ndarray], BadTimes]:
    """The events whose times `attrs` ("ts", "dur") are usable, those times in exact ns
    (given in microseconds, as numbers or strings), and the other events counted."""
    parsed = {a: _times(events, a) for a in attrs}

    def describe(i: int, what: str) -> str:
        value = bytes(getattr(events[i], what))[:40].decode("utf-8", "replace")
        return f" (name {events[i].name[:80]!r}, {what} {value})"

    keep, bad = judge({a: problem for a, (_, problem) in parsed.items()}, describe)
    bad.first_index = -1  # positions among the X events would mislead
    times = {a: ns for a, (ns, _) in parsed.items()}
    if not bad.total:
        return events, times, bad
    kept = [e for e, k in zip(events, keep.tolist(), strict=True) if k]
    return kept, {a: ns[keep] for a, ns in times.items()}, bad


def with_begin_end(decoded: Decoded) -> int:
    """Add the ranges of matched `B`/`E` pairs to `decoded.ranges`; how many were unmatched."""
    pairs, unmatched = phases.paired(decoded.begin_end)
    decoded.ranges += [
        msgspec.structs.replace(b, ph="X", dur=Raw(phases.us_text(ns))) for b, ns in pairs
    ]
    decoded.begin_end = []
    return unmatched


def _clean_text(raw: Raw) -> tuple[str, int]:
    """A string argument with the export's `;\\r\\n` separators made plain `;`, and how many
    byte sequences that are not UTF-8 it held (read as U+FFFD: raw texts were not checked when
    the chunk was read)."""
    b = bytes(raw)
    if not b:
        return "", 0
    replaced = 0
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        b, replaced = utf8.repaired(b)
    value = msgspec.json.decode(b) if b[:1] == b'"' else b.decode("utf-8")
    return str(value).replace("\r\n", "").replace("\n", ""), replaced


@dataclass(frozen=True)
class Processes:
    """Process and thread names from the metadata events."""

    process: dict[str, str]
    labels: dict[str, str]
    thread: dict[tuple[str, str], str]

    @staticmethod
    def of(metadata: list[_Event]) -> Processes:
        process: dict[str, str] = {}
        labels: dict[str, str] = {}
        thread: dict[tuple[str, str], str] = {}
        for e in metadata:
            pid, tid = str(e.pid), str(e.tid)
            if e.name == "process_name":
                process[pid] = e.args.name
            elif e.name == "process_labels":
                labels[pid] = e.args.labels
            elif e.name == "thread_name":
                thread[(pid, tid)] = e.args.name
        return Processes(process, labels, thread)


def task_kind(task_type: str, name: str) -> Kind:
    """Kind of an `Ascend Hardware` task from its task type (and name for copies)."""
    if task_type in COPY_TASKS or name == "MEMCPY_ASYNC":
        return Kind.MEMCPY
    if task_type in SYNC_TASKS:
        return Kind.SYNC
    if task_type in IDLE_TASKS:
        return Kind.OTHER
    return Kind.KERNEL


def kinds(events: list[_Event], procs: Processes) -> tuple[np.ndarray, np.ndarray]:
    """(kind, is an `Overlap Analysis` interval) of every complete event (see module doc)."""
    n = len(events)
    kind = np.zeros(n, dtype=np.uint8)
    overlap = np.zeros(n, dtype=bool)
    hccl_ops = {
        as_int(e.args.connection_id)
        for e in events
        if procs.process.get(str(e.pid)) == "HCCL" and as_int(e.args.connection_id) >= 0
    }
    for i, e in enumerate(events):
        role = procs.process.get(str(e.pid), "")
        if e.cat:
            kind[i] = kind_of_category(e.cat)
        elif role == "CANN":
            kind[i] = Kind.RUNTIME
        elif role == "Ascend Hardware":
            conn = as_int(e.args.connection_id)
            if conn >= 0 and conn in hccl_ops and e.args.task_type not in ("AI_CORE", "MIX_AIV"):
                kind[i] = Kind.OTHER  # hardware steps of a collective; the HCCL op counts
            else:
                kind[i] = task_kind(e.args.task_type, e.name)
        elif role == "HCCL":
            kind[i] = Kind.KERNEL if as_int(e.args.connection_id) >= 0 else Kind.OTHER
        elif role == "Overlap Analysis":
            overlap[i] = True
    return kind, overlap


def text_columns(
    events: list[_Event], rows: np.ndarray, intern: Any
) -> tuple[dict[str, np.ndarray], int]:
    """`input_dims`, `input_types` and `call_stack` codes for the event indices `rows`
    (others -1), and how many byte sequences that are not UTF-8 were read as U+FFFD."""
    out = {}
    replaced = 0
    for col in ("input_dims", "input_types", "call_stack"):
        codes = np.full(len(events), -1, dtype=np.int32)
        for i in rows.tolist():
            text, bad = _clean_text(getattr(events[i].args, col))
            replaced += bad
            if text:
                codes[i] = intern(text)
        out[col] = codes
    return out, replaced
