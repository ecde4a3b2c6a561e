"""The mutation engine: one seeded change to one profiler file, as damage or another writer
would make it.

Each mutation class is a function `(data, name, rng) -> (new bytes, what was done)`. JSON
files are changed as documents (decoded with exact numbers, re-encoded, raw texts such as
`NaN` or a 10,000-deep array spliced in where JSON values go), CSV and text files row by row,
so that most mutants are still well-formed and reach the readers' semantics rather than
their parsers; `truncate`, `byte_flip` and `invalid_utf8` work on the bytes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.fuzz import json_mutations, row_mutations
from tests.fuzz.values import INVALID_UTF8, file_type

#: Mutation classes, in the order cases cycle through them.
CLASSES = (
    "truncate",
    "byte_flip",
    "invalid_utf8",
    "number",
    "missing_field",
    "duplicate",
    "remove",
    "phase",
    "deep_nesting",
    "empty",
    "wrong_type",
)
#: Classes that only apply to files of trace events.
EVENT_ONLY = frozenset({"phase"})


@dataclass(frozen=True)
class Mutant:
    data: bytes
    cls: str
    detail: str


def truncate(data: bytes, name: str, rng: random.Random) -> tuple[bytes, str]:
    if len(data) < 2:
        return b"", "truncated to nothing"
    cut = rng.randrange(1, len(data)) if rng.random() < 0.7 else len(data) - rng.randrange(1, 64)
    cut = max(1, cut)
    return data[:cut], f"cut at byte {cut} of {len(data)}"


def byte_flip(data: bytes, name: str, rng: random.Random) -> tuple[bytes, str]:
    if not data:
        return b"\x00", "one zero byte"
    out = bytearray(data)
    n = rng.choice((1, 1, 2, 4, 16))
    where = []
    for _ in range(n):
        i = rng.randrange(len(out))
        if rng.random() < 0.7:
            out[i] ^= 1 << rng.randrange(8)
        else:
            out[i] = rng.randrange(256)
        where.append(i)
    return bytes(out), f"{n} byte(s) changed at {sorted(where)[:4]}"


_STRING_START = re.compile(rb':\s*"')
_NAME_START = re.compile(rb'"(?:name|cat|Name|Type|OP Type|op_type|op_name)"\s*:\s*"')


def invalid_utf8(data: bytes, name: str, rng: random.Random) -> tuple[bytes, str]:
    seq = rng.choice(INVALID_UTF8)
    if file_type(name) == "json":
        spots = [m.end() for m in _NAME_START.finditer(data)]
        if not spots or rng.random() < 0.3:
            spots = [m.end() for m in _STRING_START.finditer(data)]
    else:  # the start of a cell: after a separator, in a data row or the header
        spots = [i + 1 for i, b in enumerate(data) if b in b",\n\t "]
    at = rng.choice(spots) if spots else rng.randrange(len(data) + 1)
    return data[:at] + seq + data[at:], f"{seq!r} inserted at byte {at}"


def empty(data: bytes, name: str, rng: random.Random) -> tuple[bytes, str]:
    kind = file_type(name)
    choices = [b"", b" \n\n "]
    if kind == "json":
        choices += [b"[]", b"{}", b"null", b'{"traceEvents": []}', b"0"]
    elif kind == "csv":
        header = data.split(b"\n", 1)[0]
        choices += [header + b"\n", b"\r\n\r\n"]
    out = rng.choice(choices)
    return out, f"replaced by {out[:40]!r}"


_BYTES: dict[str, Callable[[bytes, str, random.Random], tuple[bytes, str]]] = {
    "truncate": truncate,
    "byte_flip": byte_flip,
    "invalid_utf8": invalid_utf8,
    "empty": empty,
}


def mutate(data: bytes, name: str, cls: str, rng: random.Random) -> Mutant:
    """Apply mutation class `cls` to the file `name` holding `data` (deterministic in `rng`)."""
    if cls in _BYTES:
        out, detail = _BYTES[cls](data, name, rng)
        return Mutant(out, cls, detail)
    if file_type(name) == "json":
        doc = json_mutations.Doc(data)
        detail = json_mutations.MUTATIONS[cls](doc, rng)
        return Mutant(doc.encode(), cls, detail)
    if cls in EVENT_ONLY:
        raise ValueError(f"{cls} mutations need a file of events, not {name}")
    rows = row_mutations.Rows(data, name)
    detail = row_mutations.MUTATIONS[cls](rows, rng)
    return Mutant(rows.encode(), cls, detail)
