"""Timeline windows on hand-made traces: merging preserves busy time and counts, exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.timeline import index as ti
from mindinsight_profiler.analysis.timeline.index import (
    build_timeline_index,
    nesting_depth,
    timeline_index,
)
from mindinsight_profiler.analysis.timeline.window import search_events, timeline_window
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    FLOW_COLUMNS,
    MEMORY_COLUMNS,
    Trace,
    Track,
    empty_columns,
)
from mindinsight_profiler.store.cache import CacheEntry
from mindinsight_profiler.store.columns import is_mapped

T0 = 1_700_000_000_000_000_000  # epoch ns, as Kineto gives: responses must be relative


def make_trace(
    rows: list[tuple[int, int, int, str]], flows: tuple[tuple[int, int, int, str, str], ...] = ()
) -> Trace:
    """A trace of (track, start, end, name) events (times relative to T0) and flow records."""
    strings = StringTable()
    ev = empty_columns(EVENT_COLUMNS, len(rows))
    for i, (track, start, end, name) in enumerate(rows):
        ev["track"][i], ev["start_ns"][i], ev["end_ns"][i] = track, T0 + start, T0 + end
        ev["name"][i] = strings.intern(name)
        ev["kind"][i] = Kind.CPU_OP
    fl = empty_columns(FLOW_COLUMNS, len(flows))
    for i, (ts, track, flow_id, phase, cat) in enumerate(flows):
        fl["ts_ns"][i], fl["track"][i], fl["flow_id"][i] = T0 + ts, track, flow_id
        fl["phase"][i], fl["cat"][i] = ord(phase), strings.intern(cat)
    n_tracks = max([r[0] for r in rows], default=0) + 1
    tracks = [Track("1", str(t), "proc", f"thread {t}") for t in range(n_tracks)]
    return Trace(ev, empty_columns(MEMORY_COLUMNS, 0), fl, strings, tracks)


def dense_trace(seed: int = 0, n: int = 4000) -> Trace:
    """Two tracks of back-to-back tiny events under a few long ones (depth 0 and 1)."""
    rng = np.random.default_rng(seed)
    rows = []
    for track in (0, 1):
        for parent in range(4):
            p0 = parent * 1_000_000
            rows.append((track, p0, p0 + 900_000, f"long{parent}"))
            t = p0 + 10
            for _ in range(n // 8):
                d = int(rng.integers(1, 300))
                rows.append((track, t, t + d, "tiny"))
                t += d + int(rng.integers(0, 200))
            assert t < p0 + 900_000
    return make_trace(rows)


def check_window(trace: Trace, r: dict[str, Any], t0: int, t1: int, base: int = T0) -> None:
    """Items account exactly for the events the window covers, none narrower than a pixel.

    Covered: events at least a bucket long overlapping [t0, t1), shorter ones starting in a
    bucket that intersects it (buckets are aligned on the origin, so the first and last may
    reach a little outside the window).
    """
    ev, bl, q = r["events"], r["blocks"], r["bucket_ns"]  # times below are relative to base
    origin = r["origin_ns"] - base
    start = trace.events["start_ns"] - base
    dur = trace.events["end_ns"] - trace.events["start_ns"]
    lo = origin + (t0 - origin) // q * q
    hi = origin + -(-(t1 - origin) // q) * q
    small = dur < q
    covered = np.where(small, (start >= lo) & (start < hi), (start + dur > t0) & (start < t1))
    assert sum(bl["count"]) + len(ev["index"]) == int(covered.sum())
    assert sum(bl["busy_ns"]) + sum(ev["dur_ns"]) == int(dur[covered].sum())
    pixel = (t1 - t0) / r["width_px"]
    assert q >= pixel
    assert all(d >= pixel for d in bl["dur_ns"])
    track = trace.events["track"]
    depth = nesting_depth(track, trace.events["start_ns"], trace.events["end_ns"])
    for i, d in enumerate(ev["dur_ns"]):  # narrower than a pixel: alone in its bucket and row
        if d < pixel:
            row = (track == ev["track"][i]) & (depth == ev["depth"][i]) & small
            assert int((row & ((start - origin) // q == ev["start_ns"][i] // q)).sum()) == 1


@pytest.mark.parametrize("width", [100, 1920])
def test_whole_window_preserves_counts_and_busy_time(width: int) -> None:
    trace = dense_trace()
    index = build_timeline_index(trace)
    r = timeline_window(trace, index, None, T0, T0 + 4_000_000, width)
    assert r["origin_ns"] == T0 and r["t0_ns"] == 0
    assert r["bucket_ns"] >= 4_000_000 / width
    check_window(trace, r, 0, 4_000_000)
    assert {"long0", "long1", "long2", "long3"} <= set(r["names"])
    assert set(r["events"]["depth"]) <= {0, 1} and set(r["blocks"]["depth"]) == {1}


@pytest.mark.parametrize("t0,t1", [(0, 2_000_000), (1_000_000, 1_050_000), (1_000_000, 1_000_500)])
def test_summary_and_direct_aggregation_agree(t0: int, t1: int) -> None:
    trace = dense_trace(1)
    index = build_timeline_index(trace)
    with_summary = timeline_window(trace, index, None, T0 + t0, T0 + t1, 640)
    no_summary = dict(index)
    no_summary["timeline_summary"] = {c: v[:0] for c, v in index["timeline_summary"].items()}
    direct = timeline_window(trace, no_summary, None, T0 + t0, T0 + t1, 640)
    assert with_summary == direct
    check_window(trace, with_summary, t0, t1)
    finest = int(index["timeline_summary"]["level"].min())
    assert (finest <= with_summary["bucket_ns"].bit_length() - 1) == (t1 - t0 > 100_000)


def test_window_far_wider_than_the_trace() -> None:
    trace = dense_trace()
    r = timeline_window(trace, build_timeline_index(trace), None, T0 - 10**15, T0 + 10**15, 1920)
    assert sum(r["blocks"]["count"]) + len(r["events"]["index"]) == len(trace)
    after = timeline_window(trace, build_timeline_index(trace), None, T0 + 10**9, T0 + 10**10, 50)
    assert after["events"]["index"] == [] and after["blocks"]["count"] == []


def test_max_items_is_respected_by_coarser_buckets() -> None:
    trace = dense_trace(2, n=8000)
    index = build_timeline_index(trace)
    r = timeline_window(trace, index, None, T0, T0 + 4_000_000, 100_000, max_items=60)
    assert len(r["events"]["index"]) + len(r["blocks"]["count"]) <= 60
    assert not r["truncated"]
    check_window(trace, r, 0, 4_000_000)


def test_long_event_starting_before_the_window_is_drawn() -> None:
    trace = make_trace([(0, 0, 10_000, "long"), (0, 20_000, 20_010, "after")])
    r = timeline_window(trace, build_timeline_index(trace), [0], T0 + 5_000, T0 + 6_000, 100)
    assert r["names"] == ["long"] and r["events"]["start_ns"] == [0]
    assert r["tracks"] == [
        {"id": 0, "pid": "1", "tid": "0", "process_name": "proc", "thread_name": "thread 0",
         "is_device": False, "depth": 1, "events": 2}
    ]  # fmt: skip


def test_track_selection_and_bad_window() -> None:
    trace = dense_trace()
    index = build_timeline_index(trace)
    r = timeline_window(trace, index, [1], T0, T0 + 4_000_000, 1000)
    assert set(r["events"]["track"]) | set(r["blocks"]["track"]) == {1}
    with pytest.raises(ValueError):
        timeline_window(trace, index, None, T0 + 5, T0 + 5, 1000)


def test_nesting_depth_counts_enclosing_ranges_per_track() -> None:
    track = np.array([0, 0, 0, 0, 1])
    start = np.array([0, 10, 12, 50, 11])
    end = np.array([100, 40, 20, 60, 12])
    assert nesting_depth(track, start, end).tolist() == [0, 1, 2, 1, 0]


def test_flows_from_the_flow_table_skip_launch_duplicates() -> None:
    rows = [(0, 0, 100, "fwd"), (1, 500, 600, "bwd")]
    big = 2**62 + 7  # hashed string ids are this large
    flows = ((0, 0, big, "s", "fwdbwd"), (500, 1, big, "f", "fwdbwd"), (9, 0, big, "s", "other"),
             (0, 0, 8, "s", "ac2g"), (500, 1, 8, "f", "ac2g"))  # fmt: skip
    trace = make_trace(rows, flows)
    r = timeline_window(trace, build_timeline_index(trace), None, T0, T0 + 1000, 100)
    f = r["flows"]
    assert (f["src_track"], f["src_ns"], f["dst_track"], f["dst_ns"]) == ([0], [0], [1], [500])
    assert r["names"][f["cat"][0]] == "fwdbwd"
    r = timeline_window(trace, build_timeline_index(trace), [0], T0, T0 + 1000, 100)
    assert r["flows"]["src_ns"] == []


def test_search_is_case_insensitive_sorted_and_limited() -> None:
    trace = make_trace([(0, 30, 40, "aten::Conv2d"), (0, 10, 20, "conv_kernel"), (0, 0, 5, "x")])
    r = search_events(trace, "CONV", limit=1)
    assert r["total"] == 2
    assert [r["names"][i] for i in r["events"]["name"]] == ["conv_kernel"]
    assert r["events"]["start_ns"] == [10]
    assert search_events(trace, "nothing")["total"] == 0


def test_index_is_cached_with_the_trace(tmp_path: Path) -> None:
    trace = dense_trace()
    index = timeline_index(trace)
    assert set(ti.INDEX_TABLES) <= set(trace.tables)
    entry = CacheEntry(tmp_path, "key")
    entry.save(trace, {})
    loaded = entry.load_trace()
    assert loaded is not None
    again = timeline_index(loaded)
    assert is_mapped(again["timeline_events"]["event"])  # from the cache
    window = (None, T0, T0 + 4_000_000, 500)
    assert timeline_window(loaded, again, *window) == timeline_window(trace, index, *window)
