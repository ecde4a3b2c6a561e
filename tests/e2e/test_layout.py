"""Layout at the sizes the dashboard supports (1024 px wide up) and charts that never clip.

- At 1024x768 no page of a run scrolls sideways and nothing in the content overflows its
  card; the advisor is a drawer opened from the header (with the findings' count), and its
  evidence links still land (and close it).
- Collapsing the advisor re-lays out what is on the page: the Kernels pie is not under its
  legend, the table fits its card, every chart follows its container's new width.
- The per-step stacked bars keep their legend off the y axis' labels, their y labels differ
  from tick to tick (also on second-long steps), and their tooltip stays on screen, unclipped.
- A long evidence line wraps in the advisor instead of scrolling it sideways.

Geometry is read from the page (bounding boxes) and from the ECharts instances the charts
carry (`__echarts`, ui/src/components/EChart.vue), never from pixel colours.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import Tab, open_tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_ledger_bar import advice
from tests.e2e.test_tour import PAGES, ROOT, SETTLED

NARROW = {"width": 1024, "height": 768}
WIDE = {"width": 1440, "height": 900}

#: facts about sideways overflow: the document, the content column, each card, each chart
OVERFLOW = """() => {
  const out = [];
  const doc = document.scrollingElement;
  if (doc.scrollWidth > doc.clientWidth) out.push(`page ${doc.scrollWidth} > ${doc.clientWidth}`);
  const main = document.querySelector('.run-content');
  if (main.scrollWidth > main.clientWidth)
    out.push(`content ${main.scrollWidth} > ${main.clientWidth}`);
  for (const card of main.querySelectorAll('.el-card')) {
    if (card.scrollWidth > card.clientWidth + 1) {
      const title = (card.querySelector('.el-card__header') || card).innerText.slice(0, 40);
      out.push(`card "${title}" ${card.scrollWidth} > ${card.clientWidth}`);
    }
  }
  for (const chart of main.querySelectorAll('.echart')) {
    const canvas = chart.querySelector('canvas');
    if (canvas && canvas.clientWidth > chart.clientWidth + 1)
      out.push(`chart canvas ${canvas.clientWidth} > ${chart.clientWidth}`);
  }
  return out;
}"""

#: charts whose legend covers one of their axis labels (legend box against each label's box)
LEGEND_ON_LABELS = """() => {
  const out = [];
  const rect = (g) => {
    const b = g.getBoundingRect().clone(); b.applyTransform(g.transform); return b;
  };
  const cut = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width
    && a.y < b.y + b.height && b.y < a.y + a.height;
  for (const el of document.querySelectorAll('.run-content .echart')) {
    const chart = el.__echarts; if (!chart) continue;
    const model = chart.getModel();
    const all = (type) => { const a = []; model.eachComponent(type, (c) => a.push(c)); return a; };
    for (const legend of all('legend')) {
      const view = chart.getViewOfComponentModel(legend);
      if (!view || !view.group || view.group.childCount() === 0) continue;
      const box = rect(view.group);
      for (const kind of ['xAxis', 'yAxis']) {
        for (const axis of all(kind)) {
          const axisView = chart.getViewOfComponentModel(axis);
          if (!axisView) continue;
          axisView.group.traverse((e) => {
            if (e.style && typeof e.style.text === 'string' && e.style.text && !e.ignore
                && !e.invisible && cut(box, rect(e))) out.push(`${kind} label "${e.style.text}"`);
          });
        }
      }
    }
  }
  return out;
}"""

#: the part of an element inside the viewport (0: none, 1: all of it)
IN_VIEW = """(e) => {
  const r = e.getBoundingClientRect();
  const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
  const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  const visible = getComputedStyle(e).visibility !== 'hidden' && r.width > 0 && r.height > 0;
  return visible ? (w * h) / (r.width * r.height) : 0;
}"""


def advisor_in_view(share: int) -> str:
    """A predicate: this share of the advisor is in the viewport."""
    return f"() => ({IN_VIEW})(document.querySelector('[data-test=advisor]')) === {share}"


@pytest.fixture
def narrow(browser: Any) -> Iterator[Tab]:
    with open_tab(browser, NARROW) as found:
        yield found


@pytest.fixture
def wide(browser: Any) -> Iterator[Tab]:
    with open_tab(browser, WIDE) as found:
        yield found


def settle(tab: Tab, name: str) -> None:
    tab.page.locator(ROOT.format(page=name)).wait_for()
    tab.page.wait_for_function(SETTLED, timeout=30_000)


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend", "mindspore"])
def test_no_page_scrolls_sideways_at_1024(dashboard: Dashboard, narrow: Tab, run: str) -> None:
    page = narrow.page
    for name in PAGES:
        page.goto(dashboard.run_url(run, name))
        settle(narrow, name)
        assert page.evaluate(OVERFLOW) == [], (run, name)
        assert page.evaluate(LEGEND_ON_LABELS) == [], (run, name)
        # the advisor is a closed drawer: nothing of it covers the page
        assert page.locator("[data-test=advisor]").evaluate(IN_VIEW) == 0, (run, name)
        narrow.shot(f"layout-1024-{run}-{name}")
    narrow.assert_clean()


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend", "mindspore"])
def test_every_page_at_1440(dashboard: Dashboard, wide: Tab, run: str) -> None:
    """The wide screen keeps the advisor as a column; nothing overflows there either."""
    page = wide.page
    for name in PAGES:
        page.goto(dashboard.run_url(run, name))
        settle(wide, name)
        assert page.evaluate(OVERFLOW) == [], (run, name)
        assert page.evaluate(LEGEND_ON_LABELS) == [], (run, name)
        assert page.locator("[data-test=advisor]").evaluate(IN_VIEW) == 1, (run, name)
        assert page.locator("[data-test=advisor-open]").count() == 0
        wide.shot(f"layout-1440-{run}-{name}")
    wide.assert_clean()


def test_advisor_is_a_drawer_at_1024(dashboard: Dashboard, narrow: Tab) -> None:
    page = narrow.page
    page.goto(dashboard.run_url("kineto_gpu"))
    settle(narrow, "overview")
    findings = advice(dashboard)["findings"]
    opener = page.locator("[data-test=advisor-open]")
    assert str(len(findings)) in opener.inner_text()
    advisor = page.locator("[data-test=advisor]")
    assert advisor.evaluate(IN_VIEW) == 0
    opener.click()
    page.wait_for_function(advisor_in_view(1))
    narrow.shot("layout-1024-advisor-drawer")
    # an operator's evidence lands on its table, and the drawer gets out of the way
    link = page.locator("[data-test=evidence][data-page=operators]").first
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_url("**/operators?**")
    page.locator("[data-test=page-operators] .selected-row").first.wait_for()
    page.wait_for_function(advisor_in_view(0))
    narrow.assert_clean()


#: the pie's circle and the legend's box, in the chart's pixels
PIE_AND_LEGEND = """(el) => {
  const chart = el.__echarts;
  const model = chart.getModel();
  const pie = model.getSeriesByIndex(0).getData().getItemLayout(0);
  const view = chart.getViewOfComponentModel(model.getComponent('legend'));
  const box = view.group.getBoundingRect().clone();
  box.applyTransform(view.group.transform);
  return { cx: pie.cx, cy: pie.cy, r: pie.r, legend: [box.x, box.y, box.width, box.height],
           width: chart.getWidth() };
}"""

#: every chart on the page has the width of its container
CHARTS_FOLLOW = """() => [...document.querySelectorAll('.run-content .echart')].every(
  (e) => !e.__echarts || Math.abs(e.__echarts.getWidth() - e.clientWidth) <= 1)"""
#: every table's columns have the table's width, or scroll inside it
TABLES_FIT = """() => [...document.querySelectorAll('.run-content .el-table')].map((t) => {
  const head = t.querySelector('.el-table__header');
  const wrap = t.querySelector('.el-table__body-wrapper');
  return head && wrap ? [Math.round(head.getBoundingClientRect().width), wrap.clientWidth] : null;
}).filter((x) => x)"""


def pie_clear_of_legend(tab: Tab) -> dict[str, Any]:
    chart = tab.page.locator("[data-test=top-pie] .echart")
    geo: dict[str, Any] = chart.evaluate(PIE_AND_LEGEND)
    x, _y, w, _h = geo["legend"]
    assert geo["cx"] + geo["r"] <= x, geo  # the pie ends left of the legend
    assert x + w <= geo["width"] + 1, geo  # and the legend inside the chart
    return geo


@pytest.mark.parametrize("width", [1280, 1440])
def test_collapsing_the_advisor_relayouts_kernels(
    dashboard: Dashboard, browser: Any, width: int
) -> None:
    with open_tab(browser, {"width": width, "height": 800}) as tab:
        collapse_on_kernels(dashboard, tab, width)


def collapse_on_kernels(dashboard: Dashboard, tab: Tab, width: int) -> None:
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "kernels"))
    settle(tab, "kernels")
    page.locator("[data-test=finding]").first.wait_for()
    pie_clear_of_legend(tab)
    page.locator("[data-test=advisor-collapse]").click()
    page.wait_for_function(CHARTS_FOLLOW)
    page.wait_for_function(SETTLED)
    tab.shot(f"layout-{width}-kernels-collapsed")
    pie_clear_of_legend(tab)
    # the table fills its space with no column cut
    wrap = page.locator("[data-test=kernels-table] .el-table__body-wrapper .el-scrollbar__wrap")
    widths = wrap.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1] + 1, widths
    table = page.locator("[data-test=kernels-table] .el-table")
    right = table.evaluate("(t) => t.getBoundingClientRect().right")
    for cell in page.locator("[data-test=kernels-table] .el-table__header th").all():
        assert cell.evaluate("(c) => c.getBoundingClientRect().right") <= right + 1
    tab.assert_clean()


def test_every_page_follows_the_advisor(dashboard: Dashboard, tab: Tab) -> None:
    """Opening and closing the advisor resizes every chart and re-lays out every table."""
    page = tab.page
    for name in PAGES:
        if name == "timeline":
            continue  # its canvas is no ECharts chart and has its own test (test_timeline)
        page.goto(dashboard.run_url("kineto_gpu", name))
        settle(tab, name)
        for toggle in ("advisor-collapse", "advisor-expand"):
            page.locator(f"[data-test={toggle}]").click()
            page.wait_for_function(CHARTS_FOLLOW)
            page.wait_for_timeout(200)  # Element Plus re-lays out its tables on a debounce
            for head, body in page.evaluate(TABLES_FIT):
                # the columns fill the table's new width (or scroll inside it), no gap left
                assert head >= body - 1, (name, toggle, head, body)
            assert page.evaluate(OVERFLOW) == [], (name, toggle)
    tab.assert_clean()


#: the legend's box and the y axis' labels (text, box) of the chart
LEGEND_AND_Y_LABELS = """(el) => {
  const chart = el.__echarts;
  const model = chart.getModel();
  const rect = (g) => {
    const b = g.getBoundingRect().clone(); b.applyTransform(g.transform); return b;
  };
  const legend = rect(chart.getViewOfComponentModel(model.getComponent('legend')).group);
  const labels = [];
  chart.getViewOfComponentModel(model.getComponent('yAxis')).group.traverse((e) => {
    if (e.style && typeof e.style.text === 'string' && e.style.text && !e.ignore) {
      const b = rect(e); labels.push([e.style.text, b.x, b.y, b.width, b.height]);
    }
  });
  return { legend: [legend.x, legend.y, legend.width, legend.height], labels };
}"""


def intersects(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


#: times scaled 13x: the run's ~180 ms steps become ~2.4 s, second-long steps as on the H100
#: run whose step axis read "1 s, 1 s" (ticks every 0.5 s rounded to whole seconds; no H100
#: trace is in ../shared/data)
SCALE = 13
STEP_TIMES = ("start_us", "fp_us", "bp_us", "end_us", "total_us", "iteration_interval_us",
              "fp_and_bp_us", "tail_us")  # fmt: skip


def scaled_steps(route: Any) -> None:
    """The overview's or the step trace's answer with every step `SCALE` times longer."""
    answer = route.fetch()
    body = answer.json()
    if "breakdown_per_step_us" in body:
        body["breakdown_per_step_us"] = [
            {k: v * SCALE for k, v in row.items()} for row in body["breakdown_per_step_us"]
        ]
    else:
        for row in body["data"]["steps"]:
            row.update({k: row[k] * SCALE for k in STEP_TIMES})
    route.fulfill(response=answer, body=json.dumps(body))


STEP_CHARTS = {
    "overview": "[data-test=breakdown] .breakdown > div:nth-child(2) .echart",
    "step-trace": "[data-test=step-chart] .echart",
}


@pytest.mark.parametrize("page_name", list(STEP_CHARTS))
def test_step_chart_legend_clears_the_y_labels(
    dashboard: Dashboard, tab: Tab, page_name: str
) -> None:
    page = tab.page
    page.route(re.compile(r"/api/v1/runs/[^/]+/(overview|step-trace)(\?|$)"), scaled_steps)
    page.goto(dashboard.run_url("kineto_gpu", page_name))
    settle(tab, page_name)
    geo = page.locator(STEP_CHARTS[page_name]).evaluate(LEGEND_AND_Y_LABELS)
    labels = geo["labels"]
    assert len(labels) >= 3, geo
    texts = [label[0] for label in labels]
    assert len(set(texts)) == len(texts), texts  # consecutive ticks differ
    for text, *box in labels:
        assert not intersects(geo["legend"], box), (text, geo)
    tab.shot(f"layout-legend-{page_name}")
    tab.assert_clean()


#: where the chart's tooltip is, and whether any ancestor clips it
TOOLTIP = """() => {
  const tips = [...document.querySelectorAll('div')].filter(
    (d) => d.style.zIndex === '9999999' && d.style.display !== 'none' && d.offsetHeight > 0
      && getComputedStyle(d).opacity !== '0');
  if (tips.length === 0) return null;
  const tip = tips[0]; const r = tip.getBoundingClientRect();
  const clipped = [];
  for (let a = tip.parentElement; a; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const b = a.getBoundingClientRect();
    const out = r.top < b.top - 1 || r.bottom > b.bottom + 1;
    if (out || r.left < b.left - 1 || r.right > b.right + 1)
      clipped.push(a.className.toString());
  }
  return { box: [r.left, r.top, r.right, r.bottom], clipped };
}"""


GRID_RECT = "(e) => e.__echarts.getModel().getComponent('grid').coordinateSystem.getRect()"


def test_step_tooltip_stays_on_screen(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu"))
    settle(tab, "overview")
    chart = page.locator(STEP_CHARTS["overview"])
    # the chart's top just under the header, then hover its first bar near the top
    chart.evaluate("(e) => { const c = document.querySelector('.run-content');"
                   " c.scrollTop += e.getBoundingClientRect().top - 56 }")  # fmt: skip
    box = chart.bounding_box()
    assert box is not None
    grid = chart.evaluate(GRID_RECT)
    page.mouse.move(box["x"] + grid["x"] + 20, box["y"] + grid["y"] + 4)  # the grid's top
    page.wait_for_function(f"() => ({TOOLTIP})() !== null")
    page.wait_for_timeout(400)  # its move and fade-in
    tip = page.evaluate(TOOLTIP)
    left, top, right, bottom = tip["box"]
    assert left >= 0 and top >= 0 and right <= 1280 and bottom <= 800, tip
    assert tip["clipped"] == [], tip
    tab.shot("layout-step-tooltip")
    tab.assert_clean()


LONG = "aten::_scaled_dot_product_flash_attention_for_cpu_backward_" * 4 + "/a/long/path/file.py"


def long_advice(route: Any) -> None:
    """The advice with a very long unbroken token in a finding's title, message, action
    and evidence (operator names, shapes and file paths have none of spaces)."""
    answer = route.fetch()
    body = answer.json()
    finding = body["advice"]["findings"][0]
    finding["title"] = {"en": LONG, "zh": LONG}
    finding["message"] = {"en": f"{LONG} [{', '.join(['4096'] * 30)}]", "zh": LONG}
    finding["actions"] = [{"en": LONG, "zh": LONG}]
    finding["evidence"][0]["label"] = LONG
    route.fulfill(response=answer, body=json.dumps(body))


def test_advisor_wraps_long_evidence(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.route(re.compile(r"/api/v1/runs/[^/]+/advice(\?|$)"), long_advice)
    page.goto(dashboard.run_url("kineto_gpu"))
    page.locator("[data-test=finding]").first.wait_for()
    assert LONG in page.locator("[data-test=finding]").first.inner_text()
    for sel in ("[data-test=advisor]", "[data-test=advisor] .el-scrollbar__wrap"):
        widths = page.locator(sel).first.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
        assert widths[0] <= widths[1], (sel, widths)
    tab.shot("layout-advisor-long-evidence")
    tab.assert_clean()
