"""The merged timeline's writers on hand-made ranks: every event comes back once, on its
track, with its name and its shifted times; overlapping events get lanes; windows, rank
selections and advisor annotations cut as documented; packets are written in chunks."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mindinsight_profiler.analysis.cluster.clock import ClockAlignment
from mindinsight_profiler.export import perfetto
from mindinsight_profiler.export.perfetto import RankCounts, track_label, write_perfetto
from mindinsight_profiler.export.perfetto_edges import nest_lanes
from mindinsight_profiler.export.ranks import (
    Annotation,
    MergedTimeline,
    RankInput,
    distinct_ranks,
    merge,
    parse_ranks,
    parse_window,
    pick_ranks,
)
from mindinsight_profiler.export.timeline_json import write_timeline_json
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    FLOW_COLUMNS,
    MEMORY_COLUMNS,
    Trace,
    Track,
    empty_columns,
)
from tests.perfetto_read import ReadBack, read_perfetto

T0 = 1_700_000_000_000_000_000
#: (track, start, end, name): nested, back to back, zero-length at a parent's start and
#: end, identical twins, an instant, and a partial overlap (needs a second lane).
ROWS = [
    (0, 0, 1000, "step"), (0, 0, 400, "fwd"), (0, 100, 200, "mm"), (0, 200, 300, "add"),
    (0, 400, 400, "mark"), (0, 0, 0, "begin"), (0, 1000, 1000, "after"),
    (1, 50, 60, "k"), (1, 50, 60, "k"), (1, 55, 80, "overlapping"), (1, 70, 70, "tick"),
    (1, 2000, 2600, "late"),
]  # fmt: skip


def make_rank(
    rank: int, shift: int = 0, notes: tuple[Annotation, ...] = (), k: str = "k"
) -> RankInput:
    """ROWS as rank `rank`'s events, `shift` ns later; `k` names the twin events."""
    strings = StringTable()
    ev = empty_columns(EVENT_COLUMNS, len(ROWS))
    for i, (track, start, end, name) in enumerate(ROWS):
        ev["track"][i], ev["name"][i] = track, strings.intern(k if name == "k" else name)
        ev["start_ns"][i], ev["end_ns"][i] = T0 + shift + start, T0 + shift + end
        ev["kind"][i] = {"tick": Kind.INSTANT, "k": Kind.KERNEL}.get(name, Kind.CPU_OP)
    tracks = [Track("1", "1", "host", "main"), Track("0", "7", "GPU 0", "stream 7", True)]
    trace = Trace(ev, empty_columns(MEMORY_COLUMNS, 0), empty_columns(FLOW_COLUMNS, 0), strings,
                  tracks, meta={"distributed_info": {"rank": rank}})  # fmt: skip
    return RankInput(rank, f"w{rank}", trace, notes)


def expected(merged: MergedTimeline, i: int) -> Counter[tuple[str, str, int, int]]:
    """(track label, name, start, end) of rank i's events in the window, from the model."""
    r, off = merged.ranks[i], merged.alignment.offsets_ns[i]
    ev = r.trace.events
    return Counter(
        (track_label(r.trace.tracks[int(ev["track"][j])]), r.trace.strings[int(ev["name"][j])],
         int(ev["start_ns"][j]) + off, int(ev["end_ns"][j]) + off)
        for j in merged.rows(i)
    )  # fmt: skip


def read_rank(rb: ReadBack, label: str) -> tuple[Counter[tuple[str, str, int, int]], list]:
    proc = rb.process_of(label)
    got: Counter[tuple[str, str, int, int]] = Counter()
    notes = []
    for uuid, name in rb.children(proc).items():
        for s in rb.slices.get(uuid, []):
            if name.startswith("advisor"):
                notes.append((name, s.name, s.start_ns, s.end_ns))
            else:
                base = re.sub(r" \(overlap \d+\)$", "", name)
                got[(base, s.name, s.start_ns, s.end_ns)] += 1
    return got, sorted(notes)


def aligned(
    ranks: list[RankInput], offsets: list[int], window: tuple[int, int] | None = None
) -> MergedTimeline:
    """A MergedTimeline with planted offsets (the clock module is tested on its own)."""
    origin = min(
        int(r.trace.events["start_ns"].min()) + o for r, o in zip(ranks, offsets, strict=True)
    )
    lo, hi = window or (0, 1 << 62)
    return MergedTimeline(tuple(ranks), ClockAlignment(offsets, "collectives", 1), origin,
                          origin + lo, origin + hi)  # fmt: skip


