"""The memory page in a real browser: the curve renders; a window set in the URL or by
zooming the chart (mouse wheel, slider) moves the tables' totals to the API's totals for
that window; sorting, search and paging go to the URL and to the server; the Ascend run
shows operator_memory's allocations and a totals-only curve says so; a run without memory
records says why. No console errors; screenshots in build/e2e-screenshots."""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

CHART = "[data-test=memory-chart][data-rendered=true]"


def api(dashboard: Dashboard, run: str, view: str, **params: Any) -> Any:
    query = f"?{urlencode(params)}" if params else ""
    return dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}/memory/{view}{query}")


def count(tab: Tab, test: str) -> int:
    """The leading number of a `{n} allocations · ...` / `{n} operators · ...` total."""
    text = tab.page.locator(f"[data-test={test}]").inner_text()
    found = re.match(r"([\d,]+) ", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


def wait_count(tab: Tab, test: str, want: int, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            got = count(tab, test)
        except AssertionError:
            got = None
        if got == want:
            return
        assert time.monotonic() < deadline, f"{test}: {got} != {want}"
        time.sleep(0.1)


def href(tab: Tab) -> str:
    """The address bar now (`page.url` lags behind history.replaceState in the sync API)."""
    url: str = tab.page.evaluate("location.href")
    return url


def wait_url(tab: Tab, part: str, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while part not in href(tab):
        assert time.monotonic() < deadline, (part, href(tab))
        time.sleep(0.1)


def window_of(tab: Tab) -> tuple[int, int] | None:
    q = parse_qs(urlparse(href(tab)).query)
    return (int(q["t0"][0]), int(q["t1"][0])) if "t0" in q and "t1" in q else None


def wait_window(tab: Tab, changed_from: tuple[int, int] | None) -> tuple[int, int]:
    """Until the URL holds a window other than `changed_from`; that window."""
    deadline = time.monotonic() + 10
    while (win := window_of(tab)) is None or win == changed_from:
        assert time.monotonic() < deadline, f"the window never reached the URL: {href(tab)}"
        time.sleep(0.1)
    return win


def wait_chart(tab: Tab, win: tuple[int, int] | None) -> None:
    """Until the chart has drawn the window's own curve (or the whole one)."""
    shown = f"{win[0]}:{win[1]}" if win else "whole"
    tab.page.locator(f'{CHART}[data-window="{shown}"]').wait_for()


def check_totals(dashboard: Dashboard, tab: Tab, run: str, win: tuple[int, int] | None) -> None:
    """The tables and the summary show the API's totals for the window."""
    params = {"start_ns": win[0], "end_ns": win[1]} if win else {}
    events = api(dashboard, run, "events", limit=1, **params)
    operators = api(dashboard, run, "operators", limit=1, **params)
    summary = api(dashboard, run, "curve", **params)["summary"]
    assert events["total"] == summary["allocations"]
    wait_count(tab, "events-total", events["total"])
    wait_count(tab, "operators-total", operators["total"])
    allocs = tab.page.locator("[data-test=summary-allocations] .stat-value").inner_text()
    assert allocs.replace(",", "").split(" / ")[0] == str(summary["allocations"]), allocs


def test_kineto_window_from_the_url_filters_both_tables(dashboard: Dashboard, tab: Tab) -> None:
    whole = api(dashboard, "kineto_gpu", "curve")
    assert whole["device"] == "CUDA:0"
    lo, hi = whole["range_ns"]
    win = (lo + (hi - lo) // 3, lo + (hi - lo) // 2)
    tab.page.goto(dashboard.run_url("kineto_gpu", "memory", f"t0={win[0]}&t1={win[1]}"))
    wait_chart(tab, win)
    check_totals(dashboard, tab, "kineto_gpu", win)
    assert api(dashboard, "kineto_gpu", "events", limit=1)["total"] > count(tab, "events-total")
    peak = api(dashboard, "kineto_gpu", "curve", start_ns=win[0], end_ns=win[1])["curve"]
    operator = tab.page.locator("[data-test=peak-operator]").inner_text()
    assert peak["peak_allocated"]["operator"] in operator
    assert "Release times are unknown" in tab.page.locator("[data-test=pairing-note]").inner_text()
    tab.page.locator("[data-test=events-table] .el-table__body tr").first.wait_for()
    tab.shot("memory-kineto_gpu")
    tab.assert_clean()


def test_zooming_the_chart_moves_the_window_and_the_tables(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "memory"))
    wait_chart(tab, None)
    check_totals(dashboard, tab, "kineto_gpu", None)
    canvas = page.locator("[data-test=memory-chart] canvas").first.bounding_box()
    # the inside zoom: wheel over the plot
    page.mouse.move(canvas["x"] + canvas["width"] * 0.6, canvas["y"] + canvas["height"] * 0.45)
    for _ in range(4):
        page.mouse.wheel(0, -300)
        time.sleep(0.05)
    wheel = wait_window(tab, None)
    check_totals(dashboard, tab, "kineto_gpu", wheel)
    wait_chart(tab, wheel)
    # the slider: drag the selected range 120 px to the left (it spans the grid's width)
    lo, hi = api(dashboard, "kineto_gpu", "curve")["range_ns"]
    left, right = canvas["x"] + 64, canvas["x"] + canvas["width"] - 24
    middle = left + (right - left) * ((wheel[0] + wheel[1]) / 2 - lo) / (hi - lo)
    slider_y = canvas["y"] + canvas["height"] - 14
    page.wait_for_timeout(300)  # a person's pause: a drag in the very frame of a redraw is lost
    page.mouse.move(middle, slider_y)
    page.mouse.down()
    page.mouse.move(middle - 120, slider_y, steps=8)
    page.mouse.up()
    dragged = wait_window(tab, wheel)
    assert dragged[0] < wheel[0]
    assert abs((dragged[1] - dragged[0]) - (wheel[1] - wheel[0])) <= 2  # moved, not resized
    check_totals(dashboard, tab, "kineto_gpu", dragged)
    wait_chart(tab, dragged)
    tab.shot("memory-kineto_gpu-zoomed")
    page.locator("[data-test=reset-zoom]").click()
    deadline = time.monotonic() + 10
    while window_of(tab) is not None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    check_totals(dashboard, tab, "kineto_gpu", None)
    wait_chart(tab, None)
    tab.assert_clean()


def test_sort_search_and_paging_go_to_the_server(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    whole = api(dashboard, "kineto_gpu", "curve")
    lo, hi = whole["range_ns"]
    win = (lo + (hi - lo) // 4, lo + (hi - lo) // 2)
    page.goto(dashboard.run_url("kineto_gpu", "memory", f"t0={win[0]}&t1={win[1]}"))
    page.locator(CHART).wait_for()
    events = page.locator("[data-test=events-table]")
    events.locator(".el-table__body tr").first.wait_for()
    events.locator("th", has_text="Allocated at").click()
    wait_url(tab, "esort=alloc_ns")
    want = api(dashboard, "kineto_gpu", "events", start_ns=win[0], end_ns=win[1], sort="alloc_ns",
               order="asc", limit=15)["rows"]  # fmt: skip
    first = events.locator(".el-table__body tr").first.locator("td").nth(2)
    wait_text(first, fmt_ms(want[0]["alloc_ns"]))
    page.locator('[data-test=events-pager] [aria-label="page 2"]').click()
    wait_url(tab, "epage=2")
    second = api(dashboard, "kineto_gpu", "events", start_ns=win[0], end_ns=win[1],
                 sort="alloc_ns", order="asc", offset=15, limit=15)["rows"]  # fmt: skip
    wait_text(first, fmt_ms(second[0]["alloc_ns"]))
    page.locator("[data-test=operators-search] input").fill("conv")
    wait_url(tab, "osearch=conv")
    hits = api(dashboard, "kineto_gpu", "operators", start_ns=win[0], end_ns=win[1], search="conv")
    every = api(dashboard, "kineto_gpu", "operators", start_ns=win[0], end_ns=win[1])
    assert 0 < hits["total"] < every["total"]
    wait_count(tab, "operators-total", hits["total"])
    names = page.locator("[data-test=operators-table] .el-table__body tr td:first-child")
    assert all("conv" in n.lower() for n in names.all_inner_texts())
    # a click on an operator lists its allocations
    page.locator("[data-test=operators-table] .el-link").first.click()
    picked = hits["rows"][0]["name"]
    mine = api(dashboard, "kineto_gpu", "events", start_ns=win[0], end_ns=win[1], search=picked)
    wait_count(tab, "events-total", mine["total"])
    tab.assert_clean()


def wait_text(locator: Any, want: str, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while (got := locator.inner_text()) != want:
        assert time.monotonic() < deadline, (got, want)
        time.sleep(0.1)


def fmt_ms(ns: int) -> str:
    """formatNs for the values these windows hold (ms with two decimals)."""
    assert 1e6 <= ns < 1e9
    return f"{ns / 1e6:.2f} ms"


def test_ascend_allocations_and_a_totals_only_curve(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.run_url("ascend", "memory"))
    page.locator(CHART).wait_for()
    whole = api(dashboard, "ascend", "curve")
    assert whole["device"] == "NPU:0 PTA" and whole["summary"]["pairing"] == "table"
    check_totals(dashboard, tab, "ascend", None)
    states = page.locator("[data-test=events-table] .el-tag").all_inner_texts()
    assert "freed" in states
    page.locator("[data-test=events-mode]").get_by_text("Alive in window").click()
    wait_url(tab, "emode=live")
    lo, hi = whole["range_ns"]
    page.locator("[data-test=npu-modules-card]").wait_for()
    modules = page.locator("[data-test=npu-modules-table] .el-table__body tr")
    assert modules.count() == len(whole["npu_modules"]) == 4
    first = modules.first.locator("td").nth(1).inner_text().strip()
    assert first == whole["npu_modules"][0]["component"]
    tab.shot("memory-ascend")
    page.locator("[data-test=device-select]").click()
    page.locator(".el-select-dropdown__item", has_text="NPU:0 APP").click()
    page.locator("[data-test=curve-only]").wait_for()
    page.locator(CHART).wait_for()
    assert page.locator("[data-test=events-table]").count() == 0
    assert "device=NPU" in href(tab) and lo < hi
    tab.shot("memory-ascend-app")
    page.locator("[data-test=curve-only] button").click()
    page.locator("[data-test=events-table]").wait_for()
    tab.assert_clean()


def test_no_memory_records_say_why(dashboard: Dashboard, tab: Tab) -> None:
    tab.page.goto(dashboard.run_url("mindspore", "memory"))
    tab.page.locator("[data-test=page-memory] [data-state=empty]").wait_for()
    assert "no memory records" in tab.page.locator("[data-test=page-memory]").inner_text()
    assert "profile_memory" in tab.page.locator("[data-test=memory-empty-hint]").inner_text()
    tab.shot("memory-mindspore")
    tab.assert_clean()
