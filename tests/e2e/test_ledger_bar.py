"""The advisor's ledger bar on the Kineto ResNet-50 run: the average step's parts to scale as
the API serves them, the findings' combined saving as the advisor computes it, and the bar
and the finding cards pointing at each other on hover."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

RUN = "kineto_gpu"
#: no transition is running (the cards fade in): for screenshots people can read
SETTLED = "() => document.getAnimations().every((a) => a.playState !== 'running')"
#: a part's tooltip is on screen, its fade-in over
SHOWN_TIP = """() => [...document.querySelectorAll('[data-test=ledger-tip]')].some(
    (tip) => getComputedStyle(tip.closest('.el-popper')).opacity === '1')"""


def advice(dashboard: Dashboard, run: str = RUN) -> dict[str, Any]:
    found: dict[str, Any] = dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}/advice")[
        "advice"
    ]
    return found


def ms_text(us: float) -> str:
    """formatUs for a value in milliseconds (two decimals)."""
    return f"{us / 1e3:.2f} ms"


def test_bar_shows_the_ledger_and_the_combined_saving(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    expected = advice(dashboard)
    ledger = expected["ledger_us"]
    assert ledger and sum(ledger.values()) > 0, "the run has a ledger"
    page.goto(dashboard.run_url(RUN))
    parts = page.locator("[data-test=ledger-part]")
    parts.first.wait_for()
    shown = [parts.nth(i).get_attribute("data-part") for i in range(parts.count())]
    # every part with time, in the ledger's (priority) order; empty parts are not drawn
    assert shown == [p for p, us in ledger.items() if us > 0]
    bar = page.locator("[data-test=ledger-bar]").bounding_box()
    step = sum(ledger.values())
    assert page.locator("[data-test=ledger-step]").inner_text() == ms_text(step)
    for i, part in enumerate(shown):
        width = parts.nth(i).bounding_box()["width"]
        assert abs(width - bar["width"] * ledger[part] / step) < 1.5, (part, width, bar["width"])
    # the large parts really are large: device compute over half the bar, data wait a third
    assert parts.nth(0).bounding_box()["width"] > bar["width"] / 2
    # "together" is the advisor's combined saving (each part once), not the sum of savings
    together = page.locator("[data-test=ledger-together]")
    combined = expected["combined_saving_us"]
    share = expected["combined_saving_share"]
    assert together.inner_text() == (
        f"Together: about {ms_text(combined)} per step ({share * 100:.1f} %)"
    )
    plain = sum(f["estimated_saving_us"] or 0 for f in expected["findings"])
    assert plain > step > combined  # the run where plain sums pass the step
    # the drawn claims add up to the combined saving: never past a part, never past the step
    claims = page.locator("[data-test=ledger-claim]")
    drawn = sum(claims.nth(i).bounding_box()["width"] for i in range(claims.count()))
    assert abs(drawn - bar["width"] * combined / step) < 3, (drawn, bar["width"], combined)
    page.wait_for_function(SETTLED)
    tab.shot("ledger-bar")
    tab.assert_clean()


def test_hover_links_bar_and_findings(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    expected = advice(dashboard)
    page.goto(dashboard.run_url(RUN))
    page.locator("[data-test=ledger-part]").first.wait_for()
    # a finding that claims only the data wait: hovering its card outlines its claim there
    finding = next(
        f for f in expected["findings"] if f["claims"] == ["data_wait"] and f["estimated_saving_us"]
    )
    card = page.locator(f"[data-test=finding][data-id={finding['id']}]")
    card.hover()
    hot = page.locator("[data-test=ledger-claim].hot")
    hot.first.wait_for()
    assert [hot.nth(i).get_attribute("data-finding") for i in range(hot.count())] == [finding["id"]]
    assert hot.first.get_attribute("data-part") == "data_wait"
    assert "focused" in (page.locator("[data-test=ledger-bar]").get_attribute("class") or "")
    assert "hot" in (card.get_attribute("class") or "")
    tab.shot("ledger-bar-finding-hover")
    # hovering the data-wait part marks every finding that claims it, and only those
    page.mouse.move(0, 0)
    page.locator("[data-test=ledger-part][data-part=data_wait]").hover()
    page.locator("[data-test=ledger-tip]").first.wait_for()
    page.wait_for_function(SHOWN_TIP)  # the tooltip's fade-in is over (for the screenshot)
    related = page.locator("[data-test=finding].related")
    related.first.wait_for()
    marked = {related.nth(i).get_attribute("data-id") for i in range(related.count())}
    on_data_wait = {"data_wait", "step"}  # no claims, or "step": any part
    claim_it = {
        f["id"]
        for f in expected["findings"]
        if f["estimated_saving_us"] and (not f["claims"] or on_data_wait & set(f["claims"]))
    }
    assert marked == claim_it and len(marked) >= 2, (marked, claim_it)
    tip = page.locator("[data-test=ledger-tip]").first.inner_text()
    assert "Data wait" in tip and ms_text(expected["ledger_us"]["data_wait"]) in tip
    tab.shot("ledger-bar-part-hover")
    tab.assert_clean()


def test_bar_in_chinese(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.url)
    page.evaluate("localStorage.setItem('mindinsight.locale', 'zh')")
    page.goto(dashboard.run_url(RUN))
    together = page.locator("[data-test=ledger-together]")
    together.wait_for()
    assert together.inner_text().startswith("合计：每个迭代约")
    keys = page.locator("[data-test=ledger-key]").all_inner_texts()
    assert any(k.startswith("设备计算") for k in keys), keys
    page.wait_for_function(SETTLED)
    tab.shot("ledger-bar-zh")
    tab.assert_clean()


@pytest.mark.parametrize("run", ["ascend", "mindspore"])
def test_bar_on_other_frameworks(dashboard: Dashboard, tab: Tab, run: str) -> None:
    """The bar follows whatever ledger the run has: its parts with time, and the together line."""
    page = tab.page
    expected = advice(dashboard, run)
    page.goto(dashboard.run_url(run))
    page.locator("[data-test=finding], [data-test=advisor] .dim").first.wait_for()
    ledger = expected.get("ledger_us") or {}
    parts = page.locator("[data-test=ledger-part]")
    if sum(ledger.values()) > 0:
        parts.first.wait_for()
        shown = [parts.nth(i).get_attribute("data-part") for i in range(parts.count())]
        assert shown == [p for p, us in ledger.items() if us > 0]
    else:
        assert parts.count() == 0
    # the Ascend run's findings save most of its step (exposed HCCL time); the MindSpore run's
    # findings estimate no saving, and a "together" of nothing is not shown
    together = page.locator("[data-test=ledger-together]")
    combined = expected.get("combined_saving_us") or 0.0
    if combined > 0:
        share = expected["combined_saving_share"]
        assert together.inner_text() == (
            f"Together: about {ms_text(combined)} per step ({share * 100:.1f} %)"
        )
    else:
        assert together.count() == 0
    assert (combined > 0) == (run == "ascend"), (run, combined)
    page.wait_for_function(SETTLED)
    tab.shot(f"ledger-bar-{run}")
    tab.assert_clean()
