"""Interval algebra against a brute-force model on integer points."""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.analysis import intervals as iv


def _points(r: iv.Ranges) -> set[int]:
    return {p for s, e in zip(r.start.tolist(), r.end.tolist(), strict=True) for p in range(s, e)}


def _random_ranges(rng: np.random.Generator, n: int) -> iv.Ranges:
    s = rng.integers(0, 200, n)
    return iv.union(s, s + rng.integers(0, 30, n))


def test_union_intersect_subtract_match_point_sets() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        a, b = _random_ranges(rng, 12), _random_ranges(rng, 9)
        pa, pb = _points(a), _points(b)
        assert _points(iv.intersect(a, b)) == pa & pb
        assert _points(iv.subtract(a, b)) == pa - pb
        for r in (a, iv.intersect(a, b), iv.subtract(a, b)):
            assert (np.diff(r.start) > 0).all() and (r.start[1:] > r.end[:-1]).all()


def test_overlap_per_window() -> None:
    rng = np.random.default_rng(2)
    a = _random_ranges(rng, 20)
    starts = rng.integers(0, 230, 50)
    ends = starts + rng.integers(0, 60, 50)
    got = iv.overlap_per_window(a, starts, ends)
    pa = _points(a)
    want = [len(pa & set(range(s, e))) for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    assert got.tolist() == want


def test_contains_is_half_open_unsorted_and_safe_on_no_ranges() -> None:
    r = iv.union(np.array([10, 30]), np.array([20, 40]))
    t = np.array([35, 10, 20, 5, 39, 40])
    assert iv.contains(r, t).tolist() == [True, True, False, False, True, False]
    assert iv.contains(iv.EMPTY, t).tolist() == [False] * 6
