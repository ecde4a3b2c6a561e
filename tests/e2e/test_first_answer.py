"""First answer first, in the browser: a run whose overview is ready but whose advice is
still being prepared shows its overview at once, "Preparing advice…" in the advisor (not
"still being analysed") and a pending hint in the header; once the advice is stored, the
advisor fills itself in with the findings and the hint goes, without a reload. The same
for the timeline page while its index is being built.

The pending stage is made, not raced: the app (background work off) serves a workspace
whose input's report is cached but whose advice file (or timeline index) is missing and
whose state says that stage is running; the test then builds it and marks the stage ready,
as the job would.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from mindinsight_profiler.formats.discovery import Run, TraceFile, discover
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.jobs import input_summary
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import READY, StateStore
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.e2e.browser import Tab, skip_reason
from tests.server.service import free_port

TRACE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"
#: the 409 answers a pending stage gives are expected here; Chromium logs each as a console
#: error ("Failed to load resource: ... 409"), which is the only problem this test forgives
EXPECTED_409 = "the server responded with a status of 409"
CANVAS = "[data-test=timeline-canvas]"


@dataclass
class Pending:
    url: str
    run_id: str
    ws: Path
    run: Run
    file: TraceFile
    store: StateStore

    def finish(self, stage: str) -> None:
        """What the job does when a stage is built: store it, then mark the stage ready."""
        if stage == "advice":
            advise_file(self.file, self.run, Workspace(self.ws), ())
        else:
            load_timeline(self.file.source, Workspace(self.ws), None, self.file.format,
                          self.file.worker)  # fmt: skip
        record = self.store.read(self.file)
        assert record is not None
        extra = {k: v for k, v in record.items() if k in ("progress", "seconds", "summary")}
        stages = dict(record["stages"], **{stage: {"state": READY}})
        self.store.write(self.file, READY, record["fingerprint"], stages=stages, **extra)


def _serve(tmp_path: Path, stage: str) -> Iterator[Pending]:
    """An app over a workspace whose input is ready with `stage` still being built."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    base, ws = tmp_path / "base", tmp_path / "ws"
    (base / "cnn").mkdir(parents=True)
    shutil.copyfile(shared(TRACE), base / "cnn" / "worker0.1.pt.trace.json")
    (run,) = discover(base / "cnn")
    file = run.select()
    entry = Workspace(ws).entry(file.source, cache_variant(file.format, file.worker))
    # the report cached (no timeline index yet); the advice too, unless it is the one coming
    report, _ = analyse_file(file.source, Workspace(ws), None, file.format, file.worker)
    if stage != "advice":
        advise_file(file, run, Workspace(ws), ())
    assert entry.load_report() is not None
    assert (entry.dir / advice_name((), run)).exists() == (stage != "advice")
    store = StateStore(ws)
    stages = {"advice": {"state": READY}, "timeline": {"state": READY}}
    stages[stage] = {"state": "analysing"}
    if stage == "advice":  # the index is built after the advice: it is still queued
        stages["timeline"] = {"state": "queued"}
    store.write(file, READY, entry.key, progress=100.0, summary=input_summary(report),
                stages=stages)  # fmt: skip
    app = create_app(Settings(base, workspace=ws), start_background_work=False)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}"
        with app.test_client() as client:
            (listed,) = client.get("/api/v1/runs").json["runs"]
        yield Pending(url, listed["id"], ws, run, file, store)
    finally:
        server.shutdown()
        thread.join(30)


@pytest.fixture
def pending(tmp_path: Path) -> Iterator[Pending]:
    yield from _serve(tmp_path, "advice")


@pytest.fixture
def pending_timeline(tmp_path: Path) -> Iterator[Pending]:
    yield from _serve(tmp_path, "timeline")


def test_pending_advice_says_preparing_then_shows_the_findings(pending: Pending, tab: Tab) -> None:
    page = tab.page
    page.goto(pending.url + "/")  # the run list: ready, and what is still coming
    row = page.locator("[data-test=run-table] .el-table__row", has_text="cnn")
    assert row.locator("[data-test=run-pending]").inner_text() == "advice, timeline pending"
    assert row.locator("[data-test=run-state]").get_attribute("data-state") == "ready"
    tab.shot("first-answer-run-list")
    page.goto(f"{pending.url}/runs/{pending.run_id}/overview")
    advisor = page.locator("[data-test=advisor]")
    preparing = advisor.locator("[data-state=not-ready][data-stage=advice]")
    preparing.wait_for()
    assert "Preparing advice" in preparing.inner_text(), preparing.inner_text()
    assert "still being analysed" not in advisor.inner_text()
    # the overview is there meanwhile, and the header says what is still coming
    page.locator("[data-test=page-overview] [data-state=ready]").first.wait_for()
    hint = page.locator("[data-test=stages-pending]")
    assert hint.inner_text() == "advice, timeline pending", hint.inner_text()
    tab.shot("first-answer-advice-pending")

    pending.finish("advice")
    # the advisor polls while the stage is pending: the findings come without a reload
    advisor.locator("[data-test=advisor-count]").wait_for(timeout=30_000)
    assert advisor.locator("[data-test=finding]").count() >= 1
    assert preparing.count() == 0
    # the header follows: the timeline index (built after the advice) is all that is left
    page.wait_for_function(
        "() => { const h = document.querySelector('[data-test=stages-pending]');"
        " return h && !h.textContent.includes('advice') && h.textContent.includes('timeline') }",
        timeout=30_000,
    )
    tab.shot("first-answer-advice-ready")
    pending.finish("timeline")
    hint.wait_for(state="detached", timeout=30_000)
    tab.problems[:] = [p for p in tab.problems if EXPECTED_409 not in p]
    tab.assert_clean()


def test_pending_advice_in_chinese(pending: Pending, tab: Tab) -> None:
    page = tab.page
    page.context.add_init_script("localStorage.setItem('mindinsight.locale', 'zh')")
    page.goto(f"{pending.url}/runs/{pending.run_id}/overview")
    preparing = page.locator("[data-test=advisor] [data-state=not-ready][data-stage=advice]")
    preparing.wait_for()
    assert "正在准备建议" in preparing.inner_text(), preparing.inner_text()
    tab.shot("first-answer-advice-pending-zh")
    tab.problems[:] = [p for p in tab.problems if EXPECTED_409 not in p]
    tab.assert_clean()


def test_pending_timeline_says_building_the_index_then_draws(
    pending_timeline: Pending, tab: Tab
) -> None:
    page = tab.page
    page.goto(f"{pending_timeline.url}/runs/{pending_timeline.run_id}/timeline")
    building = page.locator("[data-test=page-timeline] [data-state=not-ready][data-stage=timeline]")
    building.wait_for()
    assert "Building the timeline index" in building.inner_text(), building.inner_text()
    hint = page.locator("[data-test=stages-pending]")
    assert "timeline" in hint.inner_text().lower(), hint.inner_text()
    # the advice is ready: the advisor shows it meanwhile
    page.locator("[data-test=advisor] [data-test=finding]").first.wait_for()
    tab.shot("first-answer-timeline-pending")

    pending_timeline.finish("timeline")
    page.wait_for_selector(f"{CANVAS}[data-rendered=true]", timeout=30_000)
    assert building.count() == 0
    hint.wait_for(state="detached", timeout=30_000)
    tab.problems[:] = [p for p in tab.problems if EXPECTED_409 not in p]
    tab.assert_clean()
