"""Counter tracks of timeline windows: memory keeps each bucket's maximum (peaks survive any
downsampling), device busy is the exact union coverage of the device's work per bucket."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.memory.ledger import memory_ledgers
from mindinsight_profiler.analysis.timeline.counters import busy_share, step_extremes
from mindinsight_profiler.analysis.timeline.index import timeline_index
from mindinsight_profiler.analysis.timeline.window import timeline_window
from mindinsight_profiler.formats.detect import read_trace
from tests.tracegen import kernel, op, write_trace


def _level_at(ts: np.ndarray, values: np.ndarray, t: float) -> int:
    i = int(np.searchsorted(ts, t, side="right")) - 1
    return int(values[i]) if i >= 0 else -1


def _check_steps(ts: np.ndarray, values: np.ndarray, edges: np.ndarray) -> None:
    times, got = step_extremes(ts, values, edges)
    assert (np.diff(times) > 0).all()
    for b in range(len(edges) - 1):
        lo, hi = edges[b], edges[b + 1]
        inside = values[(ts >= lo) & (ts < hi)]
        if len(inside) == 0:
            continue
        want = max(int(inside.max()), _level_at(ts, values, lo - 0.5))
        at = int(np.searchsorted(times, lo))
        assert times[at] == lo and got[at] == want, (b, got[at], want)
        # then the level the bucket closes on holds until the next bucket with samples
        closing = int(inside[-1])
        nxt = int(np.searchsorted(times, hi))
        if nxt < len(times) and times[nxt] == hi:
            assert got[nxt] >= closing
        else:
            assert got[at] == closing or got[nxt - 1] == closing


def test_memory_keeps_each_buckets_maximum() -> None:
    rng = np.random.default_rng(3)
    ts = np.sort(rng.integers(0, 1_000_000, 5000))
    values = rng.integers(0, 1 << 30, 5000)
    values[1234] = 5 << 30  # one sample's peak, far above the rest
    for width in (1 << 10, 1 << 14, 1 << 20):
        edges = np.arange(0, 1_000_000 + width, width, dtype=np.int64)
        _check_steps(ts, values, edges)
        assert step_extremes(ts, values, edges)[1].max() == 5 << 30  # the peak survives


def test_memory_opens_on_the_level_in_force_and_skips_unknown_totals() -> None:
    ts = np.array([10, 20, 300, 310], dtype=np.int64)
    values = np.array([5, 9, -1, 2], dtype=np.int64)
    edges = np.array([100, 200, 300, 400], dtype=np.int64)
    times, got = step_extremes(ts, values, edges)
    # [300, 400): 9 at its open is its max; it closes on 2 (at 310), given at its end
    assert times.tolist() == [100, 300, 400] and got.tolist() == [9, 9, 2]
    # mutation: a bucket's value taken from its samples only would lose the level at open
    times, got = step_extremes(ts, values, np.array([0, 15, 30], dtype=np.int64))
    assert times.tolist() == [0, 15] and got.tolist() == [5, 9]


def test_a_queue_keeps_each_buckets_minimum() -> None:
    rng = np.random.default_rng(5)
    ts = np.sort(rng.integers(0, 100_000, 2000))
    values = rng.integers(1, 64, 2000)
    values[777] = 0  # one empty queue: the device starved once
    edges = np.arange(0, 100_000 + 4096, 4096, dtype=np.int64)
    times, got = step_extremes(ts, values, edges, lowest=True)
    assert got.min() == 0
    for b in range(len(edges) - 1):
        inside = values[(ts >= edges[b]) & (ts < edges[b + 1])]
        if len(inside):
            before = values[ts < edges[b]]
            want = min(int(inside.min()), int(before[-1]) if len(before) else 1 << 62)
            assert got[np.searchsorted(times, edges[b])] == want


def test_busy_share_is_the_union_coverage() -> None:
    start = np.array([0, 5, 30, 100, 101], dtype=np.int64)
    end = np.array([10, 20, 40, 100, 150], dtype=np.int64)  # [0,20) [30,40) [101,150)
    edges = np.array([0, 25, 50, 75, 100, 125, 150], dtype=np.int64)
    share = busy_share(start, end, edges)
    assert share.tolist() == pytest.approx([20 / 25, 10 / 25, 0, 0, 24 / 25, 1])
    # brute force over every ns
    rng = np.random.default_rng(1)
    start = rng.integers(0, 10_000, 300)
    end = start + rng.integers(0, 400, 300)
    edges = np.arange(0, 10_600, 64, dtype=np.int64)
    busy = np.zeros(10_600, dtype=bool)
    for s, e in zip(start.tolist(), end.tolist(), strict=True):
        busy[s:e] = True
    want = [busy[a:b].mean() for a, b in itertools.pairwise(edges)]
    assert busy_share(start, end, edges) == pytest.approx(want)


def _kernels(tmp_path: Path) -> Path:
    """Two streams of kernels on device 0 (overlapping), a host thread, and memory records."""
    events = [op("aten::step", 0, 1000, tid=1)]
    spans = [(10, 40), (30, 60), (200, 250), (600, 601), (700, 990)]
    for i, (a, b) in enumerate(spans):
        k = kernel(f"k{i}", a, b - a, corr=i)
        k["tid"] = 7 + i % 2  # two streams
        events.append(k)
    for ts, total in ((5, 100), (50, 4000), (51, 300), (800, 700)):
        events.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 0, "tid": 7, "ts": ts,
                       "args": {"Device Type": 1, "Device Id": 0, "Addr": ts, "Bytes": 1,
                                "Total Allocated": total, "Total Reserved": 5000}})  # fmt: skip
    return write_trace(tmp_path / "w.pt.trace.json", events)


def test_window_counters_of_a_generated_trace(tmp_path: Path) -> None:
    trace = read_trace(_kernels(tmp_path))
    index = timeline_index(trace)
    ledgers = memory_ledgers(trace)
    origin = int(index["timeline_meta"]["origin_ns"][0])
    assert origin == trace.events["start_ns"].min()  # aten::step at 0 us
    whole = timeline_window(trace, index, None, origin, origin + 1_000_000, 125, ledgers=ledgers)
    bucket = whole["bucket_ns"]
    assert bucket == 8192  # 1 ms at 125 px: 8000 ns -> 2**13
    series = {(c["name"], c["device"]): c for c in whole["counters"]}
    busy = series["device_busy", ""]
    gpu = next(t for t in trace.tracks if t.is_device).pid
    assert busy["group"] == gpu and busy["unit"] == "ratio"
    # kernels (us): union [10, 60) [200, 250) [600, 601) [700, 990) = 50 + 50 + 1 + 290 us
    edges = np.arange(0, 1_000_000 + bucket, bucket)
    start = np.array([10, 200, 600, 700]) * 1000
    end = np.array([60, 250, 601, 990]) * 1000
    busy_ns = np.zeros(len(edges) - 1)
    for s, e in zip(start.tolist(), end.tolist(), strict=True):
        busy_ns += np.clip(np.minimum(edges[1:], e) - np.maximum(edges[:-1], s), 0, None)
    want = busy_ns / bucket
    # the series keeps a point where the value changes: expand it back to every bucket
    times = np.array(busy["times"])
    at = np.searchsorted(times, edges[:-1], side="right") - 1
    assert np.array(busy["values"])[at] == pytest.approx(want, abs=1e-4)
    peak = series["memory_allocated", "CUDA:0"]
    assert peak["group"] == gpu and max(peak["values"]) == 4000  # the 1 us peak survives
    assert max(series["memory_reserved", "CUDA:0"]["values"]) == 5000
    # a group's counters come with its tracks only
    host = [i for i, t in enumerate(trace.tracks) if not t.is_device]
    only_host = timeline_window(
        trace, index, host, origin, origin + 1_000_000, 125, ledgers=ledgers
    )
    assert all(c["group"] != gpu for c in only_host["counters"])
