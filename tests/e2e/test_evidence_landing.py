"""Evidence that lands, in a real browser on the real Kineto ResNet-50 run: a click on an
evidence item in the advisor sidebar opens the exact place.

- A time range (a slow DataLoader call, a pageable copy) opens the timeline on that range,
  highlighted (the orange strip on the time axis spans it to the pixel), with the track that
  holds its device work wholly in view, the tracks marked, and its event selected.
- An operator opens the Operators page on the page that holds its row, the row selected:
  highlighted and on screen among the others.

What the page must show is computed from the API's answers (the advice's `window_ns`,
`tracks`, `event`; the timeline's tracks) and the track view's geometry, never copied from
the page itself.
"""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_ledger_bar import advice
from tests.e2e.test_timeline import AXIS_H, CANVAS, LABEL_W, query_of

RUN = "kineto_gpu"
#: MARK_COLORS.edge in ui/src/timeline/drawMark.ts: the axis strip and the range's edges
EDGE_RGB = (214, 140, 0)
#: the pixels of the axis strip (its 4 px under the axis line) whose colour is the edge's (drawn
#: at 0.95 opacity: on white a blue of 13)
_R, _G, _B = EDGE_RGB
STRIP_XS = f"""(canvas) => {{
  const ctx = canvas.getContext('2d'); const dpr = canvas.width / canvas.clientWidth;
  const y = Math.round(({AXIS_H} - 2) * dpr);
  const data = ctx.getImageData(0, y, canvas.width, 1).data; const xs = [];
  for (let i = 0; i < canvas.width; i++) {{
    const [r, g, b] = [data[4 * i], data[4 * i + 1], data[4 * i + 2]];
    const near = Math.abs(r - {_R}) < 20 && Math.abs(g - {_G}) < 20 && Math.abs(b - {_B}) < 20;
    if (near) xs.push(i / dpr);
  }}
  return xs;
}}"""


def ranges(dashboard: Dashboard) -> list[dict[str, Any]]:
    return [
        ev for f in advice(dashboard)["findings"] for ev in f["evidence"] if "window_ns" in ev
    ]  # fmt: skip


def tracks(dashboard: Dashboard) -> dict[int, dict[str, Any]]:
    rid = dashboard.ids[RUN]
    window = dashboard.server.get(f"/api/v1/runs/{rid}/timeline?max_items=10")["window"]
    return {t["id"]: t for t in window["tracks"]}


def click_evidence(tab: Tab, label: str) -> None:
    """Click the sidebar's evidence link with exactly this label (from the overview)."""
    link = tab.page.locator("[data-test=evidence]", has_text=label).first
    link.scroll_into_view_if_needed()
    link.click()


def land_on_timeline(dashboard: Dashboard, tab: Tab, ev: dict[str, Any], shot: str) -> None:
    page = tab.page
    page.goto(dashboard.run_url(RUN))
    page.locator("[data-test=evidence]").first.wait_for()
    click_evidence(tab, ev["label"])
    page.wait_for_url(re.compile(r"/timeline\?"))
    a, b = ev["window_ns"]
    q = query_of(page.url)
    assert q["mark"] == f"{a}-{b}" and q["tracks"] == ",".join(map(str, ev["tracks"]))
    canvas = page.locator(CANVAS)
    page.wait_for_selector(f"{CANVAS}[data-rendered=true][data-mark='{a}-{b}']")
    t0, t1 = int(q["t0"]), int(q["t1"])
    page.wait_for_selector(f"{CANVAS}[data-window='{t0}-{t1}']")  # the exact window drawn
    # the tracks holding its work are marked, and the first (the device's) is wholly in view
    device = ev["tracks"][0]
    assert tracks(dashboard)[device]["is_device"]
    in_view = f"(c) => c.dataset.tracksInView.split(',').includes('{device}')"
    page.wait_for_function(in_view, arg=canvas.element_handle())
    assert canvas.get_attribute("data-marked-tracks") == q["tracks"]
    # the range is highlighted where it is: the axis strip spans [a, b] on the canvas
    box = canvas.bounding_box()
    assert box is not None
    width = box["width"] - LABEL_W
    xs = canvas.evaluate(STRIP_XS)
    assert xs, "no highlighted range on the axis"
    left = LABEL_W + (a - t0) * width / (t1 - t0)
    right = LABEL_W + (b - t0) * width / (t1 - t0)
    assert abs(min(xs) - left) <= 2 and abs(max(xs) - right) <= 2, (min(xs), max(xs), left, right)
    # the toolbar says so, and its event is selected: the details name it
    assert page.locator("[data-test=timeline-mark]").is_visible()
    if "event" in ev:
        rid = dashboard.ids[RUN]
        event = dashboard.server.get(f"/api/v1/runs/{rid}/timeline/event?index={ev['event']}")
        details = page.locator(f"[data-test=event-details][data-index='{ev['event']}']")
        details.wait_for()
        assert event["event"]["name"][:30] in details.inner_text()
    tab.shot(shot)


def test_a_host_range_lands_with_the_device_track_in_view(dashboard: Dashboard, tab: Tab) -> None:
    """A slow DataLoader call: the host's __next__, selected; the device's stream (idle then)
    and the host thread both marked, both in view (they fit one screen)."""
    ev = next(e for e in ranges(dashboard) if e["label"].startswith("DataLoader __next__"))
    assert len(ev["tracks"]) == 2 and "event" in ev
    land_on_timeline(dashboard, tab, ev, "evidence-timeline-dataloader")
    shown = tab.page.locator(CANVAS).get_attribute("data-tracks-in-view") or ""
    assert set(map(str, ev["tracks"])) <= set(shown.split(",")), shown
    tab.assert_clean()


