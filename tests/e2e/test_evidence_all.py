"""Every evidence item of every finding lands, on the three real runs of the dashboard.

One tab per run: the advisor sidebar's links are clicked one after the other (from whatever
page the previous one opened, as a person would), and each must open the exact place:

- a time range: the timeline on it, the range highlighted (the orange strip on the time
  axis, inside the canvas), the track that holds its work (the server's first `tracks`)
  wholly in the visible rows, and its event selected, the details panel showing it; a
  range that is no single event (a device idle gap, a step's phase such as its data wait)
  selects none, and the previous item's event is no longer shown;
- a name the timeline searches (a range-less loader): the search hits listed;
- an operator, kernel or operator type: its row selected and on screen;
- a step: its row on the step trace selected; a rank: its row marked; a link: its row
  marked, on its rank's worker; a collective kind: its row of the collectives marked;
- a data-pipeline op or queue: it is focused; another page: that page open.

What is expected is read from the API (the advice, the timeline's tracks), never from the
page. Failures are gathered over all items and reported together, so one run names every
item that does not land. Waits are bounded (a few seconds per item).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_evidence_landing import EDGE_RGB
from tests.e2e.test_evidence_ranks import cluster  # noqa: F401  (the fixture)
from tests.e2e.test_timeline import AXIS_H, CANVAS, LABEL_W, query_of
from tests.server.service import Server

RUNS = ("kineto_gpu", "ascend", "mindspore")
#: ui/src/evidence.ts PAGE_ROUTES: the pages an evidence item links to
ROUTES = {
    "operators": "operators", "kernels": "kernels", "step_trace": "step-trace",
    "timeline": "timeline", "data_pipeline": "data-pipeline", "memory": "memory",
    "communication": "communication", "cluster": "cluster", "modules": "modules",
    "roofline": "roofline",
}  # fmt: skip
#: per item: bounded waits (ms); an item that has not landed by then is a failure
WAIT_MS = 8000
#: wholly on screen (a row); a panel taller than the space under the canvas scrolls inside,
#: so for it the top on screen is enough
ON_SCREEN = "(e) => { const b = e.getBoundingClientRect(); return b.height > 0 && " \
    "b.top >= 0 && b.bottom <= innerHeight }"  # fmt: skip
TOP_ON_SCREEN = "(e) => { const b = e.getBoundingClientRect(); return b.height > 0 && " \
    "b.top >= 0 && b.top < innerHeight - 20 }"  # fmt: skip


#: test_evidence_landing's STRIP_XS (x of the axis strip's pixels of the edge colour), read
#: from a one-row copy of the canvas: reading the page's canvas back once per item makes
#: Chrome warn (willReadFrequently), which would be the test's doing, not the page's
STRIP_XS_COPY = f"""(canvas) => {{
  const dpr = canvas.width / canvas.clientWidth;
  const copy = document.createElement('canvas'); copy.width = canvas.width; copy.height = 1;
  const ctx = copy.getContext('2d', {{ willReadFrequently: true }});
  const w = canvas.width;
  ctx.drawImage(canvas, 0, Math.round(({AXIS_H} - 2) * dpr), w, 1, 0, 0, w, 1);
  const data = ctx.getImageData(0, 0, canvas.width, 1).data; const xs = [];
  for (let i = 0; i < canvas.width; i++) {{
    const [r, g, b] = [data[4 * i], data[4 * i + 1], data[4 * i + 2]];
    if (Math.abs(r - {EDGE_RGB[0]}) < 20 && Math.abs(g - {EDGE_RGB[1]}) < 20
      && Math.abs(b - {EDGE_RGB[2]}) < 20) xs.push(i / dpr);
  }}
  return xs;
}}"""


def routable(ev: dict[str, Any]) -> bool:
    """Whether the sidebar shows `ev` as a link (evidence.ts `evidenceRoute` is not null)."""
    page = ROUTES.get(ev.get("page") or "") or ("timeline" if ev.get("window_ns") else None)
    if page == "timeline" and not ev.get("window_ns"):
        return bool(ev.get("name"))
    return page is not None


def evidence_link(tab: Tab, finding: str, ev_index: int, evidence: list[dict[str, Any]]) -> Any:
    """The sidebar's link of the `ev_index`-th evidence item of `finding`."""
    nth = sum(1 for ev in evidence[:ev_index] if routable(ev))
    links = tab.page.locator(f"[data-test=finding][data-id='{finding}'] [data-test=evidence]")
    assert links.count() == sum(1 for ev in evidence if routable(ev)), finding
    return links.nth(nth)


