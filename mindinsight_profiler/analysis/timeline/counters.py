"""Counter tracks of a timeline window: memory and device busy share, per pixel bucket.

The track view draws each counter as a step chart under the threads of its process group.
Both kinds of series use the window's own buckets (2**k ns aligned on the origin, the
events' level of detail), so a counter never shows finer or coarser detail than the events
above it, and a series has at most two points per bucket whatever the trace's size:

- memory (allocated and reserved bytes of each device's ledger, analysis/memory/ledger.py):
  each bucket holding samples gets the MAXIMUM the curve takes in it (the level in force
  when the bucket opens and every sample in it), so a peak survives any downsampling: the
  whole-trace window shows the trace's peak. When the bucket closes lower, a second point
  at the bucket's end gives the level it closes on (a step chart holds a value until the
  next point).
- device busy: per device process group, the share of each bucket covered by the union of
  its kernels, copies and sets on all its streams (overlapping streams count once), 0..1.
  Only the events overlapping the window are read, found by the timeline index's binary
  searches, and the union is one sort and running maximum over them.
- device queue (MindSpore on Ascend, `minddata_aicpu`'s GetNext records: the chip's data
  queue size at each dequeue, on the device clock as the events): each bucket's MINIMUM,
  so an empty queue (the device starved of data) survives downsampling. The host queue
  samples (`data_queue_size`) carry steps, not times, and are not drawn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.memory.ledger import Ledger
from mindinsight_profiler.analysis.timeline.index import CLASSES, TimelineIndex
from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace

#: Counter names (the UI translates them) and units.
MEMORY_SERIES = (("memory_allocated", "allocated"), ("memory_reserved", "reserved"))
DEVICE_BUSY = "device_busy"
DEVICE_QUEUE = "device_queue"


def _buckets(t0: int, t1: int, k: int, origin: int) -> np.ndarray:
    """Absolute edges of the 2**k buckets (aligned on `origin`) meeting [t0, t1)."""
    lo = (t0 - origin) >> k
    hi = ((t1 - 1 - origin) >> k) + 1
    return origin + (np.arange(lo, hi + 1, dtype=np.int64) << k)


def step_extremes(ts: np.ndarray, values: np.ndarray, edges: np.ndarray,
                  lowest: bool = False) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(times, values) of a step curve sampled at `ts` (sorted), in buckets `edges`.

    Each bucket with samples: the max of the level at its start and its samples (peaks
    survive), then, if it closes lower, the closing level at its end. The level in force
    when the window opens starts the series. Negative values (unknown) are skipped. With
    `lowest`, the min instead (a queue's emptiest moment: starvation survives).
    """
    known = values >= 0
    ts, values = ts[known], values[known]
    if lowest and len(values):
        top = values.max()  # top - v is >= 0 (known) and its max is v's min
        times, flipped = step_extremes(ts, top - values, edges)
        return times, top - flipped
    lo, hi = np.searchsorted(ts, [edges[0], edges[-1]], side="left")
    before = lo - 1  # the level in force at the window's start
    seg_ts, seg_v = ts[lo:hi], values[lo:hi]
    # (time, value, priority): at one time the later priority wins (a bucket's own max
    # over the closing level of the bucket before it, over the level at the window's start)
    parts: list[tuple[np.ndarray, np.ndarray, int]] = []
    if before >= 0:
        parts.append((edges[:1], values[before : before + 1], 0))
    if len(seg_ts):
        b = np.searchsorted(edges, seg_ts, side="right") - 1
        heads = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
        top = np.maximum.reduceat(seg_v, heads)
        prev = np.append(values[before] if before >= 0 else -1, seg_v)[heads]  # level at open
        top = np.maximum(top, prev)
        last = seg_v[np.append(heads[1:], len(seg_v)) - 1]
        drop = last < top
        parts.append((edges[b[heads] + 1][drop], last[drop], 1))
        parts.append((edges[b[heads]], top, 2))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    t = np.concatenate([p[0] for p in parts])
    v = np.concatenate([p[1] for p in parts])
    pri = np.concatenate([np.full(len(p[0]), p[2]) for p in parts])
    order = np.lexsort((pri, t))
    t, v = t[order], v[order]
    keep = np.append(t[1:] != t[:-1], True)
    return t[keep], v[keep]


