"""Several ranks on one Perfetto timeline: a native protobuf trace, written with Perfetto's
own message definitions (the `perfetto` package's `perfetto_trace_pb2`).

Layout: each rank is a process ("rank 3 (worker)"), its threads and streams tracks under it
(`TrackDescriptor` with the process track as parent), each event a `TYPE_SLICE_BEGIN` /
`TYPE_SLICE_END` pair on its track (instant events `TYPE_INSTANT`), and the advisor's
evidence ranges slices on the rank's "advisor" track (a second lane, "advisor 2", where
two ranges overlap). Launch arrows (a runtime call -> the kernel, copy or set it launched,
the model's `caller` link, as the dashboard draws them) are Perfetto flows: the call's
begin carries `flow_ids`, the device work's begin `terminating_flow_ids`, when both are in
the window. Each rank is one packet sequence whose first packet clears the
incremental state and interns the names its events use (`InternedData.event_names`):
an event packet carries a small integer, not its name, so the file stays small.

Timestamps are the events' own ns plus the rank's clock offset (`export.ranks`): absolute
on the reference rank's clock (Kineto's epoch ns stay epoch ns).

Memory: a rank's begin and end edges are ordered in numpy (a few int64 columns per
event); packets are built and written CHUNK edges at a time, so a million-event rank is
never a million Python objects at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from mindinsight_profiler.export.perfetto_edges import BEGIN, END, nest_lanes, slice_edges
from mindinsight_profiler.export.ranks import Annotation, MergedTimeline
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind
from mindinsight_profiler.model.trace import Track
from mindinsight_profiler.store.atomic import write_atomic

CHUNK = 1 << 15
_CLEARED = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
_NEEDS = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
#: Track uuids: the rank's process (rank + 1) << 32, its tracks below it, advisor lanes last.
_ADVISOR_BASE = 0xFFFF0000


@dataclass
class RankCounts:
    """What was written for one rank (the tests compare it with the model)."""

    rank: int
    slices: int = 0  # events written (slices and instants)
    tracks: dict[str, int] = field(default_factory=dict)  # track name -> events on it
    annotations: int = 0
    flows: int = 0  # launch arrows: a runtime call -> the device work it launched


def process_uuid(position: int) -> int:
    return (position + 1) << 32


def launch_flows(trace_caller: np.ndarray, kinds: np.ndarray, rows: np.ndarray,
                 base: int) -> tuple[dict[int, list[int]], dict[int, int]]:  # fmt: skip
    """Launch arrows among `rows` (sorted event indices): {position of the runtime call:
    flow ids it starts}, {position of the device work: the flow id it ends}. A flow is
    written only when both ends are in the window; ids are `base` + the device work's
    position, unique across ranks. A graph launch starts several."""
    caller = trace_caller[rows].astype(np.int64)
    device = np.flatnonzero(np.isin(kinds[rows], DEVICE_KINDS) & (caller >= 0))
    src = np.searchsorted(rows, caller[device])
    hit = src < len(rows)
    hit[hit] = rows[src[hit]] == caller[device[hit]]
    starts: dict[int, list[int]] = {}
    ends: dict[int, int] = {}
    for s_pos, d_pos in zip(src[hit].tolist(), device[hit].tolist(), strict=True):
        starts.setdefault(s_pos, []).append(base + d_pos)
        ends[d_pos] = base + d_pos
    return starts, ends


def track_label(track: Track) -> str:
    """A thread or stream as the timeline names it: "GPU 0 / stream 7"."""
    own = track.thread_name.strip() or track.tid
    return " / ".join(p for p in (track.process_name.strip(), own) if p) or "track"


def _lanes(annotations: list[Annotation]) -> list[int]:
    """A lane per annotation so that ranges on one lane never overlap (greedy, by start)."""
    ends: list[int] = []
    out = [0] * len(annotations)
    for i in sorted(range(len(annotations)), key=lambda k: annotations[k].start_ns):
        a = annotations[i]
        lane = next((k for k, e in enumerate(ends) if e <= a.start_ns), len(ends))
        if lane == len(ends):
            ends.append(a.end_ns)
        ends[lane] = a.end_ns
        out[i] = lane
    return out


def _head(merged: MergedTimeline, i: int, counts: RankCounts, vtracks: list[tuple[int, int]],
          used: np.ndarray) -> pb.Trace:  # fmt: skip
    """Rank i's process and track descriptors, interned names and advisor slices."""
    r = merged.ranks[i]
    seq, proc = i + 1, process_uuid(i)
    head = pb.Trace()
    add = head.packet.add
    process = pb.ProcessDescriptor(pid=r.rank + 1, process_name=r.label)
    add(
        trusted_packet_sequence_id=seq,
        track_descriptor=pb.TrackDescriptor(uuid=proc, process=process),
    )
    for v, (t, lane) in enumerate(vtracks):
        label = track_label(r.trace.tracks[t]) if t < len(r.trace.tracks) else "events"
        name = label if lane == 0 else f"{label} (overlap {lane})"
        add(
            trusted_packet_sequence_id=seq,
            track_descriptor=pb.TrackDescriptor(uuid=proc + 1 + v, parent_uuid=proc, name=name),
        )
    strings = r.trace.strings
    interned = pb.InternedData(
        event_names=[
            pb.EventName(iid=k + 1, name=strings[c] if c >= 0 else "")
            for k, c in enumerate(used.tolist())
        ]
    )
    add(
        trusted_packet_sequence_id=seq,
        sequence_flags=_CLEARED,
        incremental_state_cleared=True,
        interned_data=interned,
    )
    notes = merged.annotations(i)
    counts.annotations = len(notes)
    lanes = _lanes(notes)
    for lane in range(max(lanes, default=-1) + 1):
        name = "advisor" if lane == 0 else f"advisor {lane + 1}"
        add(
            trusted_packet_sequence_id=seq,
            track_descriptor=pb.TrackDescriptor(
                uuid=proc + _ADVISOR_BASE + lane, parent_uuid=proc, name=name
            ),
        )
    for a, lane in sorted(zip(notes, lanes, strict=True), key=lambda x: x[0].start_ns):
        uuid = proc + _ADVISOR_BASE + lane
        add(
            timestamp=max(a.start_ns, 0),
            trusted_packet_sequence_id=seq,
            track_event=pb.TrackEvent(
                type=BEGIN, track_uuid=uuid, name=a.name, categories=["advisor"]
            ),
        )
        add(
            timestamp=a.end_ns,
            trusted_packet_sequence_id=seq,
            track_event=pb.TrackEvent(type=END, track_uuid=uuid),
        )
    return head  # fmt: skip


