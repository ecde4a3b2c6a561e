"""The table pages in a real browser against the live API: operators (by name, by type,
per call), kernels, modules and diff show the server's rows and totals, sorting and search
go through the server, the top-N pie renders, and no page logs an error.

Expected values come from the same API the page calls (asked here with the same
parameters), never from numbers copied out of an answer.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard

pytest.importorskip("playwright")
from playwright.sync_api import expect

#: the search field (Element Plus puts attributes on the native input)
SEARCH = "input[data-test=table-search], [data-test=table-search] input"
UNITS_US = {"ns": 1e-3, "µs": 1.0, "ms": 1e3, "s": 1e6}


def api(dashboard: Dashboard, name: str, view: str, **params: Any) -> dict[str, Any]:
    query = urllib.parse.urlencode(params)
    answer: dict[str, Any] = dashboard.server.get(
        f"/api/v1/runs/{dashboard.ids[name]}/{view}{'?' + query if query else ''}"
    )
    return answer


def us(text: str) -> float:
    """`1.50 ms` -> 1500.0 (the dashboard's formatUs, read back)."""
    m = re.fullmatch(r"\s*([-+−]?[\d.]+)\s*(ns|µs|ms|s)\s*", text)
    assert m, text
    return float(m.group(1).replace("−", "-")) * UNITS_US[m.group(2)]


def close_us(text: str, value: float) -> bool:
    """The shown duration is `value` to the 3-4 digits formatUs keeps."""
    return abs(us(text) - value) <= max(abs(value) * 0.006, 0.06)


def wait_until(tab: Tab, check: Any, timeout_ms: int = 15_000) -> None:
    """Poll `check()` (which may read the page) until it holds."""
    for _ in range(timeout_ms // 100):
        try:
            if check():
                return
        except AssertionError:
            pass
        tab.page.wait_for_timeout(100)
    assert check()


def wait_ready(tab: Tab, table: str) -> Any:
    page = tab.page
    root = page.locator(f"[data-test={table}]")
    root.locator(".el-table__body tr").first.wait_for()
    page.wait_for_selector("[data-state=ready]")
    return root


def column_texts(root: Any, index: int) -> list[str]:
    texts: list[str] = root.locator(f".el-table__body tr > td:nth-child({index})").all_inner_texts()
    return [t.strip() for t in texts]


def header_index(root: Any, label: str) -> int:
    """1-based position of a leaf column by its header text (headers of groups skipped)."""
    heads = root.locator(".el-table__header tr").last.locator("th").all_inner_texts()
    leaves = [h.strip() for h in heads]
    groups = root.locator(".el-table__header tr").count() > 1
    if groups:  # the leaf row holds the grouped columns only: rebuild the full order
        first = root.locator(".el-table__header tr").first.locator("th")
        leaves = []
        sub = [
            h.strip()
            for h in root.locator(".el-table__header tr").last.locator("th").all_inner_texts()
        ]
        for i in range(first.count()):
            cell = first.nth(i)
            span = int(cell.get_attribute("colspan") or 1)
            if span > 1:
                leaves += [f"{cell.inner_text().strip()}/{s}" for s in sub[:span]]
                sub = sub[span:]
            else:
                leaves.append(cell.inner_text().strip())
    return leaves.index(label) + 1


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend"])
def test_operators_by_name_sort_search_and_pie(dashboard: Dashboard, tab: Tab, run: str) -> None:
    page = tab.page
    page.goto(dashboard.run_url(run, "operators"))
    root = wait_ready(tab, "operators-table")
    first = api(dashboard, run, "operators", limit=20)
    total = root.locator("[data-test=table-total]")
    expect(total).to_have_attribute("data-total", str(first["total"]))
    assert first["total"] > 20
    name_col = header_index(root, "Name")
    assert column_texts(root, name_col) == [r["name"] for r in first["rows"]]
    self_col = header_index(root, "Device time/Self")
    shown = column_texts(root, self_col)
    assert all(close_us(s, r["device_self_us"]) for s, r in zip(shown, first["rows"], strict=True))
    expect(page.locator("[data-test=top-pie] [data-rendered=true]")).to_be_visible()
    tab.shot(f"operators-{run}")

    # a click on Calls sorts on the server: the first row is the API's first by calls
    root.locator(".el-table__header th", has_text="Calls").first.click()
    by_calls = api(dashboard, run, "operators", sort="calls", order="desc", limit=20)
    assert by_calls["rows"][0]["name"] != first["rows"][0]["name"]
    expect(page).to_have_url(re.compile(r"[?&]sort=calls(&|$)"))
    cells = root.locator(f".el-table__body tr > td:nth-child({name_col})")
    expect(cells.first).to_have_text(by_calls["rows"][0]["name"])
    assert column_texts(root, name_col) == [r["name"] for r in by_calls["rows"]]

    # search: typed, sent to the server, in the URL; every row matches
    needle = first["rows"][1]["name"].split("::")[-1][:8]
    page.locator(SEARCH).fill(needle)
    found = api(dashboard, run, "operators", sort="calls", order="desc", search=needle, limit=20)
    expect(total).to_have_attribute("data-total", str(found["total"]))
    expect(cells.first).to_have_text(found["rows"][0]["name"])
    names = column_texts(root, name_col)
    assert names == [r["name"] for r in found["rows"]]
    assert all(needle.lower() in n.lower() for n in names) and found["total"] < first["total"]
    assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["search"] == [needle]
    tab.assert_clean()


def test_search_link_prefills_and_type_opens_its_calls(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    run = "kineto_gpu"
    # the advisor's evidence links open operators?search=<name>
    top = api(dashboard, run, "operators", limit=1)["rows"][0]["name"]
    page.goto(dashboard.run_url(run, "operators", "search=" + urllib.parse.quote(top)))
    root = wait_ready(tab, "operators-table")
    expect(page.locator(SEARCH)).to_have_value(top)
    hits = api(dashboard, run, "operators", search=top)
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(hits["total"])
    )

    # by type: every type (not the overview's top ten), a click opens that type's calls
    page.goto(dashboard.run_url(run, "operators", "group=type"))
    root = wait_ready(tab, "operators-table")
    types = api(dashboard, run, "operators", group_by="type", limit=20)
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(types["total"])
    )
    assert column_texts(root, 1) == [r["type"] for r in types["rows"]]
    expect(page.locator("[data-test=top-pie] [data-rendered=true]")).to_be_visible()
    tab.shot(f"operators-types-{run}")
    chosen = types["rows"][2]
    root.locator(".el-table__body tr").nth(2).click()
    expect(page).to_have_url(re.compile(r"group=instance"))
    calls = api(dashboard, run, "operators", group_by="instance", type=chosen["type"], limit=20)
    assert calls["total"] == chosen["calls"]
    root = page.locator("[data-test=operators-table]")
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(calls["total"])
    )
    type_col = header_index(root, "Type")
    page.wait_for_selector("[data-state=ready]")
    assert set(column_texts(root, type_col)) == {chosen["type"]}
    assert page.locator("[data-test=call-timeline]:visible").count() == len(calls["rows"])
    tab.shot(f"operators-calls-{run}")
    tab.assert_clean()


