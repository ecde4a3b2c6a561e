"""Operators of a legacy MindSpore profiler folder: AI Core, AI CPU and the timeline.

- `aicore_intermediate_{rank}_detail.csv`: per operator instance, its total execution time
  (ms) and call count; `framework_raw_{rank}.csv` gives each instance's type, stream, task
  and shapes. Together they become the `operators` side table, from which
  `analysis.op_types` computes the per-type table MindInsight shows (the `_type.csv` file is
  that table precomputed; tests check ours against it).
- `aicpu_intermediate_{rank}.csv`: AI CPU kernels with run start/end in microseconds.
- `{ascend,gpu}_timeline_display_{rank}.json`: Chrome-trace `X` events of device work.

Column names changed across MindSpore versions (`op_type` / `kernel_type`, `full_op_name` /
`full_kernel_name`, and `full_kernel_time` for the name in some detail files); each column
is looked up under all the names it has had.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
from msgspec import Raw

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.event_times import MAX_TIME_NS
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import (
    CsvTable,
    complete_events,
    decode_event_array,
    read_csv,
    to_ns,
)
from mindinsight_profiler.model.kinds import COMMUNICATION_PROCESS, Kind

OPERATORS_TABLE = "operators"
AICPU_TABLE = "aicpu"
_NAME_COLS = ("full_op_name", "full_kernel_name", "full_kernel_time")
_TYPE_COLS = ("op_type", "kernel_type")
_OP_SUFFIX = re.compile(r"-op\d+$")


def type_from_name(full_name: str) -> str:
    """`Default/net/Conv2D-op13` -> `Conv2D`: MindSpore names instances `<Type>-op<N>`."""
    return _OP_SUFFIX.sub("", full_name.rsplit("/", 1)[-1])


def _column(table: CsvTable, choices: tuple[str, ...]) -> str:
    for c in choices:
        if table.has(c):
            return c
    raise InputError(table.path, f"missing column: one of {list(choices)}")


def ms_to_ns(path: Path, ms: np.ndarray, what: str) -> np.ndarray:
    """Milliseconds (as written, a few decimals) to int64 ns, rounded to the nearest ns;
    InputError for a time out of range."""
    return to_ns(path, ms, 1e6, what)


def read_framework(path: Path) -> dict[str, dict[str, str]]:
    """Per full op name: its type, stream, op_info JSON text and block dim (the number of AI
    Core blocks it was launched with, as text), from `framework_raw_*.csv`."""
    table = read_csv(path, [])
    name_col, type_col = _column(table, _NAME_COLS), _column(table, _TYPE_COLS)
    info = table.text("op_info") if table.has("op_info") else [""] * len(table)
    stream = table.text("stream_id") if table.has("stream_id") else [""] * len(table)
    block = table.text("block_dim") if table.has("block_dim") else [""] * len(table)
    cols = (table.text(name_col), table.text(type_col), stream, info, block)
    return {
        n: {"type": t, "stream": s, "op_info": i, "block_dim": b}
        for n, t, s, i, b in zip(*cols, strict=True)
    }


def read_aicore_detail(path: Path) -> dict[str, Any]:
    """Operator instances: full name, total execution ns, call count.

    `execution_time` is the time of one execution; an operator that ran `execution_frequency`
    times took time x frequency in all, which is what the run's own `*_type.csv` sums per
    type (MindInsight's operator totals are the same product)."""
    table = read_csv(path, ["execution_time"])
    name_col = _column(table, _NAME_COLS)
    calls = (
        table.numbers("execution_frequency", "int64")
        if table.has("execution_frequency")
        else np.ones(len(table), dtype=np.int64)
    )
    calls = np.maximum(calls, 1)  # a frequency of 0 (a row the tool could not count) ran once
    once_ns = ms_to_ns(path, table.numbers("execution_time"), "execution_time")
    if (once_ns * calls.astype(np.float64) > MAX_TIME_NS).any():
        raise InputError(path, "execution_time x execution_frequency: a total out of range")
    return {
        "names": table.text(name_col),
        "total_ns": once_ns * calls,
        "calls": calls,
    }


def add_operators(
    builder: TraceBuilder, detail: dict[str, Any], framework: dict[str, dict[str, str]] | None
) -> None:
    """The `operators` side table; types from the framework file, else from the names."""
    names: list[str] = detail["names"]
    fw = framework or {}
    types = [fw[n]["type"] if n in fw else type_from_name(n) for n in names]
    builder.op_types.update(zip(names, types, strict=True))
    builder.add_table(
        OPERATORS_TABLE,
        {
            "name": builder.codes(names),
            "op_type": builder.codes(types),
            "engine": builder.codes(["AI Core"] * len(names)),
            "calls": detail["calls"],
            "total_ns": detail["total_ns"],
            "op_info": builder.codes([fw[n]["op_info"] if n in fw else "" for n in names]),
            "block_dim": np.array([_block_dim(fw.get(n)) for n in names], dtype=np.int64),
        },
    )
    builder.meta["op_types_from"] = "framework" if framework else "names"


def _block_dim(row: dict[str, str] | None) -> int:
    """The op's block dim, -1 when the framework file gives none (or not a count)."""
    text = (row or {}).get("block_dim", "").strip()
    return int(text) if text.isdigit() and len(text) < 10 else -1


def read_aicpu(path: Path) -> dict[str, np.ndarray | list[str]]:
    """AI CPU kernels: type, total/dispatch/execution time (ms) and run start/end (us)."""
    table = read_csv(path, ["kernel_type", "total_time", "run_start", "run_end"])
    start_us, end_us = table.numbers("run_start", "int64"), table.numbers("run_end", "int64")
    if (end_us < start_us).any():
        raise InputError(path, f"row {int(np.argmax(end_us < start_us)) + 2}: run_end < run_start")
    out: dict[str, np.ndarray | list[str]] = {
        "op_type": table.text("kernel_type"),
        "total_ns": ms_to_ns(path, table.numbers("total_time"), "total_time"),
        "start_ns": to_ns(path, start_us, 1000, "run_start"),
        "end_ns": to_ns(path, end_us, 1000, "run_end"),
    }
    for col in ("dispatch_time", "execution_time"):
        if table.has(col):
            out[col.replace("_time", "_ns")] = ms_to_ns(path, table.numbers(col), col)
    return out


def add_aicpu(builder: TraceBuilder, rows: dict[str, Any], as_events: bool) -> None:
    """AI CPU side table; its kernels become events when no timeline file covers them."""
    types = builder.codes(rows["op_type"])
    cols = {k: v for k, v in rows.items() if k != "op_type"}
    builder.add_table(AICPU_TABLE, {"op_type": types, **cols})
    if as_events:
        track = builder.track("AI CPU", "0", "AI CPU", "", device=True)
        builder.add_events(rows["start_ns"], rows["end_ns"], Kind.KERNEL, types, track)


class _Args(msgspec.Struct, gc=False):
    type: str = ""
    fullname: str = ""
    op_full_name: str = ""  # GPU timelines


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    name: str = ""
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = Raw(b"")  # empty: absent
    dur: Raw = Raw(b"")
    args: _Args | None = None


_EVENTS = msgspec.json.Decoder(list[_Event])


def read_timeline(path: Path) -> dict[str, Any]:
    """`X` events of a `*_timeline_display_*.json` (a JSON array) as columns."""
    events, start, dur = complete_events(path, decode_event_array(path, _EVENTS, "a timeline"))
    if not events:
        raise InputError(path, "the timeline holds no events")
    args = [e.args or _Args() for e in events]
    return {
        "start_ns": start,
        "end_ns": start + dur,
        "name": [a.fullname or a.op_full_name or e.name for a, e in zip(args, events, strict=True)],
        # `type` is the op type in Ascend timelines (with `fullname`); GPU ones put the launch
        # API there, which is no type.
        "op_type": [a.type if a.fullname else "" for a in args],
        "pid": [str(e.pid) for e in events],
        "tid": [str(e.tid) for e in events],
    }


def align_timeline(timeline: dict[str, Any], aicpu: dict[str, Any] | None) -> int | None:
    """Offset (ns) that puts a relative timeline on the device clock, or None if unknown.

    Ascend timelines start at 0 = their first AI CPU kernel; the AI CPU file has the same
    kernels in absolute microseconds. The offset is accepted only if every AI CPU kernel
    found in the timeline (same name, same order) agrees on it within 1 us.
    """
    if aicpu is None or not len(aicpu["start_ns"]):
        return None
    names = timeline["name"]
    ai_names: list[str] = aicpu["op_type"]
    idx = [i for i, n in enumerate(names) if n in set(ai_names)]
    if len(idx) != len(ai_names) or [names[i] for i in idx] != ai_names:
        return None
    offsets = aicpu["start_ns"] - timeline["start_ns"][np.array(idx)]
    if int(offsets.max() - offsets.min()) > 1000:
        return None
    return int(np.rint(offsets.mean()))


#: MindSpore's timeline processes (profiler/parser/base_timeline_generator.py): a device's
#: own pid holds its AI Core ops, with a "Steps" and a "Scope Name" row of ranges that are
#: no work; 9000 AI CPU ops; 10000 communication ops; 11000 host CPU ops; 12000 the tool's
#: own overlap analysis (merged computation, free time: derived, not events); 13000 GPU
#: activity.
AI_CPU_PID, COMMUNICATION_PID, HOST_CPU_PID, OVERLAP_PID = "9000", "10000", "11000", "12000"
_NOT_WORK_TIDS = {"100000", "100001", "Steps", "Scope Name"}
#: The track name of communication ops: `categories.comm_kernel_mask` counts their kernels.
COMMUNICATION_TRACK = COMMUNICATION_PROCESS


def _row(pid: str) -> tuple[str, Kind, bool] | None:
    """(process name, kind, on the device) of a timeline process; None: not events."""
    if pid == OVERLAP_PID:
        return None
    if pid == AI_CPU_PID:
        return "AI CPU", Kind.KERNEL, True
    if pid == COMMUNICATION_PID:
        return COMMUNICATION_TRACK, Kind.KERNEL, True
    if pid == HOST_CPU_PID:
        return "Host CPU Op", Kind.CPU_OP, False
    return f"pid {pid}", Kind.KERNEL, True


def add_timeline(builder: TraceBuilder, timeline: dict[str, Any], offset_ns: int | None) -> None:
    """Timeline events, one track per (pid, tid): device ops as kernels (communication ops
    on their own tracks), host CPU ops as operators; the tool's derived rows are left out.

    A timeline whose clock could not be put on the device's (`offset_ns` None) is said, not
    used: placed at the wrong time its kernels would fall outside every step."""
    if offset_ns is None:
        builder.meta["timeline_clock"] = "unaligned"
        builder.warn("device timeline not used: its clock could not be aligned to the steps "
                     "(no AI CPU file whose kernels match it)")  # fmt: skip
        return
    builder.meta["timeline_clock"] = "device"
    keys = list(zip(timeline["pid"], timeline["tid"], strict=True))
    rows = {k: _row(k[0]) for k in dict.fromkeys(keys)}
    keep = np.array([rows[k] is not None and k[1] not in _NOT_WORK_TIDS for k in keys], bool)
    if not keep.any():
        return
    tracks = {
        k: builder.track(k[0], k[1], r[0], "", r[2]) for k, r in rows.items() if r is not None
    }
    idx = np.flatnonzero(keep)
    names = [timeline["name"][i] for i in idx]
    builder.op_types.update(
        (timeline["name"][i], timeline["op_type"][i]) for i in idx if timeline["op_type"][i]
    )
    kinds = np.array([int(rows[keys[i]][1]) for i in idx], dtype=np.int8)  # type: ignore[index]
    builder.add_events(
        timeline["start_ns"][idx] + offset_ns,
        timeline["end_ns"][idx] + offset_ns,
        kinds,
        builder.codes(names),
        np.array([tracks[keys[i]] for i in idx], dtype=np.int32),
    )
