"""The mutation engine: one seeded change to one profiler file, as damage or another writer
would make it.

Each mutation class is a function `(data, name, rng) -> (new bytes, what was done)`. JSON
files are changed as documents (decoded with exact numbers, re-encoded, raw texts such as
`NaN` or a 10,000-deep array spliced in where JSON values go), CSV and text files row by row,
so that most mutants are still well-formed and reach the readers' semantics rather than
their parsers; `truncate`, `byte_flip` and `invalid_utf8` work on the bytes.
"""

from __future__ import annotations

import csv
import decimal
import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

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

#: Raw JSON texts a number may become: out of range, not finite, negative, of another type.
NUMBER_TEXTS = (
    "1e308", "-1e308", "1e999", "NaN", "Infinity", "-Infinity", "9.2e15", "9.3e15", "1e18",
    "9223372036854775807", "18446744073709551616", "-1", "-1000000", "0", "1.5e-300", "2.5",
    '"12"', '"abc"', '""', '"NaN"', '"1e308"', '"-5"', "null", "true", "[]",
)  # fmt: skip
#: Cell texts a number in a CSV or text file may become.
CELL_TEXTS = (
    "1e308", "-1e308", "nan", "NaN", "inf", "-inf", "Infinity", "9.2e15", "9.3e18", "1e18",
    "9223372036854775808", "-1", "-1000000", "0", "abc", "", "0x10", "1,5", "1e-320",
)  # fmt: skip
#: Byte sequences that are not UTF-8.
INVALID_UTF8 = (
    b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\x28",
    b"\xed\xa0\x80", b"\x80", b"\xc0\xaf", b"ab\xffcd",
)  # fmt: skip
#: Depths of nested arrays/objects (msgspec and Python both stop far below 10,000).
DEPTHS = (1000, 10_000, 100_000)
#: Event keys worth removing or retyping.
EVENT_KEYS = ("ts", "dur", "name", "pid", "tid", "ph", "args", "cat", "id")
PHASES = ("B", "E", "i", "I", "s", "f", "t", "C", "b", "e", "n", "M", "P", "X", "", "Z")

_DECODER = msgspec.json.Decoder(float_hook=decimal.Decimal)
_ENCODER = msgspec.json.Encoder(decimal_format="number")
_SENTINEL = "@@fuzz-raw-{}@@"


@dataclass(frozen=True)
class Mutant:
    data: bytes
    cls: str
    detail: str


def file_type(name: str) -> str:
    """ "csv", "text" or "json" (by the name's extension)."""
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".txt"):
        return "text"
    return "json"


class _Doc:
    """A decoded JSON document plus raw texts to splice in where sentinels stand."""

    def __init__(self, data: bytes) -> None:
        self.root: Any = _DECODER.decode(data)
        self.raws: dict[str, bytes] = {}

    def raw(self, text: str | bytes) -> str:
        key = _SENTINEL.format(len(self.raws))
        self.raws[key] = text.encode() if isinstance(text, str) else text
        return key

    def events(self) -> list[Any] | None:
        """The events array (of a Chrome trace object or a bare array), if this is a trace."""
        root = self.root
        if isinstance(root, dict) and isinstance(root.get("traceEvents"), list):
            return root["traceEvents"]  # type: ignore[no-any-return]
        head = root[:50] if isinstance(root, list) else []
        if head and all(isinstance(e, dict) for e in head) and any("ph" in e for e in head):
            return root  # type: ignore[no-any-return]
        return None

    def encode(self) -> bytes:
        out = _ENCODER.encode(self.root)
        for key, text in self.raws.items():
            out = out.replace(b'"' + key.encode() + b'"', text)
        return out


def is_event_file(data: bytes, name: str) -> bool:
    if file_type(name) != "json":
        return False
    try:
        return _Doc(data).events() is not None
    except (msgspec.DecodeError, RecursionError):
        return False


def _nested(rng: random.Random) -> bytes:
    depth = rng.choice(DEPTHS)
    if rng.random() < 0.5:
        return b"[" * depth + b"1" + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


