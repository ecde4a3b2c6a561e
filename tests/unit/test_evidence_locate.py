"""Where an evidence range lands on the timeline (analysis/timeline/locate.py), on a hand-made
trace: one host thread and three device streams whose work is known to the nanosecond."""

from __future__ import annotations

from mindinsight_profiler.analysis.timeline.locate import MAX_TRACKS, NEAR_NS, EvidenceLocator
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

HOST, S7, S8, S9 = 0, 1, 2, 3
#: (track, start, end, name, kind, parent)
ROWS = [
    (HOST, 0, 100, "ProfilerStep#1", Kind.USER_ANNOTATION, -1),
    (HOST, 10, 40, "aten::copy_", Kind.CPU_OP, 0),
    (HOST, 10, 40, "aten::_to_copy", Kind.CPU_OP, 1),  # same range as its parent
    (S7, 20, 60, "Memcpy HtoD", Kind.MEMCPY, -1),
    (S7, 80, 95, "gemm", Kind.KERNEL, -1),
    (S8, 30, 50, "relu", Kind.KERNEL, -1),
    (HOST, 200, 210, "cudaLaunchKernel", Kind.RUNTIME, -1),  # the range of "late", on the host
    (S9, 200, 210, "late", Kind.KERNEL, -1),
    (HOST, 300, 400, "DataLoader.__next__", Kind.CPU_OP, -1),
]


def trace(rows: list[tuple[int, int, int, str, Kind, int]] = ROWS) -> Trace:
    strings = StringTable()
    ev = empty_columns(EVENT_COLUMNS, len(rows))
    for i, (track, start, end, name, kind, parent) in enumerate(rows):
        ev["track"][i], ev["start_ns"][i], ev["end_ns"][i] = track, start, end
        ev["name"][i], ev["kind"][i], ev["parent"][i] = strings.intern(name), kind, parent
    tracks = [Track("1", "main", "host", "main")] + [
        Track("0", f"stream {s}", "GPU 0", f"stream {s}", is_device=True) for s in (7, 8, 9)
    ]
    return Trace(ev, empty_columns(MEMORY_COLUMNS, 0), empty_columns(FLOW_COLUMNS, 0), strings,
                 tracks)  # fmt: skip


def test_exact_range_is_the_named_event_else_device_work_else_outermost() -> None:
    loc = EvidenceLocator(trace())
    assert loc.event(10, 40, "aten::_to_copy") == 2  # the name wins over the outer op
    assert loc.event(10, 40, None) == 1  # no name: the outermost
    assert loc.event(20, 60, "aten::copy_") == 3  # the copy on the device, named by its op
    assert loc.event(200, 210) == 7  # no name: the device's kernel, not the host's call
    assert loc.event(200, 210, "cudaLaunchKernel") == 6
    assert loc.event(60, 80) is None  # a gap is no event
    assert loc.event(10, 41) is None  # exact only


def test_a_named_range_a_little_off_is_its_event_within_near_ns() -> None:
    """A side table's range (torch_npu's communication.json: epoch us as doubles) can be a
    few hundred ns off its trace event: the event named like it, each end within NEAR_NS."""
    far = NEAR_NS + 1
    rows = [*ROWS, (S8, 5000, 9000, "hcom_allReduce__586_0_1", Kind.KERNEL, -1),
            (S9, 5100, 9100, "hcom_allReduce__586_0_1", Kind.KERNEL, -1)]  # fmt: skip
    loc = EvidenceLocator(trace(rows))
    assert loc.event(4844, 8844, "hcom_allReduce__586_0_1") == 9  # 156 ns early: the nearer
    assert loc.event(5150, 9150, "hcom_allReduce__586_0_1") == 10
    assert loc.event(4844, 8844, None) is None  # unnamed: exact only
    assert loc.event(4844, 8844, "other") is None  # another name: none
    assert loc.event(5000 - far, 9000, "hcom_allReduce__586_0_1") is None  # too far off
    assert loc.event(5000, 9000 + far + 100, "hcom_allReduce__586_0_1") is None


def test_tracks_are_device_tracks_touching_the_range_busiest_first() -> None:
    loc = EvidenceLocator(trace())
    # [25, 55]: stream 7 busy 30 ns (20-60), stream 8 20 ns (30-50); stream 9 not there
    assert loc.device_tracks(25, 55) == [S7, S8]
    # the gap 60-80 on stream 7 touches its work at both edges
    assert loc.device_tracks(60, 80) == [S7]
    # no device work near 300-400: the stream whose work comes nearest (ends at 210)
    assert loc.device_tracks(300, 400) == [S9]


def test_place_puts_a_device_event_first_and_a_host_event_last() -> None:
    loc = EvidenceLocator(trace())
    copy = loc.place(20, 60, "aten::copy_")
    assert copy.event == 3 and copy.tracks == [S7, S8]
    op = loc.place(10, 40, "aten::copy_")  # the host op: the devices' streams, then its thread
    assert op.event == 1 and op.tracks == [S7, S8, HOST]
    loader = loc.place(300, 400, "DataLoader.__next__")
    assert loader.event == 8 and loader.tracks == [S9, HOST]
    assert len(loc.place(0, 100).tracks) <= MAX_TRACKS


def test_a_trace_without_device_work_names_the_host_track_only() -> None:
    """A CPU-only trace (torch on CPU): no device track to show, the event's own thread."""
    host_only = [r for r in ROWS if r[0] == HOST]
    loc = EvidenceLocator(trace(host_only))
    assert loc.device_tracks(0, 1000) == []
    place = loc.place(300, 400, "DataLoader.__next__")
    assert place.tracks == [HOST] and host_only[place.event][3] == "DataLoader.__next__"
    assert loc.place(500, 600).tracks == [] and loc.place(500, 600).event is None
