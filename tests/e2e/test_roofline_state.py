"""The performance-model views' state and language (issue 19): the Roofline page's filters
(category, dtype), the selected operator and the table's sort live in the URL, so a reload
(or a shared link) opens the same view; in Chinese the page, the chart's tooltip, the
overview's MFU card and the advisor's ledger bar read in Chinese."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_roofline import (
    CHART,
    choose,
    drawable,
    loneliest,
    model_of,
    pixels,
    wait_points,
)

CJK = re.compile(r"[\u3400-\u9fff]")
#: unit names a Chinese label keeps as they are
UNITS = {"TFLOPS", "TB", "GB", "GFLOPs", "FLOPs", "s", "ms", "us", "µs", "call", "byte"}


def test_roofline_filters_selection_and_sort_survive_a_reload(
    dashboard: Dashboard, tab: Tab
) -> None:
    rid = dashboard.ids["kineto_gpu"]
    rows: list[dict[str, Any]] = model_of(dashboard.server, rid)["shapes"]
    conv = [r for r in rows if r["category"] == "conv"]
    dtypes = sorted({r["dtype"] for r in conv})
    dtype = dtypes[0]
    want = [r for r in conv if r["dtype"] == dtype]
    assert want and conv
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "roofline", f"select={want[0]['name']}"))
    wait_points(tab, len(drawable(rows)))
    choose(tab, "category-filter", "Convolution")
    choose(tab, "dtype-filter", dtype)
    expect(page).to_have_url(re.compile(rf"[?&]dtype={re.escape(dtype)}(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]cat=conv(&|$)"))
    wait_points(tab, len(drawable(want)))
    # sort the table by time (a header click): into the URL too
    table = page.locator("[data-test=perf-shapes]")
    table.locator("th", has_text=re.compile(r"^\s*Time")).first.click()
    expect(page).to_have_url(re.compile(r"[?&]s(sort|order)="))
    url = page.url
    page.reload()
    wait_points(tab, len(drawable(want)))
    assert page.url == url
    tags = page.locator("[data-test=category-filter] .el-tag, [data-test=dtype-filter] .el-tag")
    expect(tags).to_have_count(2)
    assert sorted(t.strip() for t in tags.all_inner_texts()) == sorted(["Convolution", dtype])
    expect(table.locator("[data-test=table-total]")).to_have_attribute("data-total", str(len(want)))
    expect(table.locator(".selected-row").first).to_contain_text(want[0]["name"][:20])
    tab.assert_clean()


def test_performance_views_in_chinese(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.context.add_init_script("localStorage.setItem('mindinsight.locale', 'zh')")
    rid = dashboard.ids["kineto_gpu"]
    rows = model_of(dashboard.server, rid)["shapes"]
    conv = [r for r in rows if r["category"] == "conv"]
    page.goto(dashboard.run_url("kineto_gpu", "roofline", "cat=conv"))
    wait_points(tab, len(drawable(conv)))
    expect(page.locator("[data-test=category-filter] .el-tag")).to_have_text("卷积")
    # the point's tooltip: every label in Chinese
    where = pixels(tab, conv)
    x, y = where[loneliest(where)]
    page.mouse.move(x - 30, y - 30)
    page.mouse.move(x, y, steps=6)
    tip = page.locator(".roofline-tooltip")
    expect(tip).to_contain_text("卷积")
    text = tip.inner_text()
    for line in text.splitlines()[2:]:  # after the operator's name and shapes
        words = set(re.findall(r"[A-Za-z]+", line))
        assert CJK.search(line) or words <= UNITS, f"untranslated tooltip line: {line!r}"
    assert page.locator(CHART).count() == 1
    # the overview's MFU card and the advisor's ledger bar
    page.goto(dashboard.run_url("kineto_gpu", "overview"))
    card = page.locator("[data-test=mfu-card]")
    card.wait_for()
    for part in ("mfu-open", "mfu-covered"):  # HFU, MFU: abbreviations kept
        assert CJK.search(card.locator(f"[data-test={part}]").inner_text()), part
    key = page.locator("[data-test=ledger-key]").first
    key.hover()
    ledger_tip = page.locator("[data-test=ledger-tip]:visible")
    ledger_tip.wait_for()
    assert CJK.search(ledger_tip.inner_text())
    tab.assert_clean()
