"""The HTML report in Chromium, offline: every section renders with the API's figures.

Three real runs (Kineto GPU, Ascend, MindSpore) are reported in English and Chinese by the
same `gather` + `render_html` as `mindinsight report`; the API's answers come from the Flask
app over the same cache (as `mindinsight start` serves them). Each file is opened with the
browser context offline and every non-file request aborted, and the test asserts that none
was even attempted, that no console message or page error appeared, and that the figures a
reader sees equal the API's, formatted by the dashboard's rules. A generated trace with
hostile operator and kernel names checks that nothing in the page runs. Screenshots go to
build/e2e-screenshots/report-*.png.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.export.html import SECTIONS, fmt, render_html
from mindinsight_profiler.export.html.texts import BREAKDOWN, EN, ZH
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from tests.conftest import SHARED_DATA
from tests.e2e.browser import SCREENSHOTS, Tab
from tests.htmlreport import HOSTILE_KERNELS, HOSTILE_OPS, LONG, bundle_of, hostile_trace

RUNS = {  # folder in the base dir -> run under ../shared/data
    "kineto": "kineto/resnet50_num_workers_0",
    "ascend": "ascend_pytorch/level1",
    "mindspore": "mindspore_legacy/run_2/normal_run/profiler",
}
LANGS = {"en": EN, "zh": ZH}
#: the API's answers each report is compared with (tables sorted as the report sorts them)
API_PATHS = (
    "overview", "advice", "step-trace", "data-pipeline", "memory", "communication",
    "perf-model", "operators?sort=device_self_us&limit=20", "kernels?sort=total_us&limit=20",
)  # fmt: skip


@dataclass
class Offline:
    tab: Tab
    attempted: list[str]  # URLs the page tried to fetch (beyond its own file)


def open_offline(browser: Any, path: Path, width: int = 1280) -> Offline:
    """A tab on `path` with the network off and every non-file request aborted."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    context.set_offline(True)
    attempted: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            attempted.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("request", lambda req: None if req.url == path.as_uri() else attempted.append(req.url))
    tab = Tab(page)
    tab.watch()
    page.on("dialog", lambda d: (tab.problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(path.as_uri())
    return Offline(tab, attempted)


@dataclass
class Reports:
    files: dict[tuple[str, str], Path]  # (run, lang) -> report
    api: dict[str, dict[str, Any]]  # run -> {"overview": ..., "advice": ...}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    missing = [rel for rel in RUNS.values() if not (SHARED_DATA / rel).exists()]
    if missing:
        pytest.skip(f"real data not available: {SHARED_DATA / missing[0]}")
    base = tmp_path_factory.mktemp("runs")
    ws = tmp_path_factory.mktemp("ws")
    out = tmp_path_factory.mktemp("reports")
    files: dict[tuple[str, str], Path] = {}
    for name, rel in RUNS.items():
        # a MindSpore profiler folder's run is the folder holding it (as discovery names it)
        inner = "profiler" if rel.endswith("/profiler") else ""
        shutil.copytree(SHARED_DATA / rel, base / name / inner)
        bundle = bundle_of(base / name, ws)
        for lang in LANGS:
            files[name, lang] = out / f"{name}-{lang}.html"
            files[name, lang].write_text(render_html(bundle, lang), encoding="utf-8")
    client = create_app(Settings(base, workspace=ws), start_background_work=False).test_client()
    runs = client.get("/api/v1/runs").json["runs"]
    api: dict[str, dict[str, Any]] = {}
    for run in runs:
        name = run["name"]
        api[name] = {
            path.split("?")[0]: client.get(f"/api/v1/runs/{run['id']}/{path}").json
            for path in API_PATHS
        }
    assert set(api) == set(RUNS), runs
    return Reports(files, api)


def _text(tab: Tab, selector: str) -> str:
    return str(tab.page.locator(selector).first.inner_text()).strip()


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("run", list(RUNS))
def test_report_renders_offline_with_the_apis_figures(
    chromium: Any, reports: Reports, run: str, lang: str
) -> None:
    w = LANGS[lang]
    opened = open_offline(chromium, reports.files[run, lang])
    tab, page = opened.tab, opened.tab.page
    overview, advice = reports.api[run]["overview"], reports.api[run]["advice"]["advice"]
    # every section is drawn, with its title in the report's language
    for section in ("header", *SECTIONS):
        box = page.locator(f"[data-section={section}]")
        assert box.is_visible() and box.bounding_box()["height"] > 20, section
    for section in SECTIONS:
        assert _text(tab, f"[data-section={section}] h2") == w[f"s_{section}"]
    # the overview's figures are the API's overview, formatted as the dashboard does
    steps = overview["steps"]
    assert _text(tab, "[data-figure=steps] .value") == str(steps["count"])
    assert _text(tab, "[data-figure=avg-step] .value") == fmt.us(steps["average_us"])
    b = overview["breakdown_us"]
    shown = page.locator("table.breakdown tbody tr")
    keys = [k for k in BREAKDOWN["en"] if (b.get(k) or 0) > 0]
    assert shown.count() == len(keys)
    for k in keys:
        row = page.locator(f"table.breakdown tr[data-key={k}]")
        assert _text(tab, f"table.breakdown tr[data-key={k}] [data-us]") == fmt.us(b[k])
        share = fmt.share(b[k] / steps["average_us"])
        assert row.locator("[data-share]").inner_text().strip() == share
    wait = (overview["data_pipeline"] or {}).get("data_wait", {}).get("share")
    if wait is not None:
        assert _text(tab, "[data-figure=data-wait] .value") == fmt.share(wait)
    if overview["gpu"]:
        assert _text(tab, "[data-figure=utilization] .value") == fmt.pct(
            overview["gpu"]["utilization"]
        )
    if overview["perf"] and overview["perf"]["mfu"] is not None:
        assert _text(tab, "[data-figure=mfu] .value") == fmt.share(overview["perf"]["mfu"])
    peaks = [(d["device"], (d["peak_allocated"] or d["peak_reserved"] or {}).get("bytes"))
             for d in (overview["memory"] or {}).get("devices", [])]  # fmt: skip
    peaks = [p for p in peaks if p[1] is not None]
    if peaks:
        device, top = max(peaks, key=lambda p: p[1])
        assert _text(tab, "[data-figure=memory-peak] .value") == fmt.nbytes(top)
        assert device in _text(tab, "[data-figure=memory-peak] .label")
    # the step breakdown chart: one bar segment per step and category with time
    per_step = overview["breakdown_per_step_us"]
    segments = sum(1 for s in per_step for k in keys if (s.get(k) or 0) > 0)
    assert page.locator("[data-chart=breakdown] svg rect").count() == segments
    # the advisor's findings: same order, titles and savings as the API's advice
    cards = page.locator("[data-finding]")
    assert cards.count() == len(advice["findings"]) > 0
    for i, f in enumerate(advice["findings"]):
        card = cards.nth(i)
        assert card.get_attribute("data-finding") == f["id"]
        assert card.locator("h3").inner_text().strip() == f["title"][lang].strip()
        if f["estimated_saving_us"] is not None:
            assert fmt.us(f["estimated_saving_us"]) in card.locator("[data-saving]").inner_text()
    _sections_match_the_api(tab, reports.api[run])
    # nothing fetched, nothing complained
    assert opened.attempted == []
    tab.assert_clean()
    tab.shot(f"report-{run}-{lang}")
    page.screenshot(path=str(SCREENSHOTS / f"report-{run}-{lang}-full.png"), full_page=True)
    page.context.close()


def _column(tab: Tab, section: str, index: int) -> list[str]:
    cells = tab.page.locator(f"[data-section={section}] table tbody tr td:nth-child({index + 1})")
    return [cells.nth(i).inner_text().strip() for i in range(cells.count())]


def _sections_match_the_api(tab: Tab, api: dict[str, Any]) -> None:
    """The other sections' figures against the routes their dashboard pages read."""
    st = api["step-trace"]["data"]
    if st:
        for key in ("total_us", "iteration_interval_us", "fp_and_bp_us", "tail_us"):
            shown = _text(tab, f"[data-section=step_trace] [data-figure=avg-{key}] .value")
            assert shown == fmt.us(st["average"][key]), key
        assert _column(tab, "step_trace", 1)[: len(st["steps"])] == [
            fmt.us(s["total_us"]) for s in st["steps"][:60]
        ]
    npu = api["overview"]["npu"]
    if npu:  # Ascend's step view, as the overview's card
        avg = npu["average"]
        for key in ("computing_us", "free_us", "stage_us"):
            row = tab.page.locator(f"table[data-npu] tr[data-key={key}] td")
            assert row.nth(1).inner_text().strip() == fmt.us(avg[key])
            assert row.nth(2).inner_text().strip() == fmt.share(avg[key] / avg["stage_us"])
    dp = api["data-pipeline"]["data"]
    if dp:
        assert _text(tab, "[data-wait]") == fmt.us(dp["data_wait"]["average_us"])
    memory = api["memory"]["data"]
    if memory:
        peaks = [fmt.nbytes((d["peak_allocated"] or {}).get("bytes")) for d in memory["devices"]]
        assert _column(tab, "memory", 1) == peaks
    comm = api["communication"]["data"]
    if comm and comm["collectives"]:
        totals = sorted(c["total_us"] for c in comm["collectives"])[::-1]
        assert _column(tab, "communication", 2)[: len(totals)] == [fmt.us(t) for t in totals]
    perf = api["perf-model"]["data"]
    if perf:
        shown = _text(tab, "[data-section=roofline] [data-figure=mfu] .value")
        assert shown == fmt.share(perf["totals"]["mfu"])
    for section, path, index, key in (("operators", "operators", 4, "device_self_us"),
                                      ("kernels", "kernels", 2, "total_us")):  # fmt: skip
        rows, total = api[path]["rows"], api[path]["total"]
        if not rows:
            continue
        if section == "operators" and not any(r["device_self_us"] for r in rows):
            continue  # sorted by host time: another route order
        assert _column(tab, section, index) == [fmt.us(r[key]) for r in rows]
        more = tab.page.locator(f"[data-section={section}] [data-more]")
        assert (more.get_attribute("data-more") if more.count() else "0") == str(total - len(rows))


def test_report_reads_on_a_phone_without_sideways_scrolling(
    chromium: Any, reports: Reports
) -> None:
    opened = open_offline(chromium, reports.files["kineto", "zh"], width=390)
    page = opened.tab.page
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    opened.tab.assert_clean()
    opened.tab.shot("report-kineto-zh-phone")
    page.context.close()


def test_hostile_names_run_nothing_and_show_literally(
    chromium: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.mktemp("hostile")
    path = base / "hostile.html"
    path.write_text(render_html(bundle_of(hostile_trace(base), base / "ws")), encoding="utf-8")
    opened = open_offline(chromium, path, width=1024)
    tab, page = opened.tab, opened.tab.page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script, img, iframe, [onerror], [onload]").count() == 0
    names = page.locator("[data-section=operators] tbody tr td:first-child")
    shown = [names.nth(i).inner_text() for i in range(names.count())]
    titles = [names.nth(i).get_attribute("title") for i in range(names.count())]
    for name in HOSTILE_OPS:
        expected = name.replace("\r\n", "\n")
        assert expected in shown or (name is LONG and LONG in titles), name
    kernels = page.locator("[data-section=kernels] tbody tr td:first-child")
    assert set(HOSTILE_KERNELS) <= {kernels.nth(i).inner_text() for i in range(kernels.count())}
    assert opened.attempted == []
    tab.assert_clean()
    tab.page.locator("[data-section=operators]").screenshot(
        path=str(SCREENSHOTS / "report-hostile-operators.png")
    )
    page.context.close()
