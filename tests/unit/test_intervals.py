"""Interval algebra against a brute-force model on integer points."""

from __future__ import annotations

import numpy as np
import pytest

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


def _covered_brute(group: np.ndarray, start: np.ndarray, end: np.ndarray, groups: int) -> list:
    out = [set() for _ in range(groups)]
    for g, s, e in zip(group.tolist(), start.tolist(), end.tolist(), strict=True):
        out[g] |= set(range(s, e))
    return [len(p) for p in out]


def test_covered_per_group_counts_overlaps_once_in_every_group() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, groups = int(rng.integers(1, 40)), int(rng.integers(1, 6))
        group = rng.integers(0, groups, n)
        start = rng.integers(0, 100, n)
        end = start + rng.integers(-5, 40, n)  # some empty or reversed ranges
        got = iv.covered_per_group(group, start, end, groups)
        assert got.tolist() == _covered_brute(group, start, np.maximum(start, end), groups)


def test_covered_per_group_near_the_int64_limit_takes_the_exact_path() -> None:
    """Groups whose spans together pass 2**62 ns (each group one range of 2**61 ns, at
    times near 2**62): the answer is exact, not wrapped around."""
    rng = np.random.default_rng(4)
    base = 2**62 - 2**61 - 200
    for _ in range(50):
        n = int(rng.integers(1, 30))
        group = np.concatenate([rng.integers(0, 4, n), np.arange(4)])
        start = np.concatenate([rng.integers(0, 100, n), np.zeros(4, np.int64)]) + base
        end = np.concatenate([start[:n] + rng.integers(0, 40, n), start[n:] + 2**61])
        got = iv.covered_per_group(group, start, end, 5)
        assert got.tolist() == [2**61] * 4 + [0]
        small = iv.covered_per_group(group[:n], start[:n] - base, end[:n] - base, 4)
        assert small.tolist() == _covered_brute(group[:n], start[:n] - base, end[:n] - base, 4)


def test_covered_per_group_in_blocks_equals_one_block(monkeypatch) -> None:
    """Blocks end where a group does, even a group larger than a block."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        n, groups = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        group = rng.integers(0, groups, n)
        start = rng.integers(0, 100, n)
        end = start + rng.integers(-5, 40, n)
        whole = iv.covered_per_group(group, start, end, groups)
        monkeypatch.setattr(iv, "BLOCK_ROWS", int(rng.integers(1, 8)))
        assert iv.covered_per_group(group, start, end, groups).tolist() == whole.tolist()
        monkeypatch.undo()
        assert whole.tolist() == _covered_brute(group, start, np.maximum(start, end), groups)


@pytest.mark.parametrize("block", [1, 3, 64, 1 << 20])
def test_union_where_equals_the_union_of_the_selected_rows(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Block edges included: blocks of one row, ranges that touch or nest across a block
    edge, unsorted rows, empty ranges and empty blocks of the mask."""
    rng = np.random.default_rng(block)
    n = 500
    start = rng.integers(0, 3_000, n)
    end = start + rng.integers(0, 40, n) * rng.integers(0, 2, n)  # some empty
    start[100:110], end[100:110] = np.arange(10) * 10, np.arange(1, 11) * 10  # touching chain
    start[200], end[200] = 0, 4_000  # covers everything, in the middle of the rows
    mask = rng.random(n) < 0.7
    mask[300:380] = False  # blocks with nothing selected
    monkeypatch.setattr(iv, "BLOCK_ROWS", block)
    for m in (mask, ~mask, np.zeros(n, bool), np.ones(n, bool), np.arange(n) != 200):
        want = iv.union(start[m], end[m])
        got = iv.union_where(start, end, m)
        assert np.array_equal(got.start, want.start) and np.array_equal(got.end, want.end)
        assert got.start.dtype == want.start.dtype == np.int64


@pytest.mark.parametrize("block", [1, 2, 5, 1 << 19])
def test_windowed_intersect_and_subtract_equal_the_whole_sweep(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Window edges included: windows of one range, ranges spanning many windows, ranges
    that end exactly where a window starts, windows where one set has nothing."""
    rng = np.random.default_rng(block + 11)
    for trial in range(40):
        a, b = _random_ranges(rng, 30 + trial), _random_ranges(rng, 5 + 2 * trial)
        if trial % 4 == 0:  # one long range over everything, as a step's free time
            a = iv.Ranges(np.array([-5], np.int64), np.array([300], np.int64))
        if trial % 4 == 1:  # b's ranges end where a's start: touching edges
            b = iv.Ranges(a.start[1::2] - 3, a.start[1::2])
        if trial % 4 == 2:  # a's ranges all before b's: windows where one set is empty
            b = iv.Ranges(b.start + 1_000, b.end + 1_000)
        whole = {"intersect": iv._combine(a, b, True), "subtract": iv._combine(a, b, False)}
        monkeypatch.setattr(iv, "BLOCK_RANGES", block)
        got = {"intersect": iv.intersect(a, b), "subtract": iv.subtract(a, b)}
        monkeypatch.undo()
        for op in whole:
            assert np.array_equal(got[op].start, whole[op].start), (op, trial)
            assert np.array_equal(got[op].end, whole[op].end), (op, trial)
            assert got[op].start.dtype == np.int64
