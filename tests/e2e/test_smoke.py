"""The dashboard opens: the run list shows every run with its badges and state, and a
run's overview renders its charts with the advisor beside it, with no console errors."""

from __future__ import annotations

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard


def test_run_list_shows_every_run_with_badges(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.url + "/")
    rows = page.locator("[data-test=run-table] .el-table__body tr")
    rows.first.wait_for()
    assert rows.count() == 3
    names = page.locator("[data-test=run-link]").all_inner_texts()
    assert sorted(names) == ["ascend", "kineto_gpu", "mindspore"]
    text = page.locator("[data-test=run-table]").inner_text()
    for badge in ("PyTorch", "MindSpore", "GPU", "NPU", "ready"):
        assert badge in text, badge
    tab.shot("run-list")
    tab.assert_clean()