def test_every_event_comes_back_once_nested_named_and_shifted(tmp_path: Path) -> None:
    notes = (Annotation("gaps: idle 1", T0 + 7_000_100, T0 + 7_000_300),
             Annotation("gaps: idle 2", T0 + 7_000_200, T0 + 7_000_500))  # fmt: skip
    ranks = [make_rank(0), make_rank(3, shift=7_000_000, notes=notes)]
    merged = aligned(ranks, [0, -6_999_000])
    counts = write_perfetto(merged, tmp_path / "t.pftrace")
    rb = read_perfetto(tmp_path / "t.pftrace")
    assert sorted(rb.processes.values()) == ["rank 0 (w0)", "rank 3 (w3)"]
    assert sorted(rb.pids.values()) == [1, 4]
    for i, r in enumerate(ranks):
        got, advisor = read_rank(rb, r.label)
        assert got == expected(merged, i) and sum(got.values()) == len(ROWS)
        assert counts[i].slices == len(ROWS) and counts[i].tracks == {
            "host / main": 7, "GPU 0 / stream 7": 5}  # fmt: skip
        names = set(rb.children(rb.process_of(r.label)).values())
        # the partial overlap went to a second lane of its stream; the rest nest
        assert "GPU 0 / stream 7 (overlap 1)" in names and "host / main (overlap 1)" not in names
    _, advisor = read_rank(rb, "rank 3 (w3)")
    # shifted by the rank's offset, the overlapping second on a lane of its own
    assert advisor == [("advisor", "gaps: idle 1", T0 + 1100, T0 + 1300),
                       ("advisor 2", "gaps: idle 2", T0 + 1200, T0 + 1500)]  # fmt: skip
    depth = {s.name: s.depth for slices in rb.slices.values() for s in slices}
    # zero-length ranges nest in what starts with them, follow what ends with them
    assert depth["mm"] == 2 and depth["fwd"] == 1 and depth["begin"] == 2 and depth["mark"] == 1
    assert depth["after"] == 0


def test_names_are_interned_once_per_rank(tmp_path: Path) -> None:
    write_perfetto(aligned([make_rank(0)], [0]), tmp_path / "t.pftrace")
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    trace = pb.Trace.FromString((tmp_path / "t.pftrace").read_bytes())
    interned = [n.name for p in trace.packet for n in p.interned_data.event_names]
    assert sorted(interned) == sorted({r[3] for r in ROWS})
    assert all(not p.track_event.name for p in trace.packet if p.HasField("track_event"))


def test_a_window_cuts_whole_events_that_overlap_it(tmp_path: Path) -> None:
    ranks = [make_rank(0), make_rank(1, shift=50)]
    merged = aligned(ranks, [0, 0], window=(150, 1000))  # [T0+150, T0+1000)
    write_perfetto(merged, tmp_path / "w.pftrace")
    rb = read_perfetto(tmp_path / "w.pftrace")
    got, _ = read_rank(rb, "rank 0 (w0)")
    assert {k[1] for k in got} == {"step", "fwd", "mm", "add", "mark"}  # "after" starts at hi
    got, _ = read_rank(rb, "rank 1 (w1)")
    assert got == expected(merged, 1) and "k" not in {k[1] for k in got}  # k ends at 110


def test_merge_rejects_an_empty_window_and_aligns_itself() -> None:
    ranks = [make_rank(0), make_rank(1)]
    with pytest.raises(ValueError, match="holds no events"):
        merge(ranks, (5_000, 6_000))
    merged = merge(ranks, (0, 100))
    assert merged.alignment.method == "wall_clock" and merged.origin_ns == T0
    # step, fwd, begin (zero-length, at the start), k, k, overlapping, tick
    assert [len(merged.rows(i)) for i in (0, 1)] == [7, 7]
    with pytest.raises(ValueError, match="no rank"):
        merge([])


def test_rank_and_window_arguments() -> None:
    ranks = [make_rank(5), make_rank(0), make_rank(3)]
    assert [r.rank for r in pick_ranks(ranks, parse_ranks("all"))] == [0, 3, 5]
    assert [r.rank for r in pick_ranks(ranks, parse_ranks("5, 3"))] == [3, 5]
    with pytest.raises(ValueError, match=r"unknown rank 4 \(this run has 0, 3, 5\)"):
        pick_ranks(ranks, [4, 5])
    with pytest.raises(ValueError, match="'x' is not a rank"):
        parse_ranks("0,x")
    assert parse_window("1.5:2") == (1_500_000, 2_000_000)
    assert parse_window(":2") == (0, 2_000_000) and parse_window("3:")[0] == 3_000_000
    for bad in ("2:1", "1:1", "-1:3", "a:b", "12"):
        with pytest.raises(ValueError, match="--window"):
            parse_window(bad)
    twins = distinct_ranks([make_rank(0), make_rank(0)])
    assert [(r.rank, r.worker) for r in twins] == [(0, "w0"), (1, "w0")]


