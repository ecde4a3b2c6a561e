"""The roofline page in a real browser, on real traces.

Kineto resnet50 on a V100: the chart draws one point per shape row of the API (and as many
as the category filter leaves), the device card names the V100, a click on a point opens
the timeline on that row's longest call, the kernel table has the API's kernel rows, the
overview's MFU card shows the API's MFU and the operator and kernel tables join the model's
figures by name. The MindSpore run (with the FLOPs files of MindSpore's profiler fixtures,
see conftest) has no model but shows MindSpore's own FLOPs as MindInsight did. A CPU-only
PyTorch trace (no device known) says why there is no roof, and still draws its points. No
console errors; screenshots in build/e2e-screenshots.
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.conftest import shared
from tests.e2e.browser import Tab, skip_reason
from tests.e2e.conftest import Dashboard
from tests.server.service import Server

CHART = "[data-test=roofline-chart]"
#: the plot's insets in px: `GRID` of ui/src/components/perf/rooflineChart.ts
GRID = {"left": 64, "right": 150, "top": 36, "bottom": 48}
CPU_TRACE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"


def model_of(server: Server, rid: str) -> dict[str, Any]:
    data: dict[str, Any] = server.get(f"/api/v1/runs/{rid}/perf-model")["data"]
    assert data is not None
    return data


def drawable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows a log-log chart can place (as `plottable` in roofline.ts)."""
    return [
        r for r in rows if (r["arithmetic_intensity"] or 0) > 0 and (r["achieved_tflops"] or 0) > 0
    ]


def share_text(share: float | None) -> str:
    """`formatShare` of ui/src/format.ts."""
    return "–" if share is None else f"{share * 100:.1f} %"


def sig_text(n: float) -> str:
    """`formatSig` of ui/src/format.ts for values in [1e-3, 1e3)."""
    assert 1e-3 <= n < 1e3, n
    return f"{float(f'{n:.3g}'):g}"


def figure_text(n: float | None) -> str:
    """`formatFigure` of ui/src/components/perf/mindsporeFlops.ts (MindInsight's "--")."""
    return "--" if n is None else f"{n:,.3f}".rstrip("0").rstrip(".")


def settle(tab: Tab) -> None:
    """Until every loading mask has faded: one over the chart takes its clicks, and the
    advisor loads beside the page."""
    expect(tab.page.locator(".el-loading-mask")).to_have_count(0)


def wait_points(tab: Tab, n: int) -> None:
    expect(tab.page.locator(f"{CHART} .echart[data-rendered=true]")).to_have_count(1)
    expect(tab.page.locator(CHART)).to_have_attribute("data-points", str(n))
    settle(tab)


def shot(tab: Tab, name: str) -> None:
    settle(tab)
    tab.shot(name)


def choose(tab: Tab, select: str, option: str) -> None:
    tab.page.locator(f"[data-test={select}]").click()
    tab.page.locator(".el-select-dropdown__item:visible", has_text=option).click()
    tab.page.keyboard.press("Escape")


