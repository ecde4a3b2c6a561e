"""Reader for MindSpore 2.x profiler output: a `<host>_<pid>_<ts>_ascend_ms/` folder.

MindSpore 2.x writes this layout on every backend, CPU included:
- `ASCEND_PROFILER_OUTPUT/trace_view.json`: a bare JSON array of Chrome-trace events whose
  `ts` and `dur` are strings of microseconds with nanosecond decimals. They are parsed
  exactly to int64 ns (a float64 would lose the nanoseconds). This is the timeline; when it
  is absent, `FRAMEWORK/cpu_op_execute_timestamp_0.txt` (ns starts, ms durations) stands in.
- `FRAMEWORK/cpu_op_detail_info_0.csv`: per operator instance, type and total time ->
  the `operators` table; also gives each event name its operator type.
- `FRAMEWORK/cpu_ms_memory_record_0.txt`: allocator totals over time -> memory table.
- `minddata_profiling/` (inside the folder or beside it): MindData files, as legacy ones.
Only the timeline is required; any other bad file is skipped with its reason in
`trace.meta["skipped_files"]`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import numpy as np
from msgspec import Raw

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices
from mindinsight_profiler.formats.event_times import MAX_DURATION_NS, MAX_TIME_NS
from mindinsight_profiler.formats.mindspore import minddata as md
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.mindspore.legacy_ops import OPERATORS_TABLE, ms_to_ns
from mindinsight_profiler.formats.side_files import (
    complete_events,
    decode_event_array,
    read_csv,
    read_text,
)
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import Kind, kind_of_category
from mindinsight_profiler.model.trace import MEMORY_COLUMNS, Trace, empty_columns

TRACE_VIEW = Path("ASCEND_PROFILER_OUTPUT") / "trace_view.json"
#: Process names of trace_view.json -> kinds. "CPU OP" and "Scope Layer" are verified on
#: real MindSpore 2.10 CPU output; the Ascend names are those of Ascend PyTorch output.
PROCESS_KINDS = {
    "CPU OP": Kind.CPU_OP,
    "Scope Layer": Kind.OTHER,  # module scopes (Default, Gradients): not operators
    "Ascend Hardware": Kind.KERNEL,
    "HCCL": Kind.KERNEL,
    "CANN": Kind.RUNTIME,
}


class _Args(msgspec.Struct, gc=False):
    name: str = ""
    labels: str = ""


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    name: str = ""
    cat: str | None = None
    pid: int | str = 0
    tid: int | str = 0
    ts: Raw = Raw(b"")  # empty: absent
    dur: Raw = Raw(b"")
    args: _Args | None = None


_EVENTS = msgspec.json.Decoder(list[_Event])


def read_trace_view(path: Path) -> dict[str, Any]:
    """Complete (`X`) events and process/thread names of a trace_view.json."""
    events = decode_event_array(path, _EVENTS, "a trace_view array of events")
    meta = [e for e in events if e.ph == "M" and e.args is not None]
    x, start, dur = complete_events(path, events)
    if not x:
        raise InputError(path, "the trace holds no complete (X) events")
    return {
        "start_ns": start,
        "end_ns": start + dur,
        "name": [e.name for e in x],
        "cat": [e.cat or "" for e in x],
        "pid": [str(e.pid) for e in x],
        "tid": [str(e.tid) for e in x],
        "process": {str(e.pid): e.args.name for e in meta if e.name == "process_name" and e.args},
        "thread": {
            (str(e.pid), str(e.tid)): e.args.name
            for e in meta
            if e.name == "thread_name" and e.args
        },
    }


def add_trace_view(b: TraceBuilder, tv: dict[str, Any]) -> None:
    """Events with kinds from their category, else from their process's name."""
    keys = list(zip(tv["pid"], tv["tid"], strict=True))
    kind_of_key: dict[tuple[str, str], Kind] = {}
    track_of_key: dict[tuple[str, str], int] = {}
    for key in dict.fromkeys(keys):
        process = tv["process"].get(key[0], "")
        kind = PROCESS_KINDS.get(process, Kind.OTHER)
        kind_of_key[key] = kind
        device = kind == Kind.KERNEL
        track_of_key[key] = b.track(key[0], key[1], process, tv["thread"].get(key, ""), device)
    kinds = np.array([kind_of_key[k] for k in keys], dtype=np.uint8)
    by_cat = np.array([kind_of_category(c) for c in tv["cat"]], dtype=np.uint8)
    kinds = np.where(by_cat != Kind.OTHER, by_cat, kinds)
    tracks = np.array([track_of_key[k] for k in keys], dtype=np.int32)
    b.add_events(
        tv["start_ns"], tv["end_ns"], kinds, b.codes(tv["name"]), tracks, cat=b.codes(tv["cat"])
    )


def read_execute_timestamps(path: Path) -> dict[str, Any]:
    """`name;type;start_ns,dur_ms,_ start_ns,dur_ms,_ ...` lines of cpu_op_execute_timestamp."""
    names: list[str] = []
    starts: list[int] = []
    durs: list[float] = []
    for n, line in enumerate(read_text(path).splitlines()):
        if not line.strip():
            continue
        parts = line.split(";")
        if len(parts) < 3:
            raise InputError(path, f"line {n + 1}: expected name;type;records")
        for rec in parts[2].split():
            fields = rec.split(",")
            try:
                at_ns, dur_ms = int(fields[0]), float(fields[1])
            except (ValueError, IndexError):
                raise InputError(path, f"line {n + 1}: bad record {rec[:40]!r}") from None
            if not (0 <= at_ns <= MAX_TIME_NS and 0 <= dur_ms * 1e6 <= MAX_DURATION_NS):
                raise InputError(path, f"line {n + 1}: a time out of range in {rec[:40]!r}")
            starts.append(at_ns)
            durs.append(dur_ms)
            names.append(parts[0])
    if not names:
        raise InputError(path, "the file holds no operator records")
    start = np.array(starts, dtype=np.int64)
    return {
        "start_ns": start,
        "end_ns": start + ms_to_ns(path, np.array(durs), "dur"),
        "name": names,
    }


