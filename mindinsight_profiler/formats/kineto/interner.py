"""Chunk-local interning of the strings and tracks of Kineto events."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Sequence
from operator import attrgetter
from typing import cast

import msgspec
import numpy as np

from mindinsight_profiler.formats import utf8


class Interner:
    """Chunk-local interning of hashable values with no Python-level work per value.

    `dict.setdefault` driven by `map` runs in C: each new value gets the running counter as
    a provisional code, and one vectorised lookup then renumbers new values densely.
    """

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}
        self.keys: list[Hashable] = []  # keys[code] is the value of `code`
        self._counter = itertools.count()

    def codes(self, values: Iterable[Hashable], count: int | None = None) -> np.ndarray:
        """Dense int32 codes of `values` (any iterable when `count` says how many: a `map`
        over the events is interned without a list of its values), adding new values."""
        index = self.index
        before = len(index)
        n = len(cast(Sequence[Hashable], values)) if count is None else count
        provisional = np.fromiter(
            map(index.setdefault, values, self._counter), dtype=np.int64, count=n
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

    def raw_codes(self, rows: Sequence[object], attr: str) -> np.ndarray:
        """Codes for the raw JSON texts of `attr` of `rows` (an empty text, i.e. an absent
        field, gives -1)."""
        get = attrgetter(attr)
        count = len(rows)
        if count == 0:
            return np.zeros(0, np.int32)
        # One join and one split make the texts' bytes in C, faster than a bytes() per
        # value. JSON text holds no raw NUL (msgspec rejects control characters), but a
        # miscount would shift every code after it, so a NUL is checked for: then each
        # text is copied on its own.
        joined = b"\0".join(map(get, rows))
        if joined.count(b"\0") == count - 1:
            out = self.codes(joined.split(b"\0"), count)
        else:
            out = self.codes(list(map(bytes, map(get, rows))))
        empty = self.index.get(b"")
        if empty is not None:
            out[out == empty] = -1
        return out

    def strings(self) -> tuple[list[str], int]:
        """The table as strings (`string_table`)."""
        return string_table(self.keys)


def string_table(keys: Sequence[Hashable]) -> tuple[list[str], int]:
    """Interned keys as strings (raw JSON texts are decoded once each here), and how many
    byte sequences that are not UTF-8 were read as U+FFFD (raw texts were not checked when
    the chunk was read)."""
    out = []
    replaced = 0
    for k in keys:
        if not isinstance(k, bytes):
            out.append(str(k))
            continue
        try:
            out.append(_raw_text(k))
        except UnicodeDecodeError:
            fixed, count = utf8.repaired(k)
            out.append(_raw_text(fixed))
            replaced += count
    return out, replaced


def _raw_text(raw: bytes) -> str:
    """A JSON string becomes its value; any other JSON value keeps its compact text."""
    if raw[:1] == b'"':
        return str(msgspec.json.decode(raw))
    return raw.decode("utf-8")