def pixels(tab: Tab, rows: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """Where each row's point is on the page, from the chart's axes (whole decades) and insets."""
    chart = tab.page.locator(CHART)
    chart.scroll_into_view_if_needed()
    box = chart.locator("canvas").first.bounding_box()
    assert box is not None
    x0, x1 = (math.log10(float(v)) for v in chart.get_attribute("data-x-range").split(","))  # type: ignore[union-attr]
    y0, y1 = (math.log10(float(v)) for v in chart.get_attribute("data-y-range").split(","))  # type: ignore[union-attr]
    width = box["width"] - GRID["left"] - GRID["right"]
    height = box["height"] - GRID["top"] - GRID["bottom"]
    out = []
    for r in rows:
        fx = (math.log10(r["arithmetic_intensity"]) - x0) / (x1 - x0)
        fy = (math.log10(r["achieved_tflops"]) - y0) / (y1 - y0)
        out.append(
            (box["x"] + GRID["left"] + fx * width, box["y"] + GRID["top"] + (1 - fy) * height)
        )
    return out


def loneliest(points: list[tuple[float, float]]) -> int:
    """The point farthest from every other (a click on it cannot land on a neighbour)."""

    def gap(i: int) -> float:
        return min(math.dist(points[i], p) for j, p in enumerate(points) if j != i)

    return max(range(len(points)), key=gap)


def test_kineto_roofline_filters_and_opens_the_timeline(dashboard: Dashboard, tab: Tab) -> None:
    rid = dashboard.ids["kineto_gpu"]
    model = model_of(dashboard.server, rid)
    rows = model["shapes"]
    assert model["unavailable"] is None and "V100" in model["device"]["name"]
    points = drawable(rows)
    # copies move bytes with no FLOPs (and calls without time have no rate): in the table,
    # not on a log-log chart
    assert len(rows) > len(points) > 100
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "roofline"))
    wait_points(tab, len(points))
    expect(page.locator("[data-test=roofline-count]")).to_have_text(f"{len(points)} points")
    expect(page.locator("[data-test=not-plotted]")).to_contain_text(
        f": {len(rows) - len(points)} with no FLOPs"
    )
    expect(page.locator("[data-test=perf-device-name]")).to_contain_text("V100")
    expect(page.locator("[data-test=perf-mfu] .stat-value")).to_have_text(
        share_text(model["totals"]["mfu"])
    )
    above = [r for r in rows if (r["pct_of_roof"] or 0) > 1]
    assert above  # cuDNN's Winograd convolutions on this trace
    expect(page.locator("[data-test=above-roof]")).to_contain_text(
        f"{len(above)} point(s) above 100 %"
    )
    steps = page.locator("[data-test=perf-steps] [data-test=step-mfu]")
    expect(steps).to_have_count(len(model["steps"]))
    expect(steps.first).to_have_text(share_text(model["steps"][0]["mfu"]))
    page.locator("[data-test=perf-shapes] .el-table__body tr").first.wait_for()
    shot(tab, "roofline-kineto_gpu")
    # the kernels that are a counted call's only kernel, as many as the API has
    kernels = model["kernels"]
    assert len(kernels) > 10  # more than a page
    ktable = page.locator("[data-test=perf-kernels]")
    expect(ktable.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(len(kernels))
    )
    expect(ktable.locator(".el-table__body tr")).to_have_count(10)
    first = ktable.locator(".el-table__body tr").first
    expect(first).to_contain_text(sig_text(kernels[0]["achieved_tflops"]))
    expect(first.locator("[data-test=shape-kernel]")).to_have_attribute(
        "href", re.compile(r"/kernels\?search=")
    )
    ktable.scroll_into_view_if_needed()
    shot(tab, "roofline-kineto_gpu-kernels")

    # the category filter: fewer points, the URL holds it
    conv = [r for r in rows if r["category"] == "conv"]
    assert 0 < len(conv) < len(points) and conv == drawable(conv)
    choose(tab, "category-filter", "Convolution")
    expect(page.locator(".el-select-dropdown:visible")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"[?&]cat=conv(&|$)"))
    wait_points(tab, len(conv))
    expect(page.locator("[data-test=perf-shapes] [data-test=table-total]")).to_have_attribute(
        "data-total", str(len(conv))
    )
    shot(tab, "roofline-kineto_gpu-conv")
    # a dtype that no convolution has: no points (the filters combine)
    page.goto(dashboard.run_url("kineto_gpu", "roofline", "cat=conv&dtype=int64"))
    wait_points(tab, 0)

    # a click on a point opens its longest call on the timeline
    page.goto(dashboard.run_url("kineto_gpu", "roofline", "cat=conv"))
    wait_points(tab, len(conv))
    where = pixels(tab, conv)
    i = loneliest(where)
    x, y = where[i]
    page.mouse.move(x - 30, y - 30)
    page.mouse.move(x, y, steps=6)  # a pointer's path: ECharts finds the point on its way
    expect(page.locator(".roofline-tooltip")).to_contain_text(conv[i]["name"])
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/timeline\?.*t0=\d+.*t1=\d+|/timeline\?.*t1=\d+.*t0=\d+"))
    query = parse_qs(urlparse(page.url).query)
    t0, t1 = int(query["t0"][0]), int(query["t1"][0])
    start, end = conv[i]["longest_call_ns"]
    assert t0 <= start < end <= t1 and t1 - t0 <= (end - start) * 1.2 + 2000, (t0, t1, start, end)
    page.locator("[data-test=page-timeline]").wait_for()
    tab.assert_clean()


