"""Memory windows on real traces against brute force: plain Python over the raw records
(and, for Ascend, over operator_memory.csv read with the csv module).

Windows cover the whole range, random cuts, edges placed exactly on sample times (a sample
at t0 is in, one at t1 is out) and windows before and after all samples.
"""

from __future__ import annotations

import csv
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_profiler.analysis.memory.ledger import Ledger, default_device, memory_ledgers
from mindinsight_profiler.analysis.memory.section import memory_section
from mindinsight_profiler.analysis.memory.window import (
    curve_window,
    events_page,
    full_range,
    operators_window,
    window_allocations,
    window_summary,
)
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.trace import Trace
from tests.conftest import shared

TRACES = {
    "torch_cpu": "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json",
    "hta_cuda": "hta/df_index_resolver/df_index_resolver.json.gz",
    "kineto_2021": "kineto/resnet50_num_workers_0",
    "ascend": "ascend_pytorch/level1/rank0_ascend_pt",
    "mindspore": "mindspore_cpu/new_api_pynative",
}
_cache: dict[str, Trace] = {}


def load(key: str) -> Trace:
    if key not in _cache:
        path = shared(TRACES[key])
        if key == "ascend":
            _cache[key] = read_ascend_pt(path)
        elif key == "mindspore":
            _cache[key] = read_trace(next(path.glob("*_ascend_ms")))
        elif path.is_dir():
            _cache[key] = read_kineto(min(path.glob("*.pt.trace.json*")))
        else:
            _cache[key] = read_kineto(path)
    return _cache[key]


def windows(ledger: Ledger, seed: int = 0) -> list[tuple[int, int]]:
    """Whole range, random cuts, edges on sample times, and empty windows outside."""
    lo, hi = full_range(ledger)
    rng = random.Random(seed)
    ts = ledger.ts_ns.tolist()
    out = [(lo, hi), (lo - 1000, lo), (hi, hi + 1000), (lo, lo + 1)]
    for _ in range(6):
        a, b = sorted(rng.randrange(lo, hi) for _ in range(2))
        out.append((a, b + 1))
        i, j = sorted(rng.randrange(len(ts)) for _ in range(2))
        if ts[i] < ts[j]:
            out.append((ts[i], ts[j]))  # a sample exactly at t0 (in) and at t1 (out)
    return out


def record_rows(trace: Trace, ledger: Ledger) -> list[dict[str, Any]]:
    """The device's raw records as dicts, in time order (ties: file order)."""
    m = trace.memory
    label = {"CPU": (0, -1)}.get(ledger.device)
    rows = []
    for i in range(len(m["ts_ns"])):
        dev = (int(m["device_type"][i]), int(m["device_id"][i]))
        if ledger.device.startswith("CUDA:"):
            if dev != (1, int(ledger.device[5:])):
                continue
        elif label is not None and dev != label and dev != (-1, -1):
            continue
        rows.append({"ts": int(m["ts_ns"][i]), "bytes": int(m["bytes"][i]),
                     "addr": int(m["addr"][i]), "i": i})  # fmt: skip
    rows.sort(key=lambda r: (r["ts"], r["i"]))
    return rows


def brute_pairs(rows: list[dict[str, Any]]) -> dict[int, int | None]:
    """Record index of each allocation -> release time, walking records in time order."""
    open_by_addr: dict[int, dict[str, Any]] = {}
    release: dict[int, int | None] = {}
    for r in rows:
        if r["bytes"] > 0:
            release[r["i"]] = None
            if r["addr"] >= 0:
                open_by_addr[r["addr"]] = r
        elif r["bytes"] < 0 and r["addr"] in open_by_addr:
            release[open_by_addr.pop(r["addr"])["i"]] = r["ts"]
    return release


