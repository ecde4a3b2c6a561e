"""The cluster page of a run with many ranks: eight ranks made of real MindSpore cluster
files (seven copies of rank 0's, one of rank 2's, a pipeline stage whose tail is eight
times as long and whose communication differs), so one rank is a true outlier. The
outlier is listed and opens its worker, the rank axis of the heat map scrolls instead of
growing, and the communication matrix is drawn."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import shared
from tests.e2e.browser import Tab, skip_reason
from tests.server.service import Server

SOURCE = "mindspore_legacy/cluster_propose"
#: new rank -> the real rank whose files it gets
RANKS = {**{r: 0 for r in range(7)}, 7: 2}


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    src = shared(SOURCE)
    run = tmp_path_factory.mktemp("many-base") / "eight_ranks"
    run.mkdir()
    for new, old in RANKS.items():
        shutil.copy(src / f"step_trace_raw_{old}_detail_time.csv",
                    run / f"step_trace_raw_{new}_detail_time.csv")  # fmt: skip
        shutil.copy(src / f"hccl_raw_{old}.csv", run / f"hccl_raw_{new}.csv")
    server = Server(run.parent, tmp_path_factory.mktemp("many-ws"))
    server.start("--reload-interval", "0")
    try:
        (found,) = server.wait_settled()
        assert found["state"] == "ready" and len(found["workers"]) == 8, found
        yield server, found["id"]
    finally:
        server.stop()


def test_the_outlier_rank_is_found_and_opens(many: tuple[Server, str], tab: Tab) -> None:
    server, rid = many
    cluster: dict[str, Any] = server.get(f"/api/v1/runs/{rid}/cluster")
    # by stages, not by step time: rank 2's 2 s warm-up step is not in any average
    assert {o["rank"] for o in cluster["outliers"]} == {7}
    assert {"tail_us", "communication_us"} <= {o["key"] for o in cluster["outliers"]}
    assert not [o for o in cluster["outliers"] if o["key"] == "step_us"]
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/cluster")
    table = page.locator("[data-test=outliers]")
    table.locator("[data-test=outlier-rank]").first.wait_for()
    assert "7" in table.locator("[data-test=outlier-rank]").all_inner_texts()
    page.locator("[data-test=comm-matrix] .echart[data-rendered=true]").wait_for()
    page.locator("[data-test=rank-stages] .echart[data-rendered=true]").first.wait_for()
    tab.shot("cluster-eight-ranks")
    table.locator("[data-test=outlier-rank]", has_text="7").first.click()
    page.wait_for_url(re.compile(r"rank=7.*worker=rank7|worker=rank7.*rank=7"))
    tab.assert_clean()


def test_many_ranks_scroll_instead_of_growing(many: tuple[Server, str], tab: Tab) -> None:
    server, rid = many
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/cluster?view=heatmap")
    chart = page.locator("[data-test=heatmap]")
    chart.wait_for()
    page.locator("[data-test=heatmap][data-rendered=true]").wait_for()
    box = chart.bounding_box()
    assert box is not None and box["height"] <= 24 * 28 + 140 + 1
    tab.assert_clean()


def test_mindspore_pages_say_which_steps_they_average(many: tuple[Server, str], tab: Tab) -> None:
    """MindSpore averages leave out step 1 and the unfinished step: the pages say so."""
    server, rid = many
    comm = server.get(f"/api/v1/runs/{rid}/communication?worker=rank0")["data"]
    assert comm["average_steps"] == ["2", "3", "4", "5"] and len(comm["steps"]) == 6
    page = tab.page
    page.goto(f"{server.url}/runs/{rid}/communication?worker=rank0")
    hint = page.locator("[data-test=comm-averaged]")
    hint.wait_for()
    assert hint.inner_text() == (
        "mean of 4 steps (2–5); step 1 left out: graph compilation; "
        "step 6 left out: not in this page’s files"
    )
    tab.shot("communication-averaged-steps")
    # the overview of rank 7 (rank 2's files: a 2.16 s compiling step 1) averages steps 2-5
    overview = server.get(f"/api/v1/runs/{rid}/overview?worker=rank7")
    durations = overview["steps"]["durations_us"]
    assert overview["steps"]["averaged_from"] == 1 and durations[0] > 2e6
    assert overview["steps"]["average_us"] == pytest.approx(sum(durations[1:]) / 4)
    page.goto(f"{server.url}/runs/{rid}/overview?worker=rank7")
    note = page.locator("[data-test=avg-step] [data-test=average-note]")
    assert note.inner_text() == "mean of 4 steps (2–5); step 1 left out: graph compilation"
    avg = page.locator("[data-test=avg-step] .stat-value").inner_text()
    assert avg == f"{overview['steps']['average_us'] / 1e3:.2f} ms"
    tab.shot("overview-averaged-from")
    tab.assert_clean()
