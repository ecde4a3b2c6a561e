"""Page fixes of issue 19 in a real browser: a step's column on the overview's per-step
chart opens the step trace on that step; the memory page's "open in timeline" lands on the
timeline with the zoomed window (and the window stays in the memory page's URL); the step
trace of a run with more than 50 steps pages its table without a deprecation warning; the
run list sorts by every column with the sort in the URL."""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

from tests.advisor.gputrace import gpu_trace, mm
from tests.e2e.browser import Tab, skip_reason
from tests.e2e.conftest import Dashboard
from tests.server.service import Server

RENDERED = (
    "s => { const c = [...document.querySelectorAll(s + ' .echart')];"
    " return c.length > 0 && c.every(e => e.dataset.rendered === 'true') }"
)


TOOLTIP_TEXT = (
    "() => { const t = [...document.querySelectorAll('.echart-tooltip')]"
    ".filter(e => { const r = e.getBoundingClientRect();"
    " return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' });"
    " return t.length ? t[t.length - 1].innerText.trim() : '' }"
)


def href(tab: Tab) -> str:
    url: str = tab.page.evaluate("location.href")
    return url


def query_of(tab: Tab) -> dict[str, str]:
    parsed = urllib.parse.urlparse(href(tab))
    return {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query).items()}


def wait_for(check: Any, what: str, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def column_of(page: Any, chart: Any, step: str) -> tuple[float, float, float]:
    """The x range of `step`'s column in a category chart, and a y in the middle of its
    grid, found by moving the mouse across it and reading the axis tooltip's heading."""
    box = chart.bounding_box()
    y = box["y"] + box["height"] * 0.7
    xs = []
    for k in range(0, int(box["width"]), 3):
        page.mouse.move(box["x"] + k, y)
        page.wait_for_timeout(15)
        # the axis tooltip: in the page's body (EChart appends every tooltip there); read
        # in one evaluation, since a tooltip may hide between a count and a read
        text = page.evaluate(TOOLTIP_TEXT)
        if text.split("\n")[0].strip() == step:
            xs.append(box["x"] + k)
    assert xs, f"no column of step {step}"
    return xs[0], xs[-1], y


def test_a_step_column_on_the_overview_opens_the_step_trace(dashboard: Dashboard, tab: Tab) -> None:
    rid = dashboard.ids["kineto_gpu"]
    names = dashboard.server.get(f"/api/v1/runs/{rid}/overview")["steps"]["names"]
    assert len(names) == 6, names
    page = tab.page
    for i in (2, 4):
        page.goto(dashboard.run_url("kineto_gpu", "overview"))
        page.wait_for_function(RENDERED, arg="[data-test=breakdown]")
        chart = page.locator("[data-test=breakdown] .echart").nth(1)
        # in the step's column (what the axis pointer shades) beside its bar, not on it
        _, right, y = column_of(page, chart, names[i])
        page.mouse.click(right - 1, y)
        wait_for(lambda: "/step-trace" in href(tab), f"no step trace: {href(tab)}")
        assert query_of(tab).get("step") == names[i], href(tab)
        detail = page.locator("[data-test=step-detail]")
        shown = f"Step {names[i]}"
        wait_for(lambda d=detail, s=shown: s in d.inner_text(), "step detail not shown")
    # the step trace's own chart answers a click in a column the same way
    page.wait_for_function(RENDERED, arg="[data-test=step-chart]")
    _, right, y = column_of(page, page.locator("[data-test=step-chart] .echart"), names[1])
    page.mouse.click(right - 1, y)
    wait_for(lambda: query_of(tab).get("step") == names[1], f"step not chosen: {href(tab)}")
    tab.assert_clean()


def memory_window(tab: Tab) -> tuple[int, int] | None:
    q = query_of(tab)
    return (int(q["t0"]), int(q["t1"])) if "t0" in q and "t1" in q else None


def test_open_in_timeline_from_a_zoomed_memory_chart_ten_times(
    dashboard: Dashboard, tab: Tab
) -> None:
    rid = dashboard.ids["kineto_gpu"]
    lo, hi = dashboard.server.get(f"/api/v1/runs/{rid}/memory/curve")["range_ns"]
    page = tab.page
    for i in range(10):
        page.goto(dashboard.run_url("kineto_gpu", "memory"))
        page.locator("[data-test=memory-chart][data-rendered=true]").wait_for()
        canvas = page.locator("[data-test=memory-chart] canvas").first.bounding_box()
        page.mouse.move(canvas["x"] + canvas["width"] * 0.6, canvas["y"] + canvas["height"] * 0.45)
        for _ in range(3):
            page.mouse.wheel(0, -300)
            time.sleep(0.03)
        page.wait_for_timeout(i * 60)  # clicked before, while and after the zoom settles
        page.get_by_role("button", name="Open window in timeline").click()
        wait_for(lambda: "/timeline" in href(tab), f"try {i}: stayed at {href(tab)}")
        page.locator("[data-test=page-timeline]").wait_for()
        time.sleep(0.5)  # a late write of the memory page would show by now
        assert "/timeline" in href(tab), f"try {i}: {href(tab)}"
        win = memory_window(tab)
        assert win is not None, href(tab)
        assert (win[0], win[1]) != (max(0, lo), hi), f"try {i}: the zoom was lost"
        # back on the memory page, the zoomed window is in its URL, and a reload keeps it
        page.go_back()
        page.locator("[data-test=memory-chart]").wait_for()
        wait_for(lambda w=win: memory_window(tab) == w, f"try {i}: memory URL {href(tab)} != {win}")
        if i == 9:
            page.reload()
            shown = f"{win[0]}:{win[1]}"
            page.locator(f'[data-test=memory-chart][data-window="{shown}"]').wait_for()
    tab.assert_clean()


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """A hand-made Kineto run of 60 steps (more than the step table's page of 50)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("long-base")
    gpu_trace(base / "sixty", [mm(256, 256, 256, 40.0), mm(512, 256, 256, 60.0)], steps=60)
    server = Server(base, tmp_path_factory.mktemp("long-ws"))
    server.start("--reload-interval", "0")
    try:
        runs = server.wait_settled()
        assert [r["state"] for r in runs] == ["ready"], (runs, server.logs())
        yield server, runs[0]["id"]
    finally:
        server.stop()


def test_step_trace_of_sixty_steps_pages_without_warnings(
    long_run: tuple[Server, str], tab: Tab
) -> None:
    server, rid = long_run
    st = server.get(f"/api/v1/runs/{rid}/step-trace")["data"]
    assert len(st["steps"]) == 60
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/step-trace")
    pager = page.locator("[data-test=step-table] .el-pagination")
    pager.wait_for()
    pager.locator(".btn-next").click()
    page.locator("[data-test=step-table] .el-table__body tr").first.wait_for()
    wait_for(lambda: query_of(tab).get("page") == "2", f"page 2 not in the URL: {href(tab)}")
    assert page.locator("[data-test=step-table] .el-table__body tr").count() == 10
    tab.assert_clean()


def run_order(tab: Tab) -> list[str]:
    return tab.page.locator("[data-test=run-table] [data-test=run-link]").all_inner_texts()


#: column label -> the run field it sorts by (as the API gives it)
SORTS: dict[str, Any] = {
    "Run": lambda r: r["name"],
    "Workers": lambda r: len(r["workers"]),
    "Steps": lambda r: r["summary"]["steps"],
    "Avg step": lambda r: r["summary"]["step_us"],
    "Framework": lambda r: r["summary"]["framework"],
    "Device": lambda r: r["summary"]["device"],
}


def test_the_run_list_sorts_by_every_column(dashboard: Dashboard, tab: Tab) -> None:
    runs = dashboard.server.get("/api/v1/runs")["runs"]
    page = tab.page
    page.goto(dashboard.url + "/")
    page.locator("[data-test=run-table] [data-test=run-link]").first.wait_for()
    headers = page.locator("[data-test=run-table] th")
    labels = [h.strip() for h in headers.all_inner_texts()]
    for label in labels:  # every column can be sorted
        header = headers.filter(has_text=re.compile(f"^\\s*{label}\\s*$")).first
        assert header.locator(".caret-wrapper").count() == 1, f"{label} is not sortable"
    for label, key in SORTS.items():
        header = headers.filter(has_text=re.compile(f"^\\s*{label}\\s*$")).first
        for order in ("asc", "desc"):
            caret = ".sort-caret.ascending" if order == "asc" else ".sort-caret.descending"
            header.locator(caret).click()
            wait_for(lambda o=order: query_of(tab).get("order") == o, f"{label}: {href(tab)}")
            names = sorted(runs, key=lambda r: r["name"])  # ties keep the name order
            want = [r["name"] for r in sorted(names, key=key, reverse=order == "desc")]
            wait_for(lambda w=want: run_order(tab) == w, f"{label} {order}: {run_order(tab)}")
    sort = query_of(tab)
    page.reload()
    page.locator("[data-test=run-table] [data-test=run-link]").first.wait_for()
    assert query_of(tab) == sort
    wait_for(lambda: run_order(tab) == want, f"not kept on reload: {run_order(tab)}")
    tab.assert_clean()


def unavailable_pages(tab: Tab) -> set[str]:
    nav = tab.page.locator(".run-nav [data-unavailable=true]")
    return {str(n.get_attribute("data-test"))[4:] for n in nav.all()}


def test_pages_with_nothing_are_greyed_out_with_the_reason(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    want = {
        "kineto_gpu": {"communication", "cluster", "modules"},
        "ascend": set(),
        "mindspore": {"memory", "communication", "cluster"},
    }
    for run, pages in want.items():
        rid = dashboard.ids[run]
        served = dashboard.server.get(f"/api/v1/runs/{rid}/overview")["pages"]
        listed = dashboard.server.get(f"/api/v1/runs/{rid}")["pages"]  # the run's formats'
        assert {p for p in listed if not served[p]["available"]} == pages, (run, served)
        page.goto(dashboard.run_url(run, "overview"))
        page.locator("[data-test=page-overview]").wait_for()
        wait_for(lambda p=pages: unavailable_pages(tab) == p, f"{run}: {unavailable_pages(tab)}")
    # the Kineto run has no module data: hovering says how to record it; a click goes nowhere
    page.goto(dashboard.run_url("kineto_gpu", "overview"))
    item = page.locator("[data-test=nav-modules]")
    wait_for(lambda: item.get_attribute("data-unavailable") == "true", "modules not greyed out")
    item.hover()
    tip = page.locator(".el-popper", has_text="with_stack=True")
    tip.wait_for()
    assert "no module data" in tip.inner_text()
    item.click(force=True)
    time.sleep(0.3)
    assert "/overview" in href(tab)
    tab.shot("nav-unavailable-en")
    # opened directly, the page shows its empty state under the reason
    page.goto(dashboard.run_url("kineto_gpu", "modules"))
    page.locator("[data-test=page-modules]").wait_for()
    banner = page.locator("[data-test=page-unavailable]")
    assert "with_stack=True" in banner.inner_text()
    # and in Chinese
    page.locator(".lang-switch").get_by_text("中文").click()
    wait_for(lambda: "采集时设置" in banner.inner_text(), f"zh reason: {banner.inner_text()}")
    page.locator("[data-test=nav-memory]").wait_for()
    mindspore = dashboard.run_url("mindspore", "overview")
    page.goto(mindspore)
    item = page.locator("[data-test=nav-memory]")
    wait_for(lambda: item.get_attribute("data-unavailable") == "true", "memory not greyed out")
    item.hover()
    page.locator(".el-popper", has_text="profile_memory=True").wait_for()
    assert "没有内存数据" in page.locator(".el-popper", has_text="profile_memory=True").inner_text()
    tab.shot("nav-unavailable-zh")
    tab.assert_clean()