@pytest.mark.parametrize("key", ["torch_cpu", "hta_cuda", "kineto_2021", "mindspore"])
def test_record_windows_match_brute_force(key: str) -> None:
    trace = load(key)
    ledgers = memory_ledgers(trace)
    assert ledgers
    for ledger in ledgers:
        rows = record_rows(trace, ledger)
        assert len(rows) == len(ledger.ts_ns)
        release = brute_pairs(rows)
        paired = any(r["addr"] >= 0 for r in rows)
        assert ledger.pairing == ("address" if paired else "none")
        for t0, t1 in windows(ledger):
            inside = [r for r in rows if t0 <= r["ts"] < t1]
            s = window_summary(ledger, t0, t1)
            assert s["allocations"] == sum(r["bytes"] > 0 for r in inside)
            assert s["allocated_bytes"] == sum(r["bytes"] for r in inside if r["bytes"] > 0)
            assert s["frees"] == sum(r["bytes"] < 0 for r in inside)
            assert s["freed_bytes"] == -sum(r["bytes"] for r in inside if r["bytes"] < 0)
            allocs = [r for r in inside if r["bytes"] > 0]
            got = window_allocations(ledger, t0, t1)
            assert sorted(ledger.alloc_bytes[got].tolist()) == sorted(r["bytes"] for r in allocs)
            assert sorted(ledger.alloc_ns[got].tolist()) == sorted(r["ts"] for r in allocs)
            want = sorted((r["ts"], r["bytes"], release[r["i"]] or -1) for r in allocs)
            have = sorted(zip(ledger.alloc_ns[got].tolist(), ledger.alloc_bytes[got].tolist(),
                              ledger.release_ns[got].tolist(), strict=True))  # fmt: skip
            assert have == want
            if paired:
                held = [r for r in allocs if release[r["i"]] is None or release[r["i"]] >= t1]
                assert s["held_at_end"] == len(held)
            else:
                assert s["held_at_end"] is None
            live = window_allocations(ledger, t0, t1, "live")
            brute_live = [
                r for r in rows if r["bytes"] > 0 and r["ts"] < t1
                and (r["ts"] >= t0 or (release[r["i"]] or -1) > t0
                     or (paired and release[r["i"]] is None))
            ]  # fmt: skip
            assert len(live) == len(brute_live)


def level_values(ledger: Ledger, values: np.ndarray, t0: int, t1: int) -> list[int]:
    """The totals the curve takes in [t0, t1): samples in it and the one in force at t0."""
    ts = ledger.ts_ns.tolist()
    before = [i for i, t in enumerate(ts) if t < t0]
    idx = ([before[-1]] if before else []) + [i for i, t in enumerate(ts) if t0 <= t < t1]
    return [int(values[i]) for i in idx]


@pytest.mark.parametrize("key", ["torch_cpu", "hta_cuda", "kineto_2021", "ascend", "mindspore"])
def test_curve_window_peaks_are_exact_and_drawn(key: str) -> None:
    trace = load(key)
    origin = int(trace.events["start_ns"].min())
    for ledger in memory_ledgers(trace):
        for t0, t1 in windows(ledger, seed=1):
            c = curve_window(ledger, t0, t1, 60, origin, trace.strings)
            assert len(c["ts_ns"]) <= 60
            assert c["ts_ns"] == sorted(c["ts_ns"])
            for name, values in (("allocated", ledger.allocated), ("reserved", ledger.reserved)):
                seen = [v for v in level_values(ledger, values, t0, t1) if v >= 0]
                peak = c[f"peak_{name}"]
                if not seen:
                    assert peak is None
                    continue
                assert peak["bytes"] == max(seen)
                assert t0 - origin <= peak["ts_ns"] < t1 - origin
                assert peak["bytes"] in c[f"{name}_bytes"]  # the drawn curve keeps it
            s = window_summary(ledger, t0, t1)
            before = [int(v) for t, v in zip(ledger.ts_ns, ledger.allocated, strict=True)
                      if t < t1]  # fmt: skip
            assert s["end_allocated_bytes"] == (before[-1] if before and before[-1] >= 0 else None)


