"""Memory in a time window: the curve at a resolution for the window, the allocations made
(or alive) in it and per-operator statistics, for the dashboard's zoomable memory page.

The whole-trace section stays `GET /runs/<run>/memory` (routes/sections.py). These routes
read the memory-mapped cached trace; each device's ledger (analysis/memory/ledger.py) is
built once per process and kept with the trace (`access.derived`). Times in parameters and
answers are ns relative to the trace's origin, like the timeline's, and may be negative
(allocator records can start before the first event).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from mindinsight_profiler.analysis.memory.ledger import Ledger, default_device
from mindinsight_profiler.analysis.memory.npu_modules import npu_module_memory
from mindinsight_profiler.analysis.memory.window import (
    EVENT_SORTS,
    OPERATOR_SORTS,
    curve_window,
    events_page,
    full_range,
    operators_window,
    window_allocations,
    window_summary,
)
from mindinsight_profiler.analysis.text_match import name_matcher
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.server.routes.common import endpoint
from mindinsight_profiler.server.routes.tables import page_rows
from mindinsight_profiler.server.services import services

bp = Blueprint("memory", __name__)

#: Why a table is empty: the input has no memory records at all (profiling without
#: profile_memory), or the device has totals only (an Ascend component curve).
NO_MEMORY = "no_memory_data"
CURVE_ONLY = "no_allocation_events"


def _bad(name: str, message: str) -> ApiError:
    return ApiError(400, "bad_parameter", f"{name}: {message}", parameter=name)


def _device(ledgers: list[Ledger], device: str | None) -> Ledger | None:
    """The asked device (404 when the worker has no such device), else the default one."""
    if device is None:
        return default_device(ledgers)
    for ledger in ledgers:
        if ledger.device == device:
            return ledger
    raise ApiError(404, "not_found", f"device {device!r} not in this worker's memory",
                   parameter="device")  # fmt: skip


def _window(p: dict[str, Any], ledger: Ledger, origin: int) -> tuple[int, int]:
    """Absolute [t0, t1) from the relative parameters; each defaults to the device's edge."""
    lo, hi = full_range(ledger)
    t0 = origin + p["start_ns"] if "start_ns" in p else lo
    t1 = origin + p["end_ns"] if "end_ns" in p else hi
    if t1 <= t0:
        name = "start_ns" if "start_ns" in p else "end_ns"
        raise _bad(name, f"the window is empty (the device's samples end at {hi - origin})")
    return t0, t1


def _start(run: str, p: dict[str, Any]) -> tuple[access.Target, list[Ledger], Ledger | None]:
    target = access.resolve(run, p.get("worker"), p.get("span"))
    ledgers = access.memory_ledgers_of(target)
    return target, ledgers, _device(ledgers, p.get("device"))


def _device_row(ledger: Ledger) -> dict[str, Any]:
    return {"device": ledger.device, "source": ledger.source, "pairing": ledger.pairing,
            "samples": len(ledger.ts_ns), "allocations": len(ledger.alloc_ns)}  # fmt: skip


@endpoint(bp, "/runs/<run>/memory/curve", schemas.MemoryCurveQuery, schemas.MemoryCurve)
def memory_curve(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """A device's allocated/reserved curve in a window, its exact peaks and a summary."""
    target, ledgers, ledger = _start(run, p)
    modules = npu_module_memory(access.trace(target)) or []
    out: dict[str, Any] = {**target.where(), "devices": [_device_row(d) for d in ledgers],
                           "max_points": p["max_points"], "npu_modules": modules}  # fmt: skip
    if ledger is None:
        return {**out, "device": None, "reason": NO_MEMORY, "range_ns": None, "window_ns": None,
                "curve": None, "summary": None}  # fmt: skip
    origin = access.origin_ns(target)
    lo, hi = full_range(ledger)
    t0, t1 = _window(p, ledger, origin)
    strings = access.trace(target).strings
    return {
        **out,
        "device": ledger.device,
        "reason": None if ledger.has_events else CURVE_ONLY,
        "range_ns": [lo - origin, hi - origin],
        "window_ns": [t0 - origin, t1 - origin],
        "curve": curve_window(ledger, t0, t1, p["max_points"], origin, strings),
        "summary": {**window_summary(ledger, t0, t1), "pairing": ledger.pairing},
    }


def _empty_page(p: dict[str, Any], sort: str, ledger: Ledger | None) -> dict[str, Any]:
    return {"sort": sort, "order": p["order"], "total": 0, "offset": p["offset"],
            "limit": p["limit"], "rows": [], "total_bytes": 0,
            "reason": NO_MEMORY if ledger is None else CURVE_ONLY}  # fmt: skip


@endpoint(bp, "/runs/<run>/memory/events", schemas.MemoryEventsQuery, schemas.MemoryPage)
def memory_events(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Allocations made (or alive) in a window: operator, size, allocation and release time,
    duration; sorted, searched by operator and paged."""
    limit = schemas.cap("limit", p["limit"], services().settings.max_page_size)
    sort = p.get("sort") or "bytes"
    if sort not in EVENT_SORTS:
        raise _bad("sort", f"must be one of {', '.join(EVENT_SORTS)}")
    target, _, ledger = _start(run, p)
    out: dict[str, Any] = {**target.where(), "mode": p["mode"],
                           "device": ledger.device if ledger else None}  # fmt: skip
    if ledger is None or not ledger.has_events:
        return {**out, **_empty_page(p, sort, ledger), "window_ns": None, "pairing": None}
    origin = access.origin_ns(target)
    t0, t1 = _window(p, ledger, origin)
    rows = window_allocations(ledger, t0, t1, p["mode"])
    page = events_page(ledger, rows, access.trace(target).strings, origin, sort=sort,
                       desc=p["order"] == "desc", search=p.get("search"),
                       offset=p["offset"], limit=limit)  # fmt: skip
    return {**out, **page, "sort": sort, "order": p["order"], "offset": p["offset"],
            "limit": limit, "reason": None, "pairing": ledger.pairing,
            "window_ns": [t0 - origin, t1 - origin]}  # fmt: skip


@endpoint(bp, "/runs/<run>/memory/operators", schemas.MemoryOperatorsQuery, schemas.MemoryPage)
def memory_operators(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Per operator in a window: allocations, frees, net increase, largest allocation and
    the most bytes held at once; sorted, searched by name and paged."""
    sort = p.get("sort") or "allocated_bytes"
    if sort not in OPERATOR_SORTS:
        raise _bad("sort", f"must be one of {', '.join(OPERATOR_SORTS)}")
    target, _, ledger = _start(run, p)
    out: dict[str, Any] = {**target.where(), "mode": "allocated",
                           "device": ledger.device if ledger else None}  # fmt: skip
    if ledger is None or not ledger.has_events:
        schemas.cap("limit", p["limit"], services().settings.max_page_size)
        return {**out, **_empty_page(p, sort, ledger), "window_ns": None, "pairing": None}
    if sort == "peak_held_bytes" and ledger.pairing == "none":
        raise _bad("sort", "peak_held_bytes is unknown on this device (releases are not known)")
    origin = access.origin_ns(target)
    t0, t1 = _window(p, ledger, origin)
    rows = operators_window(ledger, t0, t1, access.trace(target).strings)
    matches = name_matcher(p.get("search")) or (lambda _: True)
    total_bytes = sum(r["allocated_bytes"] for r in rows if matches(r["name"]))
    return {**out, **page_rows(rows, p, "allocated_bytes"), "reason": None,
            "pairing": ledger.pairing, "total_bytes": total_bytes,
            "window_ns": [t0 - origin, t1 - origin]}  # fmt: skip
