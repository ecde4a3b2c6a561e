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
