"""The dark theme: with the system set to dark (Chromium's emulated `prefers-color-scheme`),
every page of every run is dark (page and cards dark, text light), no large light box is
left, text is readable on what it stands on, charts draw their axis labels light; the
header's switch turns it light, which survives a reload, and back to the system's choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import VIEWPORT, Tab, open_tab
from tests.e2e.conftest import Dashboard

RUNS = ["kineto_gpu", "ascend", "mindspore"]

#: The page's colours as the browser computes them: body, the first card and the advisor.
COLOURS_JS = """() => {
  const css = (sel, prop) => {
    const e = document.querySelector(sel)
    return e ? getComputedStyle(e)[prop] : null
  }
  return {
    body: css('body', 'backgroundColor'), text: css('body', 'color'),
    card: css('.el-card', 'backgroundColor'), cardText: css('.el-card', 'color'),
    advisor: css('[data-test=advisor]', 'backgroundColor'),
    nav: css('.run-nav', 'backgroundColor'),
  }
}"""

#: Large light boxes and unreadable text: each visible element's own background when it is
#: light and big, and each element with its own text whose colour has a contrast under 2.5
#: against the first opaque background behind it (Element Plus's own white on its primary
#: blue is 2.9; dark text left on a dark ground is about 1.5).
SCAN_JS = """() => {
  const rgba = (s) => (s.match(/[\\d.]+/g) || []).map(Number).concat([1]).slice(0, 4)
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4 }
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05)
  const ground = (e) => {
    for (let n = e; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor)
      if (c[3] > 0.5) return c
    }
    return [255, 255, 255, 1]
  }
  const name = (e) => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className
    ? '.' + e.className.trim().split(/\\s+/).slice(0, 3).join('.') : '')
  const boxes = [], texts = []
  for (const e of document.querySelectorAll('body *')) {
    const st = getComputedStyle(e)
    if (st.visibility === 'hidden' || st.display === 'none' || Number(st.opacity) < 0.3) continue
    const r = e.getBoundingClientRect()
    if (r.width < 1 || r.height < 1) continue
    if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue
    const bg = rgba(st.backgroundColor)
    if (bg[3] > 0.5 && lum(bg) > 0.45 && r.width * r.height > 6000) {
      boxes.push(name(e) + ' ' + st.backgroundColor)
    }
    const own = [...e.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim())
      .map((n) => n.textContent.trim()).join(' ')
    if (!own || e.closest('.el-tag,.el-button--primary,.track-tooltip,.brand-mark')) continue
    const fg = rgba(st.color), back = ground(e)
    if (ratio(fg, back) < 2.5) {
      texts.push(`${name(e)} "${own.slice(0, 40)}" ${st.color} on rgb(${back.slice(0, 3)})`)
    }
  }
  return { boxes: [...new Set(boxes)], texts: [...new Set(texts)] }
}"""

#: The colour of the text ECharts drew in a chart's left margin (the y axis labels): the mean
#: of the opaque grey pixels there (labels are grey in both themes, series coloured, and the
#: chart's own background transparent), from the chart in sight with the most such pixels.
AXIS_INK_JS = """() => {
  let best = null
  for (const c of document.querySelectorAll('.echart[data-rendered=true] canvas')) {
    const box = c.getBoundingClientRect()
    if (box.top < 0 || box.bottom > innerHeight) continue // the charts in sight
    const w = Math.min(56, c.width), d = c.getContext('2d').getImageData(0, 0, w, c.height).data
    let n = 0, r = 0, g = 0, b = 0
    for (let i = 0; i < d.length; i += 4) {
      const chroma = Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2])
      if (d[i + 3] > 160 && chroma < 24) {
        n++; r += d[i]; g += d[i + 1]; b += d[i + 2]
      }
    }
    if (n > (best ? best[3] : 20)) best = [r / n, g / n, b / n, n]
  }
  return best
}"""


def luminance(css: str | list[float] | None) -> float:
    """Relative luminance (0 black .. 1 white) of `rgb(...)`/`rgba(...)` or [r, g, b]."""
    assert css is not None
    parts = [float(x) for x in re.findall(r"[\d.]+", css)] if isinstance(css, str) else css
    r, g, b = (c / 255 for c in parts[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.fixture
def dark_tab(browser: Any) -> Iterator[Tab]:
    """A fresh tab whose system setting is dark."""
    with open_tab(browser, VIEWPORT, color_scheme="dark") as found:
        yield found


def settle(tab: Tab, name: str) -> None:
    """Wait for the page's root, its loading states to end and its charts to draw."""
    page = tab.page
    page.locator(f"[data-test=page-{name}]").wait_for()
    page.wait_for_function("() => !document.querySelector('[data-state=loading]')")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.echart')].every(e => e.dataset.rendered === 'true')"
    )
    if name == "timeline":
        page.locator("canvas[data-rendered=true]").first.wait_for()


def assert_dark(tab: Tab, where: str) -> None:
    c = tab.page.evaluate(COLOURS_JS)
    assert luminance(c["body"]) < 0.1 and luminance(c["text"]) > 0.7, (where, c)
    for ground in ("card", "advisor", "nav"):
        if c[ground] is not None:
            assert luminance(c[ground]) < 0.15, (where, ground, c)
    if c["cardText"] is not None:
        assert luminance(c["cardText"]) > 0.6, (where, c)
    scan = tab.page.evaluate(SCAN_JS)
    assert not scan["boxes"], (where, "light boxes on a dark page", scan["boxes"])
    assert not scan["texts"], (where, "unreadable text", scan["texts"])