# --- byte-level classes -------------------------------------------------------------------


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


# --- JSON documents -----------------------------------------------------------------------


def _pick_event(events: list[Any], rng: random.Random, complete: bool = True) -> int:
    """Index of a random event, mostly a complete (`X`) one when asked."""
    if complete and rng.random() < 0.75:
        xs = [i for i, e in enumerate(events) if isinstance(e, dict) and e.get("ph") == "X"]
        if xs:
            return rng.choice(xs)
    return rng.randrange(len(events))


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every scalar in a JSON value."""
    if isinstance(node, dict):
        return [x for k, v in node.items() for x in _leaves(v, (*path, k))]
    if isinstance(node, list):
        return [x for i, v in enumerate(node) for x in _leaves(v, (*path, i))]
    return [(path, node)]


def _containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every object and array in a JSON value, the root included."""
    if isinstance(node, dict):
        inner = [x for k, v in node.items() for x in _containers(v, (*path, k))]
    elif isinstance(node, list):
        inner = [x for i, v in enumerate(node) for x in _containers(v, (*path, i))]
    else:
        return []
    return [(path, node), *inner]


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    """`root` with the value at `path` replaced (the new root when `path` is empty)."""
    if not path:
        return value
    node = root
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return root


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | decimal.Decimal):
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