def test_a_device_range_scrolls_its_stream_into_view(dashboard: Dashboard, tab: Tab) -> None:
    """A pageable copy on a screen too short for the host threads above the device: the
    copy's stream is scrolled into view (it is below the first screen before landing)."""
    page = tab.page
    page.set_viewport_size({"width": 1280, "height": 420})
    ev = next(e for e in ranges(dashboard) if e["label"].startswith("Memcpy HtoD"))
    land_on_timeline(dashboard, tab, ev, "evidence-timeline-memcpy-short-screen")
    scrolled = page.locator("[data-test=track-view] .track-scroller").evaluate("(s) => s.scrollTop")
    assert scrolled > 0, "the device stream was in view without scrolling: the test proves nothing"
    tab.assert_clean()


def selected_row(tab: Tab, name: str) -> Any:
    """The one selected row of the operators table, once drawn: that operator's, on screen,
    marked (the accent on its first cell, a tinted background)."""
    row = tab.page.locator("[data-test=operators-table] tr.selected-row")
    row.first.wait_for()
    assert row.count() == 1
    assert row.locator("td").first.inner_text().strip() == name
    on_screen = "(r) => { const b = r.getBoundingClientRect(); return b.top >= 0 && " \
        "b.bottom <= innerHeight }"  # fmt: skip
    tab.page.wait_for_function(on_screen, arg=row.element_handle())
    cell = row.locator("td").first
    assert "inset" in cell.evaluate("(td) => getComputedStyle(td).boxShadow")
    assert cell.evaluate("(td) => getComputedStyle(td).backgroundColor") == "rgb(255, 244, 214)"
    return row


def shown_names(tab: Tab) -> list[str]:
    cells = tab.page.locator("[data-test=operators-table] .el-table__body tr > td:nth-child(1)")
    return [t.strip() for t in cells.all_inner_texts()]


def test_an_operator_lands_on_its_selected_row(dashboard: Dashboard, tab: Tab) -> None:
    """The operator furthest down the table: its row among the others, scrolled into view
    (below the pie, off the first screen), highlighted; with 10 rows a page, the page that
    holds it (the server's `focus`), not the first."""
    page = tab.page
    rid = dashboard.ids[RUN]
    table = dashboard.server.get(f"/api/v1/runs/{rid}/operators?limit=1000")["rows"]
    position = {r["name"]: i for i, r in reversed(list(enumerate(table)))}
    ops = [
        ev for f in advice(dashboard)["findings"] for ev in f["evidence"]
        if ev["page"] == "operators" and ev["kind"] == "operator"
    ]  # fmt: skip
    ev = max(ops, key=lambda e: position[e["name"]])
    at = position[ev["name"]]
    assert 10 <= at < 20, at  # page 1 of 20 rows, page 2 of 10
    page.goto(dashboard.run_url(RUN))
    page.locator("[data-test=evidence]").first.wait_for()
    click_evidence(tab, ev["label"])
    page.wait_for_url(re.compile(r"/operators\?"))
    assert query_of(page.url)["select"] == ev["name"]
    selected_row(tab, ev["name"])
    assert shown_names(tab) == [r["name"] for r in table[:20]]  # among the others
    # it was below the first screen (under the pie): the page's content scrolled to it
    assert page.locator(".run-content").evaluate("(e) => e.scrollTop") > 0
    tab.shot("evidence-operator-row")
    # 10 rows a page (a size the person chose): the link opens the page that holds the row
    page.goto(f"{page.url}&size=10")
    page.wait_for_url(re.compile(r"[?&]page=2(&|$)"))
    selected_row(tab, ev["name"])
    assert shown_names(tab) == [r["name"] for r in table[10:20]]
    active = page.locator("[data-test=operators-table] .el-pager li.is-active")
    assert active.inner_text() == "2"
    tab.shot("evidence-operator-row-page-2")
    tab.assert_clean()


def test_the_mark_chip_in_chinese_goes_back_to_the_range_and_clears_it(
    dashboard: Dashboard, tab: Tab
) -> None:
    page = tab.page
    page.goto(dashboard.url)
    page.evaluate("localStorage.setItem('mindinsight.locale', 'zh')")
    ev = next(e for e in ranges(dashboard) if e["label"].startswith("DataLoader __next__"))
    a, b = ev["window_ns"]
    page.goto(dashboard.run_url(RUN, "timeline", f"mark={a}-{b}&tracks=" + ",".join(
        map(str, ev["tracks"]))))  # fmt: skip
    page.wait_for_selector(f"{CANVAS}[data-rendered=true][data-mark='{a}-{b}']")
    chip = page.locator("[data-test=timeline-mark-show]")
    assert chip.inner_text().startswith("证据")
    tab.shot("evidence-timeline-mark-zh")
    # no window in the link: the whole trace; the chip zooms to the range (with its margin)
    chip.click()
    pad = max(round((b - a) * 0.05), 1000)
    page.wait_for_url(re.compile(rf"t0={a - pad}&t1={b + pad}|t1={b + pad}.*t0={a - pad}"))
    page.locator("[data-test=timeline-mark-clear]").click()
    page.wait_for_function("() => !location.search.includes('mark=')")
    page.wait_for_selector(f"{CANVAS}[data-mark='']")
    assert "tracks=" not in page.url
    tab.assert_clean()
