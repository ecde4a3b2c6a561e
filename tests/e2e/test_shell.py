"""The frame every run page shares: the overview's figures, the advisor sidebar with the
run's findings in the server's order, evidence links that open the right page at the
right place, the language switch, the worker switch, and the error pages."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard


def advice(dashboard: Dashboard, run: str, worker: str | None = None) -> dict[str, Any]:
    query = f"?worker={worker}" if worker else ""
    found: dict[str, Any] = dashboard.server.get(
        f"/api/v1/runs/{dashboard.ids[run]}/advice{query}"
    )["advice"]
    return found


def ms_text(us: float) -> str:
    """The dashboard's rendering of a step time (formatUs, two decimals)."""
    return f"{us / 1e3:.2f} ms" if us < 1e6 else f"{us / 1e6:.2f} s"


def wait_charts(tab: Tab, at_least: int) -> None:
    tab.page.wait_for_function(
        "n => document.querySelectorAll('.echart[data-rendered=true]').length >= n", arg=at_least
    )


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend", "mindspore"])
def test_overview_and_advisor_show_the_run(dashboard: Dashboard, tab: Tab, run: str) -> None:
    page = tab.page
    overview = dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}/overview")
    page.goto(dashboard.run_url(run))
    page.locator("[data-test=page-overview]").wait_for()
    page.locator("[data-test=run-name]", has_text=run).wait_for()  # '…' until the run loads
    assert page.locator("[data-test=run-name]").inner_text() == run
    shown = page.locator("[data-test=avg-step] .stat-value").inner_text()
    assert shown.endswith(ms_text(overview["steps"]["average_us"]))
    # the average says which steps it covers: MindSpore's leave out the compiling first step
    note = page.locator("[data-test=avg-step] [data-test=average-note]").inner_text()
    assert ("left out: graph compilation" in note) == bool(overview["steps"]["averaged_from"])
    wait_charts(tab, 2)  # the breakdown: average and per step
    expected = advice(dashboard, run)
    findings = page.locator("[data-test=finding]")
    findings.first.wait_for()
    ids = [findings.nth(i).get_attribute("data-id") for i in range(findings.count())]
    assert ids == [f["id"] for f in expected["findings"]]
    titles = page.locator("[data-test=finding-title]").all_inner_texts()
    assert titles == [f["title"]["en"] for f in expected["findings"]]
    severities = page.locator("[data-test=finding] [data-test=severity]").all_inner_texts()
    assert [s.lower() for s in severities] == [f["severity"] for f in expected["findings"]]
    # what was not evaluated, with its reason, on request
    page.locator("[data-test=not-evaluated] .el-collapse-item__header").click()
    reasons = page.locator("[data-test=not-evaluated] .rule-list li")
    reasons.first.wait_for()
    assert reasons.count() == len(expected["not_evaluated"])
    assert expected["not_evaluated"][0]["reason"] in reasons.first.inner_text()
    wait_charts(tab, 3 if overview["op_types"] else 2)
    tab.shot(f"overview-{run}")
    tab.assert_clean()


def evidence_links(tab: Tab) -> list[tuple[str, str]]:
    links = tab.page.locator("[data-test=evidence]")
    links.first.wait_for()
    return [
        (links.nth(i).get_attribute("data-page") or "", links.nth(i).get_attribute("href") or "")
        for i in range(links.count())
    ]


