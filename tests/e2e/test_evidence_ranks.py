"""Evidence that names a rank or a link, in a real browser on the real MindSpore cluster run
(`mindspore_legacy/cluster_propose`: four ranks, a pipeline-parallel job whose advice names
ranks and slow links): a rank opens the Cluster page with that rank's row marked, a link the
Communication page of that rank's worker with the link listed first and marked.

Its own server (the shared dashboard's runs have no rank evidence), started once for the
module; what the page must show comes from the API's answers.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.conftest import SHARED_DATA
from tests.e2e.browser import Tab, skip_reason
from tests.msdata import scale_hccl_transfers
from tests.server.service import Server

SOURCE = SHARED_DATA / "mindspore_legacy/cluster_propose"
#: nothing loading, no transition running: a screenshot people can read
SETTLED = """() => ![...document.querySelectorAll('.el-loading-mask')].some((m) => m.offsetParent)
    && document.getAnimations().every((a) => a.playState !== 'running')"""
ON_SCREEN = "(e) => { const b = e.getBoundingClientRect(); return b.top >= 0 && " \
    "b.bottom <= innerHeight }"  # fmt: skip


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    if not SOURCE.exists():
        pytest.skip(f"real data not available: {SOURCE} (../shared/data)")
    base = tmp_path_factory.mktemp("cluster-base")
    shutil.copytree(SOURCE, base / "msc")
    scale_hccl_transfers(base / "msc")  # latency-bound links otherwise: no slow-link evidence
    server = Server(base, tmp_path_factory.mktemp("cluster-ws"))
    server.start("--reload-interval", "0")
    try:
        runs = server.wait_settled()
        assert [r["state"] for r in runs] == ["ready"], server.logs()
        yield server, runs[0]["id"]
    finally:
        server.stop()


def evidence(server: Server, rid: str) -> list[dict[str, Any]]:
    advice = server.get(f"/api/v1/runs/{rid}/advice")["advice"]
    return [ev for f in advice["findings"] for ev in f["evidence"]]


def click(tab: Tab, label: str) -> None:
    link = tab.page.locator("[data-test=evidence]", has_text=label).first
    link.scroll_into_view_if_needed()
    link.click()


def test_a_rank_lands_marked_on_the_cluster_page(cluster: tuple[Server, str], tab: Tab) -> None:
    server, rid = cluster
    ev = next(e for e in evidence(server, rid) if e["page"] == "cluster" and "rank" in e)
    tab.page.goto(f"{server.url}/runs/{rid}/overview")
    tab.page.locator("[data-test=evidence]").first.wait_for()
    click(tab, ev["label"])
    tab.page.wait_for_url(re.compile(r"/cluster\?"))
    assert parse_qs(urlparse(tab.page.url).query)["rank"] == [str(ev["rank"])]
    marked = tab.page.locator("[data-test=rank-table] tr.highlighted-row")
    marked.first.wait_for()
    assert marked.count() == 1
    assert marked.locator("[data-rank]").get_attribute("data-rank") == str(ev["rank"])
    tab.page.wait_for_function(ON_SCREEN, arg=marked.element_handle())  # scrolled to it
    tab.page.wait_for_function(SETTLED)
    tab.shot("evidence-cluster-rank")
    tab.assert_clean()


def test_a_link_lands_on_its_ranks_worker(cluster: tuple[Server, str], tab: Tab) -> None:
    server, rid = cluster
    # slow_link's links (comm_small_messages also points at the page, with no rank)
    links = [e for e in evidence(server, rid) if e["page"] == "communication" and "rank" in e]
    # the page opened on: the first worker; a link of another rank's worker shows the switch
    first = server.get(f"/api/v1/runs/{rid}")["inputs"][0]["worker"]
    ev = next(e for e in links if e["worker"] != first)
    tab.page.goto(f"{server.url}/runs/{rid}/overview")
    tab.page.locator("[data-test=evidence]").first.wait_for()
    click(tab, ev["label"])
    tab.page.wait_for_url(re.compile(r"/communication\?"))
    query = parse_qs(urlparse(tab.page.url).query)
    assert query["worker"] == [ev["worker"]] and query["link"] == [ev["name"]]
    table = tab.page.locator("[data-test=links-table]")
    focused = table.locator("tr.focus-row")
    focused.first.wait_for()
    assert focused.count() == 1
    link, transport = ev["name"].split(" ")
    cells = [c.strip() for c in focused.locator("td").all_inner_texts()]
    assert cells[:2] == [link, transport]
    # listed first, and on screen
    first_row = table.locator(".el-table__body tr").first
    assert "focus-row" in (first_row.get_attribute("class") or "")
    tab.page.wait_for_function(ON_SCREEN, arg=focused.element_handle())
    tab.page.wait_for_function(SETTLED)
    tab.shot("evidence-communication-link")
    tab.assert_clean()