def test_whole_window_agrees_with_the_report_section() -> None:
    """Over all samples, the window peak and operator table are the report's."""
    for key in ("torch_cpu", "hta_cuda", "ascend", "mindspore"):
        trace = load(key)
        section = memory_section(trace)
        assert section is not None
        by_device = {d["device"]: d for d in section["devices"]}
        origin = int(trace.events["start_ns"].min())
        for ledger in memory_ledgers(trace):
            d = by_device[ledger.device]
            t0, t1 = full_range(ledger)
            c = curve_window(ledger, t0, t1, 500, origin, trace.strings)
            if d["peak_allocated"] is not None:
                assert c["peak_allocated"]["bytes"] == d["peak_allocated"]["bytes"]
                assert c["peak_allocated"]["ts_ns"] == d["peak_allocated"]["ts_ns"] - origin
                if "operator" in d["peak_allocated"]:
                    assert c["peak_allocated"]["operator"] == d["peak_allocated"]["operator"]
            ops = operators_window(ledger, t0, t1, trace.strings)
            keep = {"allocations", "allocated_bytes", "frees", "freed_bytes", "increase_bytes"}
            mine = {r["name"]: {k: r[k] for k in keep} for r in ops}
            theirs = {r["name"]: {k: r[k] for k in keep} for r in d["operators"]
                      if r["allocations"] or r["frees"]}  # fmt: skip
            assert mine == theirs, (key, ledger.device)


def brute_operators(ledger: Ledger, t0: int, t1: int) -> dict[int, dict[str, int]]:
    """Per operator code, from plain loops over the ledger's rows."""
    out: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for t, b, op in zip(ledger.change_ns.tolist(), ledger.change_bytes.tolist(),
                        ledger.change_op.tolist(), strict=True):  # fmt: skip
        if t0 <= t < t1:
            r = out[op]
            r["allocations" if b > 0 else "frees"] += 1
            r["largest_bytes"] = max(r["largest_bytes"], b)
    for op in out:  # the most bytes of the operator's allocations alive at one time
        spans = [(max(a, t0), min(r if r >= 0 else t1, t1), b) for a, b, r, o in zip(
            ledger.alloc_ns.tolist(), ledger.alloc_bytes.tolist(), ledger.release_ns.tolist(),
            ledger.alloc_op.tolist(), strict=True) if o == op]  # fmt: skip
        points = sorted({s for s, e, _ in spans if s < e})
        out[op]["peak_held_bytes"] = max(
            [sum(b for s, e, b in spans if s <= p < e) for p in points], default=0
        )
    return out


@pytest.mark.parametrize("key", ["torch_cpu", "ascend"])
def test_operator_windows_match_brute_force(key: str) -> None:
    trace = load(key)
    ledger = default_device(memory_ledgers(trace))
    assert ledger is not None and ledger.pairing != "none"
    for t0, t1 in windows(ledger, seed=2)[:8]:
        want = brute_operators(ledger, t0, t1)
        got = operators_window(ledger, t0, t1, trace.strings)
        assert len(got) == len(want)
        for code, w in want.items():
            name = trace.strings[code] if code >= 0 else "(no operator)"
            (row,) = [r for r in got if r["name"] == name]
            for k, v in w.items():
                assert row[k] == v, (name, k)


def ascend_csv(path: Path) -> list[dict[str, Any]]:
    """operator_memory.csv with the csv module; times as exact integer ns."""

    def ns(text: str) -> int | None:
        text = text.strip()
        if not text:
            return None
        whole, _, frac = text.partition(".")
        return int(whole) * 1000 + int((frac + "000")[:3])

    with open(path / "ASCEND_PROFILER_OUTPUT" / "operator_memory.csv", newline="") as f:
        return [{"name": r["Name"], "bytes": round(float(r["Size(KB)"]) * 1024),
                 "alloc": ns(r["Allocation Time(us)"]), "release": ns(r["Release Time(us)"])}
                for r in csv.DictReader(f)]  # fmt: skip


def test_ascend_events_match_operator_memory_csv() -> None:
    trace = load("ascend")
    rows = ascend_csv(shared(TRACES["ascend"]))
    origin = int(trace.events["start_ns"].min())
    ledger = default_device(memory_ledgers(trace))
    assert ledger is not None and ledger.device == "NPU:0 PTA" and ledger.pairing == "table"
    for t0, t1 in windows(ledger, seed=3):
        inside = [r for r in rows if t0 <= r["alloc"] < t1]
        page = events_page(ledger, window_allocations(ledger, t0, t1), trace.strings, origin,
                           sort="alloc_ns", desc=False, limit=1000)  # fmt: skip
        assert page["total"] == len(inside)
        assert page["total_bytes"] == sum(r["bytes"] for r in inside)
        got = [(r["operator"], r["bytes"], r["alloc_ns"] + origin,
                None if r["release_ns"] is None else r["release_ns"] + origin)
               for r in page["rows"]]  # fmt: skip
        want = sorted(((r["name"], r["bytes"], r["alloc"], r["release"]) for r in inside),
                      key=lambda w: w[2])  # fmt: skip
        assert sorted(got, key=lambda g: (g[2], g[0], g[1])) == sorted(
            want, key=lambda w: (w[2], w[0], w[1])
        )
        for r in page["rows"]:
            assert r["state"] == ("freed" if r["release_ns"] is not None else "live")
            if r["duration_ns"] is not None:
                assert r["duration_ns"] == r["release_ns"] - r["alloc_ns"] >= 0


