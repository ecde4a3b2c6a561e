"""Memory view on real traces: exact peaks, curves that keep them, consistent alloc/free pairs."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_profiler.analysis.memory.section import keep_extremes, memory_section
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared

MB = 1 << 20


@pytest.fixture(scope="module")
def resolver() -> Trace:
    return read_kineto(shared("hta/df_index_resolver/df_index_resolver.json.gz"))


@pytest.fixture(scope="module")
def ascend() -> Trace:
    return read_ascend_pt(shared("ascend_pytorch/level1/rank0_ascend_pt"))


def test_kineto_peak_is_exact_and_kept_in_the_curve(resolver: Trace) -> None:
    section = memory_section(resolver, max_points=600)
    assert section is not None
    m = resolver.memory
    cuda = next(d for d in section["devices"] if d["device"] == "CUDA:1")
    rows = (m["device_type"] == 1) & (m["device_id"] == 1)
    brute = int(m["total_allocated"][rows].max())
    assert cuda["peak_allocated"]["bytes"] == brute == 6_629_508_096
    first = int(m["ts_ns"][rows][m["total_allocated"][rows] == brute].min())
    assert cuda["peak_allocated"]["ts_ns"] == first
    assert cuda["peak_reserved"]["bytes"] == int(m["total_reserved"][rows].max())
    curve = cuda["curve"]
    assert cuda["samples"] == int(rows.sum()) == 26_770
    assert len(curve["ts_ns"]) <= 600
    assert max(curve["allocated_bytes"]) == brute
    assert max(curve["reserved_bytes"]) == cuda["peak_reserved"]["bytes"]
    assert curve["ts_ns"] == sorted(curve["ts_ns"])


def test_kineto_pairs_are_consistent(resolver: Trace) -> None:
    section = memory_section(resolver)
    assert section is not None
    cuda = next(d for d in section["devices"] if d["device"] == "CUDA:1")
    pairs = cuda["pairs"]
    assert pairs["count"] == 13_385 and pairs["live"] == 0
    m = resolver.memory
    by_addr_ts = {(a, t): b for a, t, b in zip(m["addr"], m["ts_ns"], m["bytes"], strict=True)}
    for addr, size, alloc, free in zip(
        pairs["addr"], pairs["bytes"], pairs["alloc_ns"], pairs["free_ns"], strict=True
    ):
        assert size > 0 and free is not None and free >= alloc
        assert by_addr_ts[(addr, alloc)] == size
        assert by_addr_ts[(addr, free)] == -size  # the free releases what was allocated
    assert all(op is not None for op in pairs["operator"])
    ops = cuda["operators"]
    assert sum(o["allocations"] for o in ops) == int(
        ((m["bytes"] > 0) & (m["device_id"] == 1)).sum()
    )
    assert sum(o["increase_bytes"] for o in ops) == int(m["bytes"][m["device_id"] == 1].sum())


def test_ascend_peak_matches_memory_record_and_pairs_match_operator_memory(ascend: Trace) -> None:
    section = memory_section(ascend, max_points=90)
    assert section is not None
    by_label = {d["device"]: d for d in section["devices"]}
    assert set(by_label) == {"NPU:0 APP", "NPU:0 PTA", "NPU:0 GE", "NPU:0 PTA+GE"}
    rec = ascend.tables["memory_record"]
    pta = by_label["NPU:0 PTA"]
    rows = rec["component"] == ascend.strings.intern("PTA")
    brute = int(np.rint(np.nanmax(rec["total_allocated_mb"][rows]) * MB))
    assert pta["peak_allocated"]["bytes"] == brute == 1_245_688_832  # 1188.0 MB
    assert max(v for v in pta["curve"]["allocated_bytes"] if v is not None) == brute
    assert len(pta["curve"]["ts_ns"]) <= 90 < pta["samples"] == 381
    assert by_label["NPU:0 APP"]["peak_allocated"] is None  # APP rows carry reserved only
    opm = ascend.tables["operator_memory"]
    pairs = pta["pairs"]
    assert pairs["count"] == len(opm["alloc_ns"]) == 184
    assert pairs["live"] == int((opm["release_ns"] < 0).sum()) == 24
    freed = [(a, f) for a, f in zip(pairs["alloc_ns"], pairs["free_ns"], strict=True) if f]
    assert all(f >= a for a, f in freed)
    assert sum(o["allocations"] for o in pta["operators"]) == 184


def test_no_memory_data_gives_none() -> None:
    trace = read_kineto(shared("hta/nccl_parser_config/nccl_data.json.gz"))
    assert memory_section(trace) is None


def test_downsampling_keeps_every_bucket_extreme() -> None:
    rng = np.random.default_rng(0)
    values = rng.integers(0, 1_000_000, 100_000)
    reserved = np.maximum.accumulate(values)
    idx = keep_extremes(values, reserved, 300)
    assert len(idx) <= 300 and np.all(np.diff(idx) > 0)
    assert values[idx].max() == values.max() and values[idx].min() == values.min()


def test_mindspore_memory_record_peak() -> None:
    run = next(shared("mindspore_cpu/new_api_pynative").glob("*_ascend_ms"))
    trace = read_trace(run)
    section = memory_section(trace, max_points=60)
    assert section is not None
    (device,) = section["devices"]
    rec = trace.tables["memory_record"]
    assert device["samples"] == len(rec["ts_ns"]) == 540
    assert device["peak_allocated"]["bytes"] == int(rec["total_allocated"].max()) == 2_378_752
    assert max(device["curve"]["allocated_bytes"]) == device["peak_allocated"]["bytes"]
    assert device["pairs"]["count"] == 0  # MindSpore records carry totals, not addresses
