"""Read a Perfetto protobuf trace back with Perfetto's own message definitions, and check
what its trace processor would need: names resolved through each sequence's interned
data, every slice's end closing the innermost open slice of its track, in time order.

Not a trace processor (that needs a binary download): a strict reader of the subset our
exporter writes (process and child track descriptors, slice begin/end, instants, flows:
each id started once and ended once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


@dataclass
class Slice:
    name: str
    start_ns: int
    end_ns: int
    depth: int


@dataclass
class ReadBack:
    processes: dict[int, str] = field(default_factory=dict)  # uuid -> process name
    pids: dict[int, int] = field(default_factory=dict)  # process uuid -> pid
    tracks: dict[int, tuple[int, str]] = field(default_factory=dict)  # uuid -> (parent, name)
    slices: dict[int, list[Slice]] = field(default_factory=dict)  # track uuid -> slices
    flow_starts: dict[int, tuple[int, int]] = field(default_factory=dict)  # id -> (track, ts)
    flow_ends: dict[int, tuple[int, int]] = field(default_factory=dict)

    def process_of(self, name: str) -> int:
        (uuid,) = [u for u, n in self.processes.items() if n == name]
        return uuid

    def children(self, process: int) -> dict[int, str]:
        return {u: n for u, (p, n) in self.tracks.items() if p == process}


def read_perfetto(path: Path) -> ReadBack:
    """Parse and check the file (AssertionError on any violation)."""
    trace = pb.Trace.FromString(path.read_bytes())
    out = ReadBack()
    names: dict[int, dict[int, str]] = {}  # sequence -> iid -> name
    cleared: set[int] = set()
    open_: dict[int, list[tuple[str, int]]] = {}
    last_ts: dict[int, int] = {}
    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        assert seq > 0
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.HasField("process"):
                out.processes[d.uuid] = d.process.process_name
                out.pids[d.uuid] = d.process.pid
            else:
                assert d.parent_uuid in out.processes, "a track before its process"
                out.tracks[d.uuid] = (d.parent_uuid, d.name)
            continue
        if p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            cleared.add(seq)
            names[seq] = {}
        if p.HasField("interned_data"):
            for n in p.interned_data.event_names:
                names[seq][n.iid] = n.name
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        if p.sequence_flags & pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE:
            assert seq in cleared, "interned names used before the state was cleared"
        assert te.track_uuid in out.tracks, f"slice on an undeclared track {te.track_uuid}"
        ts = p.timestamp
        assert ts >= last_ts.get(te.track_uuid, 0), "a track's packets go back in time"
        last_ts[te.track_uuid] = ts
        stack = open_.setdefault(te.track_uuid, [])
        if te.type == pb.TrackEvent.TYPE_SLICE_END:
            assert stack, "an end without a begin"
            name, start = stack.pop()
            out.slices.setdefault(te.track_uuid, []).append(Slice(name, start, ts, len(stack)))
            continue
        name = names[seq][te.name_iid] if te.HasField("name_iid") else te.name
        for fid in te.flow_ids:
            assert fid not in out.flow_starts, f"flow {fid} started twice"
            out.flow_starts[fid] = (te.track_uuid, ts)
        for fid in te.terminating_flow_ids:
            assert fid not in out.flow_ends, f"flow {fid} ended twice"
            out.flow_ends[fid] = (te.track_uuid, ts)
        if te.type == pb.TrackEvent.TYPE_INSTANT:
            out.slices.setdefault(te.track_uuid, []).append(Slice(name, ts, ts, len(stack)))
        else:
            assert te.type == pb.TrackEvent.TYPE_SLICE_BEGIN
            stack.append((name, ts))
    assert not any(open_.values()), "slices left open"
    assert out.flow_starts.keys() == out.flow_ends.keys(), "a flow without its other end"
    return out
