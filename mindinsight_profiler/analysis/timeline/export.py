"""Chrome-trace export of a trace or a time window of it, for Perfetto and chrome://tracing.

Any input format (Kineto, Ascend, MindSpore) comes out as Kineto-style JSON, so one viewer
opens all of them and our own Kineto reader reads the export back. The document is written
in chunks of events whose JSON text is built by numpy string ufuncs from the columns: a
million-event trace never exists as a million dicts, and no Python loop runs per event.
Times are written as microseconds with three decimals, which is exact for integer ns.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

from mindinsight_profiler._version import __version__
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

EXPORT_VERSION = 1
_EXPORTER = f"mindinsight_profiler {__version__}"
CHUNK = 1 << 16
_S = np.dtypes.StringDType()
#: Category written for events whose reader kept no category: one that maps back to the kind.
_KIND_CATEGORY: dict[int, str] = {
    Kind.CPU_OP: "cpu_op", Kind.USER_ANNOTATION: "user_annotation",
    Kind.PYTHON_FUNCTION: "python_function", Kind.PYTHON: "python", Kind.RUNTIME: "cuda_runtime",
    Kind.KERNEL: "kernel", Kind.MEMCPY: "gpu_memcpy", Kind.MEMSET: "gpu_memset",
    Kind.GPU_ANNOTATION: "gpu_user_annotation", Kind.TRACE: "trace", Kind.SYNC: "cuda_sync",
}  # fmt: skip
#: (args key, event column, how the value is written): "int", "float" or "raw" (JSON text).
_ARGS = (
    ("External id", "ext_id", "int"),
    ("correlation", "corr", "int"),
    ("device", "device", "int"),
    ("stream", "stream", "int"),
    ("registers per thread", "regs", "int"),
    ("shared memory", "smem", "int"),
    ("blocks per SM", "blocks_per_sm", "float"),
    ("est. achieved occupancy %", "occupancy", "float"),
    ("grid", "grid", "raw"),
    ("block", "block", "raw"),
    ("Input Dims", "input_dims", "raw"),
    ("Call stack", "call_stack", "raw"),
)


def _json_texts(strings: list[str], raw: bool) -> np.ndarray:
    """JSON text of each string (per distinct string, not per event); `raw` keeps valid JSON."""
    out = []
    for s in strings:
        if raw:
            try:
                json.loads(s)
                out.append(s)
                continue
            except ValueError:
                pass
        out.append(json.dumps(s))
    return np.array(out, dtype=_S)


def _scalar(value: str) -> str:
    """A pid/tid as Kineto writes it: a number when it is one, else a string."""
    return value if value.lstrip("-").isdigit() else json.dumps(value)


def _us(ns: np.ndarray) -> np.ndarray:
    """Integer nanoseconds as exact decimal microseconds text ("12.345")."""
    a = np.abs(ns)
    whole = (a // 1000).astype(_S)
    frac = np.strings.zfill((a % 1000).astype(_S), 3)
    return np.where(ns < 0, "-", "").astype(_S) + whole + "." + frac


def _args(cols: dict[str, np.ndarray], texts: dict[bool, np.ndarray]) -> np.ndarray:
    """The `args` members of each event, only those the event has (absent values are -1/NaN)."""
    out: np.ndarray = np.full(len(cols["start_ns"]), "", dtype=_S)
    for key, col, how in _ARGS:
        v = cols[col]
        rows = np.flatnonzero(~np.isnan(v) if how == "float" else v >= 0)
        if len(rows) == 0:
            continue
        text = texts[True][v[rows]] if how == "raw" else v[rows].astype(_S)
        out[rows] = out[rows] + f'"{key}":' + text + ","
    return np.strings.rstrip(out, ",")


def _event_lines(trace: Trace, rows: np.ndarray, texts: dict[bool, np.ndarray],
                 category: np.ndarray, pid: np.ndarray, tid: np.ndarray,
                 shift_ns: int = 0) -> np.ndarray:  # fmt: skip
    cols = {c: np.asarray(v[rows]) for c, v in trace.events.items()}
    cols["start_ns"], cols["end_ns"] = cols["start_ns"] + shift_ns, cols["end_ns"] + shift_ns
    cat = np.where(
        cols["cat"] >= 0, texts[False][np.maximum(cols["cat"], 0)], category[cols["kind"]]
    )
    name = np.where(cols["name"] >= 0, texts[False][np.maximum(cols["name"], 0)], '""')
    instant = cols["kind"] == Kind.INSTANT
    head = np.where(instant, '{"ph":"i","s":"t","cat":', '{"ph":"X","cat":').astype(_S)
    dur = np.where(instant, "", ',"dur":' + _us(cols["end_ns"] - cols["start_ns"]))
    track = np.maximum(cols["track"], 0)
    where = ',"pid":' + pid[track] + ',"tid":' + tid[track] + ',"ts":' + _us(cols["start_ns"])
    return head + cat + ',"name":' + name + where + dur + ',"args":{' + _args(cols, texts) + "}}"


def _flow_lines(trace: Trace, rows: np.ndarray, texts: dict[bool, np.ndarray],
                pid: np.ndarray, tid: np.ndarray, shift_ns: int = 0,
                id_base: int = 0) -> np.ndarray:  # fmt: skip
    fl = {c: np.asarray(v[rows]) for c, v in trace.flows.items()}
    fl["ts_ns"], fl["flow_id"] = fl["ts_ns"] + shift_ns, fl["flow_id"] + id_base
    phase = np.array([chr(p) for p in range(256)], dtype=_S)[fl["phase"]]
    cat = np.where(fl["cat"] >= 0, texts[False][np.maximum(fl["cat"], 0)], '"flow"')
    bind = np.where(phase == "f", ',"bp":"e"', "")
    track = np.maximum(fl["track"], 0)
    return ('{"ph":"' + phase + '","id":' + fl["flow_id"].astype(_S) + ',"pid":' + pid[track]
            + ',"tid":' + tid[track] + ',"ts":' + _us(fl["ts_ns"]) + ',"cat":' + cat
            + ',"name":' + cat + bind + "}")  # fmt: skip


def _texts(trace: Trace) -> dict[bool, np.ndarray]:
    strings = trace.strings.to_list()
    return {False: _json_texts(strings, raw=False), True: _json_texts(strings, raw=True)}


def _category() -> np.ndarray:
    return np.array([json.dumps(_KIND_CATEGORY.get(int(k), "other")) for k in range(256)], _S)


def event_chunks(
    trace: Trace, rows: np.ndarray, pid: str, shift_ns: int = 0, flow_id_base: int = 0
) -> Iterator[str]:
    """Chrome-trace lines (joined by ",\n", per chunk) of the events `rows` and of the
    flows in their time span, all under process `pid` (a JSON scalar's text), each track
    its own `tid` (its index), times shifted by `shift_ns`, flow ids by `flow_id_base` (so
    two ranks' arrows never join): one rank of a merged timeline (`export.timeline_json`)."""
    texts, category = _texts(trace), _category()
    n = max(len(trace.tracks), 1)
    pids = np.full(n, pid, dtype=_S)
    tids = np.arange(n).astype(_S)
    for i in range(0, len(rows), CHUNK):
        lines = _event_lines(trace, rows[i : i + CHUNK], texts, category, pids, tids, shift_ns)
        yield ",\n".join(lines.tolist())
    if len(rows):
        ev, fl = trace.events, trace.flows["ts_ns"]
        lo, hi = int(ev["start_ns"][rows].min()), int(ev["end_ns"][rows].max())
        flow_rows = np.flatnonzero((fl >= lo) & (fl <= hi))
        for i in range(0, len(flow_rows), CHUNK):
            part = flow_rows[i : i + CHUNK]
            lines = _flow_lines(trace, part, texts, pids, tids, shift_ns, flow_id_base)
            yield ",\n".join(lines.tolist())


def _open_text(path: Path, gz: bool) -> IO[str]:
    """Text output, gzip level 6 when asked (level 9 triples the time for 2 % less size)."""
    if gz:
        return gzip.open(path, "wt", encoding="utf-8", compresslevel=6)
    return open(path, "w", encoding="utf-8")


def _write_chunks(out: IO[str], lines_of: object, rows: np.ndarray, first: bool) -> bool:
    assert callable(lines_of)
    for i in range(0, len(rows), CHUNK):
        lines = lines_of(rows[i : i + CHUNK])
        out.write(("" if first else ",\n") + ",\n".join(lines.tolist()))
        first = False
    return first


def export_chrome_trace(
    trace: Trace, path: str | Path, t0_ns: int | None = None, t1_ns: int | None = None
) -> int:
    """Write the events overlapping [t0_ns, t1_ns) (whole events, all when open) to `path`.

    A `.gz` path is gzip-compressed. The file is written beside `path` and renamed into
    place, so a reader never sees half an export. Returns the number of events written.
    """
    path = Path(path)
    ev = trace.events
    lo = np.iinfo(np.int64).min if t0_ns is None else t0_ns
    hi = np.iinfo(np.int64).max if t1_ns is None else t1_ns
    start, end = ev["start_ns"], ev["end_ns"]
    rows = np.flatnonzero((start < hi) & ((end > lo) | ((end == start) & (start >= lo))))
    flow_rows = np.flatnonzero((trace.flows["ts_ns"] >= lo) & (trace.flows["ts_ns"] < hi))
    texts, category = _texts(trace), _category()
    pid = np.array([_scalar(t.pid) for t in trace.tracks] or ["0"], dtype=_S)
    tid = np.array([_scalar(t.tid) for t in trace.tracks] or ["0"], dtype=_S)
    meta = [
        {"ph": "M", "name": name, "pid": json.loads(_scalar(t.pid)),
         "tid": json.loads(_scalar(t.tid)), "args": {"name": value}}
        for t in trace.tracks
        for name, value in (("process_name", t.process_name), ("thread_name", t.thread_name))
        if value
    ]  # fmt: skip
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with _open_text(tmp, gz=path.suffix == ".gz") as out:
            head = {"schemaVersion": 1, "exportVersion": EXPORT_VERSION, "exporter": _EXPORTER}
            out.write(json.dumps(head)[:-1])
            out.write(',"traceEvents":[\n')
            out.write(",\n".join(json.dumps(m) for m in meta))
            first = _write_chunks(
                out, lambda r: _event_lines(trace, r, texts, category, pid, tid), rows, not meta
            )
            _write_chunks(out, lambda r: _flow_lines(trace, r, texts, pid, tid), flow_rows, first)
            out.write("\n]}\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return len(rows)