def visible(tab: Tab, selector: str, test: str = ON_SCREEN) -> Any:
    """The first element matching `selector`, once it is on screen (raises when not)."""
    el = tab.page.locator(selector).first
    el.wait_for(timeout=WAIT_MS)
    tab.page.wait_for_function(test, arg=el.element_handle(), timeout=WAIT_MS)
    return el


def land_timeline_range(tab: Tab, ev: dict[str, Any], device: dict[int, bool]) -> list[str]:
    page = tab.page
    problems = []
    a, b = ev["window_ns"]
    mark = f"{max(0, a)}-{max(0, b)}"
    canvas = page.locator(CANVAS)
    page.wait_for_selector(f"{CANVAS}[data-rendered=true][data-mark='{mark}']", timeout=WAIT_MS)
    q = query_of(page.url)
    t0, t1 = int(q["t0"]), int(q["t1"])
    page.wait_for_selector(f"{CANVAS}[data-window='{t0}-{t1}']", timeout=WAIT_MS)
    # highlighted: the axis strip spans the range (at least a pixel of it, for a short one)
    box = canvas.bounding_box()
    assert box is not None
    width = box["width"] - LABEL_W
    xs = canvas.evaluate(STRIP_XS_COPY)
    left = LABEL_W + (a - t0) * width / (t1 - t0)
    right = LABEL_W + (b - t0) * width / (t1 - t0)
    if not xs:
        problems.append("no highlighted band")
    elif abs(min(xs) - left) > 2 or abs(max(xs) - right) > 2:
        problems.append(f"band at {min(xs):.0f}-{max(xs):.0f} px, range at {left:.0f}-{right:.0f}")
    # the track holding its work in the visible rows
    tracks = ev.get("tracks") or []
    if not tracks:
        problems.append("no track named")
    else:
        want = str(tracks[0])
        in_view = f"(c) => c.dataset.tracksInView.split(',').includes('{want}')"
        try:
            page.wait_for_function(in_view, arg=canvas.element_handle(), timeout=WAIT_MS)
        except Exception:  # playwright's TimeoutError: the item failed, said here
            shown = canvas.get_attribute("data-tracks-in-view")
            problems.append(f"track {want} not in view: {shown}")
        if any(device.get(t) for t in tracks) and not device.get(tracks[0]):
            problems.append(f"the first track {tracks[0]} is not the device's")
    # the event selected, its details shown; a range that is no event (a gap, a step's
    # phase) selects none: no details of the previous item's event left on screen
    if ev.get("event") is None:
        stale = page.locator("[data-test=event-details]")
        if ev["kind"] not in ("time_range", "step"):
            problems.append(f"no event named for a {ev['kind']}")
        if stale.count() and stale.first.is_visible():
            problems.append(f"details of event {stale.first.get_attribute('data-index')} shown")
    else:
        try:
            visible(tab, f"[data-test=event-details][data-index='{ev['event']}']", TOP_ON_SCREEN)
        except Exception:  # playwright's TimeoutError
            problems.append(f"event {ev['event']} not shown")
    return problems


def land(tab: Tab, ev: dict[str, Any], device: dict[int, bool]) -> list[str]:
    """What did not land of `ev` (empty when all of it did); the page is open already."""
    page = tab.page
    kind, name = ev["kind"], ev.get("name")
    target = ROUTES.get(ev["page"]) or "timeline"
    page.wait_for_url(re.compile(rf"/{target}(\?|$)"), timeout=WAIT_MS)
    page.locator(f"[data-test=page-{target}]").wait_for(timeout=WAIT_MS)
    if target == "timeline" and ev.get("window_ns"):
        return land_timeline_range(tab, ev, device)
    if target == "timeline":
        hits = page.locator("[data-test=search-hit]")
        hits.first.wait_for(timeout=WAIT_MS)
        found = bool(name) and str(name).lower() in hits.first.inner_text().lower()
        return [] if found else [f"no hit for {name}"]
    selector = None
    if target in ("operators", "kernels") and name:
        selector = f"[data-test={target}-table] tr.selected-row"
    elif target == "step-trace" and ev.get("step") is not None:
        selector = "tr.selected-row"
    elif target == "cluster" and ev.get("rank") is not None:
        selector = f"[data-test=rank-table] tr.highlighted-row [data-rank='{ev['rank']}']"
    elif target == "communication" and name and ev.get("rank") is None:
        selector = "[data-test=collectives-table] tr.focus-row"  # a collective kind's row
    elif target == "communication" and name:
        selector = "[data-test=links-table] tr.focus-row"
    elif target == "data-pipeline" and name:
        selector = "[data-focused=true]"
    if selector is None:
        return []  # a page without an item to mark (memory, a metric): open is landed
    try:
        el = visible(tab, selector)
    except Exception:  # playwright's TimeoutError
        return [f"{kind}: no {selector} on screen"]
    if target in ("operators", "kernels", "communication") and name:
        first = el.locator("td").first.inner_text().strip()
        first = " ".join(el.locator("td").all_inner_texts()[:2]) if " " in name else first
        if first != name:
            return [f"selected row is {first!r}, not {name!r}"]
    return []


