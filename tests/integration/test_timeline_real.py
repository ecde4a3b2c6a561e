"""Timeline windows, flows and Chrome export on real Kineto traces (../shared/data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.timeline.export import _KIND_CATEGORY, export_chrome_trace
from mindinsight_profiler.analysis.timeline.index import TimelineIndex, build_timeline_index
from mindinsight_profiler.analysis.timeline.window import search_events, timeline_window
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.kinds import Kind, kind_of_category
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.columns import is_mapped
from tests.conftest import shared
from tests.unit.test_timeline import check_window

RESNET = "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
FWDBWD = "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"


@pytest.fixture(scope="module")
def resnet() -> tuple[Trace, TimelineIndex]:
    trace = read_kineto(shared(RESNET))
    return trace, build_timeline_index(trace)


def _bounds(index: TimelineIndex) -> tuple[int, int]:
    meta = index["timeline_meta"]
    return int(meta["origin_ns"][0]), int(meta["span_ns"][0])


def test_windows_fit_the_budget_and_account_for_every_event(
    resnet: tuple[Trace, TimelineIndex],
) -> None:
    trace, index = resnet
    origin, span = _bounds(index)
    rng = np.random.default_rng(4)
    windows = [(0, span)] + [
        (int(rng.integers(0, span - w)), w) for w in (span // 3, 10**8, 10**7, 10**6) * 3
    ]
    for offset, width_ns in windows:
        t0, t1 = origin + offset, origin + offset + width_ns
        r = timeline_window(trace, index, None, t0, t1, 1920, max_items=2000)
        assert len(r["events"]["index"]) + len(r["blocks"]["count"]) <= 2000
        assert len(r["flows"]["src_ns"]) <= 2000
        assert len(json.dumps(r)) < 1_000_000
        check_window(trace, r, t0 - origin, t1 - origin, base=origin)


def test_zoomed_window_has_launch_flows_to_the_device(
    resnet: tuple[Trace, TimelineIndex],
) -> None:
    trace, index = resnet
    kernels = np.sort(trace.events["start_ns"][trace.events["kind"] == Kind.KERNEL])
    middle = int(kernels[len(kernels) // 2])
    r = timeline_window(trace, index, None, middle - 5 * 10**6, middle + 5 * 10**6, 1920)
    flows = r["flows"]
    launches = [i for i, c in enumerate(flows["cat"]) if c == -1]
    assert launches
    device = {t["id"] for t in r["tracks"] if t["is_device"]}
    assert {flows["dst_track"][i] for i in launches} <= device
    assert all(flows["src_ns"][i] <= flows["dst_ns"][i] for i in launches)


def test_forward_backward_flows_from_the_flow_table() -> None:
    trace = read_kineto(shared(FWDBWD))
    index = build_timeline_index(trace)
    origin, span = _bounds(index)
    r = timeline_window(trace, index, None, origin, origin + span, 1920)
    cats = [r["names"][c] for c in r["flows"]["cat"] if c >= 0]
    assert "fwdbwd" in cats
    assert "ac2g" not in cats  # launch flows come from the caller links, once


def test_search_finds_convolutions(resnet: tuple[Trace, TimelineIndex]) -> None:
    trace, _ = resnet
    r = search_events(trace, "conv2d", limit=10)
    assert r["total"] > 10 and len(r["events"]["index"]) == 10
    assert r["events"]["start_ns"] == sorted(r["events"]["start_ns"])


def test_export_reads_back_to_the_same_events(
    resnet: tuple[Trace, TimelineIndex], tmp_path: Path
) -> None:
    trace, _ = resnet
    path = tmp_path / "export.pt.trace.json.gz"
    assert export_chrome_trace(trace, path) == len(trace)
    back = read_kineto(path)
    assert len(back) == len(trace)
    assert len(back.flows["ts_ns"]) == len(trace.flows["ts_ns"])
    for col in ("start_ns", "end_ns", "kind", "track", "corr", "ext_id", "caller", "parent"):
        assert np.array_equal(back.events[col], trace.events[col]), col
    names = trace.strings.lookup(trace.events["name"])
    assert back.strings.lookup(back.events["name"]) == names


def test_export_of_a_window_keeps_whole_overlapping_events(
    resnet: tuple[Trace, TimelineIndex], tmp_path: Path
) -> None:
    trace, index = resnet
    origin, span = _bounds(index)
    t0, t1 = origin + span // 4, origin + span // 2
    count = export_chrome_trace(trace, tmp_path / "w.json", t0, t1)
    start, end = trace.events["start_ns"], trace.events["end_ns"]
    overlap = (start < t1) & ((end > t0) | ((end == start) & (start >= t0)))
    assert count == int(overlap.sum()) > 0
    doc = json.loads((tmp_path / "w.json").read_text())
    assert sum(e["ph"] in ("X", "i") for e in doc["traceEvents"]) == count
    assert doc["exportVersion"] == 1


def test_export_categories_map_back_to_their_kinds() -> None:
    for kind, category in _KIND_CATEGORY.items():
        assert kind_of_category(category) == Kind(kind)


def test_load_timeline_stores_the_index_in_the_cache_once(tmp_path: Path) -> None:
    src = shared(RESNET)
    ws = Workspace(tmp_path / "ws")
    trace, index = load_timeline(src, ws)
    again, cached = load_timeline(src, ws)
    assert is_mapped(cached["timeline_events"]["event"])  # from the cache
    for name, table in index.items():
        for col, values in table.items():
            assert np.array_equal(cached[name][col], values), (name, col)
    assert analyse_file(src, ws)[1]  # the report stayed in the entry
    window = (None, int(index["timeline_meta"]["origin_ns"][0]), int(trace.end_ns.max()), 800)
    assert timeline_window(again, cached, *window) == timeline_window(trace, index, *window)