def test_calls_of_a_name_are_that_name_only(dashboard: Dashboard, tab: Tab) -> None:
    """A name's calls link lists its calls, not those of names containing it (aten::add_)."""
    page = tab.page
    run = "kineto_gpu"
    page.goto(dashboard.run_url(run, "operators", "search=aten%3A%3Aadd"))
    root = wait_ready(tab, "operators-table")
    names = column_texts(root, 1)
    assert "aten::add" in names and "aten::add_" in names
    row = root.locator(".el-table__body tr").nth(names.index("aten::add"))
    row.locator("[data-test=show-calls]").click()
    expect(page).to_have_url(re.compile(r"group=instance"))
    expect(page.locator(SEARCH)).to_have_value('"aten::add"')
    calls = api(dashboard, run, "operators", group_by="instance", search='"aten::add"')
    root = page.locator("[data-test=operators-table]")
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(calls["total"])
    )
    page.wait_for_selector("[data-state=ready]")
    assert set(column_texts(root, header_index(root, "Name"))) == {"aten::add"}
    tab.shot(f"operators-calls-of-a-name-{run}")
    tab.assert_clean()


@pytest.mark.parametrize("run", ["kineto_gpu", "ascend"])
def test_kernels_table_and_pie(dashboard: Dashboard, tab: Tab, run: str) -> None:
    page = tab.page
    page.goto(dashboard.run_url(run, "kernels"))
    root = wait_ready(tab, "kernels-table")
    answer = api(dashboard, run, "kernels", limit=20)
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(answer["total"])
    )
    # the cell shows the kernel without return type and parameters, the title all of it
    names = root.locator(".el-table__body tr > td:nth-child(1) [title]")
    titles = [names.nth(i).get_attribute("title") for i in range(names.count())]
    assert titles == [r["name"] for r in answer["rows"]]
    shown_names = column_texts(root, 1)
    assert all(n in r["name"] for n, r in zip(shown_names, answer["rows"], strict=True))
    total_col = header_index(root, "Duration/Total")
    shown = column_texts(root, total_col)
    assert all(close_us(s, r["total_us"]) for s, r in zip(shown, answer["rows"], strict=True))
    expect(page.locator("[data-test=top-pie] [data-rendered=true]")).to_be_visible()
    if run == "kineto_gpu":  # GPU-only columns
        header = root.locator(".el-table__header").inner_text()
        assert "Occupancy" in header and "Tensor cores" in header
    if run == "ascend":  # the AI Core facts of kernel_details, as the API gives them
        header = root.locator(".el-table__header").inner_text()
        assert "Core" in header and "Busiest pipes" in header and "Occupancy" not in header
        cores = column_texts(root, header_index(root, "Core"))
        assert cores == [r["accelerator_core"] or "–" for r in answer["rows"]]
        pipes = column_texts(root, header_index(root, "Busiest pipes"))
        busy = [i for i, r in enumerate(answer["rows"]) if r["pmu"]]
        assert busy and all("%" in pipes[i] for i in busy)
    tab.shot(f"kernels-{run}")
    tab.assert_clean()