def _device_events(trace: Trace, index: TimelineIndex, tracks: np.ndarray, t0: int,
                   t1: int) -> np.ndarray:  # fmt: skip
    """Events of `tracks` overlapping [t0, t1) (any length), by the index's searches."""
    ev = index["timeline_events"]
    groups = (tracks[:, None] * CLASSES + np.arange(CLASSES)[None, :]).ravel()
    g_lo = np.searchsorted(ev["group"], groups, side="left")
    g_hi = np.searchsorted(ev["group"], groups, side="right")
    parts = []
    for g in np.flatnonzero(g_hi > g_lo).tolist():  # one binary search per (track, class)
        lo, hi = int(g_lo[g]), int(g_hi[g])
        starts = ev["start_ns"][lo:hi]
        after = t0 - (1 << min(int(groups[g] % CLASSES) + 1, 62))
        a = lo + int(np.searchsorted(starts, after, side="right"))
        b = lo + int(np.searchsorted(starts, t1, side="left"))
        parts.append(ev["event"][a:b])
    found = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    found = found[is_kind(trace.events["kind"][found], DEVICE_KINDS)]
    return found[trace.events["end_ns"][found] > t0]


def busy_share(start: np.ndarray, end: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Share of each bucket [edges[i], edges[i+1]) covered by the union of the intervals."""
    busy = iv.union(start, end)
    return iv.overlap_per_window(busy, edges[:-1], edges[1:]) / np.diff(edges)


def _device_number(label: str) -> str | None:
    found = re.search(r":(\d+)", label)
    return found.group(1) if found else None


def _device_groups(trace: Trace, pids: list[str]) -> list[str]:
    return [p for p in pids if any(t.is_device for t in trace.tracks if t.pid == p)]


def _memory_group(trace: Trace, ledger: Ledger, pids: list[str]) -> str | None:
    """The process group a device's memory is drawn under: its device's (pid or name
    ending in its number), else the first device group; host memory under the first host
    group."""
    device_groups = _device_groups(trace, pids)
    if ledger.device.upper().startswith("CPU"):
        host = [p for p in pids if p not in device_groups]
        return host[0] if host else (pids[0] if pids else None)
    number = _device_number(ledger.device)
    for p in device_groups:
        names = {t.process_name.strip() for t in trace.tracks if t.pid == p}
        if number is not None and (p == number or any(n.endswith(f" {number}") for n in names)):
            return p
    return device_groups[0] if device_groups else (pids[0] if pids else None)


def window_counters(
    trace: Trace,
    index: TimelineIndex,
    ledgers: Sequence[Ledger],
    tracks: np.ndarray,
    t0: int,
    t1: int,
    k: int,
) -> list[dict[str, Any]]:
    """Counter series of the groups of `tracks` in [t0, t1) at buckets of 2**k ns.

    Times are ns from the timeline's origin; a group is the pid its tracks share.
    """
    origin = int(index["timeline_meta"]["origin_ns"][0])
    edges = _buckets(t0, t1, k, origin)
    pids = list(dict.fromkeys(trace.tracks[t].pid for t in tracks.tolist()))
    out: list[dict[str, Any]] = []
    for pid in pids:
        mine = np.array([t for t in tracks.tolist() if trace.tracks[t].pid == pid], np.int64)
        if not any(trace.tracks[t].is_device for t in mine.tolist()):
            continue
        ev = _device_events(trace, index, mine, edges[0], edges[-1])
        if not np.isin(index["timeline_rows"]["track"], mine).any():
            continue  # no events at all: a group the view leaves out
        share = busy_share(trace.events["start_ns"][ev], trace.events["end_ns"][ev], edges)
        keep = np.append(True, share[1:] != share[:-1])
        out.append({"group": pid, "name": DEVICE_BUSY, "device": "", "unit": "ratio",
                    "times": (edges[:-1][keep] - origin).tolist(),
                    "values": np.round(share[keep], 4).tolist()})  # fmt: skip
    for ledger in ledgers:
        group = _memory_group(trace, ledger, pids)
        if group is None:
            continue
        for name, column in MEMORY_SERIES:
            values = getattr(ledger, column)
            if not len(values) or (values < 0).all():
                continue  # this total is not recorded
            times, vals = step_extremes(ledger.ts_ns, values, edges)
            out.append({"group": group, "name": name, "device": ledger.device, "unit": "bytes",
                        "times": (times - origin).tolist(), "values": vals.tolist()})  # fmt: skip
    getnext = trace.tables.get("getnext")
    device = _device_groups(trace, pids)
    if getnext is not None and len(getnext["end_ns"]) and device:
        order = np.argsort(getnext["end_ns"], kind="stable")  # one row per step: small
        times, vals = step_extremes(getnext["end_ns"][order], getnext["queue_size"][order],
                                    edges, lowest=True)  # fmt: skip
        out.append({"group": device[0], "name": DEVICE_QUEUE, "device": "", "unit": "count",
                    "times": (times - origin).tolist(), "values": vals.tolist()})  # fmt: skip
    return out
