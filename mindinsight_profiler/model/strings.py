"""Interned strings: names and categories are stored once, events hold integer codes.

A 1 M-event trace has a few thousand distinct names; integer codes make grouping a
`bincount` and keep the cache small.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


class StringTable:
    """An append-only table of unique strings with O(1) lookup both ways."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self._strings: list[str] = []
        self._index: dict[str, int] = {}
        for s in strings:
            self.intern(s)

    def __len__(self) -> int:
        return len(self._strings)

    def __getitem__(self, code: int) -> str:
        return self._strings[code]

    def intern(self, s: str) -> int:
        """Code of `s`, adding it if new."""
        code = self._index.get(s)
        if code is None:
            code = len(self._strings)
            self._strings.append(s)
            self._index[s] = code
        return code

    def codes_where(self, predicate: object) -> np.ndarray:
        """Codes of all strings for which `predicate(s)` is true (vectorises name filters)."""
        assert callable(predicate)
        return np.array([i for i, s in enumerate(self._strings) if predicate(s)], dtype=np.int32)

    def merge(self, strings: Sequence[str]) -> np.ndarray:
        """Intern a chunk's local table; returns the remap array local code -> global code."""
        return np.array([self.intern(s) for s in strings], dtype=np.int32)

    def lookup(self, codes: np.ndarray) -> list[str]:
        """Strings for an array of codes (-1 becomes the empty string)."""
        s = self._strings
        return [s[c] if c >= 0 else "" for c in codes.tolist()]

    def to_list(self) -> list[str]:
        return list(self._strings)
