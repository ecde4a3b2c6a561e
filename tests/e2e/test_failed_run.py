"""A run whose analysis failed, as the dashboard shows it: on the run list its name is plain
text (nothing to open: clicking it stays on the list) with the reason naming the file beside
it; opened by its URL, the page and the advisor both say the analysis failed and why, never
that it is "still being analysed". A run with one good and one broken worker still opens.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.conftest import shared
from tests.e2e.browser import Tab, skip_reason
from tests.server.service import Server

GOOD = "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
#: a Kineto trace cut off mid-event: the analysis fails with "truncated JSON"
BROKEN = '{"traceEvents": [ {"ph": "X", "name"'
BROKEN_FILE = "worker0.pt.trace.json"
#: no trace at all (a trace's head would make discovery split the mixed run per worker)
GARBAGE = "this is not a trace"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    good = shared(GOOD)
    base = tmp_path_factory.mktemp("failed-base")
    for name in ("good", "broken", "mixed"):
        (base / name).mkdir()
    shutil.copy(good, base / "good" / good.name)
    (base / "broken" / BROKEN_FILE).write_text(BROKEN)
    shutil.copy(good, base / "mixed" / good.name)  # worker0 analyses, worker1 fails
    (base / "mixed" / "worker1.pt.trace.json").write_text(GARBAGE)
    server = Server(base, tmp_path_factory.mktemp("failed-ws"))
    server.start("--reload-interval", "0")
    try:
        found = {r["name"]: r for r in server.wait_settled()}
        assert {n: r["state"] for n, r in found.items()} == {
            "good": "ready", "broken": "failed", "mixed": "failed",
        }, found  # fmt: skip
        assert BROKEN_FILE in found["broken"]["error"], found["broken"]
        yield server, {n: r["id"] for n, r in found.items()}
    finally:
        server.stop()


def row_of(tab: Tab, name: str):  # type: ignore[no-untyped-def]
    return tab.page.locator("[data-test=run-table] .el-table__row", has_text=name).first


def test_a_failed_run_is_listed_with_its_reason_and_no_link(
    runs: tuple[Server, dict[str, str]], tab: Tab
) -> None:
    server, _ = runs
    page = tab.page
    page.goto(server.url + "/")
    page.locator("[data-test=run-state][data-state=failed]").first.wait_for()
    broken, good = row_of(tab, "broken"), row_of(tab, "good")
    # the good run's name is a link, the broken one's is not, nor does it look like one
    assert good.locator("a[data-test=run-link]").count() == 1
    assert broken.locator("a").count() == 0
    name = broken.locator("[data-test=run-name-failed]")
    assert name.inner_text() == "broken"
    style = "e => [getComputedStyle(e).cursor, getComputedStyle(e).color]"
    cursor, colour = name.evaluate(style)
    link_cursor, link_colour = good.locator("[data-test=run-link]").evaluate(style)
    assert cursor != "pointer" and colour != link_colour, (cursor, colour, link_colour)
    assert link_cursor == "pointer"
    assert broken.evaluate("e => getComputedStyle(e).cursor") != "pointer"
    # the reason names the file and the problem
    reason = broken.locator("[data-test=run-error]").inner_text()
    assert BROKEN_FILE in reason and "truncated JSON" in reason, reason
    # clicking the name or the row stays on the list
    name.click()
    broken.locator("[data-test=run-state]").click()
    page.wait_for_timeout(300)  # a navigation would have started by now; none must
    assert page.url.rstrip("/") == server.url
    # a run with one good worker still opens (its other worker's failure shown there)
    assert row_of(tab, "mixed").locator("a[data-test=run-link]").count() == 1
    tab.shot("failed-run-list")
    tab.assert_clean()


@pytest.mark.parametrize("page_name", ["overview", "timeline"])
def test_a_failed_run_opened_by_url_says_it_failed_and_why(
    runs: tuple[Server, dict[str, str]], tab: Tab, page_name: str
) -> None:
    server, ids = runs
    page = tab.page
    page.goto(f"{server.url}/runs/{ids['broken']}/{page_name}")
    failure = page.locator("[data-test=input-error]")
    failure.wait_for()
    assert BROKEN_FILE in failure.inner_text() and "truncated JSON" in failure.inner_text()
    advisor = page.locator("[data-test=advisor]")
    advisor.locator("[data-test=analysis-failed]").wait_for()
    text = advisor.inner_text()
    assert "still being analysed" not in text and "Could not load" not in text, text
    assert "failed" in text and BROKEN_FILE in text, text
    tab.shot(f"failed-run-{page_name}")
    page.emulate_media(color_scheme="dark")  # and readable in the dark theme
    page.wait_for_timeout(500)  # for the screenshot only: Element Plus fades its colours
    tab.shot(f"failed-run-{page_name}-dark")
    tab.assert_clean()


def test_the_broken_worker_of_a_mixed_run_says_it_failed(
    runs: tuple[Server, dict[str, str]], tab: Tab
) -> None:
    server, ids = runs
    page = tab.page
    page.goto(f"{server.url}/runs/{ids['mixed']}/overview?worker=worker1")
    page.locator("[data-test=input-error]").wait_for()
    advisor = page.locator("[data-test=advisor]")
    advisor.locator("[data-test=analysis-failed]").wait_for()
    assert "still being analysed" not in advisor.inner_text()
    # and its good worker shows its overview and findings
    page.goto(f"{server.url}/runs/{ids['mixed']}/overview?worker=worker0")
    page.locator("[data-test=page-overview]").wait_for()
    page.locator("[data-test=finding]").first.wait_for()
    assert page.locator("[data-test=input-error]").count() == 0
    tab.assert_clean()
