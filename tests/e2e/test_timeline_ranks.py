"""Several ranks stacked on one timeline, in a real browser on the dashboard's two-rank
Ascend run.

The rank picker chooses both ranks (URL `ranks=0,1`, kept by a reload); each rank's groups
are drawn one rank after the other, labelled with the rank's worker, on one time axis
where each rank's times are shifted by `/clock`'s `shift_ns`. Checked from what the page
does and shows: the per-rank window requests (each the shared window less the rank's
shift), the canvas's `data-layout` and `data-window`, and the hover tooltip of a rank-1
event at the place its shifted time says.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_timeline import AXIS_H, CANVAS, COUNTER_H, HEADER_H, LABEL_W, ROW_H, TRACK_PAD
from tests.e2e.test_timeline_tracks import layout_of

RUN = "ascend"


def requested(urls: list[str]) -> list[tuple[str, int, int]]:
    """(worker, start_ns, end_ns) of each windowed timeline request."""
    out = []
    for url in urls:
        q = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
        if "start_ns" in q:
            out.append((q.get("worker", ""), int(q["start_ns"]), int(q["end_ns"])))
    return out


def stacked_row_center(windows: list[dict[str, Any]], k: int, track: int, depth: int) -> float:
    """Canvas y of a row of rank k (not scrolled, nothing folded): every group of the ranks
    before it, then its own groups as test_timeline.row_center lays out one worker's."""
    y = 0
    for rank, window in enumerate(windows):
        groups: dict[str, list[dict[str, Any]]] = {}
        for t in window["tracks"]:
            if t["events"] > 0:
                groups.setdefault(t["pid"], []).append(t)
        for pid, members in groups.items():
            y += HEADER_H
            for t in members:
                if rank == k and t["id"] == track:
                    return AXIS_H + y + depth * ROW_H + ROW_H / 2
                y += max(1, t["depth"]) * ROW_H + TRACK_PAD
            y += COUNTER_H * sum(1 for c in window["counters"] if c["group"] == pid)
    raise AssertionError(f"track {track} of rank {k} not in the layout")


def wait_layout(tab: Tab, pattern: str) -> None:
    """Until the canvas's `data-layout` (what the label column shows) matches `pattern`."""
    tab.page.wait_for_function(
        f"() => {pattern}.test(document.querySelector('{CANVAS}')?.dataset.layout ?? '')"
    )


def url_window(url: str) -> tuple[int, int]:
    q = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    return int(q["t0"]), int(q["t1"])