def test_evidence_opens_the_page_and_place_it_names(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    expected = advice(dashboard, "kineto_gpu")
    page.goto(dashboard.run_url("kineto_gpu"))
    links = evidence_links(tab)
    # a time range opens the timeline on that range (ns from the trace's origin, with margin)
    ranges = [
        ev for f in expected["findings"] for ev in f["evidence"] if ev.get("page") == "timeline"
        and "window_ns" in ev
    ]  # fmt: skip
    assert ranges and any(p == "timeline" for p, _ in links)
    first = next(i for i, (p, _) in enumerate(links) if p == "timeline")
    page.locator("[data-test=evidence]").nth(first).click()
    page.wait_for_url(re.compile(r"/timeline\?"))
    query = parse_qs(urlparse(page.url).query)
    start, end = ranges[0]["window_ns"]
    assert int(query["t0"][0]) <= start < end <= int(query["t1"][0])
    assert int(query["t1"][0]) - int(query["t0"][0]) <= 1.2 * (end - start) + 2000
    assert page.locator("[data-test=nav-timeline]").get_attribute("class").count("is-active")
    # an operator opens the operator table on its row, selected
    page.go_back()
    page.wait_for_url(re.compile(r"/overview"))
    operators = [i for i, (p, _) in enumerate(evidence_links(tab)) if p == "operators"]
    assert operators, "the GPU run's findings name operators"
    link = page.locator("[data-test=evidence]").nth(operators[0])
    name = link.inner_text()
    link.click()
    page.wait_for_url(re.compile(r"/operators\?"))
    selected = parse_qs(urlparse(page.url).query)["select"][0]
    op_names = [
        ev["name"] for f in expected["findings"] for ev in f["evidence"]
        if ev.get("page") == "operators" and ev["kind"] == "operator"
    ]  # fmt: skip
    assert selected in op_names and selected in name
    root = page.locator("[data-test=operators-table]")
    root.locator(".el-table__body tr.selected-row").first.wait_for()
    page.wait_for_selector("[data-state=ready]")
    shown = root.locator(".el-table__body tr.selected-row > td:nth-child(1)").all_inner_texts()
    assert [t.strip() for t in shown] == [selected]  # that operator, not names containing it
    tab.assert_clean()


def test_language_switch_changes_every_text(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    expected = advice(dashboard, "kineto_gpu")
    page.goto(dashboard.run_url("kineto_gpu"))
    page.locator("[data-test=finding-title]").first.wait_for()
    assert page.locator("[data-test=nav-overview]").inner_text() == "Overview"
    page.locator("[data-test=lang-zh]").click()
    page.locator("[data-test=nav-overview]", has_text="概览").wait_for()
    assert page.locator(".advisor-title").inner_text() == "性能建议"
    assert (
        page.locator("[data-test=finding-title]").first.inner_text()
        == (expected["findings"][0]["title"]["zh"])
    )
    first_evidence = next(f["evidence"][0] for f in expected["findings"] if f["evidence"])
    assert (
        page.locator("[data-test=finding] li a, [data-test=finding] li span")
        .filter(has_text=first_evidence["label_zh"])
        .count()
    )
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    body = page.locator("body").inner_text()
    for english in ("Overview", "Step-time breakdown", "Advisor", "What to do"):
        assert english not in body, english
    wait_charts(tab, 3)
    tab.shot("overview-kineto_gpu-zh")
    page.reload()  # the choice is remembered
    page.locator("[data-test=nav-overview]", has_text="概览").wait_for()
    page.locator("[data-test=lang-en]").click()
    page.locator("[data-test=nav-overview]", has_text="Overview").wait_for()
    tab.assert_clean()


def test_worker_switch_keeps_the_page(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    rid = dashboard.ids["ascend"]
    rank1 = dashboard.server.get(f"/api/v1/runs/{rid}/overview?worker=rank1")
    page.goto(dashboard.run_url("ascend"))
    page.locator("[data-test=avg-step]").wait_for()
    page.locator("[data-test=worker-select]").click()
    page.locator(".el-select-dropdown__item", has_text="rank1").click()
    page.wait_for_url(re.compile(r"worker=rank1"))
    page.locator("[data-test=avg-step]", has_text=ms_text(rank1["steps"]["average_us"])).wait_for()
    # the worker is kept when moving to another page of the run
    page.locator("[data-test=nav-kernels]").click()
    page.wait_for_url(re.compile(r"/kernels\?worker=rank1"))
    tab.assert_clean()


def test_unknown_pages_and_runs_say_so(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.url + "/no/such/page")
    page.locator("[data-test=page-not-found]").wait_for()
    page.goto(dashboard.url + "/runs/0123456789abcdef/overview")
    alert = page.locator("[data-state=error]").first
    alert.wait_for()
    assert "not found" in alert.inner_text()
    # the API's 404 for a run that does not exist is expected; nothing else may fail
    tab.problems = [p for p in tab.problems if "0123456789abcdef" not in p and "404" not in p]
    tab.assert_clean()


def test_advisor_collapses_and_remembers(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.run_url("mindspore"))
    page.locator("[data-test=finding]").first.wait_for()
    page.locator("[data-test=advisor-collapse]").click()
    page.locator("[data-test=advisor-expand]").wait_for()
    page.reload()
    page.locator("[data-test=advisor-expand]").wait_for()
    assert page.locator("[data-test=advisor]").count() == 0
    page.locator("[data-test=advisor-expand]").click()
    page.locator("[data-test=finding]").first.wait_for()
    tab.assert_clean()


def test_input_warnings_are_shown_on_every_page(dashboard: Dashboard, tab: Tab) -> None:
    """run_2's step trace has an average row that does not add up (a reader warning): each
    page of the run says so above its content, as the overview answer lists it."""
    page = tab.page
    rid = dashboard.ids["mindspore"]
    said = dashboard.server.get(f"/api/v1/runs/{rid}/overview")["warnings"]
    assert said and all(w["message"] for w in said)
    for name in ("overview", "operators", "data-pipeline"):
        page.goto(dashboard.run_url("mindspore", name))
        banner = page.locator("[data-test=input-warnings]")
        banner.wait_for()
        if len(said) > 1:
            banner.locator("[data-test=input-warnings-toggle]").click()
        shown = page.locator("[data-test=input-warning]").all_inner_texts()
        assert [s.strip() for s in shown] == [w["message"] for w in said]
    tab.shot("input-warnings-mindspore")
    page.goto(dashboard.run_url("kineto_gpu"))
    page.locator("[data-test=page-overview]").wait_for()
    assert (
        dashboard.server.get(f"/api/v1/runs/{dashboard.ids['kineto_gpu']}/overview")["warnings"]
        == []
    )
    assert page.locator("[data-test=input-warnings]").count() == 0
    tab.assert_clean()
