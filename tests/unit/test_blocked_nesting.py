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