def test_modules_tree(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    modules = api(dashboard, "ascend", "modules")["data"]["modules"]
    roots = [m for m in modules if m["parent"] is None]
    page.goto(dashboard.run_url("ascend", "modules"))
    root = page.locator("[data-test=modules-table]")
    root.locator(".el-table__body tr").first.wait_for()
    expect(page.locator("[data-test=module-count]")).to_have_attribute(
        "data-count", str(len(modules))
    )
    expect(page.locator("[data-test=modules-chart] [data-rendered=true]")).to_be_visible()
    visible = root.locator(".el-table__body tr:visible")
    assert 0 < visible.count() < len(modules)  # the first levels open
    page.locator("[data-test=expand-all]").click()
    expect(visible).to_have_count(len(modules))
    # the biggest root first (sorted by host total), with its numbers
    biggest = max(roots, key=lambda m: m["host_total_us"])
    row = root.locator(".el-table__body tr").first
    cells = [c.strip() for c in row.locator("td").all_inner_texts()]
    assert cells[0] == biggest["name"].removeprefix("nn.Module: ")
    assert close_us(cells[3], biggest["host_total_us"])
    tab.shot("modules-ascend")

    # a search keeps the matches and their ancestors
    leaf = next(
        m for m in modules if m["parent"] and not any(c["parent"] == m["name"] for c in modules)
    )
    label = leaf["name"].removeprefix("nn.Module: ")
    page.locator(SEARCH).fill(label)
    matches = [m for m in modules if label.lower() in m["name"].lower()]
    expect(page.locator("[data-test=module-count]")).to_have_attribute(
        "data-count", str(len(matches))
    )
    expect(visible.last).to_contain_text(label)
    tab.assert_clean()

    # an input without modules says so
    page.goto(dashboard.run_url("kineto_gpu", "modules"))
    expect(page.locator("[data-state=empty]")).to_contain_text("no module hierarchy")
    tab.assert_clean()


def test_diff_of_two_ranks_and_of_two_runs(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    ascend = dashboard.ids["ascend"]
    page.goto(dashboard.run_url("ascend", "diff"))
    expect(page.locator("[data-test=page-diff] [data-state=empty]")).to_be_visible()
    page.goto(dashboard.run_url("ascend", "diff", f"worker=rank0&other={ascend}"))
    expected = api(dashboard, "ascend", "diff", worker="rank0", other=ascend, other_worker="rank1")
    page.locator("[data-test=diff-breakdown] [data-rendered=true]").wait_for()
    step = expected["step"]
    assert close_us(page.locator("[data-test=step-before]").inner_text(), step["before_us"])
    assert close_us(page.locator("[data-test=step-after]").inner_text(), step["after_us"])
    delta = page.locator("[data-test=step-delta]").inner_text().split("(")[0]
    assert close_us(delta, step["delta_us"])
    expect(page.locator("[data-test=diff-worker]")).to_contain_text("rank1")
    ops = page.locator("[data-test=diff-operators] .el-table__body tr")
    rows = expected["operators"]["device_self_us"]
    expect(ops).to_have_count(len(rows))
    first = [c.strip() for c in ops.first.locator("td").all_inner_texts()]
    assert first[0] == rows[0]["name"]
    assert close_us(first[1], rows[0]["before_us"]) and close_us(first[2], rows[0]["after_us"])
    kernels = page.locator("[data-test=diff-kernels] .el-table__body tr")
    expect(kernels).to_have_count(len(expected["kernels"]["total_us"]))
    tab.shot("diff-ascend-rank0-rank1")

    # another run, chosen in the page: it goes into the URL
    page.locator("[data-test=diff-run]").click()
    page.locator(".el-select-dropdown__item:visible", has_text="mindspore").click()
    expect(page).to_have_url(re.compile(rf"other={dashboard.ids['mindspore']}"))
    other = api(dashboard, "ascend", "diff", worker="rank0", other=dashboard.ids["mindspore"])
    after = page.locator("[data-test=step-after]")
    wait_until(tab, lambda: close_us(after.inner_text(), other["step"]["after_us"]))
    expect(page.locator("[data-test=diff-worker]")).to_contain_text("rank1")  # its only one
    page.wait_for_selector("[data-test=diff-breakdown] [data-rendered=true]")
    tab.shot("diff-ascend-mindspore")
    tab.assert_clean()


def test_empty_operators_of_a_mindspore_run(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    assert api(dashboard, "mindspore", "operators")["total"] == 0
    types = api(dashboard, "mindspore", "operators", group_by="type", limit=1)
    assert types["total"] > 0
    page.goto(dashboard.run_url("mindspore", "operators"))
    # no calls by name: the page opens on the types, which this input has
    expect(page).to_have_url(re.compile(r"group=type"))
    root = wait_ready(tab, "operators-table")
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(types["total"])
    )
    # MindInsight's AI CPU tables below, as the API gives them
    aicpu = api(dashboard, "mindspore", "aicpu")["data"]
    shown = page.locator("[data-test=aicpu-types] .el-table__body tr")
    expect(shown).to_have_count(len(aicpu["types"]))
    assert shown.first.locator("td").first.inner_text().strip() == aicpu["types"][0]["type"]
    expect(page.locator("[data-test=aicpu-ops] .el-table__body tr")).to_have_count(
        len(aicpu["ops"])
    )
    page.locator("[data-test=aicpu]").scroll_into_view_if_needed()
    tab.shot("operators-mindspore")
    # the dynamic-shape card (the fixtures' real dynamic_shape_info, see conftest)
    dyn = api(dashboard, "mindspore", "dynamic-shape")["data"]
    dyn_rows = page.locator("[data-test=dynamic-shape-types] .el-table__body tr")
    expect(dyn_rows).to_have_count(len(dyn["types"]))
    assert dyn_rows.first.locator("td").first.inner_text().strip() == dyn["types"][0]["type"]
    expect(page.locator("[data-test=dynamic-shape] [data-rendered=true]")).to_be_visible()
    page.locator("[data-test=dynamic-shape]").scroll_into_view_if_needed()
    tab.shot("operators-mindspore-dynamic-shape")
    # a type's instances: this input records them as a table (calls and device time each)
    chosen = types["rows"][0]
    root.locator(".el-table__body tr").first.click()
    expect(page).to_have_url(re.compile(r"group=instance"))
    calls = api(dashboard, "mindspore", "operators", group_by="instance", type=chosen["type"])
    assert sum(r["calls"] for r in calls["rows"]) == chosen["calls"]
    root = page.locator("[data-test=operators-table]")
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(calls["total"])
    )
    page.wait_for_selector("[data-state=ready]")
    assert set(column_texts(root, header_index(root, "Type"))) == {chosen["type"]}
    shown = column_texts(root, header_index(root, "Device time"))
    assert all(close_us(t, r["device_self_us"]) for t, r in zip(shown, calls["rows"], strict=True))
    tab.shot("operators-calls-mindspore")
    page.goto(dashboard.run_url("mindspore", "kernels"))
    root = wait_ready(tab, "kernels-table")
    kernels = api(dashboard, "mindspore", "kernels", limit=1)
    expect(root.locator("[data-test=table-total]")).to_have_attribute(
        "data-total", str(kernels["total"])
    )
    tab.assert_clean()
