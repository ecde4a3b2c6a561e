"""`timeline/event`: one event in full, checked against the cached trace's own columns.

Real runs (a Kineto GPU run and an Ascend rank) are cached with their timeline index the
way the background analysis does it; a Flask test client asks the API, which reads only
that cache. Each answer is compared with the columns directly (name, times, launch
configuration, the parent and caller links followed by hand) and the event's row with the
row the window answer draws it in.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.timeline.index import TimelineIndex
from mindinsight_profiler.analysis.timeline.window import timeline_window
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.reports import load_timeline
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

RUNS = {"kineto": "kineto/resnet50_num_workers_0", "ascend": "ascend_pytorch/level1"}


class Api:
    def __init__(self, base: Path, ws: Path) -> None:
        self.data: dict[str, tuple[Trace, TimelineIndex]] = {}
        for key in RUNS:
            file = discover(base / key)[0].select()
            self.data[key] = load_timeline(file.path, Workspace(ws), None, file.format,
                                           file.worker)  # fmt: skip
        self.client: FlaskClient = create_app(Settings(base, workspace=ws), False).test_client()
        runs = self.client.get("/api/v1/runs").json["runs"]
        self.id = {r["name"]: r["id"] for r in runs}

    def event(self, key: str, **params: Any) -> Any:
        return self.client.get(f"/api/v1/runs/{self.id[key]}/timeline/event",
                               query_string=params)  # fmt: skip


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Api:
    base = tmp_path_factory.mktemp("base").resolve()
    for key, rel in RUNS.items():
        shutil.copytree(shared(rel), base / key)
    return Api(base, tmp_path_factory.mktemp("ws"))


def _text(trace: Trace, code: int) -> str:
    return trace.strings[code] if code >= 0 else ""


def _check(trace: Trace, index: TimelineIndex, got: dict[str, Any], i: int) -> None:
    """The answer for event `i` against the columns (links followed here, by hand)."""
    ev = trace.events
    origin = int(index["timeline_meta"]["origin_ns"][0])
    assert got["index"] == i
    assert got["name"] == _text(trace, int(ev["name"][i]))
    assert got["category"] == _text(trace, int(ev["cat"][i]))
    assert got["kind"] == Kind(int(ev["kind"][i])).name.lower()
    assert got["start_ns"] == int(ev["start_ns"][i]) - origin
    assert got["dur_ns"] == int(ev["end_ns"][i]) - int(ev["start_ns"][i])
    track = trace.tracks[int(ev["track"][i])]
    assert got["track"] == int(ev["track"][i])
    assert got["track_info"]["thread_name"] == track.thread_name
    assert got["track_info"]["is_device"] == track.is_device
    for column, key in (("parent", "parents"), ("caller", "callers")):
        chain, j = [], int(ev[column][i])
        while j >= 0 and len(chain) < 64:
            chain.append(j)
            j = int(ev[column][j])
        assert [link["index"] for link in got[key]] == chain
        for link in got[key]:
            assert link["name"] == _text(trace, int(ev["name"][link["index"]]))
            assert link["start_ns"] == int(ev["start_ns"][link["index"]]) - origin
    launched = np.flatnonzero(ev["caller"] == i)
    assert got["launched_total"] == len(launched)
    assert [x["index"] for x in got["launched"]] == launched[:50].tolist()
    args = got["args"]
    if int(ev["grid"][i]) >= 0:
        assert args["grid"] == _text(trace, int(ev["grid"][i]))
        assert args["block"] == _text(trace, int(ev["block"][i]))
    if int(ev["stream"][i]) >= 0:
        assert args["stream"] == int(ev["stream"][i])
    if int(ev["input_dims"][i]) >= 0:
        assert args["input_dims"] == _text(trace, int(ev["input_dims"][i]))
    if int(ev["call_stack"][i]) >= 0:
        frames = args["call_stack"]
        assert frames and all(f == f.strip() and f and ";" not in f for f in frames)
        text = _text(trace, int(ev["call_stack"][i]))
        assert ";".join(frames) == re.sub(r"\s*;\s*", ";", text.strip()).strip(";")
    # the row: the window around the event draws it at the depth the details name
    t0 = int(ev["start_ns"][i])
    t1 = max(int(ev["end_ns"][i]), t0 + 1)
    window = timeline_window(trace, index, [got["track"]], t0, t1, 100)
    drawn = window["events"]
    if i in drawn["index"]:
        assert drawn["depth"][drawn["index"].index(i)] == got["depth"]


def _picks(trace: Trace) -> list[int]:
    """A device kernel, a runtime call, a nested operator, one with a call stack, a sample."""
    ev = trace.events
    kind = ev["kind"]
    picks: list[int] = []
    for mask in (
        (kind == Kind.KERNEL) & (ev["caller"] >= 0),
        (kind == Kind.RUNTIME) & (ev["caller"] >= 0),
        (kind == Kind.CPU_OP) & (ev["parent"] >= 0),
        ev["call_stack"] >= 0,
        ev["input_dims"] >= 0,
    ):
        hits = np.flatnonzero(mask)
        if len(hits):
            picks.append(int(hits[len(hits) // 2]))
    rng = np.random.default_rng(7)
    picks += rng.integers(0, len(trace), 5).tolist()
    return picks


@pytest.mark.parametrize("key", list(RUNS))
def test_event_details_match_the_trace_columns(api: Api, key: str) -> None:
    trace, index = api.data[key]
    for i in _picks(trace):
        response = api.event(key, index=i)
        assert response.status_code == 200, response.json
        body = response.json
        assert body["worker"] and body["run"] == api.id[key]
        _check(trace, index, body["event"], i)


def test_a_kernel_leads_to_its_launch_and_operator(api: Api) -> None:
    trace, _ = api.data["kineto"]
    ev = trace.events
    kernels = np.flatnonzero((ev["kind"] == Kind.KERNEL) & (ev["caller"] >= 0))
    got = api.event("kineto", index=int(kernels[0])).json["event"]
    assert got["args"]["grid"].startswith("[") and "correlation" in got["args"]
    kinds = [c["kind"] for c in got["callers"]]
    assert kinds[0] == "runtime" and "cpu_op" in kinds
    launch = api.event("kineto", index=got["callers"][0]["index"]).json["event"]
    assert int(kernels[0]) in [x["index"] for x in launch["launched"]]


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"index": -1}, 400),
        ({"index": "abc"}, 400),
        ({}, 400),
        ({"index": 2**31}, 400),
        ({"index": 1, "bogus": 1}, 400),
    ],
)
def test_bad_index_is_400_naming_it(api: Api, params: dict[str, Any], status: int) -> None:
    response = api.event("kineto", **params)
    assert response.status_code == status
    error = response.json["error"]
    assert error["code"] == "bad_parameter"
    assert error["parameter"] == ("bogus" if "bogus" in params else "index")


def test_index_past_the_last_event_is_404(api: Api) -> None:
    n = len(api.data["kineto"][0])
    last = api.event("kineto", index=n - 1)
    assert last.status_code == 200
    response = api.event("kineto", index=n)
    assert response.status_code == 404
    assert response.json["error"]["code"] == "not_found"
    assert response.json["error"]["parameter"] == "index"


def test_event_endpoint_is_documented(api: Api) -> None:
    doc = api.client.get("/api/v1/openapi.json").json
    params = {p["name"] for p in doc["paths"]["/runs/{run}/timeline/event"]["get"]["parameters"]}
    assert {"run", "worker", "span", "index"} <= params
