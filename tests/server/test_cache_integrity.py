"""The API never serves a damaged or edited cache entry, and serves the rebuilt one.

A Kineto CPU trace is analysed by the background job itself (`jobs.analyse_input`); the
answers of an app over that workspace are the reference. A copy of the workspace (the cache
key is the input's, so the copy is a valid workspace for the same base dir) is then
tampered with, and an app over the copy must answer 409 `not_ready` (never the tampered
content), log the file, and invalidate what it found (so the scheduler queues the input
again); after the background job runs again it serves exactly the reference answers.
`test_live_server_rebuilds_tampered_entries` does the same through `mindinsight start`,
whose scheduler must notice on its own.
"""

from __future__ import annotations

import shutil
import time
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.jobs import analyse_input
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import READY, StateStore
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from tests.conftest import shared
from tests.integration.tamper import edit_sealed, flip_byte, truncate, warned
from tests.server.service import Server

TRACE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"
VIEWS = {"overview": {}, "advice": {}, "timeline": {"width_px": 800, "max_items": 2000}}


def _base(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "cnn").mkdir(parents=True)
    shutil.copyfile(shared(TRACE), base / "cnn" / "worker0.1.pt.trace.json")
    return base


def _analyse(base: Path, ws: Path) -> CacheEntry:
    """What the server's background analysis runs for the input; its cache entry."""
    (run,) = discover(base / "cnn")
    file = run.select()
    entry = Workspace(ws).entry(file.source, cache_variant(file.format, file.worker))
    assert analyse_input(file, run, ws, (), entry.key) == READY
    return entry


class App:
    def __init__(self, base: Path, ws: Path) -> None:
        self.client: FlaskClient = create_app(
            Settings(base, workspace=ws), start_background_work=False
        ).test_client()
        (run,) = self.client.get("/api/v1/runs").json["runs"]
        self.run = run

    def get(self, view: str) -> tuple[int, Any]:
        r = self.client.get(f"/api/v1/runs/{self.run['id']}/{view}", query_string=VIEWS[view])
        return r.status_code, r.json


def _severities(doc: dict[str, Any]) -> dict[str, Any]:
    for f in doc["findings"]:
        if f["severity"] == "high":
            f["severity"] = "low"
    return doc


def _advice_file(entry: CacheEntry) -> Path:
    (path,) = entry.dir.glob("advice-*.json")
    return path


#: view -> (tamper the entry, the file that must be gone afterwards: invalidated)
TAMPERS: dict[str, tuple[str, Callable[[CacheEntry], None], str]] = {
    "advice severity edited": (
        "advice", lambda e: edit_sealed(_advice_file(e), _severities), "advice"
    ),
    "report flipped byte": ("overview", lambda e: flip_byte(e.dir / "report.json"), "manifest"),
    "manifest truncated": ("overview", lambda e: truncate(e.dir / "manifest.json"), "manifest"),
    "timeline index flipped byte": (
        "timeline", lambda e: flip_byte(e.dir / "side.timeline_events.bin"), "manifest"
    ),
}  # fmt: skip


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_tampered_entries_are_not_served_and_the_rebuilt_ones_are(
    tmp_path: Path, tamper: str, caplog: pytest.LogCaptureFixture
) -> None:
    base = _base(tmp_path)
    entry = _analyse(base, tmp_path / "ws")
    reference = App(base, tmp_path / "ws")
    want = {view: reference.get(view) for view in VIEWS}
    assert all(status == 200 for status, _ in want.values()), want
    assert any(f["severity"] == "high" for f in want["advice"][1]["advice"]["findings"])

    shutil.copytree(tmp_path / "ws", tmp_path / "ws2")
    copy = CacheEntry(Workspace(tmp_path / "ws2").cache_root, entry.key)
    view, damage, gone = TAMPERS[tamper]
    damage(copy)
    app = App(base, tmp_path / "ws2")
    status, body = app.get(view)
    assert status == 409 and body["error"]["code"] == "not_ready", body
    warned(caplog, str(copy.dir))
    if gone == "advice":
        assert not list(copy.dir.glob("advice-*.json"))
    else:
        assert not (copy.dir / "manifest.json").exists()
    _analyse(base, tmp_path / "ws2")  # what the scheduler queues for an input not analysed
    for name in VIEWS:
        assert app.get(name) == want[name], name


def test_a_tampered_state_is_read_as_no_state(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = _base(tmp_path)
    _analyse(base, tmp_path / "ws")
    app = App(base, tmp_path / "ws")
    assert app.run["state"] == "ready"
    (run,) = discover(base / "cnn")
    path = StateStore(tmp_path / "ws").path(run.select())
    edit_sealed(path, lambda d: {**d, "state": "failed", "error": "made up"})
    (shown,) = app.client.get("/api/v1/runs").json["runs"]
    assert shown["state"] == "queued" and "error" not in shown  # not the edited "failed"
    warned(caplog, str(run.select().path))
    _analyse(base, tmp_path / "ws")  # the scheduler queues an input without a state
    assert app.client.get("/api/v1/runs").json["runs"][0]["state"] == "ready"


def test_live_server_rebuilds_tampered_entries(tmp_path: Path) -> None:
    """`mindinsight start`: tampered advice and report are never served; its scheduler
    re-queues the input and serves what an untouched analysis serves."""
    base = _base(tmp_path)
    _analyse(base, tmp_path / "ref")
    reference = App(base, tmp_path / "ref")
    paths = {"advice": "advice", "overview": "overview",
             "timeline": "timeline?width_px=800&max_items=2000"}  # fmt: skip
    want = {name: reference.get(name)[1] for name in paths}
    server = Server(base, tmp_path / "ws")
    server.start("--reload-interval", "1")
    try:
        (run,) = server.wait_settled()
        assert run["state"] == "ready" and run["id"] == reference.run["id"], server.logs()
        (found,) = discover(base / "cnn")
        file = found.select()
        entry = Workspace(server.workspace).entry(
            file.source, cache_variant(file.format, file.worker)
        )
        # Damaged before any server process has read them (each keeps what it decoded).
        edit_sealed(entry.dir / advice_name((), found), _severities)
        flip_byte(entry.dir / "report.json")
        for name, path in paths.items():
            assert _when_served(server, f"/api/v1/runs/{run['id']}/{path}") == want[name], name
        assert "not serving" in server.logs()
        assert server.get("/api/v1/runs")["runs"][0]["state"] == "ready"
    finally:
        server.stop()


def _when_served(server: Server, path: str, timeout: float = 120.0) -> Any:
    """The answer once it is 200 (409 while the input is analysed again)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return server.get(path)
        except urllib.error.HTTPError as exc:
            assert exc.code == 409, exc
        assert time.monotonic() < deadline, server.logs()
        time.sleep(0.3)
