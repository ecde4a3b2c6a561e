"""The run header's Download menu, in a real browser on the dashboard's three runs.

Every run page offers the worker's report as HTML, Excel and Markdown for the worker and
span shown, in the dashboard's language; a run of several ranks also offers all of its
ranks as one Perfetto timeline. The links are plain downloads of the API's routes, and the
report route answers them with the file: a self-contained HTML page, a workbook openpyxl
reads, a Markdown summary; the all-ranks link answers a Perfetto trace.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import parse_qs, urlparse

import openpyxl
import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

RUNS = ("kineto_gpu", "ascend", "mindspore")


def check_file(fmt: str, body: bytes) -> None:
    """The downloaded report is the real file of its format."""
    if fmt == "html":
        text = body.decode()
        assert text.startswith("<!doctype html>") or text.startswith("<!DOCTYPE html>"), text[:80]
        assert 'data-section="advice"' in text and "<script" not in text
    elif fmt == "xlsx":
        book = openpyxl.load_workbook(io.BytesIO(body), read_only=True)
        assert len(book.sheetnames) > 10, book.sheetnames
    else:
        assert body.decode().startswith("# "), body[:80]


FORMATS = ("html", "xlsx", "md")
LABELS = {
    "en": ("Report (HTML)", "Workbook (Excel)", "Summary (Markdown)",
           "All ranks timeline (Perfetto)"),
    "zh": ("报告（HTML）", "工作簿（Excel）", "摘要（Markdown）", "全部 rank 时间线（Perfetto）"),
}  # fmt: skip


def link(tab: Tab, name: str) -> tuple[str, dict[str, str], str]:
    """The menu item's path, query and label."""
    item = tab.page.locator(f"[data-test={name}]")
    href = item.get_attribute("href") or ""
    url = urlparse(href)
    return url.path, {k: v[0] for k, v in parse_qs(url.query).items()}, item.inner_text().strip()


def open_menu(tab: Tab) -> None:
    tab.page.locator("[data-test=run-downloads-button]").click()
    tab.page.locator("[data-test=download-report-md]").wait_for(state="visible")


def check_menu(tab: Tab, rid: str, worker: str, span: str, lang: str, ranks: bool) -> None:
    for fmt, label in zip(FORMATS, LABELS[lang], strict=False):
        path, query, text = link(tab, f"download-report-{fmt}")
        assert path.endswith(f"/api/v1/runs/{rid}/report"), path
        want = {"format": fmt, "lang": lang, "worker": worker, **({"span": span} if span else {})}
        assert query == want, (fmt, query)
        assert text == label
    perfetto = tab.page.locator("[data-test=download-ranks-perfetto]")
    assert perfetto.count() == (1 if ranks else 0)
    if ranks:
        path, query, text = link(tab, "download-ranks-perfetto")
        assert path.endswith(f"/api/v1/runs/{rid}/timeline/export-ranks"), path
        assert {k: query[k] for k in ("ranks", "format")} == {"ranks": "all", "format": "perfetto"}
        assert text == LABELS[lang][3]


@pytest.mark.parametrize("run", RUNS)
def test_the_menu_offers_the_shown_workers_report_in_the_shown_language(
    dashboard: Dashboard, tab: Tab, run: str
) -> None:
    rid = dashboard.ids[run]
    inputs: list[dict[str, Any]] = dashboard.server.get(f"/api/v1/runs/{rid}")["inputs"]
    workers = list(dict.fromkeys(i["worker"] for i in inputs))
    worker = workers[-1]  # not the default one where there are several
    span = next(i["span"] for i in inputs if i["worker"] == worker)
    page = tab.page
    page.goto(dashboard.run_url(run, "operators", f"worker={worker}"))
    open_menu(tab)
    check_menu(tab, rid, worker, span, "en", len(workers) > 1)
    tab.shot(f"downloads-menu-{run}")
    page.keyboard.press("Escape")
    page.locator("[data-test=lang-zh]").click()
    open_menu(tab)
    check_menu(tab, rid, worker, span, "zh", len(workers) > 1)
    tab.shot(f"downloads-menu-{run}-zh")
    # the route answers the links with the files themselves
    for fmt in FORMATS:
        href = page.locator(f"[data-test=download-report-{fmt}]").get_attribute("href") or ""
        response = page.request.get(href)
        assert response.status == 200, (fmt, response.status, response.text()[:300])
        assert response.headers["content-disposition"].startswith("attachment; filename=")
        check_file(fmt, response.body())
    if len(workers) > 1:
        href = page.locator("[data-test=download-ranks-perfetto]").get_attribute("href") or ""
        response = page.request.get(href)
        assert response.status == 200, (response.status, response.text()[:300])
        trace = perfetto_trace_pb2.Trace.FromString(response.body())
        names = {
            p.track_descriptor.process.process_name
            for p in trace.packet
            if p.HasField("track_descriptor") and p.track_descriptor.HasField("process")
        }
        assert len(names) == len(workers), names
    page.locator("[data-test=lang-en]").click()
    tab.assert_clean()


def test_the_menu_follows_the_worker_menu_on_every_page(dashboard: Dashboard, tab: Tab) -> None:
    """On the timeline too, and after another worker is chosen in the header."""
    rid = dashboard.ids["ascend"]
    page = tab.page
    page.goto(dashboard.run_url("ascend", "timeline"))
    open_menu(tab)
    assert link(tab, "download-report-html")[1]["worker"] == "rank0"
    page.keyboard.press("Escape")
    page.locator("[data-test=worker-select]").click()
    page.get_by_role("option", name="Worker: rank1").click()
    page.wait_for_url("**worker=rank1**")
    open_menu(tab)
    check_menu(tab, rid, "rank1", "", "en", True)
    tab.assert_clean()
