"""util.groups: grouping by one sort gives what a mask per group and np.unique give."""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.util.groups import rows_by_group, sorted_distinct


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