def test_two_ranks_stack_on_one_shifted_time_axis(dashboard: Dashboard, tab: Tab) -> None:
    rid = dashboard.ids[RUN]
    clock = dashboard.server.get(f"/api/v1/runs/{rid}/clock")
    workers, shift = clock["workers"], clock["shift_ns"]
    assert workers == ["rank0", "rank1"], clock
    assert shift[0] != shift[1], clock  # the ranks' first events are apart: the shift is seen
    windows = [dashboard.server.get(f"/api/v1/runs/{rid}/timeline?worker={w}")["window"]
               for w in workers]  # fmt: skip
    page = tab.page
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url) if "/timeline?" in r.url else None)
    page.goto(dashboard.run_url(RUN, "timeline"))
    page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    single = [group for group, _ in layout_of(tab)]  # rank0's own timeline
    # both ranks chosen in the picker: the URL says so
    page.locator("[data-test=timeline-ranks] .el-select__caret").click()
    page.locator("[data-test=rank-option-1]").click()
    page.wait_for_url(re.compile(r"[?&]ranks=0(%2C|,)1(&|$)"))
    page.keyboard.press("Escape")
    wait_layout(tab, "/rank1 · /")
    groups = [group for group, _ in layout_of(tab)]
    own = [len({t["pid"] for t in w["tracks"] if t["events"] > 0}) for w in windows]
    assert len(groups) == sum(own), groups
    assert groups[: own[0]] == [f"rank0 · {g}" for g in single], groups
    assert all(g.startswith("rank1 · ") for g in groups[own[0] :]), groups

    # a long rank-1 event, in a window around it: hovered where its shifted time says
    ev = windows[1]["events"]
    i = max(range(len(ev["index"])), key=lambda j: ev["dur_ns"][j])
    start, dur = shift[1] + ev["start_ns"][i], ev["dur_ns"][i]
    t0, t1 = max(0, start - dur), start + 2 * dur
    page.goto(dashboard.run_url(RUN, "timeline", f"ranks=0,1&t0={t0}&t1={t1}"))
    page.wait_for_selector(f"{CANVAS}[data-window='{t0}-{t1}']")
    for k, w in enumerate(workers):  # each rank asked for its own part of the window
        own_window = (w, max(0, t0 - shift[k]), t1 - shift[k])
        assert own_window in requested(urls) or t1 - shift[k] <= 0, (own_window, requested(urls))
    box = page.locator(CANVAS).bounding_box()
    assert box is not None
    # rank 1's rows lie below rank 0's: scrolled up to the middle of the canvas
    row = stacked_row_center(windows, 1, ev["track"][i], ev["depth"][i])
    scroller = page.locator("[data-test=track-view] .track-scroller")
    top = scroller.evaluate(f"(e) => (e.scrollTop = {max(0, row - box['height'] / 2)})")
    y = row - page.locator("[data-test=track-view] .track-scroller").evaluate("(e) => e.scrollTop")
    assert AXIS_H < y < box["height"], (row, top)
    # two frames: the scroll's event has run (the pointer hit-tests at the new scroll)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    x = LABEL_W + (start + dur / 2 - t0) * (box["width"] - LABEL_W) / (t1 - t0)
    page.mouse.move(box["x"] + x, box["y"] + y)
    tip = page.locator("[data-test=timeline-tooltip]")
    tip.wait_for()
    name = windows[1]["names"][ev["name"][i]]
    assert name in tip.inner_text()
    # a click selects it: its details are rank 1's own event's, its index in the URL the stack's
    page.mouse.click(box["x"] + x, box["y"] + y)
    stacked = 2**32 + ev["index"][i]  # ranks.ts INDEX_STRIDE
    page.wait_for_url(re.compile(rf"[?&]event={stacked}(&|$)"))
    details = page.locator(f"[data-test=event-details][data-index='{stacked}']")
    details.wait_for()
    assert name in details.inner_text()
    tab.shot("timeline-ranks-event")

    # zoom and pan: each rank is asked for the new window, less its shift
    page.mouse.move(box["x"] + 5, box["y"] + 5)  # off the time area: zoom around the middle
    for key in ("w", "d"):
        before = url_window(page.url)
        page.keyboard.press(key)
        page.wait_for_function(f"() => !location.search.includes('t0={before[0]}&t1={before[1]}')")
        a, b = url_window(page.url)
        page.wait_for_selector(f"{CANVAS}[data-window='{a}-{b}']")
        for k, w in enumerate(workers):
            assert (w, max(0, a - shift[k]), b - shift[k]) in requested(urls), (key, k, a, b)

    # a reload keeps the stack
    page.reload()
    page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    wait_layout(tab, "/rank1 · /")
    assert [g for g, _ in layout_of(tab)] == groups
    assert re.search(r"[?&]ranks=0(%2C|,)1(&|$)", page.url)
    tab.shot("timeline-ranks-ascend")
    tab.assert_clean()


def test_one_rank_chosen_is_that_workers_own_timeline(dashboard: Dashboard, tab: Tab) -> None:
    page = tab.page
    page.goto(dashboard.run_url(RUN, "timeline", "ranks=0,1"))
    wait_layout(tab, "/rank1 · /")
    page.locator("[data-test=timeline-ranks] .el-select__caret").click()
    page.locator("[data-test=rank-option-0]").click()  # rank1 alone is left
    page.wait_for_url(re.compile(r"[?&]worker=rank1(&|$)"))
    assert "ranks=" not in page.url
    wait_layout(tab, "/^(?![\\s\\S]*rank[01] · )[\\s\\S]+$/")  # drawn, no rank labels
    page.keyboard.press("Escape")
    assert page.locator("[data-test=download-window]").count() == 1
    # in Chinese too; and a run of one worker has no ranks to choose
    page.locator("[data-test=lang-zh]").click()
    page.locator("[data-test=timeline-ranks]").wait_for()
    tab.shot("timeline-ranks-one-zh")
    page.locator("[data-test=lang-en]").click()
    page.goto(dashboard.run_url("kineto_gpu", "timeline"))
    page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    assert page.locator("[data-test=timeline-ranks]").count() == 0
    tab.assert_clean()


def test_an_evidence_link_leaves_the_stack_for_its_workers_window(
    dashboard: Dashboard, tab: Tab
) -> None:
    """Evidence names one worker's times: its link opens that worker's own timeline at the
    link's window, not the stack's axis."""
    page = tab.page
    page.goto(dashboard.run_url(RUN, "timeline", "ranks=0,1"))
    wait_layout(tab, "/rank1 · /")
    link = page.locator("[data-test=evidence][href*='t0=']").first
    href = link.get_attribute("href") or ""
    q = {k: v[0] for k, v in parse_qs(urlparse(href).query).items()}
    assert "ranks" not in q
    link.click()
    page.wait_for_selector(f"{CANVAS}[data-window='{q['t0']}-{q['t1']}']")
    assert "ranks=" not in page.url
    wait_layout(tab, "/^(?![\\s\\S]*rank[01] · )[\\s\\S]+$/")
    tab.assert_clean()