def test_overview_mfu_card_and_operator_flops(dashboard: Dashboard, tab: Tab) -> None:
    rid = dashboard.ids["kineto_gpu"]
    perf = dashboard.server.get(f"/api/v1/runs/{rid}/overview")["perf"]
    model = model_of(dashboard.server, rid)
    assert perf["mfu"] == model["totals"]["mfu"] is not None
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu"))
    card = page.locator("[data-test=mfu-card]")
    expect(card.locator("[data-test=mfu-value]")).to_have_text(share_text(perf["mfu"]))
    expect(card.locator("[data-test=hfu-value]")).to_contain_text(share_text(perf["hfu"]))
    expect(card.locator("[data-test=mfu-device]")).to_contain_text("V100")
    expect(card.locator("[data-test=mfu-covered]")).to_contain_text(
        share_text(perf["covered_share"])
    )
    shot(tab, "overview-kineto_gpu-mfu")
    card.locator("[data-test=mfu-open]").click()
    page.wait_for_url(re.compile(r"/roofline"))
    wait_points(tab, len(drawable(model["shapes"])))

    # the operator table by name: the model's figures joined by the name, '–' without one
    conv = next(r for r in model["operators"] if r["name"] == "aten::cudnn_convolution")
    page.goto(dashboard.run_url("kineto_gpu", "operators", 'search="aten::cudnn_convolution"'))
    table = page.locator("[data-test=operators-table]")
    expect(table.locator(".el-table__header")).to_contain_text("GFLOPs/call")
    row = table.locator(".el-table__body tr").first
    expect(row).to_contain_text("aten::cudnn_convolution")
    expect(row).to_contain_text(sig_text(conv["gflops_per_call"]))
    expect(row).to_contain_text(share_text(conv["pct_of_roof"]))
    # the model's columns come last: scroll the table to them for the screenshot
    table.locator(".el-scrollbar__wrap").first.evaluate("e => { e.scrollLeft = e.scrollWidth }")
    shot(tab, "operators-kineto_gpu-flops")
    modelled = {r["name"] for r in model["operators"]}
    names = dashboard.server.get(f"/api/v1/runs/{rid}/operators?group_by=name&limit=500")["rows"]
    other = next(r["name"] for r in names if r["name"] not in modelled)
    page.goto(dashboard.run_url("kineto_gpu", "operators", f'search="{other}"'))
    row = table.locator(".el-table__body tr", has_text=other).first
    expect(row.locator("td").nth(-1)).to_have_text("–")
    expect(row.locator("td").nth(-3)).to_have_text("–")

    # the kernel table by name: the model's kernel rows joined by the kernel's name
    kernel = next(
        r
        for r in model["kernels"]
        if len(r["name"]) <= 198 and min(r["achieved_tflops"] or 0, r["gflops_per_call"]) >= 1e-3
    )
    page.goto(dashboard.run_url("kineto_gpu", "kernels", f'search="{kernel["name"]}"'))
    table = page.locator("[data-test=kernels-table]")
    expect(table.locator("[data-test=table-total]")).to_have_attribute("data-total", "1")
    expect(table.locator(".el-table__header")).to_contain_text("TFLOPS")
    row = table.locator(".el-table__body tr").first
    expect(row.locator("td").nth(-2)).to_have_text(sig_text(kernel["achieved_tflops"]))
    expect(row.locator("td").nth(-3)).to_have_text(sig_text(kernel["gflops_per_call"]))
    table.locator(".el-scrollbar__wrap").first.evaluate("e => { e.scrollLeft = e.scrollWidth }")
    shot(tab, "kernels-kineto_gpu-flops")
    tab.assert_clean()


