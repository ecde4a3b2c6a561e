"""The timeline page on the real Kineto GPU run, in a real browser.

The canvas must draw the API's window, a click on an event found through the API must open
that event's details, W/S and A/D must move the window (and the URL), search must find an
operator and jump to it, downloads must answer, and a URL with t0/t1 (as the advisor's
evidence links write it) must open exactly that window. Positions on the canvas are
computed from the API's answer and the track view's geometry (timeline/layout.ts).
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from tests.e2e.browser import VIEWPORT, Tab
from tests.e2e.conftest import Dashboard

RUN = "kineto_gpu"
CANVAS = "[data-test=timeline-canvas]"
#: GEOMETRY in ui/src/timeline/layout.ts
AXIS_H, LABEL_W, HEADER_H, ROW_H, TRACK_PAD, COUNTER_H = 26, 170, 24, 18, 4, 36
#: viewport.ts: one W/S press zooms by this factor, one A/D press pans this share
KEY_ZOOM, KEY_PAN = 1.35, 0.2


def api(dashboard: Dashboard, view: str, **params: Any) -> Any:
    query = f"?{urlencode(params)}" if params else ""
    return dashboard.server.get(f"/api/v1/runs/{dashboard.ids[RUN]}/{view}{query}")


def row_center(window: dict[str, Any], track: int, depth: int) -> float:
    """Canvas y of the middle of a row, all groups expanded, not scrolled: each group's
    header, its tracks with events, then its counter tracks."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for t in window["tracks"]:
        if t["events"] > 0:
            groups.setdefault(t["pid"], []).append(t)
    y = 0
    for pid, members in groups.items():
        y += HEADER_H
        for t in members:
            if t["id"] == track:
                return AXIS_H + y + depth * ROW_H + ROW_H / 2
            y += max(1, t["depth"]) * ROW_H + TRACK_PAD
        y += COUNTER_H * sum(1 for c in window["counters"] if c["group"] == pid)
    raise AssertionError(f"track {track} not in the layout")


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}


def open_timeline(tab: Tab, dashboard: Dashboard, query: str = "") -> dict[str, float]:
    """Open the page and wait for the first frame with data; the canvas box."""
    tab.page.goto(dashboard.run_url(RUN, "timeline", query))
    tab.page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    box = tab.page.locator(CANVAS).bounding_box()
    assert box is not None
    return box


def wait_window(tab: Tab, t0: int, t1: int) -> None:
    """Until the canvas shows the answer for exactly [t0, t1)."""
    tab.page.wait_for_selector(f"{CANVAS}[data-window='{t0}-{t1}']")


def url_window(tab: Tab) -> tuple[int, int]:
    q = query_of(tab.page.url)
    return int(q["t0"]), int(q["t1"])


def click_at(tab: Tab, box: dict[str, float], t0: int, t1: int, ns: float, y: float) -> None:
    width = box["width"] - LABEL_W
    x = box["x"] + LABEL_W + (ns - t0) * width / (t1 - t0)
    tab.page.mouse.click(x, box["y"] + y)


def test_canvas_draws_the_window_and_a_click_shows_the_event(
    dashboard: Dashboard, tab: Tab
) -> None:
    box = open_timeline(tab, dashboard)
    page = tab.page
    width = int(box["width"] - LABEL_W)
    whole = api(dashboard, "timeline", width_px=width)["window"]
    span = whole["t1_ns"]
    wait_window(tab, 0, span)
    items = int(page.locator(CANVAS).get_attribute("data-items") or 0)
    assert items == len(whole["events"]["index"]) + len(whole["blocks"]["track"]) > 0
    # the canvas holds the drawing: many colours along the host thread's top rows
    colours = page.evaluate(
        """([x0, x1, y]) => {
            const c = document.querySelector('[data-test=timeline-canvas]')
            const r = window.devicePixelRatio || 1
            const d = c.getContext('2d').getImageData(x0 * r, y * r, (x1 - x0) * r, 1).data
            const seen = new Set()
            for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`)
            return seen.size
        }""",
        [LABEL_W, box["width"] - 1, row_center(whole, 0, 1)],
    )
    assert colours >= 5, colours
    # the widest event of the main thread's second row, clicked in its middle
    ev, names = whole["events"], whole["names"]
    rows = [i for i in range(len(ev["index"])) if ev["track"][i] == 0 and ev["depth"][i] == 1]
    i = max(rows, key=lambda k: ev["dur_ns"][k])
    y = row_center(whole, 0, 1)
    click_at(tab, box, 0, span, ev["start_ns"][i] + ev["dur_ns"][i] / 2, y)
    details = page.locator("[data-test=event-details]")
    details.wait_for()
    assert details.get_attribute("data-index") == str(ev["index"][i])
    assert page.locator("[data-test=event-name]").inner_text() == names[ev["name"][i]]
    one = api(dashboard, "timeline/event", index=ev["index"][i])["event"]
    panel = page.locator("[data-test=timeline-panel]").inner_text()
    assert one["category"] in panel
    for parent in one["parents"][:3]:
        assert parent["name"] in panel
    page.wait_for_function("() => location.search.includes('event=')")
    assert query_of(page.url)["event"] == str(ev["index"][i])
    # the page fills the window without scrolling, at 1280x800 with the advisor open
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    content = page.locator(".run-content")
    assert content.evaluate("(e) => e.scrollHeight <= e.clientHeight")
    assert page.locator("[data-test=advisor]").is_visible()
    tab.shot("timeline-kineto_gpu")
    tab.assert_clean()


