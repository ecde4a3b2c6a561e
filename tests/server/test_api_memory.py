"""The memory window routes through the Flask test client, against the analysis functions
on the same cached trace, the report's memory section and brute force over the raw records.

Runs: torch CPU with profile_memory (addresses: releases paired), an Ascend run
(operator_memory: releases from the table; component curves without events) and a MindSpore
run profiled without memory (an explicit empty answer with its reason).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.memory.ledger import memory_ledgers
from mindinsight_profiler.analysis.memory.window import full_range, operators_window
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

RUNS = {
    "torch": "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json",
    "ascend": "ascend_pytorch/level1",
    "ms": "mindspore_legacy/run_2/normal_run/profiler",
}


class Api:
    def __init__(self, base: Path, ws: Path) -> None:
        self.ws = ws
        self.files = {}
        for key in RUNS:
            folder = base / key
            file = discover(folder)[0].files[0]
            analyse_file(file.path, Workspace(ws), None, file.format, file.worker)
            self.files[key] = file
        self.client: FlaskClient = create_app(Settings(base, workspace=ws), False).test_client()
        runs = self.client.get("/api/v1/runs").json["runs"]
        self.id = {r["name"].split("/")[0]: r["id"] for r in runs}

    def get(self, key: str, path: str, status: int = 200, **params: Any) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/runs/{self.id[key]}/{path}", query_string=params)
        assert response.status_code == status, response.json
        body: dict[str, Any] = response.json
        return body

    def trace(self, key: str) -> Any:
        f = self.files[key]
        return load_trace(f.path, Workspace(self.ws), None, f.format, f.worker)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Api:
    base = tmp_path_factory.mktemp("base").resolve()
    (base / "torch").mkdir()
    shutil.copy(shared(RUNS["torch"]), base / "torch")
    shutil.copytree(shared(RUNS["ascend"]), base / "ascend")
    shutil.copytree(shared(RUNS["ms"]), base / "ms" / "profiler")
    return Api(base, tmp_path_factory.mktemp("ws"))


def test_curve_window_is_relative_and_matches_the_report(api: Api) -> None:
    whole = api.get("torch", "memory/curve")
    trace = api.trace("torch")
    origin = int(trace.events["start_ns"].min())
    report = api.get("torch", "memory")["data"]["devices"][0]
    assert whole["device"] == "CPU" and whole["reason"] is None
    assert whole["devices"] == [{"device": "CPU", "source": "memory_events", "pairing": "address",
                                 "samples": report["samples"],
                                 "allocations": report["pairs"]["count"]}]  # fmt: skip
    peak = whole["curve"]["peak_allocated"]
    assert peak["bytes"] == report["peak_allocated"]["bytes"]
    assert peak["ts_ns"] == report["peak_allocated"]["ts_ns"] - origin
    assert peak["operator"] == report["peak_allocated"]["operator"]
    assert whole["summary"]["allocations"] == report["pairs"]["count"]
    assert whole["summary"]["held_at_end"] == report["pairs"]["live"]
    lo, hi = whole["range_ns"]
    assert whole["window_ns"] == [lo, hi] and lo >= 0  # relative to the first event
    # a zoom: more detail than the whole curve had in that span, all of it inside
    t0, t1 = lo + (hi - lo) // 3, lo + (hi - lo) // 3 + (hi - lo) // 50
    zoom = api.get("torch", "memory/curve", start_ns=t0, end_ns=t1, max_points=200)
    ts = zoom["curve"]["ts_ns"]
    assert zoom["window_ns"] == [t0, t1] and len(ts) <= 200
    assert sum(t0 <= t < t1 for t in ts) > sum(t0 <= t < t1 for t in whole["curve"]["ts_ns"])
    assert sum(t0 <= t < t1 for t in ts) >= len(ts) - 2  # plus the samples around the window
    raw = sorted(int(t) - origin for t in trace.memory["ts_ns"] if t0 <= int(t) - origin < t1)
    assert zoom["curve"]["samples"] == len(raw)
    rel = trace.memory["ts_ns"] - origin
    inside = trace.memory["bytes"][(rel >= t0) & (rel < t1)].tolist()
    assert zoom["summary"]["allocations"] == sum(b > 0 for b in inside)
    assert zoom["summary"]["freed_bytes"] == -sum(int(b) for b in inside if b < 0)


def test_events_and_operators_page_the_window(api: Api) -> None:
    curve = api.get("torch", "memory/curve")
    lo, hi = curve["range_ns"]
    t0, t1 = lo + (hi - lo) // 4, lo + (hi - lo) // 2
    window = {"start_ns": t0, "end_ns": t1}
    summary = api.get("torch", "memory/curve", **window)["summary"]
    rows: list[dict[str, Any]] = []
    while True:
        page = api.get("torch", "memory/events", offset=len(rows), limit=100, sort="alloc_ns",
                       order="asc", **window)  # fmt: skip
        rows += page["rows"]
        if len(rows) >= page["total"]:
            break
    assert page["total"] == summary["allocations"] == len(rows)
    assert page["total_bytes"] == summary["allocated_bytes"] == sum(r["bytes"] for r in rows)
    assert all(t0 <= r["alloc_ns"] < t1 for r in rows)
    assert [r["alloc_ns"] for r in rows] == sorted(r["alloc_ns"] for r in rows)
    for r in rows:
        if r["release_ns"] is not None:
            assert r["state"] == "freed" and r["duration_ns"] == r["release_ns"] - r["alloc_ns"]
        else:
            assert r["state"] == "live"
    live = api.get("torch", "memory/events", mode="live", limit=1, **window)
    assert live["total"] >= page["total"]
    hits = api.get("torch", "memory/events", search="CONV", limit=1000, **window)
    assert hits["total"] == sum("conv" in (r["operator"] or "").lower() for r in rows) > 0
    ops = api.get("torch", "memory/operators", limit=1000, **window)
    assert sum(r["allocations"] for r in ops["rows"]) == summary["allocations"]
    assert ops["total_bytes"] == summary["allocated_bytes"]
    trace = api.trace("torch")
    origin = int(trace.events["start_ns"].min())
    (ledger,) = memory_ledgers(trace)
    direct = operators_window(ledger, origin + t0, origin + t1, trace.strings)
    assert sorted(ops["rows"], key=lambda r: r["name"]) == sorted(direct, key=lambda r: r["name"])
    by_peak = api.get("torch", "memory/operators", sort="peak_held_bytes", order="asc", **window)
    assert [r["peak_held_bytes"] for r in by_peak["rows"]] == sorted(
        r["peak_held_bytes"] for r in direct
    )[: len(by_peak["rows"])]


def test_ascend_events_come_from_operator_memory_and_curves_only_say_why(api: Api) -> None:
    curve = api.get("ascend", "memory/curve")
    assert curve["device"] == "NPU:0 PTA" and curve["summary"]["pairing"] == "table"
    names = [d["device"] for d in curve["devices"]]
    assert set(names) == {"NPU:0 PTA", "NPU:0 APP", "NPU:0 GE", "NPU:0 PTA+GE"}
    events = api.get("ascend", "memory/events", limit=1000)
    trace = api.trace("ascend")
    opm = trace.tables["operator_memory"]
    assert events["total"] == len(opm["alloc_ns"]) == curve["summary"]["allocations"]
    assert sum(r["state"] == "live" for r in events["rows"]) == int((opm["release_ns"] < 0).sum())
    app = api.get("ascend", "memory/curve", device="NPU:0 APP")
    assert app["reason"] == "no_allocation_events" and app["curve"]["peak_reserved"]["bytes"] > 0
    assert app["range_ns"][0] < 0  # the APP component samples before the first event
    for path in ("memory/events", "memory/operators"):
        empty = api.get("ascend", path, device="NPU:0 APP")
        assert empty["total"] == 0 and empty["rows"] == []
        assert empty["reason"] == "no_allocation_events"
    window = api.get("ascend", "memory/events", device="NPU:0 APP", start_ns=-5, end_ns=5)
    assert window["reason"] == "no_allocation_events"
    # the components' reservations (npu_module_mem) come with every device's curve
    modules = curve["npu_modules"]
    assert [m["component"] for m in modules] == ["APP", "HCCL", "RUNTIME", "GE"]
    assert app["npu_modules"] == modules and modules[0]["peak_reserved_bytes"] == 1452 << 20


def test_no_memory_data_is_an_explicit_empty_answer(api: Api) -> None:
    curve = api.get("ms", "memory/curve")
    assert curve["devices"] == [] and curve["device"] is None
    assert curve["reason"] == "no_memory_data" and curve["curve"] is None
    assert curve["npu_modules"] == []
    for path in ("memory/events", "memory/operators"):
        page = api.get("ms", path)
        assert (page["total"], page["rows"], page["reason"]) == (0, [], "no_memory_data")


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        ("memory/curve", {"start_ns": 10, "end_ns": 5}, "end_ns"),
        ("memory/curve", {"start_ns": 2**60}, "start_ns"),
        ("memory/curve", {"start_ns": "soon"}, "start_ns"),
        ("memory/curve", {"max_points": 5}, "max_points"),
        ("memory/curve", {"max_points": 10**6}, "max_points"),
        ("memory/curve", {"device": "x" * 1000}, "device"),
        ("memory/curve", {"start_ns": 10**15}, "start_ns"),  # after the last sample
        ("memory/events", {"sort": "addr"}, "sort"),
        ("memory/events", {"mode": "maybe"}, "mode"),
        ("memory/events", {"limit": 10**6}, "limit"),
        ("memory/events", {"offset": -1}, "offset"),
        ("memory/events", {"order": "up"}, "order"),
        ("memory/events", {"bogus": 1}, "bogus"),
        ("memory/operators", {"sort": "name"}, "sort"),
        ("memory/operators", {"search": "x" * 1000}, "search"),
        ("memory/operators", {"end_ns": -(2**60)}, "end_ns"),
    ],
)
def test_bad_parameters_are_400_naming_them(api: Api, path: str, params: dict, name: str) -> None:
    error = api.get("torch", path, status=400, **params)["error"]
    assert error["code"] == "bad_parameter" and error["parameter"] == name, error


def test_unknown_device_is_404(api: Api) -> None:
    error = api.get("torch", "memory/events", status=404, device="CUDA:7")["error"]
    assert error["parameter"] == "device"
    trace = api.trace("torch")
    (ledger,) = memory_ledgers(trace)
    assert full_range(ledger)[0] >= int(trace.events["start_ns"].min())
