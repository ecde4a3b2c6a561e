"""util.groups: grouping by one sort gives what a mask per group and np.unique give."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.util.groups import rows_by_group, sorted_distinct, unique_inverse


def test_rows_by_group_equals_a_mask_per_group() -> None:
    rng = np.random.default_rng(6)
    for _ in range(100):
        count = int(rng.integers(0, 6))
        keys = rng.integers(-1, count + 2, int(rng.integers(0, 40)))  # -1 and beyond: none
        groups = rows_by_group(keys, count)
        assert len(groups) == count
        for g, rows in enumerate(groups):
            assert rows.tolist() == np.flatnonzero(keys == g).tolist()


def test_sorted_distinct_equals_unique() -> None:
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 50):
        values = rng.integers(-5, 5, n)
        assert sorted_distinct(values).tolist() == np.unique(values).tolist()


@pytest.mark.parametrize(
    "keys",
    [
        np.zeros(0, np.int64),
        np.array([5], np.int64),
        np.array([3, 0, 3, 3, 7, 0, 1], np.int64),  # repeats: the first row of each
        np.arange(1000, dtype=np.int64)[::-1].copy(),  # every key distinct, descending
        np.array([0, 4 * 2 + 1023], np.int64),  # the largest span still tabled
        np.array([0, 4 * 2 + 1024], np.int64),  # the smallest span sorted instead
        np.array([2, -1, 2, -1], np.int64),  # negative: sorted instead
        np.array([10**12, 3, 10**12], np.int64),  # a wide span: sorted instead
    ],
)
def test_unique_inverse_is_numpys_unique(keys: np.ndarray) -> None:
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    got_first, got_inverse = unique_inverse(keys)
    assert got_first.tolist() == first.tolist()
    assert got_inverse.tolist() == inverse.ravel().tolist()
    assert got_inverse.dtype == np.int64


def test_unique_inverse_on_random_codes() -> None:
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 300, 5000) * 17  # gaps between the values used
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    got_first, got_inverse = unique_inverse(keys)
    assert np.array_equal(got_first, first) and np.array_equal(got_inverse, inverse)
