"""Timeline: level-of-detail windows, name search and the Chrome-trace download.

Times in parameters and answers are ns relative to the trace's origin (its first start),
as in `timeline_window`: absolute epoch ns do not survive a browser's doubles. Everything
reads the cached trace and its cached timeline index.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from mindinsight_profiler.analysis.timeline.event import event_depth, event_details
from mindinsight_profiler.analysis.timeline.export import export_chrome_trace
from mindinsight_profiler.analysis.timeline.window import search_events, timeline_window
from mindinsight_profiler.export.names import file_stem
from mindinsight_profiler.export.ranks import (
    RankInput,
    annotations_of,
    distinct_ranks,
    merge,
    parse_ranks,
    pick_ranks,
    rank_number,
)
from mindinsight_profiler.export.timeline import SUFFIX, write_merged
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.routes.common import download, endpoint
from mindinsight_profiler.server.services import services

bp = Blueprint("timeline", __name__)
CHUNK = 1 << 16


def _window(p: dict[str, Any], origin: int, span: int) -> tuple[int, int]:
    """Absolute [t0, t1) from the relative `start_ns`/`end_ns` (default: the whole trace)."""
    start = p.get("start_ns", 0)
    end = p.get("end_ns", max(span, start + 1))
    if end <= start:
        raise ApiError(400, "bad_parameter", "end_ns: must be after start_ns", parameter="end_ns")
    return origin + start, origin + end


@endpoint(bp, "/runs/<run>/timeline", schemas.TimelineQuery, schemas.Timeline)
def timeline(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Drawable events and merged busy blocks of a window at `width_px` pixels, and the
    counter tracks (memory, device busy share) of its groups at the same buckets."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    trace, index = access.timeline(target)
    meta = index["timeline_meta"]
    origin, span = int(meta["origin_ns"][0]), int(meta["span_ns"][0])
    t0, t1 = _window(p, origin, span)
    tracks = [int(t) for t in p["tracks"].split(",")] if p.get("tracks") else None
    ledgers = access.memory_ledgers_of(target)
    window = timeline_window(trace, index, tracks, t0, t1, p["width_px"], p["max_items"], ledgers)
    return {**target.where(), "window": window}


@endpoint(bp, "/runs/<run>/timeline/search", schemas.SearchQuery, schemas.Timeline)
def timeline_search(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """The first events (by start) whose name contains `q`, any case, and the match count."""
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    target = access.resolve(run, p.get("worker"), p.get("span"))
    trace, _ = access.timeline(target)
    return {**target.where(), "window": search_events(trace, p["q"], limit)}


@endpoint(bp, "/runs/<run>/timeline/event", schemas.EventQuery, schemas.TimelineEvent)
def timeline_event(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """One event in full: arguments, enclosing ranges, launch chain and launched work."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    trace, index = access.timeline(target)
    i = p["index"]
    if i >= len(trace):
        raise ApiError(404, "not_found", f"index: no event {i} (this worker has {len(trace)})",
                       parameter="index")  # fmt: skip
    origin = int(index["timeline_meta"]["origin_ns"][0])
    depth = event_depth(index["timeline_events"], i)
    return {**target.where(), "event": event_details(trace, i, origin, depth)}


def _origin(trace: Trace) -> int:
    start = trace.events["start_ns"]
    return int(start.min()) if len(start) else 0


@endpoint(bp, "/runs/<run>/timeline/export", schemas.ExportQuery, None)
def timeline_export(run: str, p: dict[str, Any]) -> Response:
    """Download the trace (or a window of it) as Chrome-trace JSON for Perfetto."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    trace = access.trace(target)
    origin = _origin(trace)
    t0 = t1 = None
    if "start_ns" in p or "end_ns" in p:
        end = trace.events["end_ns"]
        t0, t1 = _window(p, origin, int(end.max()) - origin if len(end) else 1)
    suffix = ".json.gz" if p["gzip"] else ".json"
    mime = "application/gzip" if p["gzip"] else "application/json"
    name = file_stem(target.run.name, target.file.worker, default="download") + suffix
    return download(lambda path: export_chrome_trace(trace, path, t0, t1), name, mime)


@endpoint(bp, "/runs/<run>/timeline/export-ranks", schemas.ExportRanksQuery, None)
def timeline_export_ranks(run: str, p: dict[str, Any]) -> Response:
    """Download several ranks on one timeline (Perfetto protobuf, or Chrome-trace JSON):
    each rank a process, clocks aligned, the advisor's evidence ranges as annotations."""
    entry = services().registry.get(run)
    targets = {w: access.resolve(run, w, p.get("span")) for w in entry.run.workers}
    found = []
    for position, (worker, target) in enumerate(targets.items()):
        trace = access.trace(target)
        found.append(RankInput(rank_number(trace, position), worker, trace))
    try:
        picked = pick_ranks(distinct_ranks(found), parse_ranks(p["ranks"]))
    except ValueError as exc:
        raise ApiError(400, "bad_parameter", f"ranks: {exc}", parameter="ranks") from None
    ranks: list[RankInput] = []
    missing: list[str] = []
    for r in picked:
        try:  # the advice follows the analysis; a rank without it yet has no annotations
            notes = annotations_of(access.advice(targets[r.worker]))
        except ApiError as exc:
            if exc.status != 409:
                raise
            notes = ()
            missing.append(r.worker)
        ranks.append(RankInput(r.rank, r.worker, r.trace, notes))
    window = None
    if "start_ns" in p or "end_ns" in p:
        window = (p.get("start_ns", 0), p.get("end_ns", 1 << 62))
    try:
        merged = merge(ranks, window)
    except ValueError as exc:
        raise ApiError(400, "bad_parameter", f"start_ns: {exc}", parameter="start_ns") from None
    headers = {"X-Clock-Alignment": merged.alignment.method}
    if missing:
        headers["X-Advice-Missing"] = ",".join(missing)
    mime = "application/json" if p["format"] == "json" else "application/octet-stream"
    name = file_stem(entry.name, "timeline", default="download") + SUFFIX[p["format"]]
    return download(lambda path: write_merged(merged, path, p["format"]), name, mime, headers)