def _rank_packets(merged: MergedTimeline, i: int, counts: RankCounts) -> Iterator[bytes]:
    """Serialized `Trace` chunks of rank i: its head (`_head`), then its events' edges."""
    r = merged.ranks[i]
    seq, proc = i + 1, process_uuid(i)
    off = merged.alignment.offsets_ns[i]
    ev = r.trace.events
    rows = merged.rows(i)
    names = ev["name"][rows]
    used = np.unique(names)
    iids = np.searchsorted(used, names) + 1
    loose = len(r.trace.tracks)  # events without a track get one of their own
    track = np.asarray(ev["track"][rows], dtype=np.int64)
    track = np.where((track < 0) | (track >= loose), loose, track)
    start, instant = ev["start_ns"][rows], ev["kind"][rows] == Kind.INSTANT
    end = np.where(instant, start, ev["end_ns"][rows])
    lane = nest_lanes(track, start, end).astype(np.int64)
    pairs, vtrack = np.unique(np.stack([track, lane], axis=1), axis=0, return_inverse=True)
    vtrack = vtrack.reshape(-1)
    vtracks = [(int(t), int(k)) for t, k in pairs]
    for t in np.unique(track).tolist():
        label = track_label(r.trace.tracks[t]) if t < loose else "events"
        counts.tracks[label] = counts.tracks.get(label, 0) + int((track == t).sum())
    counts.slices = len(rows)
    yield _head(merged, i, counts, vtracks, used).SerializeToString()

    who, kind, ts = slice_edges(vtrack, start, end, instant)
    track_uuid = proc + 1 + vtrack
    flow_starts, flow_ends = launch_flows(ev["caller"], ev["kind"], rows, (i + 1) << 40)
    counts.flows = len(flow_ends)
    for lo in range(0, len(who), CHUNK):
        out = pb.Trace()
        add = out.packet.add
        w = who[lo : lo + CHUNK]
        columns = (kind[lo : lo + CHUNK], ts[lo : lo + CHUNK] + off, track_uuid[w], iids[w], w)
        for typ, stamp, uuid, iid, w_pos in zip(*(c.tolist() for c in columns), strict=True):
            te = add(
                timestamp=stamp, trusted_packet_sequence_id=seq, sequence_flags=_NEEDS
            ).track_event
            te.type, te.track_uuid = typ, uuid  # setting fields: half the time of a kwargs copy
            if typ != END:
                te.name_iid = iid
                if w_pos in flow_starts:
                    te.flow_ids.extend(flow_starts[w_pos])
                if w_pos in flow_ends:
                    te.terminating_flow_ids.append(flow_ends[w_pos])
        yield out.SerializeToString()


def write_perfetto(merged: MergedTimeline, path: str | Path) -> list[RankCounts]:
    """Write the merged timeline to `path` (renamed into place when complete)."""
    counts = [RankCounts(r.rank) for r in merged.ranks]
    write_atomic(Path(path), lambda f: _write(f, merged, counts), "wb", shared=True)
    return counts


def _write(f: IO[bytes], merged: MergedTimeline, counts: list[RankCounts]) -> None:
    for i in range(len(merged.ranks)):
        for chunk in _rank_packets(merged, i, counts[i]):
            f.write(chunk)
