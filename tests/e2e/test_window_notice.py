"""What the profiled window is, on real data: a window that cannot be judged in steady state
(HTA's call_stack trace, a 6-event fragment; the PyTorch plugin's gpu_metrics_input, a toy
whose device works 50 us per step) gets the advice sidebar's notice above the findings, in
English and Chinese, saying why and what to do; the Kineto ResNet-50 run gets none. A
window holding set-up (HTA's simple_add: 83 % initialisation, 14 % warm-up) is marked on
the overview with each kind's share, and a kind opens its longest event on the timeline."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import shared
from tests.e2e.browser import Tab, skip_reason
from tests.server.service import Server

#: run name in the base dir -> a folder or file under ../shared/data
RUNS = {
    "fragment": "hta/call_stack",
    "toy": "kineto/tb_plugin_expected/gpu_metrics_input.json",
    "setup": "hta/critical_path/simple_add",
    "resnet": "kineto/resnet50_num_workers_0",
    "cluster": "mindspore_legacy/cluster_propose",  # for the slowest rank's alert
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("window-base")
    for name, rel in RUNS.items():
        src = shared(rel)
        if src.is_dir():
            # cluster files are named by their folder's parent (as the API drift test's "msc")
            dst = base / name / src.name if name == "cluster" else base / name
            shutil.copytree(src, dst)
        else:  # one trace file: a folder of its own (its neighbours are expected results)
            (base / name).mkdir()
            shutil.copy(src, base / name / src.name)
    server = Server(base, tmp_path_factory.mktemp("window-ws"))
    server.start("--reload-interval", "0")
    try:
        found = server.wait_settled()
        assert all(r["state"] == "ready" for r in found), (found, server.logs())
        ids = {r["name"]: r["id"] for r in found}
        assert set(ids) == set(RUNS), ids
        yield server, ids
    finally:
        server.stop()


#: no transition is running (pages and cards fade in): for screenshots people can read
SETTLED = "() => document.getAnimations().every((a) => a.playState !== 'running')"


def served_advice(server: Server, rid: str) -> dict[str, Any]:
    found: dict[str, Any] = server.get(f"/api/v1/runs/{rid}/advice")["advice"]
    return found


@pytest.mark.parametrize("name", ["fragment", "toy"])
def test_a_window_that_cannot_be_judged_gets_the_notice(
    runs: tuple[Server, dict[str, str]], tab: Tab, name: str
) -> None:
    server, ids = runs
    notice = served_advice(server, ids[name])["window_limit"]
    assert notice is not None, name
    page = tab.page
    page.goto(f"{server.url}/runs/{ids[name]}/overview")
    box = page.locator("[data-test=window-notice]")
    box.wait_for()
    assert "cannot be judged in steady state" in box.inner_text()
    text = page.locator("[data-test=window-notice-text]").inner_text()
    # the reason and what to do, without the advisor's opening (the notice's title)
    lead = "The profiled window cannot be judged in steady state: "
    assert notice["en"].startswith(lead)
    rest = notice["en"][len(lead) :]
    assert text == rest[0].upper() + rest[1:]
    none = page.locator("[data-test=advisor-none]").inner_text()
    assert "not run on this window" in none  # not "every rule passed"
    todo = {"fragment": "profile complete training steps", "toy": "profile the real workload"}
    assert todo[name] in text
    # above the findings and the lists of what was (not) evaluated
    below = page.locator("[data-test=not-evaluated]").bounding_box()
    assert box.bounding_box()["y"] < below["y"]
    page.wait_for_function(SETTLED)
    tab.shot(f"advisor-window-notice-{name}")
    page.evaluate("localStorage.setItem('mindinsight.locale', 'zh')")
    page.reload()
    page.locator("[data-test=window-notice]").wait_for()
    zh = page.locator("[data-test=window-notice-text]").inner_text()
    assert notice["zh"].endswith(zh) and "请采集" in zh
    assert "无法按稳态评判该采集窗口" in page.locator("[data-test=window-notice]").inner_text()
    page.wait_for_function(SETTLED)
    tab.shot(f"advisor-window-notice-{name}-zh")
    tab.assert_clean()


def test_a_real_training_window_gets_no_notice(
    runs: tuple[Server, dict[str, str]], tab: Tab
) -> None:
    server, ids = runs
    advice = served_advice(server, ids["resnet"])
    assert advice["window_limit"] is None and advice["findings"]
    page = tab.page
    page.goto(f"{server.url}/runs/{ids['resnet']}/overview")
    page.locator("[data-test=advisor] [data-test=finding]").first.wait_for()
    assert page.locator("[data-test=window-notice]").count() == 0
    page.locator("[data-test=avg-step]").wait_for()
    assert page.locator("[data-test=one-off]").count() == 0  # a steady window: no marker
    tab.assert_clean()


def test_one_off_work_is_marked_on_the_overview(
    runs: tuple[Server, dict[str, str]], tab: Tab
) -> None:
    server, ids = runs
    rid = ids["setup"]
    window = server.get(f"/api/v1/runs/{rid}/overview")["window"]
    assert window["share"]["initialisation"] > 0.5 and window["share"]["warmup"] > 0.1
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/overview")
    marker = page.locator("[data-test=one-off]")
    marker.wait_for()
    assert f"{window['window_share'] * 100:.1f} %" in marker.inner_text()
    chips = marker.locator("[data-test=one-off-part]")
    assert [chips.nth(i).get_attribute("data-kind") for i in range(chips.count())] == [
        "initialisation",
        "warmup",
    ]
    assert (
        chips.first.inner_text()
        == f"Initialisation {window['share']['initialisation'] * 100:.1f} %"
    )
    page.wait_for_function(SETTLED)
    tab.shot("overview-one-off-work")
    # the longest initialisation event, from the timeline's origin, marked on the timeline
    init = window["longest"]["initialisation"]
    chips.first.click()
    page.wait_for_url(re.compile(rf"/timeline\?.*mark={init['start_ns']}-{init['end_ns']}"))
    page.locator("[data-test=page-timeline]").wait_for()
    page.locator("[data-test=timeline-canvas], canvas").first.wait_for()
    page.wait_for_function(SETTLED)
    tab.shot("overview-one-off-timeline")
    tab.assert_clean()


def test_the_slowest_rank_states_the_compared_steps(
    runs: tuple[Server, dict[str, str]], tab: Tab
) -> None:
    """MindSpore's cluster_propose: ranks 2 and 3 have steps 1-2 only, so ranks are compared
    on step 2, where rank 0 is slowest; rank 0's own average (steps 2-5) is below ranks 2
    and 3's. The alert gives the compared figures (a lead, never a negative gap)."""
    server, ids = runs
    cluster = server.get(f"/api/v1/runs/{ids['cluster']}/cluster")
    slowest = cluster["slowest"]
    own = {r["rank"]: r["step_us"] for r in cluster["ranks"]}
    assert slowest["rank"] == 0 and slowest["steps_compared"] == ["2"]
    assert own[0] < max(own.values())  # the row alone would not make it the slowest
    page = tab.page
    page.goto(f"{server.url}/runs/{ids['cluster']}/cluster")
    alert = page.locator("[data-test=slowest]")
    alert.wait_for()
    title = alert.locator(".el-alert__title").inner_text()
    assert f"{slowest['step_us'] / 1e3:.2f} ms per step, +" in title, title
    assert "step(s) 2" in page.locator("[data-test=slowest-compared]").inner_text()
    assert page.locator("[data-test=not-slow]").count() == 1  # 0.04 % ahead: no straggler
    page.wait_for_function(SETTLED)
    tab.shot("cluster-slowest-compared-steps")
    tab.assert_clean()