def test_a_kernel_shows_its_launch_chain(dashboard: Dashboard, tab: Tab) -> None:
    # The longest kernel drawn as itself in the first 2 ms window that has one, opened with
    # room on both sides.
    kernels: list[int] = []
    for start_ns in range(400_000_000, 700_000_000, 2_000_000):
        win = api(dashboard, "timeline", start_ns=start_ns, end_ns=start_ns + 2_000_000,
                  width_px=800)["window"]  # fmt: skip
        ev = win["events"]
        kernels = [i for i in range(len(ev["index"])) if win["kinds"][ev["kind"][i]] == "kernel"]
        if kernels:
            break
    k = max(kernels, key=lambda i: ev["dur_ns"][i])
    start, dur = ev["start_ns"][k], ev["dur_ns"][k]
    t0, t1 = start - dur, start + 2 * dur
    box = open_timeline(tab, dashboard, f"t0={t0}&t1={t1}")
    wait_window(tab, t0, t1)
    assert url_window(tab) == (t0, t1)
    click_at(tab, box, t0, t1, start + dur / 2, row_center(win, ev["track"][k], 0))
    page = tab.page
    page.locator(f"[data-test=event-details][data-index='{ev['index'][k]}']").wait_for()
    details = api(dashboard, "timeline/event", index=ev["index"][k])["event"]
    panel = page.locator("[data-test=timeline-panel]").inner_text()
    assert details["args"]["grid"] in panel and details["args"]["block"] in panel
    chain = page.locator("[data-test=chain-callers]").inner_text()
    assert [c["kind"] for c in details["callers"]][:1] == ["runtime"]
    for caller in details["callers"]:
        assert caller["name"] in chain
    # following the launch selects the runtime call and lists the kernel it launched
    page.locator("[data-test=chain-callers] .ed-link").first.click()
    runtime = details["callers"][0]["index"]
    page.locator(f"[data-test=event-details][data-index='{runtime}']").wait_for()
    launched = page.locator("[data-test=chain-launched]").inner_text()
    assert details["name"] in launched
    tab.shot("timeline-kernel-kineto_gpu")
    tab.assert_clean()


def test_keys_zoom_and_pan_and_the_url_follows(dashboard: Dashboard, tab: Tab) -> None:
    t0, t1 = 200_000_000, 600_000_000
    open_timeline(tab, dashboard, f"t0={t0}&t1={t1}")
    wait_window(tab, t0, t1)
    page = tab.page
    steps = [
        ("w", 1 / KEY_ZOOM, 0.0),
        ("s", KEY_ZOOM, 0.0),
        ("d", 1.0, KEY_PAN),
        ("a", 1.0, -KEY_PAN),
    ]
    for key, zoom, pan in steps:
        before = url_window(tab)
        span = before[1] - before[0]
        page.keyboard.press(key)
        page.wait_for_function(f"() => !location.search.includes('t0={before[0]}&t1={before[1]}')")
        after = url_window(tab)
        # the mouse is off the canvas: zoom around the middle; pans keep the span
        assert abs((after[1] - after[0]) - span * zoom) <= 2, (key, before, after)
        mid_shift = (after[0] + after[1]) / 2 - (before[0] + before[1]) / 2
        assert abs(mid_shift - pan * span) <= 2, (key, before, after)
        wait_window(tab, *after)
    # reset zoom: the whole trace, and the URL drops the window
    page.locator("[data-test=reset-zoom]").click()
    page.wait_for_function("() => !location.search.includes('t0=')")
    tab.shot("timeline-keys-kineto_gpu")
    tab.assert_clean()


def test_wheel_zooms_around_the_cursor(dashboard: Dashboard, tab: Tab) -> None:
    t0, t1 = 100_000_000, 500_000_000
    box = open_timeline(tab, dashboard, f"t0={t0}&t1={t1}")
    wait_window(tab, t0, t1)
    width = box["width"] - LABEL_W
    x = box["x"] + LABEL_W + width * 0.25
    at = t0 + 0.25 * (t1 - t0)
    tab.page.mouse.move(x, box["y"] + 80)
    tab.page.mouse.wheel(0, -200)
    tab.page.wait_for_function(f"() => !location.search.includes('t0={t0}&')")
    a, b = url_window(tab)
    assert b - a < t1 - t0
    assert abs((a + 0.25 * (b - a)) - at) <= (t1 - t0) / width  # the time under the cursor stays
    tab.assert_clean()


