"""Rows of an array grouped by a small integer key, and sorted distinct values: by one sort.

Both come up wherever an analysis works per step (or per block) over millions of rows: a
mask per group makes the work quadratic in the trace's length, and `np.unique` hashes its
input first (several times slower than a sort for large int64 arrays, numpy 2.x).
"""

from __future__ import annotations

import numpy as np


def rows_by_group(keys: np.ndarray, count: int) -> list[np.ndarray]:
    """For each group 0..count-1: the positions of `keys` equal to it, in row order (from
    one stable sort); keys outside [0, count), e.g. -1 for "none", are in no group."""
    order = np.argsort(keys, kind="stable")
    bounds = np.searchsorted(keys[order], np.arange(count + 1))
    return [order[bounds[g] : bounds[g + 1]] for g in range(count)]


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (as `np.unique`, by a sort)."""
    out = np.sort(values)
    if len(out) < 2:
        return out
    return out[np.append(True, out[1:] != out[:-1])]


#: Keys spanning up to this many values per row (plus a little) are numbered through a table
#: of the span, not sorted.
TABLE_SPAN = 4


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct key, each row's distinct index), the distinct keys
    ascending: `np.unique(keys, return_index=True, return_inverse=True)[1:]`.

    Non-negative integer keys of a small span (codes combined from string codes) are
    numbered through a table of the span instead: `np.unique` sorts the rows and keeps its
    order, the sorted copy and the inverse at once (~40 bytes a row; 7 M operator calls
    were 670 MB), where the table needs the inverse and a bit per value of the span.
    """
    n = len(keys)
    if n == 0 or int(keys.min()) < 0 or int(keys.max()) >= TABLE_SPAN * n + 1024:
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return first, inverse.ravel()
    present = np.zeros(int(keys.max()) + 1, dtype=bool)
    present[keys] = True
    number = np.cumsum(present, dtype=np.int64)
    number -= 1
    inverse = number[keys]
    del present, number
    first = np.full(int(inverse.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
    return first, inverse