def walk(tab: Tab, server: Server, rid: str, name: str) -> tuple[int, list[str]]:
    """Click every evidence link of the run's advice in turn; (landed, what did not)."""
    findings = server.get(f"/api/v1/runs/{rid}/advice")["advice"]["findings"]
    window = server.get(f"/api/v1/runs/{rid}/timeline?max_items=10")["window"]
    device = {t["id"]: t["is_device"] for t in window["tracks"]}
    page = tab.page
    overview = f"{server.url}/runs/{rid}/overview"
    failures: list[str] = []
    landed = 0
    for f in findings:
        for k, ev in enumerate(f["evidence"]):
            if not routable(ev):
                continue
            # the advice beside the page is its worker's: a link that opened another
            # worker's page (a link of another rank) is followed by the first worker's again
            if not page.url.startswith(f"{server.url}/runs/{rid}/") or "worker=" in page.url:
                page.goto(overview)
                page.locator("[data-test=evidence]").first.wait_for()
            link = evidence_link(tab, f["id"], k, f["evidence"])
            link.scroll_into_view_if_needed()
            link.click()
            where = f"{f['id']}#{k} {ev['kind']} {ev['label'][:50]!r}"
            try:
                problems = land(tab, ev, device)
            except Exception as exc:  # a wait that ran out: this item failed
                problems = [str(exc).splitlines()[0]]
            if problems:
                failures.append(f"{where}: {'; '.join(problems)}")
                tab.shot(f"evidence-all-{name}-failed-{len(failures)}")
            else:
                landed += 1
    print(f"{name}: {landed} evidence items landed, {len(failures)} did not")
    return landed, failures


@pytest.mark.parametrize("run", RUNS)
def test_every_evidence_item_lands(dashboard: Dashboard, tab: Tab, run: str) -> None:
    landed, failures = walk(tab, dashboard.server, dashboard.ids[run], run)
    assert landed > 0
    assert not failures, "\n".join(failures)
    tab.assert_clean()


def test_every_evidence_item_of_a_cluster_lands(
    cluster: tuple[Server, str],  # noqa: F811  (the fixture imported above)
    tab: Tab,
) -> None:
    """The four-rank MindSpore job of test_evidence_ranks (the dashboard's runs name no rank
    and no link): its ranks marked on the Cluster page, its links on their ranks' workers."""
    server, rid = cluster
    landed, failures = walk(tab, server, rid, "cluster")
    assert landed > 0
    assert not failures, "\n".join(failures)
    tab.assert_clean()


def test_a_range_without_an_event_drops_the_previous_selection(
    dashboard: Dashboard, tab: Tab
) -> None:
    """On the timeline with an event selected (a slow DataLoader call's), the link to a
    device idle gap (no event: nothing ran there) marks the gap and shows no details: the
    DataLoader call's would say they are the gap's."""
    rid = dashboard.ids["kineto_gpu"]
    findings = dashboard.server.get(f"/api/v1/runs/{rid}/advice")["advice"]["findings"]
    items = [(f, k, ev) for f in findings for k, ev in enumerate(f["evidence"])]
    call = next(ev for _, _, ev in items if ev.get("event") is not None)
    f, k, gap = next((f, k, ev) for f, k, ev in items if f["id"] == "gpu_idle_gaps")
    assert gap.get("event") is None and gap.get("window_ns")
    page = tab.page
    page.goto(dashboard.run_url("kineto_gpu", "timeline", f"event={call['event']}"))
    page.locator(f"[data-test=event-details][data-index='{call['event']}']").wait_for()
    evidence_link(tab, f["id"], k, f["evidence"]).click()
    a, b = gap["window_ns"]
    page.wait_for_selector(f"{CANVAS}[data-mark='{a}-{b}']")
    page.locator("[data-test=event-details]").wait_for(state="detached", timeout=WAIT_MS)
    assert "event" not in query_of(page.url)
    tab.shot("evidence-gap-after-event")
    tab.assert_clean()
