"""Window rules on small hand-made ledgers: edges, ties, unknown releases, the default device."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.memory.ledger import Ledger, default_device
from mindinsight_profiler.analysis.memory.window import (
    curve_window,
    events_page,
    operators_window,
    window_allocations,
    window_summary,
)
from mindinsight_profiler.model.strings import StringTable


def ledger(device: str, pairing: str, allocs: list[tuple[int, int, int, int]]) -> Ledger:
    """From (alloc_ns, bytes, op, release_ns or -1): curve = running total of the changes."""
    a = np.array(sorted(allocs), dtype=np.int64).reshape(-1, 4)  # ledgers are time-sorted
    freed = a[:, 3] >= 0
    ch_ns = np.concatenate([a[:, 0], a[freed, 3]])
    order = np.argsort(ch_ns, kind="stable")
    ch_b = np.concatenate([a[:, 1], -a[freed, 1]])[order]
    ch_op = np.concatenate([a[:, 2], a[freed, 2]])[order]
    total = np.cumsum(ch_b)
    return Ledger(device, "memory_events", pairing, ch_ns[order], total, total, ch_op,
                  ch_ns[order], ch_b, ch_op, a[:, 0], a[:, 1], a[:, 2], a[:, 3],
                  np.full(len(a), -1, np.int64))  # fmt: skip


STRINGS = StringTable(["conv", "relu"])


def test_release_and_allocation_at_the_same_time_do_not_overlap() -> None:
    # conv holds 10 in [0, 5) and 10 in [5, 9): never 20 at once
    led = ledger("CUDA:0", "address", [(0, 10, 0, 5), (5, 10, 0, 9), (2, 7, 1, -1)])
    (conv,) = [r for r in operators_window(led, 0, 10, STRINGS) if r["name"] == "conv"]
    assert conv["peak_held_bytes"] == 10 and conv["largest_bytes"] == 10
    (relu,) = [r for r in operators_window(led, 0, 10, STRINGS) if r["name"] == "relu"]
    assert relu["peak_held_bytes"] == 7  # never released: held to the window's end


def test_window_edges_are_half_open() -> None:
    led = ledger("CUDA:0", "address", [(0, 10, 0, 5), (5, 10, 0, 9), (2, 7, 1, -1)])
    assert window_allocations(led, 2, 5).tolist() == [1]  # sorted rows: 0, 2, 5
    assert window_allocations(led, 0, 2).tolist() == [0]
    s = window_summary(led, 5, 9)
    assert (s["allocations"], s["frees"]) == (1, 1)  # the free at 5 is in, the one at 9 out
    assert s["start_allocated_bytes"] == 17 and s["end_allocated_bytes"] == 17
    assert s["held_at_end"] == 1  # released at 9, the window's end: still held inside it
    # alive in [6, 8): the allocation at 5 and the never-released one
    assert sorted(led.alloc_ns[window_allocations(led, 6, 8, "live")].tolist()) == [2, 5]
    with pytest.raises(ValueError):
        window_allocations(led, 0, 1, "bogus")


def test_curve_level_in_force_at_window_start_counts_for_the_peak() -> None:
    led = ledger("CUDA:0", "address", [(0, 100, 0, 50), (60, 5, 1, -1)])
    c = curve_window(led, 10, 40, 10, 0, STRINGS)
    assert c["samples"] == 0
    assert c["peak_allocated"] == {"bytes": 100, "ts_ns": 10, "operator": "conv"}
    assert c["ts_ns"] == [0, 50]  # the sample before the window and the one after it


def test_unknown_releases_are_unknown_not_live() -> None:
    led = ledger("CPU", "none", [(0, 4, 0, -1), (3, 8, -1, -1)])
    s = window_summary(led, 0, 10)
    assert s["held_at_end"] is None and s["held_at_end_bytes"] is None
    page = events_page(led, window_allocations(led, 0, 10), STRINGS, 0, sort="operator")
    assert [r["state"] for r in page["rows"]] == ["unknown", "unknown"]
    assert [r["operator"] for r in page["rows"]] == ["conv", None]  # no operator last
    assert all(r["peak_held_bytes"] is None for r in operators_window(led, 0, 10, STRINGS))
    # live = allocated when releases are unknown
    assert window_allocations(led, 1, 10, "live").tolist() == [1]
    with pytest.raises(ValueError):
        events_page(led, np.arange(2), STRINGS, 0, sort="addr")


def test_default_device_prefers_an_accelerator_with_events() -> None:
    cpu = ledger("CPU", "address", [(0, 1, 0, -1)])
    cuda = ledger("CUDA:0", "address", [(0, 1, 0, -1)])
    empty = ledger("NPU:0 APP", "none", [])
    assert default_device([cpu, cuda]) is cuda
    assert default_device([empty, cpu]) is cpu
    assert default_device([empty]) is empty


def test_linear_extremes_pick_what_keep_extremes_picks() -> None:
    """The window curve's linear-time cut keeps the report curve's samples (same buckets,
    same tie-breaks), on plateaus, noise and unknown (-1) totals."""
    from mindinsight_profiler.analysis.memory.section import keep_extremes
    from mindinsight_profiler.analysis.memory.window import extremes

    rng = np.random.default_rng(7)
    for n, cap in [(10, 20), (1000, 30), (12_345, 100), (999, 998), (1001, 10), (7, 3)]:
        for high in (3, 50, 10**12):
            allocated = rng.integers(-1, high, n)
            reserved = rng.integers(-1, 5, n)
            want = keep_extremes(allocated, reserved, cap)
            assert np.array_equal(extremes(allocated, reserved, cap), want), (n, cap, high)