def test_search_finds_an_operator_and_jumps_to_it(dashboard: Dashboard, tab: Tab) -> None:
    open_timeline(tab, dashboard)
    page = tab.page
    page.fill("input[data-test=timeline-search]", "conv2d")
    page.keyboard.press("Enter")
    hits = page.locator("[data-test=search-hit]")
    hits.first.wait_for()
    found = api(dashboard, "timeline/search", q="conv2d", limit=100)["window"]
    assert found["total"] > 0
    assert hits.count() == len(found["events"]["index"])
    total = page.locator("[data-test=search-total]").inner_text()
    assert f"{found['total']:,}" in total
    assert query_of(page.url)["q"] == "conv2d"
    pick = 3
    index = found["events"]["index"][pick]
    start = found["events"]["start_ns"][pick]
    hits.nth(pick).click()
    page.locator(f"[data-test=event-details][data-index='{index}']").wait_for()
    name = found["names"][found["events"]["name"][pick]]
    assert "conv2d" in name.lower()
    assert page.locator("[data-test=event-name]").inner_text() == name
    page.wait_for_function("() => location.search.includes('t0=')")
    a, b = url_window(tab)
    assert a <= start <= b and b - a < 10_000_000  # zoomed to the event
    wait_window(tab, a, b)
    assert query_of(page.url)["event"] == str(index)
    tab.shot("timeline-search-kineto_gpu")
    tab.assert_clean()


def test_downloads_answer_with_chrome_trace_json(dashboard: Dashboard, tab: Tab) -> None:
    t0, t1 = 300_000_000, 320_000_000
    open_timeline(tab, dashboard, f"t0={t0}&t1={t1}")
    wait_window(tab, t0, t1)
    page = tab.page
    href = page.locator("[data-test=download-window]").get_attribute("href") or ""
    params = query_of(href)
    assert (params["start_ns"], params["end_ns"]) == (str(t0), str(t1))
    response = page.request.get(href)
    assert response.status == 200
    assert "attachment" in response.headers["content-disposition"]
    trace = json.loads(gzip.decompress(response.body()))
    spans = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert spans
    whole = page.locator("[data-test=download-trace]").get_attribute("href") or ""
    assert "start_ns" not in whole
    assert page.request.head(whole).status == 200 or page.request.get(whole).status == 200
    tab.assert_clean()


def test_advisor_evidence_opens_its_window(dashboard: Dashboard, tab: Tab) -> None:
    tab.page.goto(dashboard.run_url(RUN, "overview"))
    link = tab.page.locator("[data-test=evidence][href*='t0=']").first
    link.wait_for()
    q = query_of(link.get_attribute("href") or "")
    link.click()
    tab.page.wait_for_selector(f"{CANVAS}[data-window='{q['t0']}-{q['t1']}']")
    assert re.search(r"/timeline\?", tab.page.url)
    text = tab.page.locator("[data-test=timeline-window]").inner_text()
    assert "–" in text
    # a second evidence link while on the page moves the view too
    second = tab.page.locator("[data-test=evidence][href*='t0=']").nth(1)
    q2 = query_of(second.get_attribute("href") or "")
    second.click()
    tab.page.wait_for_selector(f"{CANVAS}[data-window='{q2['t0']}-{q2['t1']}']")
    tab.assert_clean()


def test_chinese_and_collapsed_groups_survive_a_reload(dashboard: Dashboard, tab: Tab) -> None:
    box = open_timeline(tab, dashboard)
    page = tab.page
    page.locator("[data-test=lang-zh]").click()
    page.get_by_text("重置缩放").wait_for()
    assert "W/S 缩放" in page.locator("[data-test=timeline-help]").inner_text()
    # collapse the first process by its header in the label column
    page.mouse.click(box["x"] + 40, box["y"] + AXIS_H + HEADER_H / 2)
    page.wait_for_function("() => location.search.includes('fold=0')")
    tab.shot("timeline-zh-kineto_gpu")
    page.reload()
    page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    assert query_of(page.url)["fold"] == "0"
    page.locator("[data-test=lang-en]").click()
    tab.assert_clean()


def test_a_link_to_an_event_alone_opens_around_it(dashboard: Dashboard, tab: Tab) -> None:
    found = api(dashboard, "timeline/search", q="cudaLaunchKernel", limit=50)["window"]
    index, start = found["events"]["index"][-1], found["events"]["start_ns"][-1]
    tab.page.goto(dashboard.run_url(RUN, "timeline", f"event={index}"))
    tab.page.locator(f"[data-test=event-details][data-index='{index}']").wait_for()
    tab.page.wait_for_function("() => location.search.includes('t0=')")
    a, b = url_window(tab)
    assert a <= start <= b
    wait_window(tab, a, b)
    tab.assert_clean()


def test_canvas_is_sharp_on_a_hidpi_screen(dashboard: Dashboard, browser: Any) -> None:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=2, locale="en-US")
    tab = Tab(context.new_page())
    tab.watch()
    try:
        open_timeline(tab, dashboard)
        size = tab.page.locator(CANVAS).evaluate(
            "(c) => [c.width, c.height, c.clientWidth, c.clientHeight]"
        )
        assert size[0] == 2 * size[2] and size[1] == 2 * size[3], size
        tab.assert_clean()
    finally:
        context.close()