def read_cpu_op_detail(path: Path) -> dict[str, Any]:
    """Per instance: full name, type, occurrences and total time (ms -> ns)."""
    t = read_csv(path, ["op_type", "full_op_name", "op_occurrences", "op_total_time(ms)"])
    return {
        "name": t.text("full_op_name"),
        "op_type": t.text("op_type"),
        "calls": t.numbers("op_occurrences", "int64"),
        "total_ns": ms_to_ns(path, t.numbers("op_total_time(ms)"), "op_total_time(ms)"),
        "engine": t.text("op_side") if t.has("op_side") else ["Host"] * len(t),
    }


def read_memory_record(path: Path) -> dict[str, np.ndarray]:
    """Allocator totals over time: `Timestamp(ns)`, `Total Allocated/Reserved/Active(Byte)`."""
    cols = ["Timestamp(ns)", "Total Allocated(Byte)", "Total Reserved(Byte)", "Total Active(Byte)"]
    t = read_csv(path, cols[:3])
    out = {
        "ts_ns": t.numbers(cols[0], "int64"),
        "total_allocated": t.numbers(cols[1], "int64"),
        "total_reserved": t.numbers(cols[2], "int64"),
    }
    out["total_active"] = t.numbers(cols[3], "int64") if t.has(cols[3]) else np.full(len(t), -1)
    return out


def add_memory(b: TraceBuilder, rec: dict[str, np.ndarray]) -> None:
    """Each record is one allocation or free: its size is the change of the allocated total."""
    n = len(rec["ts_ns"])
    mem = empty_columns(MEMORY_COLUMNS, n)
    mem["ts_ns"][:] = rec["ts_ns"]
    mem["total_allocated"][:] = rec["total_allocated"]
    mem["total_reserved"][:] = rec["total_reserved"]
    mem["bytes"][:] = np.diff(rec["total_allocated"], prepend=0)
    mem["track"][:] = b.track("CPU OP", "memory", "CPU OP", "memory")
    b.memory = mem
    b.add_table("memory_record", dict(rec))


def _run_dir(path: Path) -> Path:
    """The `*_ascend_ms` folder itself, or the only one inside `path`."""
    if (
        path.name.endswith("_ascend_ms")
        or (path / "FRAMEWORK").is_dir()
        or (path / TRACE_VIEW).is_file()
    ):
        return path
    children = sorted(p for p in path.glob("*_ascend_ms") if p.is_dir()) if path.is_dir() else []
    return children[0] if len(children) == 1 else path


def is_mindspore2(path: Path) -> bool:
    """True for a MindSpore 2.x `*_ascend_ms` folder (or a folder holding exactly one)."""
    path = Path(path)
    if not path.is_dir():
        return False
    run = _run_dir(path)
    framework = run / "FRAMEWORK"
    has_cpu_ops = framework.is_dir() and any(framework.glob("cpu_op_*"))
    return run.name.endswith("_ascend_ms") or has_cpu_ops


def _minddata_files(run: Path) -> dict[str, Path]:
    """MindData files of the lowest rank in `minddata_profiling/` inside or beside the run."""
    for folder in (run / "minddata_profiling", run.parent / "minddata_profiling"):
        if folder.is_dir():
            found = md.minddata_ranks(folder)
            if found:
                files = {k: folder / p.format(r=found[0]) for k, p in md.MINDDATA_FILES.items()}
                return {k: f for k, f in files.items() if f.is_file()}
    return {}


@notices.collected
def read_mindspore2(path: Path) -> Trace:
    """Read a MindSpore 2.x profiler folder into the normalised model (links included)."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "not a folder")
    run = _run_dir(path)
    b = TraceBuilder(run, FormatTag.MINDSPORE2)
    tv_path = run / TRACE_VIEW
    framework = run / "FRAMEWORK"
    if tv_path.is_file():
        add_trace_view(b, read_trace_view(tv_path))  # the timeline: a bad one is an error
        b.files_read.append(str(TRACE_VIEW))
    elif (framework / "cpu_op_execute_timestamp_0.txt").is_file():
        ts = b.optional(framework / "cpu_op_execute_timestamp_0.txt", read_execute_timestamps)
        if ts is not None:
            track = b.track("CPU OP", "0", "CPU OP", "")
            b.add_events(ts["start_ns"], ts["end_ns"], Kind.CPU_OP, b.codes(ts["name"]), track)
    detail_path = framework / "cpu_op_detail_info_0.csv"
    detail = b.optional(detail_path, read_cpu_op_detail) if detail_path.is_file() else None
    if detail is not None:
        b.op_types.update(zip(detail["name"], detail["op_type"], strict=True))
        b.add_table(
            OPERATORS_TABLE,
            {
                "name": b.codes(detail["name"]),
                "op_type": b.codes(detail["op_type"]),
                "engine": b.codes(detail["engine"]),
                "calls": detail["calls"],
                "total_ns": detail["total_ns"],
            },
        )
    mem_path = framework / "cpu_ms_memory_record_0.txt"
    if mem_path.is_file():
        rec = b.optional(mem_path, read_memory_record)
        if rec is not None:
            add_memory(b, rec)
    md.add_minddata_files(b, _minddata_files(run))
    on_npu = any(t.process_name == "Ascend Hardware" for t in b.tracks)
    b.meta["device_type"] = "ascend" if on_npu else ("cpu" if detail is not None else None)
    return b.build()
