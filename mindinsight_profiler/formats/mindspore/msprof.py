"""msprof device timelines inside a legacy MindSpore profiler folder.

MindSpore 1.x on Ascend leaves the raw output of CANN's profiler beside its own files:
`PROF_<n>_<timestamp>_<id>/device_<d>/` with `info.json.<d>` (its `rank_id`, -1 when the
job is not distributed) and `timeline/` holding, per model `m` and iteration (step) `i`:

- `msprof_{d}_{m}_{i}.json`: everything of iteration `i`: the three kinds below, plus
  CANN's host API calls and msprof's own overlap analysis;
- `task_time_{d}_{m}_{i}.json`: `Ascend Hardware`, one task per event on `Stream N`
  threads (`args` "Task Type", "Stream Id"); AI Core and AI CPU tasks are named by the full
  op name;
- `hccl_{d}_{m}_{i}.json`: `HCCL`, the collective ops (`Default/AllReduce-op534_0`, no
  task type) on their own thread, and their per-link tasks (`args` "task type", "stream
  id") on `Plane N` threads;
- `step_trace_{d}_{m}_{i}.json`: `Step Trace`, per iteration an `Iteration Time` range
  (iteration start to end; `args` FP Start, BP End, Iteration End), `FP_BP Time`,
  `Iteration Refresh` and `Reduce_<i>_<k>` ranges (every iteration's, in every file).

All are Chrome-trace JSON arrays (`M` metadata naming processes and threads, `X` ranges,
a few `s`/`t` flow markers); `ts`/`dur` are microseconds, as JSON numbers, on the host's
CLOCK_MONOTONIC_RAW (the `clockMonotonicRaw` of `start_info.<d>`/`end_info.<d>`, in ns).
That is not the clock of `step_trace_raw_{r}_detail_time.csv` (the device's syscnt), so the
timeline is placed on a step-trace CSV only where both describe the same steps: their FP,
BP and end points must be one constant offset apart (`step_clock_offset`).

What becomes what (MindInsight 2.3.1's `msprof_timeline_analyser` shows the same processes):
- hardware tasks on compute streams: KERNEL (AI Core, AI CPU, ...), SYNC (event and notify
  record/wait/reset), MEMCPY (copies), by `ascend.trace.task_kind`; the tasks on the streams
  the HCCL planes name are the collectives' own steps: OTHER (the HCCL op counts once);
- HCCL ops: KERNEL on a `COMMUNICATION_PROCESS` track (communication, as the legacy
  timeline's pid 10000); their plane tasks: OTHER on `Plane N` tracks;
- CANN: RUNTIME on host threads; the step trace: the steps (see `prof_steps`);
- `Overlap Analysis` is derived by msprof from the above and is not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
from msgspec import Raw

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend.trace import task_kind
from mindinsight_profiler.formats.event_times import times_from_text
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.mindspore.step_trace import add_step_trace
from mindinsight_profiler.formats.side_files import (
    complete_events,
    decode_event_array,
    event_times_ns,
    read_json,
)
from mindinsight_profiler.model.kinds import COMMUNICATION_PROCESS, Kind

#: `<kind>_<device>_<model>_<iteration>.json` in `PROF_*/device_<d>/timeline/`.
TIMELINE_FILE = re.compile(r"^(msprof|task_time|hccl|step_trace)_(\d+)_(\d+)_(\d+)\.json$")
_DEVICE_DIR = re.compile(r"^device_(\d+)$")
_MODEL = re.compile(r"Model ID:\s*(\d+)")
_REDUCE = re.compile(r"^Reduce_(\d+)_(\d+)$")
#: Hardware task types of this msprof version that only synchronise streams (the Ascend
#: PyTorch export spells its own `EVENT_WAIT_SQE`, `Notify Wait`: `ascend.trace.SYNC_TASKS`).
SYNC_TASKS = frozenset(
    {"EVENT_RECORD", "EVENT_WAIT", "EVENT_RESET", "NOTIFY_RECORD", "NOTIFY_WAIT"}
)
HARDWARE, HCCL, CANN, STEP_TRACE = "Ascend Hardware", "HCCL", "CANN", "Step Trace"
ITERATION_CAT, REDUCE_CAT = "Iteration Time", "Reduce"
_EMPTY = Raw(b"")


class _Args(msgspec.Struct, frozen=True, gc=False):
    """The `args` keys read; all others are skipped unparsed."""

    name: str = ""  # metadata: process_name / thread_name
    task_type: str = msgspec.field(default="", name="Task Type")  # Ascend Hardware tasks
    stream: int | str = msgspec.field(default=-1, name="Stream Id")
    link_task: str = msgspec.field(default="", name="task type")  # HCCL plane tasks
    link_stream: int | str = msgspec.field(default=-1, name="stream id")
    iteration: int | str = msgspec.field(default=-1, name="Iteration ID")  # step trace
    fp: Raw = msgspec.field(default=_EMPTY, name="FP Start")
    bp: Raw = msgspec.field(default=_EMPTY, name="BP End")
    end: Raw = msgspec.field(default=_EMPTY, name="Iteration End")


_NO_ARGS = _Args()


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = Raw(b"")  # empty: absent
    dur: Raw = Raw(b"")
    args: _Args = _NO_ARGS


_DECODER = msgspec.json.Decoder(list[_Event])


@dataclass(frozen=True)
class DeviceTimeline:
    """The timeline files of one device of one `PROF_*` folder."""

    folder: Path  # PROF_*/device_<d>
    device: int
    rank: int
    #: (kind, model, iteration) -> file; kind is msprof, task_time, hccl or step_trace.
    files: dict[tuple[str, int, int], Path]

    @property
    def label(self) -> str:
        return f"{self.folder.parent.name}/{self.folder.name}"


def _rank_of(device_dir: Path, device: int, warn: Callable[[str], None]) -> int:
    """`rank_id` of `info.json.<d>` (MindInsight reads the same), else the device number."""
    info = device_dir / f"info.json.{device}"
    if not info.is_file():
        return device
    try:
        doc = read_json(info)
    except InputError as exc:
        warn(f"{exc}; device {device} is taken as rank {device}")
        return device
    rank = doc.get("rank_id") if isinstance(doc, dict) else None
    return rank if isinstance(rank, int) and rank >= 0 else device


def device_timelines(folder: Path, warn: Callable[[str], None]) -> dict[int, DeviceTimeline]:
    """Per rank, its device timeline in the folder's `PROF_*` folders (the newest, by name,
    when several hold the same rank, as MindInsight chooses)."""
    out: dict[int, DeviceTimeline] = {}
    for prof in sorted(p for p in folder.glob("PROF_*") if p.is_dir()):
        for device_dir in sorted(prof.iterdir()):
            m = _DEVICE_DIR.match(device_dir.name)
            timeline = device_dir / "timeline"
            if not m or not timeline.is_dir():
                continue
            device = int(m.group(1))
            files = {}
            for f in timeline.iterdir():
                fm = TIMELINE_FILE.match(f.name)
                if fm and f.is_file():
                    files[(fm.group(1), int(fm.group(3)), int(fm.group(4)))] = f
            if files:
                rank = _rank_of(device_dir, device, warn)
                out[rank] = DeviceTimeline(device_dir, device, rank, files)
    return out


@dataclass
class _Slice:
    """The complete events of one timeline file, with its process and thread names."""

    path: Path
    model: int
    events: list[_Event]
    start_ns: np.ndarray
    end_ns: np.ndarray
    process: dict[str, str] = field(default_factory=dict)
    thread: dict[tuple[str, str], str] = field(default_factory=dict)


def read_timeline_file(path: Path, model: int = -1) -> _Slice:
    """One timeline file; InputError (naming it) if it is not a JSON array of trace events
    with numeric `ts`/`dur`."""
    events = decode_event_array(path, _DECODER, "an msprof timeline (a JSON array of events)")
    complete, start, dur = complete_events(path, events)
    out = _Slice(path, model, complete, start, start + dur)
    for e in events:
        if e.ph == "M" and e.name == "process_name":
            out.process[str(e.pid)] = e.args.name
        elif e.ph == "M" and e.name == "thread_name":
            out.thread[(str(e.pid), str(e.tid))] = e.args.name
    return out


def _int(value: int | str) -> int:
    """An id as an int; -1 when it is not one (or does not fit an int32 column)."""
    try:
        out = int(value)
    except ValueError:
        return -1
    return out if -1 <= out < 2**31 else -1


# --- the steps -------------------------------------------------------------------------


@dataclass
class _Iteration:
    start_ns: int
    fp_ns: int
    bp_ns: int
    end_ns: int
    reduce_ns: dict[int, tuple[int, int]] = field(default_factory=dict)


def _point(path: Path, e: _Event, raw: Raw, what: str) -> int:
    if not bytes(raw):
        raise InputError(path, f"{e.name!r}: no {what!r} in its args")
    return int(event_times_ns(path, [bytes(raw)], f"{e.name!r} {what}")[0])


_POINTS = (("fp", "FP Start"), ("bp", "BP End"), ("end", "Iteration End"))


def _points(path: Path, events: list[_Event]) -> np.ndarray:
    """(FP start, BP end, iteration end) ns of each iteration range, parsed in one call
    (one call per value took most of a small MindSpore input's read); any bad value is
    reported as one event's own parse reports it."""
    raws = [bytes(getattr(e.args, attr)) for e in events for attr, _ in _POINTS]
    values, problem = times_from_text(raws, quoted=True)
    if problem.any() or not all(raws):
        for e in events:  # the first bad value raises, with its event's name
            for attr, what in _POINTS:
                _point(path, e, getattr(e.args, attr), what)
    return values.reshape(len(events), len(_POINTS))


def _step_rows(sl: _Slice) -> dict[tuple[int, int], _Iteration]:
    """(model, iteration) -> its points, from one file's step-trace ranges."""
    rows: dict[tuple[int, int], _Iteration] = {}
    reduces = []
    iterations: list[tuple[int, int, int, _Event]] = []
    for i, e in enumerate(sl.events):
        if e.cat not in (ITERATION_CAT, REDUCE_CAT):
            continue
        found = _MODEL.search(sl.thread.get((str(e.pid), str(e.tid)), ""))
        model = int(found.group(1)) if found else sl.model
        it = _int(e.args.iteration)
        if e.cat == REDUCE_CAT:
            m = _REDUCE.match(e.name)
            if m and it >= 0:
                reduces.append((model, it, int(m.group(2)), i))
            continue
        if it < 0:
            raise InputError(sl.path, f"{e.name!r}: no Iteration ID in its args")
        iterations.append((model, it, i, e))
    points = _points(sl.path, [e for *_, e in iterations])
    for (model, it, i, _), (fp, bp, end) in zip(iterations, points.tolist(), strict=True):
        rows[(model, it)] = _Iteration(int(sl.start_ns[i]), fp, bp, end)
    for model, it, k, i in reduces:
        if (model, it) in rows:
            rows[(model, it)].reduce_ns[k] = (int(sl.start_ns[i]), int(sl.end_ns[i]))
    return rows


def prof_steps(rows: dict[int, _Iteration]) -> dict[str, Any]:
    """The iterations of one model as `step_trace.read_step_trace_csv` gives a CSV's steps.

    As MindSpore's step trace, a step runs from the previous iteration's end (its
    iteration interval is the wait before FP); the first from its own iteration start.
    """
    ids = sorted(rows)
    prev_end: dict[int, int] = {i: rows[i - 1].end_ns for i in ids if i - 1 in rows}
    stage_ids = sorted({k for r in rows.values() for k in r.reduce_ns})

    def column(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return {
        "step": np.array(ids, dtype=np.int32),
        "start_ns": column([prev_end.get(i, rows[i].start_ns) for i in ids]),
        "fp_ns": column([rows[i].fp_ns for i in ids]),
        "bp_ns": column([rows[i].bp_ns for i in ids]),
        "end_ns": column([rows[i].end_ns for i in ids]),
        "stages": [f"reduce_{k}" for k in stage_ids],
        "stage_start_ns": [
            column([rows[i].reduce_ns.get(k, (0, 0))[0] for i in ids]) for k in stage_ids
        ],
        "stage_end_ns": [
            column([rows[i].reduce_ns.get(k, (0, 0))[1] for i in ids]) for k in stage_ids
        ],
        "profiler_average_ns": None,
    }


def steps_in_order(steps: dict[str, Any]) -> bool:
    s, fp, bp, e = (steps[k] for k in ("start_ns", "fp_ns", "bp_ns", "end_ns"))
    return bool(((s <= fp) & (fp <= bp) & (bp <= e)).all())


#: How far apart the offsets of one step trace's points from another's may be: the two
#: clocks run from one counter, converted at slightly different frequencies.
OFFSET_TOLERANCE_NS, OFFSET_TOLERANCE_PPM = 2_000, 10


def step_clock_offset(csv_steps: dict[str, Any], steps: dict[str, Any]) -> int | None:
    """ns to add to the timeline's clock to put it on the step-trace CSV's, or None when
    the two step traces do not describe the same steps (no common step, or the FP, BP and
    end points of the common steps are not one offset apart)."""
    common, ci, pi = np.intersect1d(csv_steps["step"], steps["step"], return_indices=True)
    if not len(common):
        return None
    diffs = np.concatenate([csv_steps[k][ci] - steps[k][pi] for k in ("fp_ns", "bp_ns", "end_ns")])
    span = int(steps["end_ns"][pi].max() - steps["fp_ns"][pi].min())
    tolerance = OFFSET_TOLERANCE_NS + span * OFFSET_TOLERANCE_PPM // 1_000_000
    if int(diffs.max() - diffs.min()) > tolerance:
        return None
    return int(np.rint(np.median(diffs)))


# --- the events ------------------------------------------------------------------------


def _hccl_streams(slices: list[_Slice]) -> set[int]:
    """Hardware streams that run the collectives' per-link tasks (named by the HCCL planes)."""
    out = set()
    for sl in slices:
        for e in sl.events:
            if e.args.link_task and sl.process.get(str(e.pid)) == HCCL:
                out.add(_int(e.args.link_stream))
    out.discard(-1)
    return out


def add_events(b: TraceBuilder, slices: list[_Slice], offset_ns: int) -> dict[str, int]:
    """Every event of the slices (see module doc) into the builder; counts per process."""
    comm_streams = _hccl_streams(slices)
    start: list[np.ndarray] = []
    end: list[np.ndarray] = []
    kinds: list[int] = []
    names: list[str] = []
    tracks: list[int] = []
    streams: list[int] = []
    counts: dict[str, int] = {}
    for sl in slices:
        keep = []
        for i, e in enumerate(sl.events):
            process = sl.process.get(str(e.pid), "")
            pid, tid = str(e.pid), str(e.tid)
            thread = sl.thread.get((pid, tid), "")
            stream = -1
            if e.cat in (ITERATION_CAT, REDUCE_CAT) or process == STEP_TRACE:
                continue  # the steps: read by `prof_steps`
            if process == HARDWARE and e.args.task_type:
                stream = _int(e.args.stream)
                if stream < 0:
                    stream = _int(e.tid)
                if stream in comm_streams:
                    kind = Kind.OTHER  # a step of a collective: its HCCL op counts
                elif e.args.task_type in SYNC_TASKS:
                    kind = Kind.SYNC
                else:
                    kind = task_kind(e.args.task_type, e.name)
                track = b.track(HARDWARE, tid, HARDWARE, thread or f"Stream {tid}", device=True)
            elif process == HCCL and e.args.link_task:
                kind, stream = Kind.OTHER, _int(e.args.link_stream)
                track = b.track(HCCL, tid, HCCL, thread, device=True)
            elif process == HCCL:
                kind = Kind.KERNEL
                track = b.track(HCCL, tid, COMMUNICATION_PROCESS, thread, device=True)
            elif process == CANN:
                kind = Kind.RUNTIME
                track = b.track(CANN, tid, CANN, thread, device=False)
            else:
                continue  # Overlap Analysis (derived) and processes this version lacks
            keep.append(i)
            kinds.append(int(kind))
            names.append(e.name)
            tracks.append(track)
            streams.append(stream)
            counts[process] = counts.get(process, 0) + 1
        idx = np.array(keep, dtype=np.int64)
        start.append(sl.start_ns[idx])
        end.append(sl.end_ns[idx])
    if names:
        b.add_events(
            np.concatenate(start) + offset_ns,
            np.concatenate(end) + offset_ns,
            np.array(kinds, dtype=np.uint8),
            b.codes(names),
            np.array(tracks, dtype=np.int32),
            stream=np.array(streams, dtype=np.int32),
        )
    return counts


# --- one rank --------------------------------------------------------------------------


def _read_iterations(b: TraceBuilder, dt: DeviceTimeline) -> tuple[list[_Slice], list[int]]:
    """Per (model, iteration): its `msprof` file, else its `task_time` and `hccl` files.
    Returns the slices read and the iterations none of whose files could be read."""
    slices: list[_Slice] = []
    missing: list[int] = []
    iterations = sorted({(m, i) for kind, m, i in dt.files if kind != "step_trace"})
    for model, it in iterations:
        read = partial(read_timeline_file, model=model)
        whole = dt.files.get(("msprof", model, it))
        got = b.optional(whole, read) if whole is not None else None
        if got is not None:
            slices.append(got)
            continue
        parts = []
        for kind in ("task_time", "hccl"):
            path = dt.files.get((kind, model, it))
            part = b.optional(path, read) if path is not None else None
            if part is not None:
                parts.append(part)
        if not parts:
            missing.append(it)
        slices.extend(parts)
    return slices, missing


def _read_step_file(path: Path, model: int) -> dict[tuple[int, int], _Iteration]:
    return _step_rows(read_timeline_file(path, model))


def _step_file_rows(b: TraceBuilder, dt: DeviceTimeline) -> dict[tuple[int, int], _Iteration]:
    """Step-trace rows of the `step_trace_*` files (each may repeat the others' rows)."""
    rows: dict[tuple[int, int], _Iteration] = {}
    for (kind, model, _), path in sorted(dt.files.items()):
        if kind == "step_trace":
            got = b.optional(path, partial(_read_step_file, model=model))
            for key, row in (got or {}).items():
                rows.setdefault(key, row)
    return rows


def _slice_step_rows(b: TraceBuilder, slices: list[_Slice]) -> dict[tuple[int, int], _Iteration]:
    """Step-trace rows of the msprof files (their `Step Trace` thread), when there is no
    `step_trace_*` file; a file whose rows are bad keeps its events (a warning says so)."""
    rows: dict[tuple[int, int], _Iteration] = {}
    for sl in slices:
        try:
            got = _step_rows(sl)
        except InputError as exc:
            b.warn(f"{exc} (its step trace is not used)")
            continue
        for key, row in got.items():
            rows.setdefault(key, row)
    return rows


def _one_model(
    b: TraceBuilder, label: str, rows: dict[tuple[int, int], _Iteration]
) -> dict[int, _Iteration]:
    models: dict[int, dict[int, _Iteration]] = {}
    for (model, it), row in rows.items():
        models.setdefault(model, {})[it] = row
    chosen = min(models, key=lambda m: (-len(models[m]), m))
    if len(models) > 1:
        b.warn(f"msprof timeline {label}: the steps are model {chosen}'s iterations; "
               f"models {sorted(set(models) - {chosen})} have their own")  # fmt: skip
    return models[chosen]


def _steps(
    b: TraceBuilder, label: str, rows: dict[tuple[int, int], _Iteration]
) -> dict[str, Any] | None:
    if not rows:
        return None
    steps = prof_steps(_one_model(b, label, rows))
    if steps_in_order(steps):
        return steps
    b.warn(f"msprof timeline {label}: its step trace is not used: points out of order "
           "(iteration start <= FP <= BP <= end)")  # fmt: skip
    return None


def add_device_timeline(
    b: TraceBuilder, folder: Path, rank: int, csv_steps: dict[str, Any] | None
) -> bool:
    """Read the rank's msprof device timeline, if the folder has one; True if it is used.

    With a step-trace CSV (`csv_steps`), the timeline is used only if its own step trace
    puts it on the CSV's clock; without one, its step trace gives the steps. A timeline
    that cannot be placed is not used, and a warning says why.
    """
    found = device_timelines(folder, b.warn).get(rank)
    if found is None:
        return False
    label = found.label
    b.meta["msprof_timeline"] = label
    slices: list[_Slice] | None = None
    missing: list[int] = []
    rows = _step_file_rows(b, found)
    if not rows:
        slices, missing = _read_iterations(b, found)
        rows = _slice_step_rows(b, slices)
    steps = _steps(b, label, rows)
    offset = 0
    if csv_steps is not None:
        offset_found = step_clock_offset(csv_steps, steps) if steps is not None else None
        if offset_found is None:
            why = (
                "it has no usable step trace"
                if steps is None
                else "its step trace does not match the step_trace_raw CSV's steps (their FP, "
                "BP and end points are not one offset apart)"
            )
            b.meta["msprof_clock"] = "unaligned"
            b.warn(f"msprof timeline {label} not used: {why}, so its tasks cannot be placed "
                   "on the steps of the step-trace CSV")  # fmt: skip
            return False
        offset = offset_found
    if slices is None:
        slices, missing = _read_iterations(b, found)
    if not slices:
        b.warn(f"msprof timeline {label} not used: none of its files could be read")
        return False
    if csv_steps is not None:
        b.meta["msprof_clock"] = "step_trace_csv"
        b.meta["msprof_offset_ns"] = offset
    elif steps is not None:
        add_step_trace(b, steps)
        b.meta["msprof_clock"] = "msprof_step_trace"
    else:
        b.meta["msprof_clock"] = "own"  # no steps anywhere: the trace is one window
    b.meta["msprof_events"] = add_events(b, slices, offset)
    if missing:
        b.warn(f"msprof timeline {label}: no readable file for iterations {missing}: "
               "their steps show no device work")  # fmt: skip
    return True
