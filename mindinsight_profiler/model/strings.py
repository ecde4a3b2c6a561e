"""Interned strings: names and categories are stored once, events hold integer codes.

A 1 M-event trace has a few thousand distinct names; integer codes make grouping a
`bincount` and keep the cache small.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

#: Predicates whose answers a table keeps (module-level filters: a few dozen).
_WHERE_KEPT = 256


class StringTable:
    """An append-only table of unique strings with O(1) lookup both ways."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self._strings: list[str] = []
        self._index: dict[str, int] = {}
        #: predicate -> (strings judged, the codes that matched): analyses ask the same
        #: name filters again and again; the table only grows, so only new strings are new
        self._where: dict[object, tuple[int, list[int]]] = {}
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
        """Codes of all strings for which `predicate(s)` is true (vectorises name filters;
        each string is judged once per predicate, whatever the number of calls)."""
        assert callable(predicate)
        judged, codes = self._where.get(predicate, (0, []))
        if judged < len(self._strings):
            new = [i for i in range(judged, len(self._strings)) if predicate(self._strings[i])]
            codes = codes + new
            if len(self._where) >= _WHERE_KEPT:  # lambdas made per call are new keys
                self._where.clear()
            self._where[predicate] = (len(self._strings), codes)
        return np.array(codes, dtype=np.int32)

    def mask_where(self, codes: np.ndarray, predicate: object) -> np.ndarray:
        """Whether each of `codes` (-1: none) is the code of a string satisfying
        `predicate`: one lookup per code in a table of the strings, no sort."""
        table = np.zeros(len(self._strings) + 1, dtype=bool)  # the last slot answers -1
        table[self.codes_where(predicate)] = True
        return table[codes]

    def merge(self, strings: Sequence[str]) -> np.ndarray:
        """Intern a chunk's local table; returns the remap array local code -> global code."""
        return np.array([self.intern(s) for s in strings], dtype=np.int32)

    def lookup(self, codes: np.ndarray) -> list[str]:
        """Strings for an array of codes (-1 becomes the empty string)."""
        s = self._strings
        return [s[c] if c >= 0 else "" for c in codes.tolist()]

    def to_list(self) -> list[str]:
        return list(self._strings)
