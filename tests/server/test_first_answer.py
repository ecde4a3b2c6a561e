"""First answer first: an input is `ready` (its overview served) as soon as its report is
cached, while the advice and the timeline index are still being built, each with its own
stage state; a failed stage is a 422 naming the file, never a 409 forever; and a restart
builds only the stages that are missing, without reading the trace again.

The background job (`jobs.analyse_input`) runs in a thread of this process, with the advice
held on an Event so the test sees the state between the overview and the advice; the
scheduler (`scheduler.Background`) runs its tick with an executor that runs each job at once.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import msgspec
import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import TraceFile, discover
from mindinsight_profiler.pipeline import reports
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.server import jobs
from mindinsight_profiler.server.answers.runs import RunDetail, RunList
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.jobs import analyse_input
from mindinsight_profiler.server.scheduler import Background
from mindinsight_profiler.server.services import Services
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import ANALYSING, FAILED, READY, StateStore
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from tests.conftest import shared
from tests.integration.tamper import flip_byte

TRACE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"
NAME = "worker0.1.pt.trace.json"
TIMELINE = {"width_px": 800, "max_items": 2000}
#: generous, only so that a hang fails instead of blocking the suite
HANG_S = 120


class Input:
    """A one-worker run copied into `tmp_path`, its workspace, and an app over both."""

    def __init__(self, tmp_path: Path) -> None:
        self.base, self.ws = tmp_path / "base", tmp_path / "ws"
        (self.base / "cnn").mkdir(parents=True)
        shutil.copyfile(shared(TRACE), self.base / "cnn" / NAME)
        (self.run,) = discover(self.base / "cnn")
        self.file: TraceFile = self.run.select()
        variant = cache_variant(self.file.format, self.file.worker)
        self.entry: CacheEntry = Workspace(self.ws).entry(self.file.source, variant)
        self.settings = Settings(self.base, workspace=self.ws, reload_interval=0)
        self.store = StateStore(self.ws)
        self._client: FlaskClient | None = None

    @property
    def client(self) -> FlaskClient:
        if self._client is None:
            app = create_app(self.settings, start_background_work=False)
            self._client = app.test_client()
        return self._client

    def run_json(self) -> dict[str, Any]:
        listed = self.client.get("/api/v1/runs").json
        msgspec.convert(listed, RunList)  # as declared (docs/schema/api.schema.json)
        (run,) = listed["runs"]
        return dict(run)

    def detail(self) -> dict[str, Any]:
        found = self.client.get(f"/api/v1/runs/{self.run_json()['id']}").json
        msgspec.convert(found, RunDetail)
        return dict(found)

    def get(self, view: str) -> tuple[int, Any]:
        query = TIMELINE if view == "timeline" else {}
        r = self.client.get(f"/api/v1/runs/{self.run_json()['id']}/{view}", query_string=query)
        return r.status_code, r.json

    def analyse(self) -> str:
        return analyse_input(self.file, self.run, self.ws, (), self.entry.key)

    def advice_path(self) -> Path:
        return self.entry.dir / advice_name((), self.run)


class Inline(Executor):
    """Runs each submitted job at once in this process, and counts them."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Any, ...]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.jobs.append(args)
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # what a pool's future would carry
            future.set_exception(exc)
        return future


def _tick(inp: Input, monkeypatch: pytest.MonkeyPatch) -> Inline:
    """One scan of the scheduler (as at a server start), jobs run inline; their count back."""
    pool = Inline()
    background = Background(Services(inp.settings))
    monkeypatch.setattr(background, "_executor", lambda: pool)
    try:
        background.tick()
    finally:
        background.stop()
    return pool


