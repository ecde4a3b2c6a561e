"""Mutations of JSON documents: decoded with exact numbers, changed, re-encoded; raw texts
(`NaN`, a 10,000-deep array) are spliced in where JSON values go."""

from __future__ import annotations

import decimal
import random
from collections.abc import Callable
from typing import Any

import msgspec

from tests.fuzz.values import NUMBER_TEXTS, is_number, nested

#: Event keys worth removing or retyping.
EVENT_KEYS = ("ts", "dur", "name", "pid", "tid", "ph", "args", "cat", "id")
PHASES = ("B", "E", "i", "I", "s", "f", "t", "C", "b", "e", "n", "M", "P", "X", "", "Z")

_DECODER = msgspec.json.Decoder(float_hook=decimal.Decimal)
_ENCODER = msgspec.json.Encoder(decimal_format="number")
_SENTINEL = "@@fuzz-raw-{}@@"


class Doc:
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


def _json_number(doc: Doc, rng: random.Random) -> str:
    events = doc.events()
    if events:
        i = _pick_event(events, rng)
        leaves = [(p, v) for p, v in _leaves(events[i]) if is_number(v)]
        in_args = [(p, v) for p, v in leaves if p[:1] == ("args",)]
        if in_args and rng.random() < 0.5:  # the args analyses read (occupancy, device, ...)
            leaves = in_args
        if leaves:
            path, old = rng.choice(leaves)
            text = rng.choice(NUMBER_TEXTS)
            _set(events[i], path, doc.raw(text))
            return f"event {i} {'.'.join(map(str, path))}: {old} -> {text}"
    leaves = [(p, v) for p, v in _leaves(doc.root) if is_number(v)]
    if not leaves:
        return _json_wrong_type(doc, rng)
    path, old = rng.choice(leaves)
    text = rng.choice(NUMBER_TEXTS)
    doc.root = _set(doc.root, path, doc.raw(text))
    return f"{'.'.join(map(str, path))}: {old} -> {text}"


def _json_missing_field(doc: Doc, rng: random.Random) -> str:
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


def _json_duplicate(doc: Doc, rng: random.Random) -> str:
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


def _json_remove(doc: Doc, rng: random.Random) -> str:
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


def _json_phase(doc: Doc, rng: random.Random) -> str:
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
        if isinstance(e, dict) and e.get("ph") == "X" and is_number(e.get("dur"))
        and is_number(e.get("ts")) and decimal.Decimal(str(e["dur"])) > 0
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


def _json_deep(doc: Doc, rng: random.Random) -> str:
    deep = nested(rng)
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


def _json_wrong_type(doc: Doc, rng: random.Random) -> str:
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


MUTATIONS: dict[str, Callable[[Doc, random.Random], str]] = {
    "number": _json_number,
    "missing_field": _json_missing_field,
    "duplicate": _json_duplicate,
    "remove": _json_remove,
    "phase": _json_phase,
    "deep_nesting": _json_deep,
    "wrong_type": _json_wrong_type,
}