def run_pages(dashboard: Dashboard, run: str) -> list[str]:
    pages: list[str] = dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}")["pages"]
    return pages


@pytest.mark.parametrize("run", RUNS)
def test_every_page_is_dark_when_the_system_is(
    dashboard: Dashboard, dark_tab: Tab, run: str
) -> None:
    tab = dark_tab
    tab.page.goto(dashboard.url + "/")
    tab.page.locator("[data-test=run-table]").wait_for()
    assert tab.page.evaluate("document.documentElement.classList.contains('dark')")
    assert_dark(tab, "run list")
    tab.shot("dark-run-list")
    charts = 0
    for name in run_pages(dashboard, run):
        tab.page.goto(dashboard.run_url(run, name))
        settle(tab, name)
        assert_dark(tab, f"{run} {name}")
        ink = tab.page.evaluate(AXIS_INK_JS)
        if ink is not None:  # the axis labels are light on the dark card
            charts += 1
            assert luminance(ink) > 0.45, (run, name, ink)
        tab.shot(f"dark-{run.replace('/', '_')}-{name}")
    assert charts >= 2, f"only {charts} pages of {run} had a chart to check"
    tab.assert_clean()


def test_the_switch_makes_it_light_and_a_reload_keeps_it(
    dashboard: Dashboard, dark_tab: Tab
) -> None:
    tab = dark_tab
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu"))
    settle(tab, "overview")
    assert page.locator("[data-test=theme-system]").get_attribute("aria-pressed") == "true"
    # the per-step breakdown in sight (the overview's cards may push every chart below it)
    page.locator("[data-test=breakdown] .echart").last.scroll_into_view_if_needed()
    dark_ink = page.evaluate(AXIS_INK_JS)
    assert dark_ink is not None and luminance(dark_ink) > 0.45, dark_ink

    page.locator("[data-test=theme-light]").click()
    settle(tab, "overview")  # the charts are drawn again in the light theme
    colours = page.evaluate(COLOURS_JS)
    assert luminance(colours["body"]) > 0.85 and luminance(colours["text"]) < 0.3, colours
    assert luminance(colours["card"]) > 0.9, colours
    page.locator("[data-test=breakdown] .echart").last.scroll_into_view_if_needed()
    light_ink = page.evaluate(AXIS_INK_JS)
    assert light_ink is not None and luminance(light_ink) < 0.45, light_ink

    page.reload()
    settle(tab, "overview")
    assert not page.evaluate("document.documentElement.classList.contains('dark')")
    assert page.locator("[data-test=theme-light]").get_attribute("aria-pressed") == "true"
    assert luminance(page.evaluate(COLOURS_JS)["body"]) > 0.85
    tab.shot("theme-light-after-reload")

    page.locator("[data-test=theme-system]").click()  # back to the system's dark
    settle(tab, "overview")
    assert luminance(page.evaluate(COLOURS_JS)["body"]) < 0.1
    page.locator("[data-test=breakdown] .echart").last.scroll_into_view_if_needed()
    assert luminance(page.evaluate(AXIS_INK_JS)) > 0.45
    tab.assert_clean()


def test_the_timeline_canvas_is_dark(dashboard: Dashboard, dark_tab: Tab) -> None:
    """The track view's ground and label column are drawn dark, its labels light."""
    tab = dark_tab
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "timeline"))
    settle(tab, "timeline")
    canvas = page.locator("[data-test=page-timeline] canvas[data-rendered=true]").first
    # the label column (left 150 px below the axis): its mean colour and its brightest pixel
    # (one readback: more would make Chromium warn about willReadFrequently)
    sample = canvas.evaluate(
        """c => { const a = c.getContext('2d').getImageData(0, 40, 150, c.height - 40).data
          const s = [0, 0, 0]; let m = 0
          for (let i = 0; i < a.length; i += 4) { s[0] += a[i]; s[1] += a[i + 1]; s[2] += a[i + 2]
            m = Math.max(m, (a[i] + a[i + 1] + a[i + 2]) / 3) }
          return { labels: s.map(v => v / (a.length / 4)), text: m } }"""
    )
    assert luminance(sample["labels"]) < 0.2, sample
    assert sample["text"] > 180, sample  # label text drawn light
    tab.assert_clean()


def test_views_beyond_a_pages_first_are_dark_too(dashboard: Dashboard, dark_tab: Tab) -> None:
    """A diff of two ranks (change bars), the cluster heat map, and the timeline's search
    results with an event's details open."""
    tab = dark_tab
    page = tab.page
    ascend = dashboard.ids["ascend"]
    page.goto(dashboard.run_url("ascend", "diff", f"worker=rank0&other={ascend}"))
    page.locator("[data-test=diff-breakdown] [data-rendered=true]").wait_for()
    page.locator("[data-test=diff-operators] .el-table__body tr").first.wait_for()
    settle(tab, "diff")
    assert_dark(tab, "ascend diff")
    tab.shot("dark-ascend-diff-ranks")

    page.goto(dashboard.run_url("ascend", "cluster", "view=heatmap"))
    page.locator("[data-test=heatmap][data-rendered=true]").wait_for()
    settle(tab, "cluster")
    assert_dark(tab, "ascend cluster heat map")
    tab.shot("dark-ascend-cluster-heatmap")

    page.goto(dashboard.run_url("kineto_gpu", "timeline", "q=ProfilerStep"))
    settle(tab, "timeline")
    page.locator("[data-test=search-hit]").first.click()
    page.locator("[data-test=event-details]").wait_for()
    assert_dark(tab, "timeline search and details")
    tab.shot("dark-kineto_gpu-timeline-details")
    tab.assert_clean()