def test_the_overview_is_ready_while_the_advice_is_being_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inp = Input(tmp_path)
    entered, release = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert release.wait(HANG_S)
        return advise_file(*args, **kwargs)

    monkeypatch.setattr(jobs, "advise_file", held)
    out: list[str] = []
    worker = threading.Thread(target=lambda: out.append(inp.analyse()))
    worker.start()
    try:
        assert entered.wait(HANG_S), "the advice was never started"
        # the overview is served and the input is ready, its advice and index pending
        run = inp.run_json()
        assert run["state"] == READY and run["summary"]["steps"] > 0, run
        assert run["pending"] == ["advice", "timeline"], run
        (item,) = inp.detail()["inputs"]
        assert item["state"] == READY
        assert item["stages"] == {"advice": {"state": ANALYSING}, "timeline": {"state": "queued"}}
        status, overview = inp.get("overview")
        assert status == 200 and overview["steps"]["count"] == run["summary"]["steps"]
        for view in ("advice", "timeline"):
            status, body = inp.get(view)
            assert status == 409, (view, body)
            assert body["error"]["code"] == "not_ready" and body["error"]["stage"] == view, body
    finally:
        release.set()
        worker.join(HANG_S)
    assert out == [READY]
    for view in ("overview", "advice", "timeline"):
        status, body = inp.get(view)
        assert status == 200, (view, body)
    run = inp.run_json()
    assert run["state"] == READY and "pending" not in run, run
    (item,) = inp.detail()["inputs"]
    assert item["stages"] == {"advice": {"state": READY}, "timeline": {"state": READY}}


@pytest.mark.parametrize("crash", [False, True], ids=["input_error", "internal_error"])
def test_a_failed_advice_is_a_422_naming_the_file_and_the_rest_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: bool
) -> None:
    inp = Input(tmp_path)

    def broken(*args: Any, **kwargs: Any) -> Any:
        if crash:
            raise RuntimeError("a bug in a rule's code")
        raise InputError("rules/gpu.toml", "rule 'x': unknown fact 'y'")

    monkeypatch.setattr(jobs, "advise_file", broken)
    assert inp.analyse() == READY  # the overview stands
    run = inp.run_json()
    assert run["state"] == READY and "pending" not in run and "error" not in run, run
    (item,) = inp.detail()["inputs"]
    assert item["stages"]["advice"]["state"] == FAILED
    assert item["stages"]["timeline"] == {"state": READY}  # built after the failed advice
    assert inp.get("overview")[0] == 200 and inp.get("timeline")[0] == 200
    status, body = inp.get("advice")
    assert status == 422, body
    error = body["error"]
    assert error["code"] == "analysis_failed" and error["stage"] == "advice", error
    assert NAME in error["reason"] and NAME in error["message"], error
    if crash:
        assert "internal error" in error["reason"] and "RuntimeError" not in error["reason"]
    else:
        assert "unknown fact 'y'" in error["reason"], error
    assert item["stages"]["advice"]["error"] == error["reason"]
    # the scheduler does not retry it on every tick (only a changed input or rules would)
    assert _tick(inp, monkeypatch).jobs == []


@pytest.mark.parametrize("missing", [("advice", "timeline"), ("timeline",)])
def test_a_restart_builds_the_missing_stages_without_reading_the_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: tuple[str, ...]
) -> None:
    inp = Input(tmp_path)
    # what a server killed after the overview leaves: the report cached, no timeline index,
    # the advice (when not missing) stored, and the state of the job it was running
    report, _ = reports.analyse_file(inp.file.source, Workspace(inp.ws), None, inp.file.format,
                                     inp.file.worker)  # fmt: skip
    if "advice" not in missing:
        advise_file(inp.file, inp.run, Workspace(inp.ws), ())
    stages = {s: {"state": ANALYSING if s == missing[0] else READY} for s in ("advice", "timeline")}
    stages.update({s: {"state": "queued"} for s in missing[1:]})
    summary = jobs.input_summary(report)
    inp.store.write(inp.file, READY, inp.entry.key, progress=100.0, summary=summary,
                    stages=stages)  # fmt: skip
    assert inp.advice_path().exists() == ("advice" not in missing)

    reads: list[Any] = []
    real_read = reports._read
    monkeypatch.setattr(reports, "_read", lambda *a: reads.append(a) or real_read(*a))
    written: list[str] = []
    real_write = StateStore.write

    def write(self: StateStore, file: TraceFile, state: str, *args: Any, **kw: Any) -> None:
        written.append(state)
        real_write(self, file, state, *args, **kw)

    monkeypatch.setattr(StateStore, "write", write)
    pool = _tick(inp, monkeypatch)
    assert len(pool.jobs) == 1
    assert reads == []  # the trace was not read again: only the stages were built
    assert written and set(written) == {READY}, written  # the overview stayed served
    assert inp.advice_path().exists()
    for view in ("overview", "advice", "timeline"):
        assert inp.get(view)[0] == 200, view
    (item,) = inp.detail()["inputs"]
    assert item["stages"] == {"advice": {"state": READY}, "timeline": {"state": READY}}
    assert "pending" not in inp.run_json()
    assert _tick(inp, monkeypatch).jobs == []  # nothing left to do