def test_mindspore_flops_card(dashboard: Dashboard, tab: Tab) -> None:
    rid = dashboard.ids["mindspore"]
    server = dashboard.server
    assert server.get(f"/api/v1/runs/{rid}/perf-model")["data"] is None
    flops = server.get(f"/api/v1/runs/{rid}/mindspore-flops")["data"]
    assert flops is not None and flops["summary"] is not None and flops["scope"] is not None
    summary = flops["summary"]
    page = tab.page
    page.goto(dashboard.run_url("mindspore", "roofline"))
    card = page.locator("[data-test=mindspore-flops]")
    expect(card.locator("[data-test=ms-flops-mflops] .stat-value")).to_have_text(
        figure_text(summary["mflops"])
    )
    expect(card.locator("[data-test=ms-flops-gflops_per_second] .stat-value")).to_have_text(
        figure_text(summary["gflops_per_second"])
    )
    expect(card.locator("[data-test=ms-flops-utilization_percent] .stat-value")).to_have_text(
        figure_text(summary["utilization_percent"])
    )
    # a MindSpore 1.x summary has no cube/vector parts: MindInsight's "--"
    assert summary["cube_mflops"] is None
    expect(card.locator("[data-test=ms-flops-cube_mflops] .stat-value")).to_have_text("--")
    # no model, but something to show: not the empty state
    expect(page.locator("[data-state=empty]")).to_have_count(0)
    expect(page.locator("[data-test=roofline-card]")).to_have_count(0)
    rows = card.locator("[data-test=ms-flops-ops] .el-table__body tr")
    expect(rows).to_have_count(len(flops["ops"]))
    expect(rows.first).to_contain_text(flops["ops"][0]["name"])
    expect(rows.first).to_contain_text(figure_text(flops["ops"][0]["mflops"]))
    scope = card.locator("[data-test=ms-flops-scope]")
    expect(scope).to_have_attribute("data-nodes", str(len(flops["scope"]["nodes"])))
    expect(scope).to_have_attribute("data-links", str(len(flops["scope"]["links"])))
    expect(scope.locator(".echart[data-rendered=true]")).to_have_count(1)
    shot(tab, "roofline-mindspore-flops")
    # the root's node, at the chart's left edge, says its MFLOPs (all its flows) on hover
    total = sum(link["value"] for link in flops["scope"]["links"] if link["source"] == "Total")
    assert total > 0
    scope.scroll_into_view_if_needed()
    settle(tab)
    box = scope.locator("canvas").first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 40, box["y"] + box["height"] / 2)
    page.mouse.move(box["x"] + 16, box["y"] + box["height"] / 2, steps=4)
    # chart tooltips live in the page's body, where no card clips them (EChart.vue)
    tip = page.locator(".echart-tooltip", has_text="MFLOPs")
    expect(tip).to_contain_text(f"{figure_text(total)} MFLOPs")
    shot(tab, "roofline-mindspore-flops-scope")
    tab.assert_clean()


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """A CPU-only PyTorch trace: the operators ran on the host: no device, so no roof."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    trace = shared(CPU_TRACE)
    run = tmp_path_factory.mktemp("cpu-base") / "torch_cpu"
    run.mkdir()
    shutil.copy(trace, run / trace.name)
    server = Server(run.parent, tmp_path_factory.mktemp("cpu-ws"))
    server.start("--reload-interval", "0")
    try:
        (found,) = server.wait_settled()
        assert found["state"] == "ready", found
        yield server, found["id"]
    finally:
        server.stop()


def test_a_cpu_trace_says_why_there_is_no_roof(cpu_run: tuple[Server, str], tab: Tab) -> None:
    server, rid = cpu_run
    model = model_of(server, rid)
    assert model["unavailable"] and model["device"]["name"] is None
    rows = drawable(model["shapes"])
    assert rows and all(r["pct_of_roof"] is None for r in model["shapes"])
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/roofline")
    notice = page.locator("[data-test=perf-unavailable]")
    expect(notice).to_contain_text("peaks are unknown")
    expect(notice.locator("[data-test=perf-unavailable-reason]")).to_have_text(model["unavailable"])
    expect(notice).to_contain_text("--device-spec")
    expect(page.locator("[data-test=perf-device]")).to_have_count(0)
    wait_points(tab, len(rows))
    expect(page.locator("[data-test=perf-mfu] .stat-value")).to_have_text("–")
    expect(page.locator("[data-test=perf-host-time]")).to_be_visible()
    shot(tab, "roofline-torch_cpu-unavailable")
    page.goto(f"{server.url}/runs/{rid}/overview")
    card = page.locator("[data-test=mfu-card]")
    expect(card.locator("[data-test=mfu-value]")).to_have_text("–")
    expect(card.locator("[data-test=mfu-unavailable]")).to_contain_text("no device work")
    expect(card.locator("[data-test=hfu-value]")).to_have_count(0)
    shot(tab, "overview-torch_cpu-mfu")
    tab.assert_clean()
