"""The stage pages in a real browser: step trace, data pipeline, communication and cluster
on the Kineto GPU, Ascend two-rank and MindSpore runs.

Every figure checked is read from the page and compared with the API's answer for the same
view (parsed back from its display units, within the display's rounding); the interactions
(choosing a step, moving the FP/BP points, focusing a pipeline op, opening a rank) are
checked in the URL and in what the page shows afterwards.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

ZERO_GRAD = "Optimizer.zero_grad#SGD.zero_grad"
_UNITS = {"s": 1e6, "ms": 1e3, "µs": 1.0, "ns": 1e-3}


def us(text: str) -> float:
    """A duration as the page writes it (`formatUs`) back in microseconds."""
    m = re.fullmatch(r"\s*(-?[\d.]+) (s|ms|µs|ns)\s*", text)
    assert m, f"not a duration: {text!r}"
    return float(m.group(1)) * _UNITS[m.group(2)]


def close(shown: str, value: float) -> bool:
    """Whether `shown` is `value` rounded as formatUs rounds (2 decimals of its unit)."""
    unit = shown.split()[-1]
    decimals = len(shown.split()[0].partition(".")[2])
    return abs(us(shown) - value) <= 0.5 * 10**-decimals * _UNITS[unit] + 1e-9


def api(dashboard: Dashboard, run: str, view: str, **params: str) -> Any:
    query = urllib.parse.urlencode(params)
    return dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}/{view}?{query}")


def open_page(tab: Tab, dashboard: Dashboard, run: str, page: str, query: str = "") -> Any:
    tab.page.goto(dashboard.run_url(run, page, query))
    tab.page.locator(f"[data-test=page-{page}]").wait_for()
    return tab.page


def charts_rendered(page: Any, scope: str, count: int | None = None) -> None:
    charts = page.locator(f"{scope} .echart")
    charts.first.wait_for()
    done = (
        "s => [...document.querySelectorAll(s + ' .echart')]"
        ".every(e => e.dataset.rendered === 'true')"
    )
    page.wait_for_function(done, arg=scope)
    if count is not None:
        assert charts.count() == count


def column(page: Any, scope: str, col: str) -> list[str]:
    return [t.strip() for t in page.locator(f"{scope} [data-col={col}]").all_inner_texts()]


def test_step_trace_of_the_kineto_run(dashboard: Dashboard, tab: Tab) -> None:
    st = api(dashboard, "kineto_gpu", "step-trace")["data"]
    page = open_page(tab, dashboard, "kineto_gpu", "step-trace")
    charts_rendered(page, "[data-test=step-chart]", 1)
    assert page.locator("[data-test=fp-name]").inner_text() == st["fp_point"]["name"]
    assert page.locator("[data-test=bp-name]").inner_text() == st["bp_point"]["name"]
    totals = column(page, "[data-test=step-table]", "total")
    assert len(totals) == len(st["steps"])
    for stage in ("iteration_interval", "fp_and_bp", "tail", "total"):
        shown = column(page, "[data-test=step-table]", stage)
        for text, row in zip(shown, st["steps"], strict=True):
            assert close(text, row[f"{stage}_us"]), (stage, text, row)
    # the average by default: the bar's total is the API's average (first step left out)
    bar = page.locator("[data-test=step-bar] .total b")
    assert close(bar.inner_text(), st["average"]["total_us"])
    tab.shot("step-trace-kineto_gpu")

    # choosing a step: the URL names it, the bar and the highlighted row show that step
    chosen = st["steps"][2]
    page.locator("[data-test=step-table] .el-table__body tr").nth(2).click()
    page.wait_for_url(re.compile(rf"[?&]step={chosen['step']}\b"))
    page.locator("[data-test=step-detail] .card-header", has_text=chosen["step"]).wait_for()
    assert close(bar.inner_text(), chosen["total_us"])
    assert page.locator("[data-test=step-table] tr.selected-row").count() == 1
    tab.assert_clean()


def test_moving_the_fp_point_recomputes(dashboard: Dashboard, tab: Tab) -> None:
    page = open_page(tab, dashboard, "kineto_gpu", "step-trace", "step=7")
    charts_rendered(page, "[data-test=step-chart]")
    page.locator("[data-test=fp-input] input").fill("zero_grad")
    option = page.locator(".el-autocomplete-suggestion li", has_text=ZERO_GRAD)
    option.first.wait_for()
    option.first.click()
    page.locator("[data-test=points-apply]").click()
    page.wait_for_url(re.compile(r"[?&]fp=Optimizer.zero_grad"))
    page.locator("[data-test=fp-name]", has_text=ZERO_GRAD).wait_for()
    moved = api(dashboard, "kineto_gpu", "step-trace", fp_point=ZERO_GRAD)["data"]
    assert page.locator("[data-test=fp-source]").inner_text() == "chosen here"
    page.wait_for_function(
        "() => !document.querySelector('[data-test=page-step-trace] [data-state=loading]')"
    )
    shown = column(page, "[data-test=step-table]", "iteration_interval")
    for text, row in zip(shown, moved["steps"], strict=True):
        assert close(text, row["iteration_interval_us"]), (text, row)
    auto = api(dashboard, "kineto_gpu", "step-trace")["data"]
    assert moved["steps"][0]["iteration_interval_us"] > auto["steps"][0]["iteration_interval_us"]
    tab.shot("step-trace-kineto_gpu-fp")
    # back to the automatic points
    page.locator("[data-test=points-reset]").click()
    page.locator("[data-test=fp-name]", has_text=auto["fp_point"]["name"]).wait_for()
    assert "fp=" not in page.url
    tab.assert_clean()


def test_step_trace_of_mindspore_and_ascend(dashboard: Dashboard, tab: Tab) -> None:
    st = api(dashboard, "mindspore", "step-trace")["data"]
    page = open_page(tab, dashboard, "mindspore", "step-trace", "step=1")
    charts_rendered(page, "[data-test=step-chart]", 1)
    assert page.locator("[data-test=point-picker]").count() == 0  # MindSpore's points are fixed
    assert page.locator("[data-test=fp-source]").inner_text() == "written by the profiler"
    bar = page.locator("[data-test=step-bar] .total b").inner_text()
    assert close(bar, st["steps"][0]["total_us"])
    tab.shot("step-trace-mindspore")

    # the overview shows MindSpore's own stages, equal to the step trace's average
    stages = api(dashboard, "mindspore", "overview")["step_stages"]
    assert stages["average"] == st["average"] and stages["bp_point"] == st["bp_point"]["name"]
    page = open_page(tab, dashboard, "mindspore", "overview")
    for key in ("iteration_interval_us", "fp_and_bp_us", "tail_us"):
        shown = page.locator(f"[data-test=stage-{key}] .stage-value").inner_text()
        assert close(shown, st["average"][key]), (key, shown)
    page.locator("[data-test=step-stages]").scroll_into_view_if_needed()
    tab.shot("overview-mindspore-stages")
    assert api(dashboard, "kineto_gpu", "overview")["step_stages"] is None

    st = api(dashboard, "ascend", "step-trace")["data"]
    page = open_page(tab, dashboard, "ascend", "step-trace", f"step={st['steps'][0]['step']}")
    charts_rendered(page, "[data-test=step-chart]", 1)
    calls = page.locator("[data-test=step-collectives] .el-table__body tr")
    calls.first.wait_for()
    assert calls.count() == len(st["steps"][0]["collectives"])
    tab.shot("step-trace-ascend")
    tab.assert_clean()


def test_data_pipeline_of_pytorch(dashboard: Dashboard, tab: Tab) -> None:
    dp = api(dashboard, "kineto_gpu", "data-pipeline")["data"]
    page = open_page(tab, dashboard, "kineto_gpu", "data-pipeline")
    charts_rendered(page, "[data-test=wait-chart]", 1)
    assert close(page.locator("[data-test=avg-wait]").inner_text(), dp["data_wait"]["average_us"])
    wait = column(page, "[data-test=wait-table]", "wait")
    assert len(wait) == len(dp["data_wait"]["steps"])
    for text, value in zip(wait, dp["data_wait"]["per_step_us"], strict=True):
        assert close(text, value)
    share = page.locator("[data-test=wait-share]").inner_text()
    assert share == f"{100 * dp['data_wait']['share']:.1f} %"
    assert "data" in page.locator("[data-test=verdict]").inner_text().lower()
    tab.shot("data-pipeline-kineto_gpu")
    tab.assert_clean()


def test_data_pipeline_of_mindspore(dashboard: Dashboard, tab: Tab) -> None:
    answer = api(dashboard, "mindspore", "data-pipeline")
    dp, qs = answer["data"], answer["queue_steps"]
    flagged = [o for o in dp["ops"] if o["flagged"]]
    focus = f"{flagged[0]['op_type']}_{flagged[0]['op_id']}"
    page = open_page(tab, dashboard, "mindspore", "data-pipeline", f"focus={focus}")
    charts_rendered(page, "[data-test=page-data-pipeline]")
    queues = {q["name"]: q for q in dp["queues"]}
    for name in ("host_queue", "chip_queue"):
        text = page.locator(f"[data-flow={name}] [data-test=empty-ratio]").inner_text()
        assert f"{queues[name]['empty']}/{queues[name]['samples']}" in text
    # the host queue drawn per step: one point per step of the verdict's file
    assert len(qs["host"][0]["steps"]) == queues["host_queue"]["samples"]
    # the pipeline graph: every op, the flagged ones marked, the focused one outlined
    nodes = page.locator("[data-test=pipeline-graph] [data-op]")
    assert nodes.count() == len(dp["ops"])
    assert page.locator("[data-test=pipeline-graph] [data-flagged=true]").count() == len(flagged)
    node = page.locator(f"[data-test=pipeline-graph] [data-op='{focus}']")
    assert node.get_attribute("data-focused") == "true"
    assert page.locator("[data-test=ops-table] tr.focused-row").count() == 1
    suggestions = page.locator("[data-test=suggestion]").all_inner_texts()
    want = [f"{s['op']}: {s['en']}" for s in dp["pipeline_verdict"]["suggestions"]]
    assert [s.strip() for s in suggestions] == want
    # MindData's CPU sampling as curves, and user + system per step
    assert dp["cpu"]["curves"]["per_step"]["steps"] == ["1"]
    charts_rendered(page, "[data-test=cpu-curves]", 2)
    tab.shot("data-pipeline-mindspore")
    page.locator("[data-test=cpu-curves]").scroll_into_view_if_needed()
    tab.shot("data-pipeline-mindspore-cpu")
    # focusing a queue from the flow
    page.locator("[data-flow=chip_queue]").click()
    page.wait_for_url(re.compile(r"[?&]focus=chip_queue"))
    assert page.locator("[data-test=chip-queue]").get_attribute("data-focused") == "true"
    tab.assert_clean()


def test_communication_of_ascend_and_none_for_kineto(dashboard: Dashboard, tab: Tab) -> None:
    comm = api(dashboard, "ascend", "communication", worker="rank1")["data"]
    page = open_page(tab, dashboard, "ascend", "communication", "worker=rank1")
    charts_rendered(page, "[data-test=comm-steps]", 1)
    charts_rendered(page, "[data-test=links]", 1)
    for key in ("computation_us", "overlapped_us", "exposed_communication_us", "other_us"):
        shown = column(page, "[data-test=comm-table]", key)
        for text, row in zip(shown, comm["steps"], strict=True):
            assert close(text, row[key]), key
    totals = column(page, "[data-test=collectives]", "total")
    assert len(totals) == len(comm["collectives"])
    by_total = sorted(comm["collectives"], key=lambda c: -c["total_us"])  # default: by total
    for text, c in zip(totals, by_total, strict=True):
        assert close(text, c["total_us"])
    rows = page.locator("[data-test=links-table] .el-table__body tr")
    assert rows.count() == len(comm["links"])
    tab.shot("communication-ascend")
    tab.assert_clean()

    # the advisor's slow-link evidence names `src-dst transport`: that link comes first, marked
    last = comm["links"][-1]
    key = f"{last['link']} {last['transport']}"
    page = open_page(tab, dashboard, "ascend", "communication",
                     "worker=rank1&link=" + urllib.parse.quote(key))  # fmt: skip
    first = page.locator("[data-test=links-table] .el-table__body tr").first
    first.wait_for()
    assert "focus-row" in (first.get_attribute("class") or "")
    assert first.locator("td").first.inner_text().strip() == last["link"]
    assert page.locator("[data-test=links-table] .focus-row").count() == 1
    tab.shot("communication-ascend-focused-link")
    tab.assert_clean()

    assert api(dashboard, "kineto_gpu", "communication")["data"] is None
    page = open_page(tab, dashboard, "kineto_gpu", "communication")
    page.locator("[data-test=page-communication] [data-state=empty]").wait_for()
    tab.shot("communication-kineto_gpu")
    tab.assert_clean()


def test_cluster_of_the_ascend_run(dashboard: Dashboard, tab: Tab) -> None:
    cluster = api(dashboard, "ascend", "cluster")
    assert len(cluster["ranks"]) == 2
    other = next(r for r in cluster["ranks"] if r["rank"] != cluster["slowest"]["rank"])
    page = open_page(tab, dashboard, "ascend", "cluster", f"rank={other['rank']}")
    charts_rendered(page, "[data-test=page-cluster]")
    rows = page.locator("[data-test=rank-table] .el-table__body tr")
    assert rows.count() == 2
    steps = column(page, "[data-test=rank-table]", "step")
    # each rank's step is its worker's overview average (`stages[].step_us`)
    for text, r in zip(steps, sorted(cluster["stages"], key=lambda r: r["rank"]), strict=True):
        assert close(text, r["step_us"])
        overview = api(dashboard, "ascend", "overview", worker=r["worker"])
        assert r["step_us"] == overview["steps"]["average_us"]
    slow_row = page.locator("[data-test=rank-table] tr", has_text="slowest")
    assert slow_row.locator("[data-rank]").inner_text() == str(cluster["slowest"]["rank"])
    assert (
        f"Rank {cluster['slowest']['rank']} is the slowest"
        in page.locator("[data-test=slowest]").inner_text()
    )
    highlighted = page.locator("[data-test=rank-table] tr.highlighted-row [data-rank]")
    assert highlighted.inner_text() == str(other["rank"])
    tab.shot("cluster-ascend")
    page.locator("[data-test=view-switch] label", has_text="Heat map").click()
    page.wait_for_url(re.compile(r"[?&]view=heatmap"))
    charts_rendered(page, "[data-test=rank-stages]", 1)
    tab.shot("cluster-ascend-heatmap")
    # a rank click opens that rank: the run's worker switches to it
    worker = next(s["worker"] for s in cluster["stages"] if s["rank"] == other["rank"])
    rows.nth(0 if other["rank"] == 0 else 1).click()
    page.wait_for_url(re.compile(rf"[?&]worker={worker}\b"))
    assert worker in page.locator("[data-test=worker-select]").inner_text()
    tab.assert_clean()


@pytest.mark.parametrize("run", ["kineto_gpu", "mindspore"])
def test_cluster_of_one_worker_is_an_empty_state(dashboard: Dashboard, tab: Tab, run: str) -> None:
    assert len(api(dashboard, run, "cluster")["stages"]) == 1
    page = open_page(tab, dashboard, run, "cluster")
    page.locator("[data-test=page-cluster] [data-state=empty]").wait_for()
    tab.shot(f"cluster-{run}")
    tab.assert_clean()
