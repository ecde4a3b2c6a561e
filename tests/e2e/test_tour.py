"""Every page of every kind of run: a Kineto GPU run, an Ascend two-rank run and a MindSpore
run. Each page must finish loading with no error state and no console error, draw every
chart it shows, show its tables or an explicit empty state, and keep the advisor beside
it; a screenshot of each is saved (build/e2e-screenshots/tour-<run>-<page>.png)."""

from __future__ import annotations

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

PAGES = [
    "overview", "step-trace", "operators", "kernels", "data-pipeline", "memory",
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
