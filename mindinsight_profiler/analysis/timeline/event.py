"""One timeline event in full, for the dashboard's details panel.

A window answer carries only what drawing needs (index, track, times, name, kind), so that
thousands of items stay small. A click asks for the rest of one event by its index: the
launch configuration and operator arguments from the typed columns, the ranges that
enclose it (`parent`), the launch chain above it (`caller`: device work -> runtime call ->
operator) and the work it launched. Everything is a lookup in the trace's columns; only
"what did this launch" and the event's drawn row scan one integer column each (~1 ms per
million events).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.timeline.window import KIND_NAMES, RESPONSE_VERSION
from mindinsight_profiler.model.trace import Trace

#: Longest parent or caller chain followed (a malformed trace could hold a cycle).
MAX_CHAIN = 64
#: Most launched events listed (a CPU operator can launch hundreds of kernels).
MAX_LAUNCHED = 50

#: Integer columns shown as arguments when present (>= 0): column -> answer key.
_INT_ARGS = {
    "device": "device",
    "stream": "stream",
    "regs": "registers_per_thread",
    "smem": "shared_memory_bytes",
    "ext_id": "external_id",
    "corr": "correlation",
}
#: Columns holding string codes: column -> answer key.
_TEXT_ARGS = {"grid": "grid", "block": "block", "input_dims": "input_dims",
              "input_types": "input_types"}  # fmt: skip
_FLOAT_ARGS = {"blocks_per_sm": "blocks_per_sm", "occupancy": "occupancy_pct"}


def _text(trace: Trace, code: int) -> str:
    return trace.strings[code] if 0 <= code < len(trace.strings) else ""


def brief(trace: Trace, i: int, origin_ns: int) -> dict[str, Any]:
    """Index, name, kind, track and times of event `i` (times relative to `origin_ns`)."""
    ev = trace.events
    start = int(ev["start_ns"][i])
    return {
        "index": i,
        "name": _text(trace, int(ev["name"][i])),
        "kind": KIND_NAMES[int(ev["kind"][i])] if int(ev["kind"][i]) < len(KIND_NAMES) else "",
        "track": int(ev["track"][i]),
        "start_ns": start - origin_ns,
        "dur_ns": int(ev["end_ns"][i]) - start,
    }


def _chain(trace: Trace, column: str, i: int, origin_ns: int) -> list[dict[str, Any]]:
    """Follow `column` (parent or caller) from event `i` upwards, nearest first."""
    links = trace.events[column]
    out: list[dict[str, Any]] = []
    seen = {i}
    j = int(links[i])
    while 0 <= j < len(links) and j not in seen and len(out) < MAX_CHAIN:
        out.append(brief(trace, j, origin_ns))
        seen.add(j)
        j = int(links[j])
    return out


def _args(trace: Trace, i: int) -> dict[str, Any]:
    """The event's arguments that the trace recorded (absent ones are left out)."""
    ev = trace.events
    out: dict[str, Any] = {}
    for col, key in _INT_ARGS.items():
        if int(ev[col][i]) >= 0:
            out[key] = int(ev[col][i])
    for col, key in _TEXT_ARGS.items():
        if int(ev[col][i]) >= 0:
            out[key] = _text(trace, int(ev[col][i]))
    for col, key in _FLOAT_ARGS.items():
        value = float(ev[col][i])
        if np.isfinite(value):
            out[key] = value
    stack = int(ev["call_stack"][i])
    if stack >= 0:  # Kineto and Ascend separate frames with ';' (Ascend adds CR LF)
        out["call_stack"] = [f.strip() for f in _text(trace, stack).split(";") if f.strip()]
    return out


def event_depth(index_events: dict[str, np.ndarray], i: int) -> int:
    """The nesting depth (drawn row within its track) of event `i` in the timeline index."""
    pos = np.flatnonzero(index_events["event"] == i)
    return int(index_events["depth"][pos[0]]) if len(pos) else 0


def event_details(
    trace: Trace, i: int, origin_ns: int, depth: int = 0, max_launched: int = MAX_LAUNCHED
) -> dict[str, Any]:
    """Everything the trace knows about event `i`; IndexError when there is no such event."""
    if not 0 <= i < len(trace):
        raise IndexError(f"no event {i}: the trace has {len(trace)}")
    ev = trace.events
    track = int(ev["track"][i])
    tr = trace.tracks[track] if 0 <= track < len(trace.tracks) else None
    launched = np.flatnonzero(ev["caller"] == i)
    info = None
    if tr is not None:
        info = {"id": track, "pid": tr.pid, "tid": tr.tid, "process_name": tr.process_name,
                "thread_name": tr.thread_name, "is_device": tr.is_device}  # fmt: skip
    return {
        "version": RESPONSE_VERSION,
        "origin_ns": origin_ns,
        **brief(trace, i, origin_ns),
        "category": _text(trace, int(ev["cat"][i])),
        "depth": depth,
        "track_info": info,
        "args": _args(trace, i),
        "parents": _chain(trace, "parent", i, origin_ns),
        "callers": _chain(trace, "caller", i, origin_ns),
        "launched": [brief(trace, int(j), origin_ns) for j in launched[:max_launched]],
        "launched_total": len(launched),
    }
