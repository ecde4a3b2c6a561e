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

import json
import re
from typing import Any

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
    # every track with events is drawn, once; none without (then the group's counters)
    tab.page.wait_for_function(f"() => document.querySelector('{CANVAS}').dataset.counters")
    counters = len(counters_of(tab))
    assert counters == len(window["window"]["counters"]), window["window"]["counters"]
    drawn = sum(len(names) for _, names in groups) - counters
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


def counters_of(tab: Tab) -> list[dict[str, Any]]:
    """The counter tracks drawn (`data-counters`): label, group, max in view, canvas y."""
    text = tab.page.locator(CANVAS).get_attribute("data-counters") or "[]"
    found: list[dict[str, Any]] = json.loads(text)
    return found


def test_counter_tracks_sit_under_the_threads_with_a_value_tooltip(
    dashboard: Dashboard, tab: Tab
) -> None:
    win = dashboard.server.get(f"/api/v1/runs/{dashboard.ids['kineto_gpu']}/timeline?width_px=800")
    series = win["window"]["counters"]
    names = {s["name"] for s in series}
    assert {"memory_allocated", "device_busy"} <= names, names  # no reserved in 2021 traces
    tab.page.goto(dashboard.run_url("kineto_gpu", "timeline"))
    tab.page.wait_for_selector(f"{CANVAS}[data-rendered=true]")
    tab.page.wait_for_function(f"() => document.querySelector('{CANVAS}').dataset.counters")
    counters = counters_of(tab)
    assert len(counters) == len(series), (counters, series)
    # each group lists its threads first, then its counters
    for group, labels in layout_of(tab):
        mine = [c["label"] for c in counters if c["group"] == group]
        assert labels[len(labels) - len(mine) :] == mine, (group, labels, mine)
        assert len(labels) > len(mine), (group, labels)  # threads come first
    busy = next(c for c in counters if c["label"] == "Device busy")
    assert re.fullmatch(r"\d+\.\d %", busy["max"]), busy
    memory = next(c for c in counters if c["label"] == "Memory allocated (CUDA:0)")
    assert re.fullmatch(r"\d+\.\d [KMGT]iB", memory["max"]), memory
    assert busy["group"] == memory["group"] == "GPU 0 · 0", counters
    box = tab.page.locator(CANVAS).bounding_box()
    assert box is not None
    tab.page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + memory["y"])
    tip = tab.page.locator("[data-test=timeline-tooltip]")
    tip.wait_for()
    text = tip.inner_text()
    assert "Memory allocated (CUDA:0)" in text and re.search(r"\d (B|[KMGT]iB)\b", text), text
    tab.shot("timeline-counters-light")
    tab.page.emulate_media(color_scheme="dark")  # the theme follows the system's by default
    tab.page.wait_for_selector("html.dark")
    tab.page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + busy["y"])
    tab.page.wait_for_function("() => document.querySelector('[data-test=timeline-tooltip]')"
                               "?.innerText.includes('Device busy')")  # fmt: skip
    tab.shot("timeline-counters-dark")
    tab.assert_clean()
