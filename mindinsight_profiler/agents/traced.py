"""The MCP tools that read the trace itself: a timeline window (the dashboard's
level-of-detail index), events by name, and the Python lines behind an event. Their
answers are bounded like the others (`answers.MAX_LIMIT` items, a total when more match).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.agents.answers import MAX_LIMIT
from mindinsight_profiler.agents.catalog import Catalog
from mindinsight_profiler.agents.source import source_lines as stack_lines
from mindinsight_profiler.agents.source import under_frame
from mindinsight_profiler.analysis.timeline.select import (
    row_columns,
    track_codes,
    track_label,
    window_rows,
)
from mindinsight_profiler.analysis.timeline.window import timeline_window as draw_window
from mindinsight_profiler.errors import BadArgument


def find_events(
    catalog: Catalog,
    run: str,
    worker: str | None = None,
    name: str | None = None,
    frame: str | None = None,
    min_duration_ns: int = 0,
    limit: int = 50,
) -> dict[str, Any]:
    """Events matching a name, run under a Python frame (`frame`: part of a
    `file(line): function` text) or both, by start: at most `limit` (the longest kept when
    more match, and the total said), never a silently cut list."""
    if not 1 <= limit <= MAX_LIMIT:
        raise BadArgument("limit", f"must be 1 to {MAX_LIMIT}")
    trace = catalog.trace(run, worker)
    rows = window_rows(trace, min_duration_ns=min_duration_ns, name=name, limit=None)
    if frame:
        rows = rows[under_frame(trace, rows, frame)]
    total = len(rows)
    if total > limit:  # the longest events of the window, shown by start
        duration = trace.end_ns[rows] - trace.start_ns[rows]
        keep = rows[np.argsort(-duration, kind="stable")[:limit]]
        rows = keep[trace.start_ns[keep].argsort(kind="stable")]
    cols = row_columns(trace, rows)
    listed = [
        {k: (v[i].item() if hasattr(v[i], "item") else v[i]) for k, v in cols.items()}
        for i in range(len(rows))
    ]
    return {
        "run": run,
        "total": total,
        "shown": len(listed),
        "note": None if total <= limit else f"the {limit} longest of {total} events",
        "events": listed,
    }


def timeline_window(
    catalog: Catalog,
    run: str,
    start_ns: int,
    end_ns: int,
    worker: str | None = None,
    tracks: list[str] | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """What the dashboard's timeline draws for [start_ns, end_ns), from the same
    level-of-detail index, at most `limit` items: events long enough to show as themselves,
    and blocks of shorter ones merged per track and depth (their count and busy time)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise BadArgument("limit", f"must be 1 to {MAX_LIMIT}")
    if end_ns <= start_ns:
        raise BadArgument("end_ns", "must be after start_ns")
    trace, index = catalog.timeline(run, worker)
    codes = track_codes(trace, tracks).tolist() if tracks is not None else None
    w = draw_window(trace, index, codes, start_ns, end_ns, width_px=1000, max_items=limit)
    origin, names = int(w["origin_ns"]), w["names"]
    label = {t["id"]: track_label(t["pid"], t["tid"]) for t in w["tracks"]}
    ev, blocks = w["events"], w["blocks"]
    events = [
        {
            "name": names[ev["name"][i]],
            "start_ns": origin + ev["start_ns"][i],
            "duration_us": ev["dur_ns"][i] / 1000.0,
            "kind": w["kinds"][ev["kind"][i]],
            "track": label.get(ev["track"][i], ""),
            "depth": ev["depth"][i] if "depth" in ev else None,
        }
        for i in range(len(ev["index"]))
    ]
    merged = [
        {
            "track": label.get(blocks["track"][i], ""),
            "depth": blocks["depth"][i],
            "start_ns": origin + blocks["start_ns"][i],
            "duration_us": blocks["dur_ns"][i] / 1000.0,
            "events": blocks["count"][i],
            "busy_us": blocks["busy_ns"][i] / 1000.0,
        }
        for i in range(len(blocks["count"]))
    ]
    truncated = bool(w["truncated"])
    if len(events) + len(merged) > limit:  # more rows and depths than items: the largest
        truncated = True
        size = sorted([e["duration_us"] for e in events] + [b["busy_us"] for b in merged])
        least = size[-limit]
        events = [e for e in events if e["duration_us"] >= least][:limit]
        merged = [b for b in merged if b["busy_us"] >= least][: limit - len(events)]
    return {
        "run": run,
        "bucket_ns": w["bucket_ns"],
        "truncated": truncated,
        "tracks": [
            {
                "track": label[t["id"]],
                "thread": t["thread_name"] or t["process_name"],
                "is_device": t["is_device"],
                "events": t["events"],
            }
            for t in w["tracks"]
        ][:MAX_LIMIT],
        "events": events,
        "blocks": merged,
        "note": "blocks merge events shorter than bucket_ns; find_events lists them one by "
        "one; truncated: only the longest items fit the limit (narrow the window or tracks)",
    }


def source_lines(
    catalog: Catalog, run: str, name: str, worker: str | None = None, limit: int = 5
) -> dict[str, Any]:
    """The Python call stacks behind the events named `name` (with_stack traces)."""
    if not 1 <= limit <= 20:
        raise BadArgument("limit", "must be 1 to 20")
    got = stack_lines(catalog.trace(run, worker), name, limit)
    return {"run": run, "name": name, **got}
