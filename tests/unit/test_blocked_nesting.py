"""The blocked nearest-covering search (bounded memory) answers as one global search does."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.model import links
from mindinsight_profiler.model.links import _covering_in, _nearest_covering, nesting_parents


def _brute(ends: np.ndarray, pos: np.ndarray, need: np.ndarray) -> np.ndarray:
    out = np.full(len(pos), -1, dtype=np.int64)
    for q, (p, v) in enumerate(zip(pos.tolist(), need.tolist(), strict=True)):
        hits = np.flatnonzero(ends[:p] >= v)
        out[q] = hits[-1] if len(hits) else -1
    return out


@pytest.mark.parametrize("block", [4, 16, 64])
@pytest.mark.parametrize("shape", ["random", "nested", "high_need"])
def test_blocked_equals_global(monkeypatch: pytest.MonkeyPatch, block: int, shape: str) -> None:
    rng = np.random.default_rng(block)
    n = 700
    if shape == "nested":  # increasing keys with local dips, as nested ranges sorted by start
        ends = np.sort(rng.integers(0, 10_000, n)) + rng.integers(0, 300, n)
        need = rng.integers(0, 10_500, 2 * n)
    else:
        ends = rng.integers(0, 10_000, n)
        low = 9_900 if shape == "high_need" else 0
        need = rng.integers(low, 10_050, 2 * n)
    pos = rng.integers(0, n + 1, 2 * n)
    expected = _brute(ends, pos, need)
    assert np.array_equal(_covering_in(ends, pos, need), expected)
    monkeypatch.setattr(links, "BLOCK", block)
    assert np.array_equal(_nearest_covering(ends, pos, need), expected)


def test_nesting_parents_do_not_depend_on_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    n = 3000
    track = rng.integers(0, 3, n)
    start = rng.integers(0, 100_000, n)
    end = start + rng.integers(0, 5_000, n)
    whole = nesting_parents(track, start, end)
    assert (whole >= 0).sum() > n // 2
    monkeypatch.setattr(links, "BLOCK", 32)
    assert np.array_equal(nesting_parents(track, start, end), whole)


def _plain_sorted(track: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
    """The containers' order and track-offset keys, at full length (the plain computation)."""
    idx = np.arange(len(start))
    order = np.lexsort((idx, -end, start, track))
    t0 = int(start.min())
    span = int(end.max()) - t0 + 2
    start_key = track[order].astype(np.int64) * span + (start[order] - t0)
    end_key = track[order].astype(np.int64) * span + (end[order] - t0)
    return order, start_key, end_key, np.array([t0, span])


def _plain_parents(track: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    order, start_key, end_key, _ = _plain_sorted(track, start, end)
    need = np.maximum(end_key, start_key + 1)
    j = _covering_in(end_key, np.arange(len(order)), need)
    out = np.full(len(start), -1, dtype=np.int64)
    out[order] = np.where(j >= 0, order[np.clip(j, 0, None)], -1)
    return out


def _plain_enclosing(ranges: tuple[np.ndarray, ...], queries: tuple[np.ndarray, ...]) -> np.ndarray:
    order, start_key, end_key, (t0, span) = _plain_sorted(*ranges)
    track, start, end = queries
    s = track.astype(np.int64) * span + (start - t0)
    e = np.maximum(track.astype(np.int64) * span + (end - t0), s + 1)
    j = _covering_in(end_key, np.searchsorted(start_key, s, side="right"), e)
    return np.where(j >= 0, order[np.clip(j, 0, None)], -1)


def _ranges(shape: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    track = rng.integers(0, 3, n).astype(np.int32)
    if shape == "chain":  # one deep nest: every earlier range stays on the carried staircase
        start = np.arange(n, dtype=np.int64)
        end = 2 * n - start
    elif shape == "ties":  # long runs of one start: the blocks' first keys repeat
        start = rng.integers(0, 4, n).astype(np.int64) * 1000
        end = start + rng.integers(0, 3, n) * 500
    else:
        start = rng.integers(0, 50_000, n).astype(np.int64)
        end = start + rng.integers(0, 5_000, n) * rng.integers(0, 2, n)  # some zero-length
    return track, start, end


@pytest.mark.parametrize("sweep", [1, 7, 64, 1 << 18])
@pytest.mark.parametrize("shape", ["random", "chain", "ties"])
def test_swept_links_equal_the_plain_computation(
    monkeypatch: pytest.MonkeyPatch, sweep: int, shape: str
) -> None:
    """Block edges included: blocks of one range, of a few (edges inside runs of equal
    starts and deep nests), and one block for everything."""
    rng = np.random.default_rng(sweep)
    n = 1000
    ranges = _ranges(shape, n, rng)
    monkeypatch.setattr(links, "SWEEP", sweep)
    monkeypatch.setattr(links, "BLOCK", 16)
    expected = _plain_parents(*ranges)
    assert (expected >= 0).sum() > n // 4  # the comparison has nests to get wrong
    assert np.array_equal(nesting_parents(*ranges), expected)

    m = 3000
    lo, hi = int(ranges[1].min()), int(ranges[2].max())
    q_start = rng.integers(lo - 10, hi + 10, m).astype(np.int64)
    q_start[:50] = ranges[1][:50]  # exactly at containers' starts (block edges among them)
    queries = (rng.integers(0, 3, m).astype(np.int32), q_start, q_start + rng.integers(0, 300, m))
    containers = links._Containers(np.arange(n), *ranges)
    expected = _plain_enclosing(ranges, queries)
    assert (expected >= 0).sum() > m // 10
    assert np.array_equal(containers.enclosing(*queries), expected)


def test_containers_are_positions_in_longer_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trace's links pass a subset of the columns' rows: answers are column positions."""
    monkeypatch.setattr(links, "SWEEP", 5)
    rng = np.random.default_rng(3)
    track, start, end = _ranges("random", 400, rng)
    subset = np.sort(rng.choice(400, 150, replace=False))
    out = np.full(400, -7, dtype=np.int64)
    links._Containers(subset, track, start, end).parents_of_self(out)
    plain = _plain_parents(track[subset], start[subset], end[subset])
    assert np.array_equal(out[subset], np.where(plain >= 0, subset[plain], -1))
    assert (np.delete(out, subset) == -7).all()  # rows outside the subset untouched