@pytest.mark.parametrize("key", ["torch_cpu", "kineto_2021"])
def test_events_sort_and_search_match_python(key: str) -> None:
    """Every sort key both ways (unknown values last, ties by allocation time) and a search,
    against Python's sort of all rows of the window."""
    trace = load(key)
    origin = int(trace.events["start_ns"].min())
    ledger = default_device(memory_ledgers(trace))
    assert ledger is not None
    lo, hi = full_range(ledger)
    t0, t1 = lo + (hi - lo) // 4, lo + (hi - lo) // 2
    rows = window_allocations(ledger, t0, t1)
    everything = events_page(ledger, rows, trace.strings, origin, sort="alloc_ns", desc=False,
                             limit=len(rows))["rows"]  # fmt: skip
    assert len(everything) == len(rows) > 50
    for sort in ("bytes", "alloc_ns", "release_ns", "duration_ns", "operator"):
        for desc in (True, False):
            page = events_page(ledger, rows, trace.strings, origin, sort=sort, desc=desc,
                               offset=7, limit=30)  # fmt: skip

            def key_of(r: dict[str, Any], sort: str = sort, desc: bool = desc) -> tuple:
                v = r[sort]
                if v is None:
                    return (1, 0, r["alloc_ns"])
                return (0, (v if not desc else _neg(v)), r["alloc_ns"])

            want = sorted(everything, key=key_of)[7:37]
            assert [key_of(r) for r in page["rows"]] == [key_of(r) for r in want], sort
    name = next(r["operator"] for r in everything if r["operator"])
    needle = name[1:5].upper()
    page = events_page(ledger, rows, trace.strings, origin, search=needle, limit=len(rows))
    want = [r for r in everything if r["operator"] and needle.lower() in r["operator"].lower()]
    assert page["total"] == len(want) > 0
    assert page["total_bytes"] == sum(r["bytes"] for r in want)


def _neg(v: Any) -> Any:
    """Descending order of a number or a name."""
    if isinstance(v, str):
        return (*(-ord(c) for c in v), 1)
    return -v


def test_ascend_without_a_pta_curve_draws_the_allocation_tables_totals() -> None:
    """operator_memory without memory_record: the curve is the totals that table records."""
    import dataclasses

    trace = load("ascend")
    tables = {k: v for k, v in trace.tables.items() if k != "memory_record"}
    ledgers = memory_ledgers(dataclasses.replace(trace, tables=tables))
    (ledger,) = ledgers
    opm = trace.tables["operator_memory"]
    assert ledger.device == "NPU:0" and ledger.pairing == "table"
    freed = int((opm["release_ns"] >= 0).sum())
    assert len(ledger.ts_ns) == len(opm["alloc_ns"]) + freed
    assert np.all(np.diff(ledger.ts_ns) >= 0)
    mb = np.concatenate([opm["alloc_total_allocated_mb"],
                         opm["release_total_allocated_mb"][opm["release_ns"] >= 0]])  # fmt: skip
    assert int(ledger.allocated.max()) == int(np.rint(np.nanmax(mb) * (1 << 20)))
    origin = int(trace.events["start_ns"].min())
    t0, t1 = full_range(ledger)
    c = curve_window(ledger, t0, t1, 100, origin, trace.strings)
    assert c["peak_allocated"]["operator"]  # a sample at an allocation names its operator


def test_no_memory_data_has_no_ledgers() -> None:
    trace = read_kineto(shared("hta/nccl_parser_config/nccl_data.json.gz"))
    assert memory_ledgers(trace) == [] and default_device([]) is None