def _json_number(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    if events:
        i = _pick_event(events, rng)
        leaves = [(p, v) for p, v in _leaves(events[i]) if _is_number(v)]
        in_args = [(p, v) for p, v in leaves if p[:1] == ("args",)]
        if in_args and rng.random() < 0.5:  # the args analyses read (occupancy, device, ...)
            leaves = in_args
        if leaves:
            path, old = rng.choice(leaves)
            text = rng.choice(NUMBER_TEXTS)
            _set(events[i], path, doc.raw(text))
            return f"event {i} {'.'.join(map(str, path))}: {old} -> {text}"
    leaves = [(p, v) for p, v in _leaves(doc.root) if _is_number(v)]
    if not leaves:
        return _json_wrong_type(doc, rng)
    path, old = rng.choice(leaves)
    text = rng.choice(NUMBER_TEXTS)
    doc.root = _set(doc.root, path, doc.raw(text))
    return f"{'.'.join(map(str, path))}: {old} -> {text}"


def _json_missing_field(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    if events and rng.random() < 0.85:
        i = _pick_event(events, rng)
        ev = events[i]
        keys = [k for k in EVENT_KEYS if isinstance(ev, dict) and k in ev]
        if keys:
            key = rng.choice(keys)
            if rng.random() < 0.4:  # the field gone from every event of that phase
                ph = ev.get("ph")
                hit = [e for e in events if isinstance(e, dict) and e.get("ph") == ph]
                for e in hit:
                    e.pop(key, None)
                return f"{key!r} removed from all {len(hit)} events of phase {ph!r}"
            del ev[key]
            return f"{key!r} removed from event {i}"
    objects = [(p, c) for p, c in _containers(doc.root) if isinstance(c, dict) and c]
    if not objects:
        return _json_remove(doc, rng)
    path, obj = rng.choice(objects)
    key = rng.choice(list(obj))
    del obj[key]
    return f"key {key!r} removed at {'.'.join(map(str, path)) or 'the top'}"


def _json_duplicate(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    if events:
        i = rng.randrange(len(events))
        n = rng.choice((1, 1, 2, 10))
        span = rng.choice((1, 1, 5, 50))
        copies = [msgspec.json.decode(_ENCODER.encode(e)) for e in events[i : i + span]] * n
        at = i + span if rng.random() < 0.7 else rng.randrange(len(events) + 1)
        events[at:at] = copies
        return f"events {i}..{i + span - 1} copied {n} time(s) to position {at}"
    arrays = [(p, c) for p, c in _containers(doc.root) if isinstance(c, list) and c]
    if not arrays:
        return _json_wrong_type(doc, rng)
    path, arr = rng.choice(arrays)
    j = rng.randrange(len(arr))
    arr.insert(j, arr[j])
    return f"element {j} of {'.'.join(map(str, path)) or 'the top'} duplicated"


def _json_remove(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    if events:
        how = rng.choice(("slice", "category", "phase", "keep_one"))
        before = len(events)
        if how == "slice":
            i = rng.randrange(len(events))
            j = min(len(events), i + rng.choice((1, 10, 100, 1000)))
            del events[i:j]
            return f"events {i}..{j - 1} removed"
        key = "cat" if how == "category" else "ph"
        values = sorted({str(e.get(key)) for e in events if isinstance(e, dict)})
        if how == "keep_one":
            keep = events[rng.randrange(len(events))]
            events[:] = [keep]
            return f"all events but one removed (of {before})"
        value = rng.choice(values)
        events[:] = [e for e in events if not (isinstance(e, dict) and str(e.get(key)) == value)]
        return f"all {before - len(events)} events with {key}={value!r} removed"
    arrays = [(p, c) for p, c in _containers(doc.root) if c]
    if not arrays:
        return _json_wrong_type(doc, rng)
    path, node = rng.choice(arrays)
    if rng.random() < 0.3:
        node.clear()
        return f"{'.'.join(map(str, path)) or 'the top'} emptied"
    if isinstance(node, list):
        del node[rng.randrange(len(node))]
    else:
        del node[rng.choice(list(node))]
    return f"an element of {'.'.join(map(str, path)) or 'the top'} removed"


def _json_phase(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    assert events, "phase mutations need a file of events"
    how = rng.choice(("set", "set", "begin_end", "begin_end", "insert"))
    if how == "set":
        n = rng.choice((1, 3, 30))
        picked = [_pick_event(events, rng) for _ in range(n)]
        ph = rng.choice(PHASES)
        for i in picked:
            if isinstance(events[i], dict):
                events[i]["ph"] = ph
        return f"phase of {n} event(s) set to {ph!r}"
    if how == "insert":
        i = _pick_event(events, rng)
        base = events[i] if isinstance(events[i], dict) else {}
        extra = []
        for ph in rng.sample(["i", "s", "f", "B", "E", "C"], 3):
            e = dict(base)
            e["ph"] = ph
            e["id"] = rng.randrange(1 << 20)
            extra.append(e)
        events[i + 1 : i + 1] = extra
        return f"events of phases {[e['ph'] for e in extra]} inserted after event {i}"
    # X events become B/E pairs, in an order a Chrome trace may have them (each track's
    # records in time order, outer ranges opening first and closing last); sometimes one
    # record is lost (unbalanced)
    xs = [
        i
        for i, e in enumerate(events)
        if isinstance(e, dict) and e.get("ph") == "X" and _is_number(e.get("dur"))
        and _is_number(e.get("ts")) and decimal.Decimal(str(e["dur"])) > 0
    ]  # fmt: skip
    if not xs:
        return _json_wrong_type(doc, rng)
    chosen = set(rng.sample(xs, min(len(xs), rng.choice((1, 5, 50, len(xs))))))
    records: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for i in sorted(chosen):
        e = events[i]
        start = decimal.Decimal(str(e["ts"]))
        end = start + decimal.Decimal(str(e["dur"]))
        begin = {k: v for k, v in e.items() if k != "dur"}
        begin["ph"] = "B"
        close = {"ph": "E", "pid": e.get("pid"), "tid": e.get("tid"), "ts": end}
        if isinstance(e["ts"], str):
            close["ts"] = str(end)
        records.append(((start, 1, -end, i), begin))
        records.append(((end, 0, -start, i), close))
    records.sort(key=lambda r: r[0])
    lost = rng.choice(("none", "none", "B", "E"))
    if lost != "none":
        k = rng.choice([n for n, (_, r) in enumerate(records) if r["ph"] == lost])
        del records[k]
    events[:] = [e for i, e in enumerate(events) if i not in chosen] + [r for _, r in records]
    return f"{len(chosen)} X event(s) as B/E pairs (lost: {lost})"


def _json_deep(doc: _Doc, rng: random.Random) -> str:
    deep = _nested(rng)
    events = doc.events()
    where = rng.choice(("event", "top") if events else ("value", "top"))
    if where == "event" and events:
        i = _pick_event(events, rng)
        if isinstance(events[i], dict):
            key = rng.choice(("args", "args", "name", "x"))
            events[i][key] = doc.raw(deep)
            return f"{key} of event {i} nested {deep.count(b'[') or deep.count(b'{')} deep"
    if where == "value":
        spots = _containers(doc.root)
        path, node = rng.choice(spots)
        if isinstance(node, dict) and node:
            node[rng.choice(list(node))] = doc.raw(deep)
            return f"a value of {'.'.join(map(str, path)) or 'the top'} nested deep"
        if isinstance(node, list) and node:
            node[rng.randrange(len(node))] = doc.raw(deep)
            return f"an element of {'.'.join(map(str, path)) or 'the top'} nested deep"
    doc.root = doc.raw(b"[" * 10_000 + _ENCODER.encode(doc.root) + b"]" * 10_000)
    return "the whole document wrapped 10,000 deep"


_OTHER_TYPE: dict[type, tuple[str, ...]] = {
    str: ("123", "-1", "null", "[]", "{}", "true", '["a"]'),
    int: ('"x"', "null", "[]", "{}", "true", '"1"'),
    decimal.Decimal: ('"x"', "null", "[]", "{}", "false"),
    dict: ('"x"', "5", "null", "[]", "[1, 2]"),
    list: ('"x"', "5", "null", "{}", '{"a": 1}'),
    bool: ('"x"', "2", "null", "[]"),
    type(None): ('"x"', "5", "[]", "{}"),
}


def _other(value: Any, rng: random.Random) -> str:
    return rng.choice(_OTHER_TYPE.get(type(value), ('"x"', "5", "null")))


def _json_wrong_type(doc: _Doc, rng: random.Random) -> str:
    events = doc.events()
    if events and rng.random() < 0.8:
        i = _pick_event(events, rng, complete=rng.random() < 0.5)
        ev = events[i]
        if isinstance(ev, dict) and rng.random() < 0.9:
            keys = [k for k in ev if k in EVENT_KEYS] or list(ev)
            if rng.random() < 0.3 and isinstance(ev.get("args"), dict) and ev["args"]:
                args = ev["args"]
                key = rng.choice(list(args))
                text = _other(args[key], rng)
                args[key] = doc.raw(text)
                return f"args.{key} of event {i} -> {text}"
            key = rng.choice(keys)
            text = _other(ev[key], rng)
            ev[key] = doc.raw(text)
            return f"{key} of event {i} -> {text}"
        text = _other(ev, rng)
        events[i] = doc.raw(text)
        return f"event {i} -> {text}"
    path, value = rng.choice(_leaves(doc.root) + _containers(doc.root))
    text = _other(value, rng)
    doc.root = _set(doc.root, path, doc.raw(text))
    return f"{'.'.join(map(str, path)) or 'the document'} -> {text}"


_JSON: dict[str, Callable[[_Doc, random.Random], str]] = {
    "number": _json_number,
    "missing_field": _json_missing_field,
    "duplicate": _json_duplicate,
    "remove": _json_remove,
    "phase": _json_phase,
    "deep_nesting": _json_deep,
    "wrong_type": _json_wrong_type,
}


# --- CSV and whitespace-separated text ----------------------------------------------------


class _Rows:
    """A CSV file (or a whitespace-separated text file) as rows of cells."""

    def __init__(self, data: bytes, name: str) -> None:
        self.csv = file_type(name) == "csv"
        text = data.decode("utf-8-sig")
        if self.csv:
            self.rows = [list(r) for r in csv.reader(io.StringIO(text, newline=""))]
        else:
            self.rows = [line.split() for line in text.splitlines()]
        self.first = 1 if self.csv else 0  # the first data row

    def encode(self) -> bytes:
        if self.csv:
            out = io.StringIO()
            csv.writer(out, lineterminator="\r\n").writerows(self.rows)
            return out.getvalue().encode()
        return "".join(" ".join(r) + "\n" for r in self.rows).encode()

    def data_rows(self) -> list[int]:
        return [i for i in range(self.first, len(self.rows)) if self.rows[i]]

    def numeric_cells(self) -> list[tuple[int, int]]:
        return [
            (i, j)
            for i in self.data_rows()
            for j, c in enumerate(self.rows[i])
            if _is_number(c.strip())
        ]


def _rows_number(rows: _Rows, rng: random.Random) -> str:
    cells = rows.numeric_cells()
    if not cells:
        return _rows_wrong_type(rows, rng)
    i, j = rng.choice(cells)
    old, text = rows.rows[i][j], rng.choice(CELL_TEXTS)
    if rng.random() < 0.3:  # the whole column
        for k in rows.data_rows():
            if j < len(rows.rows[k]):
                rows.rows[k][j] = text
        return f"column {j}: every cell -> {text!r}"
    rows.rows[i][j] = text
    return f"row {i} cell {j}: {old.strip()!r} -> {text!r}"


def _rows_missing_field(rows: _Rows, rng: random.Random) -> str:
    if not rows.rows or not rows.rows[0]:
        return "nothing to remove"
    how = rng.choice(("column", "cell", "cell_gone"))
    data = rows.data_rows()
    if how == "column" or not data:
        j = rng.randrange(len(rows.rows[0]))
        for r in rows.rows:
            if j < len(r):
                del r[j]
        return f"column {j} removed"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    if how == "cell":
        rows.rows[i][j] = ""
        return f"row {i} cell {j} blanked"
    del rows.rows[i][j]
    return f"row {i} cell {j} removed (the row is short)"


def _rows_duplicate(rows: _Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to duplicate"
    i = rng.choice(data)
    n = rng.choice((1, 2, 50))
    rows.rows[i + 1 : i + 1] = [list(rows.rows[i]) for _ in range(n)]
    return f"row {i} copied {n} time(s)"


def _rows_remove(rows: _Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to remove"
    how = rng.choice(("one", "some", "all", "header"))
    if how == "header" and rows.csv:
        del rows.rows[0]
        return "header row removed"
    if how == "all" or (how == "header" and not rows.csv):
        rows.rows[rows.first :] = []
        return "every data row removed"
    drop = set(rng.sample(data, 1 if how == "one" else max(1, len(data) // 2)))
    rows.rows = [r for k, r in enumerate(rows.rows) if k not in drop]
    return f"{len(drop)} row(s) removed"


def _rows_deep(rows: _Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to nest"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    deep = _nested(rng).decode()
    rows.rows[i][j] = deep if rows.csv else deep.replace(" ", "")
    return f"row {i} cell {j} -> nested {len(deep) // 2} deep"


def _rows_wrong_type(rows: _Rows, rng: random.Random) -> str:
    data = rows.data_rows()
    if not data:
        return "nothing to retype"
    i = rng.choice(data)
    j = rng.randrange(len(rows.rows[i]))
    old = rows.rows[i][j]
    text = rng.choice(("abc", "[1, 2]", '{"a": 1}', "True", "None", "N/A", "12abc", "-"))
    rows.rows[i][j] = text if rows.csv else text.replace(" ", "")
    return f"row {i} cell {j}: {old.strip()!r} -> {text!r}"


_ROWS: dict[str, Callable[[_Rows, random.Random], str]] = {
    "number": _rows_number,
    "missing_field": _rows_missing_field,
    "duplicate": _rows_duplicate,
    "remove": _rows_remove,
    "deep_nesting": _rows_deep,
    "wrong_type": _rows_wrong_type,
}


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
        doc = _Doc(data)
        detail = _JSON[cls](doc, rng)
        return Mutant(doc.encode(), cls, detail)
    if cls in EVENT_ONLY:
        raise ValueError(f"{cls} mutations need a file of events, not {name}")
    rows = _Rows(data, name)
    detail = _ROWS[cls](rows, rng)
    return Mutant(rows.encode(), cls, detail)
