"""Where the served advice's evidence lands, on real runs: the timeline event that is a time
range and the tracks that hold its work (device tracks first), and the worker of a rank.

Each place is checked against the timeline API itself (`timeline/event`, the window's
tracks), so a wrong index or a host track offered as the device's fails here, not only in
a browser.
"""

from __future__ import annotations

from typing import Any

from tests.server.test_api_endpoints import Api


def _tracks(api: Api, key: str, **where: Any) -> dict[int, dict[str, Any]]:
    window = api.get(key, "timeline", max_items=10, **where)["window"]
    return {t["id"]: t for t in window["tracks"]}


def _ranges(advice: dict[str, Any]) -> list[dict[str, Any]]:
    return [ev for f in advice["findings"] for ev in f["evidence"] if "window_ns" in ev]


def test_time_ranges_name_their_event_and_device_tracks(api: Api) -> None:
    advice = api.get("kineto", "advice")["advice"]
    tracks = _tracks(api, "kineto")
    ranges = _ranges(advice)
    assert len(ranges) >= 10
    for ev in ranges:
        # every range of this GPU run has device work in or at its edges: a device track first
        assert ev["tracks"] and tracks[ev["tracks"][0]]["is_device"], ev
        assert len(set(ev["tracks"])) == len(ev["tracks"]) <= 4
        if "event" in ev:
            got = api.get("kineto", "timeline/event", index=ev["event"])["event"]
            assert [got["start_ns"], got["start_ns"] + got["dur_ns"]] == ev["window_ns"], ev
            assert got["track"] in ev["tracks"]
    by_label = {ev["label"].split(" ")[0]: ev for ev in ranges}
    # a pageable copy is the copy on the device: selected there, its stream first
    copy = next(ev for ev in ranges if ev["label"].startswith("Memcpy HtoD"))
    got = api.get("kineto", "timeline/event", index=copy["event"])["event"]
    assert got["kind"] == "memcpy" and got["track"] == copy["tracks"][0]
    # a DataLoader call is the host's __next__: selected, its thread after the device's
    loader = by_label["DataLoader"]
    got = api.get("kineto", "timeline/event", index=loader["event"])["event"]
    assert got["name"] == loader["name"] and not tracks[got["track"]]["is_device"]
    assert loader["tracks"][-1] == got["track"] and len(loader["tracks"]) >= 2
    # a device idle gap is no event: the device tracks whose work borders it
    gap = by_label["device"]
    assert "event" not in gap and all(tracks[t]["is_device"] for t in gap["tracks"])