def test_a_resumed_job_that_rebuilds_the_entry_builds_every_stage_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The advice was missing, and the report damaged too: the job re-reads the trace, and
    the rewritten entry has no timeline index any more, so that is built again as well."""
    inp = Input(tmp_path)
    assert inp.analyse() == READY
    inp.advice_path().unlink()
    flip_byte(inp.entry.dir / "report.json")
    reads: list[Any] = []
    real_read = reports._read
    monkeypatch.setattr(reports, "_read", lambda *a: reads.append(a) or real_read(*a))
    assert len(_tick(inp, monkeypatch).jobs) == 1
    assert len(reads) == 1  # the damaged report: read again, once
    for view in ("overview", "advice", "timeline"):
        assert inp.get(view)[0] == 200, view
    (item,) = inp.detail()["inputs"]
    assert item["stages"] == {"advice": {"state": READY}, "timeline": {"state": READY}}


def test_an_index_gone_since_it_was_built_is_queued_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state says the index was built, but the entry has none (rewritten without it, e.g.
    by an analysis of the same workspace): the timeline route queues the stage again instead
    of answering 409 forever, and the next tick builds it."""
    inp = Input(tmp_path)
    report, _ = reports.analyse_file(inp.file.source, Workspace(inp.ws), None, inp.file.format,
                                     inp.file.worker)  # fmt: skip
    advise_file(inp.file, inp.run, Workspace(inp.ws), ())
    stages = {"advice": {"state": READY}, "timeline": {"state": READY}}
    inp.store.write(inp.file, READY, inp.entry.key, summary=jobs.input_summary(report),
                    stages=stages)  # fmt: skip
    assert _tick(inp, monkeypatch).jobs == []  # as far as the state says, nothing to do
    status, body = inp.get("timeline")
    assert status == 409 and body["error"]["stage"] == "timeline", body
    assert inp.run_json()["pending"] == ["timeline"]
    assert len(_tick(inp, monkeypatch).jobs) == 1
    assert inp.get("timeline")[0] == 200
    assert "pending" not in inp.run_json()


def test_a_job_process_dying_in_a_stage_fails_that_stage_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inp = Input(tmp_path)
    reports.analyse_file(inp.file.source, Workspace(inp.ws), None, inp.file.format,
                         inp.file.worker)  # fmt: skip
    advise_file(inp.file, inp.run, Workspace(inp.ws), ())
    stages = {"advice": {"state": READY}, "timeline": {"state": ANALYSING}}
    inp.store.write(inp.file, READY, inp.entry.key, progress=100.0, stages=stages)
    background = Background(Services(inp.settings))
    background._pool = Inline()  # a pool is running: its process died under the job
    future: Future[str] = Future()
    future.set_exception(RuntimeError("A process in the process pool was terminated abruptly"))
    monkeypatch.setattr(background, "_drop_executor", lambda: None)
    background._done("key", inp.file, inp.entry.key, future)
    record = inp.store.read(inp.file)
    assert record is not None and record["state"] == READY, record
    assert record["stages"]["advice"] == {"state": READY}
    assert record["stages"]["timeline"]["state"] == FAILED
    assert "process died" in record["stages"]["timeline"]["error"]
    assert inp.get("overview")[0] == 200 and inp.get("advice")[0] == 200
    status, body = inp.get("timeline")
    assert status == 422 and body["error"]["stage"] == "timeline", body
    assert NAME in body["error"]["reason"]
