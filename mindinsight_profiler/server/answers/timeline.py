"""Answers of the timeline: a level-of-detail window, a name search and one event in full.

Producers: `analysis.timeline.window` (`timeline_window`, `search_events`) and
`analysis.timeline.event.event_details`. Every time is ns relative to the trace's origin
(its first start): epoch ns do not survive a browser's doubles, relative ones do for 104
days. The window's columns are parallel lists (one entry per event, block or flow), which
is several times smaller than a list of objects for the thousands of items of a window.
"""

from __future__ import annotations

import msgspec

from mindinsight_profiler.analysis.schema.base import Record
from mindinsight_profiler.server.answers.base import Where


class TrackBrief(Record, frozen=True, kw_only=True):
    """One track (a process/thread, or a device stream) as the trace names it."""

    id: int
    pid: str
    tid: str
    process_name: str
    thread_name: str
    is_device: bool


class TrackInfo(TrackBrief, frozen=True, kw_only=True):
    """A track of a window: also the rows it needs and its event count, for any window."""

    depth: int  # deepest nesting + 1
    events: int


class SearchEvents(Record, frozen=True, kw_only=True):
    """Events as parallel columns; `name` indexes the answer's `names`, `kind` its `kinds`."""

    index: list[int]
    track: list[int]
    start_ns: list[int]
    dur_ns: list[int]
    name: list[int]
    kind: list[int]


class WindowEvents(SearchEvents, frozen=True, kw_only=True):
    """Drawn events (each at least one bucket long) and the row each is drawn on."""

    depth: list[int]


class WindowBlocks(Record, frozen=True, kw_only=True):
    """Busy blocks: runs of buckets holding events shorter than a bucket, merged."""

    track: list[int]
    depth: list[int]
    start_ns: list[int]
    dur_ns: list[int]
    count: list[int]
    busy_ns: list[int]


class WindowFlows(Record, frozen=True, kw_only=True):
    """Arrows between tracks; `cat` indexes `names`, -1 for a launch (runtime -> device)."""

    src_track: list[int]
    src_ns: list[int]
    dst_track: list[int]
    dst_ns: list[int]
    cat: list[int]


class CounterSeries(Record, frozen=True, kw_only=True):
    """A counter track drawn under the threads of `group` (a pid): a step chart whose
    value holds from each time to the next. `name`: memory_allocated, memory_reserved
    (bytes; each bucket's maximum, so peaks survive) or device_busy (ratio 0..1 of each
    bucket covered by the group's device work); `device`: the memory device's label."""

    group: str
    name: str
    device: str
    unit: str  # bytes | ratio
    times: list[int]
    values: list[float]


class TimelineWindow(Record, frozen=True, kw_only=True):
    """What to draw of [t0_ns, t1_ns) at `width_px` pixels (buckets of `bucket_ns`)."""

    version: int
    origin_ns: int  # absolute ns of the trace's zero
    t0_ns: int
    t1_ns: int
    width_px: int
    bucket_ns: int
    truncated: bool  # more than `max_items`: the longest were kept
    tracks: list[TrackInfo]
    kinds: list[str]
    events: WindowEvents
    blocks: WindowBlocks
    flows: WindowFlows
    counters: list[CounterSeries]
    names: list[str]


class TimelineAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/timeline`."""

    window: TimelineWindow


class SearchWindow(Record, frozen=True, kw_only=True):
    """The first matching events by start, and how many match in all."""

    version: int
    origin_ns: int
    total: int
    kinds: list[str]
    events: SearchEvents
    names: list[str]


class SearchAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/timeline/search`."""

    window: SearchWindow


class EventBrief(Record, frozen=True, kw_only=True):
    """An event named by its index, with where it is drawn."""

    index: int
    name: str
    kind: str
    track: int
    start_ns: int
    dur_ns: int


class EventArgs(Record, frozen=True, kw_only=True):
    """The event's arguments the trace has (each present only when known)."""

    device: int | msgspec.UnsetType = msgspec.UNSET
    stream: int | msgspec.UnsetType = msgspec.UNSET
    registers_per_thread: int | msgspec.UnsetType = msgspec.UNSET
    shared_memory_bytes: int | msgspec.UnsetType = msgspec.UNSET
    external_id: int | msgspec.UnsetType = msgspec.UNSET
    correlation: int | msgspec.UnsetType = msgspec.UNSET
    grid: str | msgspec.UnsetType = msgspec.UNSET
    block: str | msgspec.UnsetType = msgspec.UNSET
    input_dims: str | msgspec.UnsetType = msgspec.UNSET
    input_types: str | msgspec.UnsetType = msgspec.UNSET
    blocks_per_sm: float | msgspec.UnsetType = msgspec.UNSET
    occupancy_pct: float | msgspec.UnsetType = msgspec.UNSET
    call_stack: list[str] | msgspec.UnsetType = msgspec.UNSET  # innermost frame first


class EventDetails(EventBrief, frozen=True, kw_only=True):
    """One event in full: its track, arguments, enclosing ranges and launch chain."""

    version: int
    origin_ns: int
    category: str
    depth: int  # the row within its track
    track_info: TrackBrief | None
    args: EventArgs
    parents: list[EventBrief]  # enclosing ranges, nearest first
    callers: list[EventBrief]  # launch chain upwards: device work -> runtime -> operator
    launched: list[EventBrief]  # what it launched (the first 50)
    launched_total: int


class EventAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/timeline/event`."""

    event: EventDetails


class ClockAnswer(Record, frozen=True, kw_only=True):
    """`/runs/<run>/clock`: where each worker's timeline sits on one shared time axis.

    A view of the run (no worker envelope). `offsets_ns` is what the clock alignment adds
    to each worker's timestamps to put them on the first worker's clock; `shift_ns` is
    where each worker's timeline zero (its first event) then lies, in ns after the
    earliest one: a client draws worker k's window times plus `shift_ns[k]` on the shared
    axis (absolute epoch ns do not survive a browser's doubles, these do)."""

    run: str
    workers: list[str]
    offsets_ns: list[int]
    shift_ns: list[int]
    method: str  # "wall_clock" (clocks taken as they are) or "collectives"
    matched: int  # collectives the offsets were estimated from (0 for wall_clock)
