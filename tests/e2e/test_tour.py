"""Every page of every kind of run: a Kineto GPU run, an Ascend two-rank run and a MindSpore
run. Each page must finish loading with no error state and no console error, draw every
chart it shows, show its tables or an explicit empty state, and keep the advisor beside
it; a screenshot of each is saved (build/e2e-screenshots/tour-<run>-<page>.png)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT as ROOT_DIR
from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

PAGES = [
    "overview", "step-trace", "operators", "kernels", "roofline", "data-pipeline", "memory",
    "communication", "cluster", "modules", "diff", "timeline",
]  # fmt: skip
#: the page's own root element (each page marks itself)
ROOT = "[data-test=page-{page}]"
SETTLED = """() => {
  const busy = document.querySelectorAll('.el-loading-mask, [data-state=loading]');
  const visible = [...busy].filter(
    (e) => e.offsetParent !== null && getComputedStyle(e).display !== 'none');
  const charts = [...document.querySelectorAll('.echart')];
  return visible.length === 0 && charts.every((c) => c.dataset.rendered === 'true');
}"""


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend", "mindspore"])
def test_every_page_renders(dashboard: Dashboard, tab: Tab, run: str) -> None:
    page = tab.page
    for name in PAGES:
        page.goto(dashboard.run_url(run, name))
        page.locator(ROOT.format(page=name)).wait_for()
        page.wait_for_function(SETTLED, timeout=30_000)
        errors = page.locator("[data-state=error]")
        assert errors.count() == 0, (run, name, errors.first.inner_text())
        content = page.locator(
            f"{ROOT.format(page=name)} :is(.echart, .el-table, canvas, .el-empty, svg, .el-alert)"
        )
        assert content.count() > 0, (run, name, "nothing drawn")
        assert page.locator("[data-test=finding]").count() > 0, (run, name, "no advisor")
        tab.shot(f"tour-{run}-{name}")
    tab.assert_clean()


def english_phrases() -> set[str]:
    """Every English UI text of two words or more, from the dashboard's message files."""
    phrases = set()
    for path in (ROOT_DIR / "ui" / "src" / "i18n" / "messages").glob("*.ts"):
        text = path.read_text(encoding="utf-8")
        en = text[text.index("const en") : text.index("const zh")]
        for literal in re.findall(r"'((?:[^'\\]|\\.)*)'", en):
            for part in re.split(r"\{[^}]*\}", literal):  # the fixed text between placeholders
                part = part.strip(" .,:;()·/–-")
                if len(part.split()) >= 2 and re.search(r"[a-z]{3}", part):
                    phrases.add(part)
    return phrases


#: The page's text less what is marked `lang="en"`: the server's own English prose (the
#: performance model's reasons), which has no translation and is data, not UI text.
WITHOUT_ENGLISH_DATA = """() => {
  const english = [...document.body.querySelectorAll('[lang=en]')];
  const kept = english.map((e) => e.style.display);
  english.forEach((e) => { e.style.display = 'none' });
  const text = document.body.innerText;
  english.forEach((e, i) => { e.style.display = kept[i] });
  return text;
}"""


def test_every_page_speaks_chinese(dashboard: Dashboard, tab: Tab) -> None:
    """The language switch leaves no English UI text on any page (data names aside)."""
    page = tab.page
    phrases = english_phrases()
    assert len(phrases) > 200
    page.goto(dashboard.run_url("ascend"))
    page.locator("[data-test=lang-zh]").click()
    for name in PAGES:
        page.goto(dashboard.run_url("ascend", name))
        page.locator(ROOT.format(page=name)).wait_for()
        page.wait_for_function(SETTLED, timeout=30_000)
        shown = page.evaluate(WITHOUT_ENGLISH_DATA)
        left = sorted(p for p in phrases if p in shown)
        assert not left, (name, left)
        tab.shot(f"tour-zh-ascend-{name}")
    tab.assert_clean()


def test_ascend_overview_shows_the_tools_step_view(dashboard: Dashboard, tab: Tab) -> None:
    """An Ascend run's overview shows step_trace_time.csv's view (Computing, Free, Stage...)
    and op_statistic.csv's op types by core; a GPU run's does not."""
    page = tab.page
    page.goto(dashboard.run_url("ascend", "overview"))
    card = page.locator("[data-test=npu-steps]")
    card.wait_for()
    text = card.inner_text()
    for label in ("Computing", "Communication (not overlapped)", "Free", "Stage", "Preparing"):
        assert label in text
    assert "AI_CORE" in page.locator("[data-test=npu-op-types]").inner_text()
    page.wait_for_function(SETTLED, timeout=30_000)
    card.scroll_into_view_if_needed()
    page.wait_for_timeout(600)  # the cards fade in
    tab.shot("overview-ascend-npu")
    page.goto(dashboard.run_url("kineto_gpu", "overview"))
    page.locator("[data-test=page-overview]").wait_for()
    page.wait_for_function(SETTLED, timeout=30_000)
    assert page.locator("[data-test=npu-steps]").count() == 0
    tab.assert_clean()
