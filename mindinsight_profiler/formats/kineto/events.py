"""The structs msgspec decodes Kineto trace events into, and the decoders.

The structs name only the fields the analyses use (unknown keys are skipped in C). The
fast decoder reads `ts` without a `msgspec.Raw` per event (ints as ints, float literals as
their text); a chunk with any other `ts` is decoded again exactly, so both give the same.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Any, cast

import msgspec
from msgspec import Raw

_EMPTY = Raw(b"")


class Args(msgspec.Struct, frozen=True, gc=False):
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
    # a collective's message (NCCL kernels, record_param_comms): kept raw, read leniently
    msg_nelems: Raw = msgspec.field(default=_EMPTY, name="In msg nelems")
    msg_dtype: Raw = msgspec.field(default=_EMPTY, name="dtype")
    group_size: Raw = msgspec.field(default=_EMPTY, name="Group size")
    addr: int = msgspec.field(default=-1, name="Addr")
    nbytes: int = msgspec.field(default=0, name="Bytes")
    total_allocated: int = msgspec.field(default=-1, name="Total Allocated")
    total_reserved: int = msgspec.field(default=-1, name="Total Reserved")
    device_type: int = msgspec.field(default=-1, name="Device Type")
    device_id: int = msgspec.field(default=-1, name="Device Id")
    name: str = ""  # metadata events: process_name / thread_name
    labels: str = ""  # metadata events: process_labels


NO_ARGS = Args()
#: The `args` names as traces write them, by field.
ARG_NAMES = {f.name: f.encode_name for f in msgspec.structs.fields(Args)}


class Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = _EMPTY  # raw text: parsed exactly to ns; empty when the event has none
    dur: float = math.nan  # NaN: absent (JSON has no NaN literal)
    id: int | str | None = None
    args: Args = NO_ARGS


#: The exact decoder: every `ts` kept as its raw JSON text.
EXACT_DECODER = msgspec.json.Decoder(list[Event])


class FastEvent(Event, gc=False):
    """`Event` whose `ts` is an int (a JSON integer: exact) or the text of a JSON float
    (`float_hook` hands it over as it is written: exact too), without a `Raw` per event;
    absent: `b""`. Any other value (a string, null, ...) makes its chunk decode again
    exactly (`decode_events`), so the values and messages are those of `EXACT_DECODER`."""

    ts: Any = b""


FAST_DECODER = msgspec.json.Decoder(list[FastEvent], float_hook=str.encode)
_NUMBER_TYPES = frozenset({int, bytes})
_TS = attrgetter("ts")


def decode_events(data: bytes | memoryview) -> list[Event]:
    """The events of a JSON array (`FAST_DECODER`, or `EXACT_DECODER` for a chunk with an
    unusual `ts`); raises msgspec errors for malformed JSON or wrongly typed fields."""
    try:
        events = cast(list[Event], FAST_DECODER.decode(data))  # FastEvent is an Event
    except msgspec.ValidationError:  # reported, with its path, by the exact decoder
        return EXACT_DECODER.decode(data)
    if set(map(type, map(_TS, events))) <= _NUMBER_TYPES:
        return events
    return EXACT_DECODER.decode(data)
