"""Events as begin/end edges that nest: what a Perfetto slice track requires.

A Perfetto track is a stack: an end closes the innermost open slice. Real traces do not
always nest: Ascend's hardware streams hold tasks that overlap by a few hundred ns, and a
`record_function` can start before the `ProfilerStep` it opens and end inside it. Written
as they are, the trace processor would close the wrong slice and every later one on the
track would be misplaced. So each track's events are first given lanes (`nest_lanes`): an
event goes on the first lane where it nests, else on a new one, drawn as its own track
("Stream 4 (overlap 1)"). Then the edges are ordered (`slice_edges`).

Both orders are the same: events by (track, start, longer first, position).
"""

from __future__ import annotations

import numpy as np
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

BEGIN, END, INSTANT = (
    pb.TrackEvent.TYPE_SLICE_BEGIN,
    pb.TrackEvent.TYPE_SLICE_END,
    pb.TrackEvent.TYPE_INSTANT,
)
#: Events handled per Python step of the lane assignment (bounds its transient lists).
LANE_CHUNK = 1 << 16


def nest_lanes(track: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per event, the lane of its track where it nests (0 for every event of a well nested
    track). A range ending exactly where another starts does not contain it (the edge
    order puts ends first), except a zero-length range at its start."""
    n = len(start)
    lanes = np.zeros(n, dtype=np.int32)
    if n == 0:
        return lanes
    order = np.lexsort((np.arange(n), -end, start, track))
    stacks: list[list[int]] = []
    current = None
    for lo in range(0, n, LANE_CHUNK):
        part = order[lo : lo + LANE_CHUNK]
        found = np.zeros(len(part), dtype=np.int32)
        rows = zip(track[part].tolist(), start[part].tolist(), end[part].tolist(), strict=True)
        for k, (t, s, e) in enumerate(rows):
            if t != current:
                current, stacks = t, []
            for lane, stack in enumerate(stacks):
                while stack and stack[-1] <= s:
                    stack.pop()
                if not stack or stack[-1] >= e:
                    stack.append(e)
                    found[k] = lane
                    break
            else:
                stacks.append([e])
                found[k] = len(stacks) - 1
        lanes[part] = found
    return lanes


def slice_edges(track: np.ndarray, start: np.ndarray, end: np.ndarray,
                instant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The begin/end edges of events in an order a nesting timeline accepts.

    Returns (event position, edge type, ts), sorted by time; at one instant, on one track:
    ends of ranges before begins (a range ending where the next starts is its sibling),
    inner ends first, outer begins first, and a zero-length range's begin right before its
    end (after the begins there: it nests in a range starting at the same instant).
    Instants are one edge each.
    """
    n = len(start)
    idx = np.arange(n, dtype=np.int32)  # narrow columns: 2 n edges of a 1 M-event rank
    zero = (end == start) & ~instant
    pos = ~zero & ~instant
    keep = np.concatenate([np.ones(n, dtype=bool), ~instant])
    ev = np.concatenate([idx, idx])[keep]
    kind = np.concatenate([np.where(instant, INSTANT, BEGIN), np.full(n, END)]).astype(np.int8)
    kind = kind[keep]
    ts = np.concatenate([start, end])[keep]
    cls = np.concatenate([np.where(zero | instant, 2, 1), np.where(zero, 2, 0)]).astype(np.int8)
    cls = cls[keep]
    k1 = np.concatenate([np.where(pos, -end, idx), np.where(pos, -start, idx)])[keep]
    k2 = np.concatenate([np.where(pos, idx, 0), np.where(pos, -idx, 1)]).astype(np.int32)[keep]
    trk = np.concatenate([track, track]).astype(np.int32)[keep]
    order = np.lexsort((k2, k1, cls, trk, ts))
    del k1, k2, cls, trk
    return ev[order], kind[order], ts[order]
