"""The timeline's track list and flow arrows, in a real browser on the dashboard's three runs.

- Every group and track has a name: no "–" group (Kineto's trace-wide instant events, such
  as "Record Window End", carry no pid and no tid), and no group without tracks.
- Tracks the timeline has no events for are not drawn as empty rows.
- Flow arrows: only the selected event's by default; "All flows" (URL `flows=all`, so a
  reload keeps it) draws every flow of the window.

The labels are read from the canvas's `data-layout` (layout.ts `describeLayout`: what the
label column shows, in order), the arrows from `data-flows` (arrows drawn in the frame).
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.browser import Tab
from tests.e2e.conftest import Dashboard
from tests.e2e.test_timeline import CANVAS, api, open_timeline, query_of, wait_window

RUNS = ("kineto_gpu", "ascend", "mindspore")


def layout_of(tab: Tab) -> list[tuple[str, list[str]]]:
    text = tab.page.locator(CANVAS).get_attribute("data-layout") or ""
    out = []
    for line in text.splitlines():
        group, _, tracks = line.partition(": ")
        out.append((group, tracks.split(" | ") if tracks else []))
    return out


@pytest.mark.parametrize("run", RUNS)
def test_every_group_and_track_is_named(dashboard: Dashboard, tab: Tab, run: str) -> None:
    window = dashboard.server.get(f"/api/v1/runs/{dashboard.ids[run]}/timeline?max_items=10")
    tracks = window["window"]["tracks"]
    tab.page.goto(dashboard.run_url(run, "timeline"))
    tab.page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    groups = layout_of(tab)
    assert groups, "no layout"
    for group, names in groups:
        assert group.strip() and group != "–", groups
        assert names and all(n.strip() and n != "–" for n in names), groups
    # every track with events is drawn, once; none without
    drawn = sum(len(names) for _, names in groups)
    assert drawn == sum(1 for t in tracks if t["events"] > 0), (groups, tracks)
    tab.shot(f"timeline-groups-{run}")
    tab.assert_clean()


def test_flows_are_the_selected_events_unless_all_are_asked_for(
    dashboard: Dashboard, tab: Tab
) -> None:
    # a 2 ms window with kernels: launches (flows) in it
    for start_ns in range(400_000_000, 700_000_000, 2_000_000):
        win = api(dashboard, "timeline", start_ns=start_ns, end_ns=start_ns + 2_000_000,
                  width_px=800)["window"]  # fmt: skip
        kinds = [win["kinds"][k] for k in win["events"]["kind"]]
        if "kernel" in kinds and len(win["flows"]["src_ns"]) > 3:
            break
    t0, t1 = start_ns, start_ns + 2_000_000
    page = tab.page
    canvas = page.locator(CANVAS)
    flows = lambda: int(canvas.get_attribute("data-flows") or -1)  # noqa: E731
    # nothing selected: no arrows
    open_timeline(tab, dashboard, f"t0={t0}&t1={t1}")
    wait_window(tab, t0, t1)
    assert flows() == 0
    # a kernel selected: its launch alone
    ev = win["events"]
    k = kinds.index("kernel")
    query = f"t0={t0}&t1={t1}&event={ev['index'][k]}"
    page.goto(dashboard.run_url("kineto_gpu", "timeline", query))
    page.locator(f"[data-test=event-details][data-index='{ev['index'][k]}']").wait_for()
    wait_window(tab, t0, t1)
    page.wait_for_function(f"() => document.querySelector('{CANVAS}').dataset.flows === '1'")
    # all flows: the switch, in the URL, kept by a reload
    page.locator("[data-test=toggle-flows]").click()
    page.wait_for_url(re.compile(r"[?&]flows=all(&|$)"))
    page.wait_for_function(f"() => +document.querySelector('{CANVAS}').dataset.flows > 3")
    page.reload()
    wait_window(tab, t0, t1)
    page.wait_for_function(f"() => +document.querySelector('{CANVAS}').dataset.flows > 3")
    tab.shot("timeline-all-flows")
    page.locator("[data-test=toggle-flows]").click()
    page.wait_for_function("() => !location.search.includes('flows=')")
    assert "flows" not in query_of(page.url)
    page.wait_for_function(f"() => document.querySelector('{CANVAS}').dataset.flows === '1'")
    tab.assert_clean()
