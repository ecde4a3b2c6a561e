"""accumulate_up (depths by following the live chains, int32) against the plain sum."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.operators.stats import accumulate_up


def _plain(values: np.ndarray, parent: np.ndarray, gate: np.ndarray | None) -> np.ndarray:
    """Each node's value added to every ancestor it reaches through open gates."""
    total = values.astype(np.int64).copy()
    for i in range(len(parent)):
        p, v = int(parent[i]), int(values[i])
        while p >= 0 and (gate is None or gate[p]):
            total[p] += v
            p = int(parent[p])
    return total


@pytest.mark.parametrize("shape", ["forest", "chain", "flat", "empty"])
@pytest.mark.parametrize("gated", [False, True])
def test_accumulate_up_equals_the_plain_sum(shape: str, gated: bool) -> None:
    rng = np.random.default_rng(len(shape) + gated)
    n = {"empty": 0, "chain": 300}.get(shape, 500)
    if shape == "forest":  # parents before children, some roots
        parent = np.array([int(rng.integers(-1, i)) if i else -1 for i in range(n)], np.int64)
    elif shape == "chain":  # one deep path: depth n - 1
        parent = np.arange(-1, n - 1, dtype=np.int64)
    else:
        parent = np.full(n, -1, dtype=np.int64)
    values = rng.integers(0, 100, n).astype(np.int64)
    gate = rng.random(n) < 0.7 if gated else None
    got = accumulate_up(values, parent, gate)
    assert np.array_equal(got, _plain(values, parent, gate))
    assert got.dtype == np.int64