def test_lanes_only_where_events_do_not_nest() -> None:
    track = np.zeros(5, dtype=np.int64)
    start = np.array([0, 10, 20, 15, 40])
    end = np.array([100, 30, 25, 35, 40])  # [15, 35] overlaps [10, 30] without nesting
    assert nest_lanes(track, start, end).tolist() == [0, 0, 0, 1, 0]
    assert nest_lanes(track[:2], np.array([0, 5]), np.array([10, 10])).tolist() == [0, 0]
    assert nest_lanes(track[:2], np.array([0, 10]), np.array([10, 20])).tolist() == [0, 0]


def test_packets_are_written_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rank's events are never all packets at once: each chunk holds at most CHUNK."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    monkeypatch.setattr(perfetto, "CHUNK", 5)
    merged = aligned([make_rank(0)], [0])
    chunks = list(perfetto._rank_packets(merged, 0, RankCounts(0)))
    sizes = [len(pb.Trace.FromString(c).packet) for c in chunks[1:]]
    edges = 2 * len(ROWS) - 1  # one instant
    assert sum(sizes) == edges and max(sizes) == 5 and len(sizes) == -(-edges // 5)


def test_chrome_json_has_a_process_per_rank_and_reads_back(tmp_path: Path) -> None:
    notes = (Annotation("rule: evidence", T0 + 100, T0 + 900),)
    ranks = [make_rank(0), make_rank(2, shift=1000, notes=notes)]
    merged = aligned(ranks, [0, -500])
    counts = write_timeline_json(merged, tmp_path / "t.json")
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["clockAlignment"]["offsets_ns"] == {"0": 0, "2": -500}
    procs = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e.get("name") == "process_name"}  # fmt: skip
    assert procs == {0: "rank 0 (w0)", 2: "rank 2 (w2)"}
    slices = [e for e in doc["traceEvents"] if e["ph"] in ("X", "i")]
    advisor = [e for e in slices if e.get("cat") == "advisor"]
    assert len(advisor) == 1 and advisor[0]["ts"] == (T0 - 400) / 1000 and advisor[0]["pid"] == 2
    assert len(slices) == 2 * len(ROWS) + 1 and [c.slices for c in counts] == [12, 12]
    back = read_kineto(tmp_path / "t.json")
    assert len(back) == 2 * len(ROWS) + 1
    mm = back.events["start_ns"][back.names_matching(lambda s: s == "mm")]
    assert sorted(mm.tolist()) == [T0 + 100, T0 + 600]  # rank 2: +1000 on its clock, -500
    mm_end = back.events["end_ns"][back.names_matching(lambda s: s == "mm")]
    assert sorted(mm_end.tolist()) == [T0 + 200, T0 + 700]  # the end moves with the start


def test_ranks_moved_before_zero_move_together(tmp_path: Path) -> None:
    """Perfetto's timestamps are unsigned: when aligning would move an event before zero
    (rank 0's clock near zero, rank 1 ahead with an earlier event), every rank moves by
    the same amount, so their alignment is kept."""
    ranks = [make_rank(r, k="ncclKernel_AllReduce") for r in (0, 1)]
    first = ranks[0].trace.events
    first["start_ns"] -= T0  # rank 0: a clock near zero
    first["end_ns"] -= T0
    late = ranks[1].trace.names_matching(lambda s: s == "late")
    ranks[1].trace.events["start_ns"][late] = T0 - 5000  # before rank 1's collective
    ranks[1].trace.events["end_ns"][late] = T0 - 4000
    merged = merge(ranks)
    assert merged.alignment.method == "collectives" and merged.origin_ns == 0
    assert merged.alignment.offsets_ns == [5000, 5000 - T0]
    write_perfetto(merged, tmp_path / "t.pftrace")
    rb = read_perfetto(tmp_path / "t.pftrace")
    for i in range(2):
        got, _ = read_rank(rb, merged.ranks[i].label)
        assert got == expected(merged, i)
