"""MindData (the `mindspore.dataset` pipeline) and HCCL files, as side tables.

Written the same way by legacy profilers and by MindSpore 2.x (`minddata_profiling/`):
- `minddata_pipeline_raw_{r}.csv` or `pipeline_profiling_{r}.json`: pipeline ops, their
  output-queue capacity and sampled sizes -> `minddata_ops`, `minddata_queue_samples`;
- `device_queue_profiling_{r}.txt` / `dataset_iterator_profiling_{r}.txt`: per-step
  host-queue sizes and get/push times -> `data_queue_size`, `data_queue_time`;
- `minddata_aicpu_{r}.txt`: the device's GetNext waits and chip-queue sizes -> `getnext`;
- `minddata_cpu_utilization_{r}.json`: sampled CPU use -> `minddata_cpu` (long form, since
  its series have different lengths in real files);
- `hccl_raw_{r}.csv`: communication costs, read by `ms_hccl`.
Sample lists are stored long (one row per sample) so every table has equal-length columns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.mindspore.hccl import add_hccl, read_hccl
from mindinsight_profiler.formats.side_files import (
    MAX_NUMBER,
    parse_numbers,
    read_csv,
    read_json,
    read_number_lines,
    to_ns,
)

#: File name patterns of one rank's MindData and HCCL files; `{r}` is the rank.
MINDDATA_FILES = {
    "pipeline_csv": "minddata_pipeline_raw_{r}.csv",
    "pipeline_json": "pipeline_profiling_{r}.json",
    "device_queue": "device_queue_profiling_{r}.txt",
    "dataset_iterator": "dataset_iterator_profiling_{r}.txt",
    "getnext": "minddata_aicpu_{r}.txt",
    "cpu_utilization": "minddata_cpu_utilization_{r}.json",
    "hccl": "hccl_raw_{r}.csv",
}
_MINDDATA_NAMES = [
    re.compile("^" + re.escape(p).replace(re.escape("{r}"), r"(\d+)") + "$")
    for p in MINDDATA_FILES.values()
]
_TIME_KINDS = {0: "get", 1: "push", 2: "total"}


def minddata_ranks(folder: Path) -> list[int]:
    """Ranks that have MindData/HCCL files in `folder`."""
    found = {
        int(m.group(1)) for c in folder.iterdir() for r in _MINDDATA_NAMES if (m := r.match(c.name))
    }
    return sorted(found)


def _int_list(path: Path, cell: str, row: int) -> list[int]:
    if not cell:
        return []
    try:
        values = msgspec.json.decode(cell, type=list[int])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        raise InputError(path, f"row {row}: not a list of integers: {cell[:40]!r}") from None
    return values


def _pipeline_columns(
    b: TraceBuilder, ops: list[dict[str, Any]], samples: list[tuple[int, int, int]]
) -> None:
    length = np.array([o["length"] for o in ops], dtype=np.int64)
    b.add_table(
        "minddata_ops",
        {
            "op_id": np.array([o["op_id"] for o in ops], dtype=np.int32),
            "op_type": b.codes([o["op_type"] for o in ops]),
            "num_workers": np.array([o["num_workers"] for o in ops], dtype=np.int32),
            "parent_id": np.array([o["parent_id"] for o in ops], dtype=np.int32),
            "queue_capacity": length,
        },
    )
    arr = np.array(samples, dtype=np.int64).reshape(-1, 3)
    b.add_table(
        "minddata_queue_samples",
        {"op_id": arr[:, 0].astype(np.int32), "sample": arr[:, 1], "size": arr[:, 2]},
    )


def read_pipeline_csv(path: Path) -> tuple[list[dict[str, Any]], list[tuple[int, int, int]]]:
    """Ops and queue samples of `minddata_pipeline_raw_*.csv` (blank queue = no queue)."""
    t = read_csv(path, ["op_id", "op_type", "num_workers", "output_queue_size", "parent_id"])
    op_id = t.numbers("op_id", "int64")
    workers = t.numbers("num_workers", "int64")
    parent = t.numbers("parent_id", "int64", blank=-1)
    cap = (
        t.numbers("output_queue_length", "int64", blank=-1)
        if t.has("output_queue_length")
        else np.full(len(t), -1)
    )
    ops, samples = [], []
    for i, (oid, typ, cell) in enumerate(
        zip(op_id.tolist(), t.text("op_type"), t.text("output_queue_size"), strict=True)
    ):
        ops.append(
            {
                "op_id": oid,
                "op_type": typ,
                "num_workers": int(workers[i]),
                "parent_id": int(parent[i]),
                "length": int(cap[i]),
            }
        )
        samples += [(oid, k, v) for k, v in enumerate(_int_list(path, cell, i + 2))]
    return ops, samples


#: Ids and counts of a pipeline profile, and queue sizes: none is negative.
_Count = Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)]
_Size = Annotated[int, msgspec.Meta(ge=0, le=MAX_NUMBER)]


class _Queue(msgspec.Struct):
    length: Annotated[int, msgspec.Meta(ge=-1, le=2**31 - 1)] = -1
    size: list[_Size] = []


class _Metrics(msgspec.Struct):
    output_queue: _Queue | None = None


class _Op(msgspec.Struct):
    op_id: _Count
    op_type: str
    num_workers: _Count
    children: list[_Count] = []
    metrics: _Metrics | None = None


class _Pipeline(msgspec.Struct):
    op_info: list[_Op]
    sampling_interval: int = -1


def read_pipeline_json(path: Path) -> tuple[list[dict[str, Any]], list[tuple[int, int, int]]]:
    """Ops and queue samples of `pipeline_profiling_*.json` (parents from `children`)."""
    try:
        doc = msgspec.convert(read_json(path), _Pipeline)
    except msgspec.ValidationError as exc:
        raise InputError(path, f"not a pipeline profile: {exc}") from None
    parent = {c: op.op_id for op in doc.op_info for c in op.children}
    ops, samples = [], []
    for op in doc.op_info:
        queue = op.metrics.output_queue if op.metrics else None
        ops.append(
            {
                "op_id": op.op_id,
                "op_type": op.op_type,
                "num_workers": op.num_workers,
                "parent_id": parent.get(op.op_id, -1),
                "length": queue.length if queue else -1,
            }
        )
        samples += [(op.op_id, k, v) for k, v in enumerate(queue.size if queue else [])]
    return ops, samples


def add_pipeline(b: TraceBuilder, parsed: tuple[list[dict[str, Any]], list[Any]]) -> None:
    _pipeline_columns(b, parsed[0], parsed[1])


def read_queue_log(path: Path) -> dict[str, np.ndarray]:
    """`<0|1> ...` lines: type 0 = time (`0 <0 get|1 push|2 total> <step> <ms> <ts>`),
    type 1 = queue (`1 <capacity> <step> <size> <ts>`)."""
    lines = read_number_lines(path, 4)
    cells = [list(c) for c in zip(*(ln[:4] for ln in lines), strict=True)]
    record = parse_numbers(path, cells[0], "line", "int64")
    if not np.isin(record, (0, 1)).all():
        raise InputError(
            path, f"line {int(np.argmax(~np.isin(record, (0, 1)))) + 1}: unknown record"
        )
    second = parse_numbers(path, cells[1], "line", "int64")
    step = parse_numbers(path, cells[2], "line", "int64")
    value = parse_numbers(path, cells[3], "line", "float64")
    to_ns(path, value[record == 0], 1e6, "a get/push time (ms)")  # checked here, used later
    # the sampling time (5th field; MindInsight maps CPU samples to steps with it)
    ts_cells = [ln[4] if len(ln) > 4 else "" for ln in lines]
    ts = parse_numbers(path, ts_cells, "line", "int64", blank=-1)
    return {"record": record, "second": second, "step": step, "value": value, "ts": ts}


def add_queue_log(b: TraceBuilder, source: str, rows: dict[str, np.ndarray]) -> None:
    """Host data-queue sizes per step and get/push/total times per step (ms -> ns)."""
    q, t = rows["record"] == 1, rows["record"] == 0
    size = {
        "source": b.codes([source] * int(q.sum())),
        "step": rows["step"][q],
        "size": rows["value"][q].astype(np.int64),
        "capacity": rows["second"][q],
        "ts": rows["ts"][q],
    }
    time = {
        "source": b.codes([source] * int(t.sum())),
        "step": rows["step"][t],
        "what": b.codes([_TIME_KINDS.get(k, str(k)) for k in rows["second"][t].tolist()]),
        "duration_ns": np.rint(rows["value"][t] * 1e6).astype(np.int64),
    }
    for name, table in (("data_queue_size", size), ("data_queue_time", time)):
        prev = b.tables.get(name)
        if prev is not None:
            table = {k: np.concatenate([prev[k], v]) for k, v in table.items()}
        b.add_table(name, table)


def read_getnext(path: Path) -> dict[str, np.ndarray]:
    """`GetNext_dequeue_wait <start_us> <end_us> <queue_size>` lines (device clock, us)."""
    lines = read_number_lines(path, 4)
    cols = [list(c) for c in zip(*(ln[1:4] for ln in lines), strict=True)]
    start = to_ns(path, parse_numbers(path, cols[0], "line", "int64"), 1000, "start")
    end = to_ns(path, parse_numbers(path, cols[1], "line", "int64"), 1000, "end")
    if (end < start).any():
        raise InputError(path, f"line {int(np.argmax(end < start)) + 1}: ends before it starts")
    size = parse_numbers(path, cols[2], "line", "int64")
    return {"start_ns": start, "end_ns": end, "queue_size": size}


def read_cpu_utilization(path: Path) -> dict[str, Any]:
    """Series of `minddata_cpu_utilization_*.json` as (series name, sample, value) rows."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "expected a JSON object")
    series: list[tuple[str, list[Any]]] = []
    for group, content in doc.items():  # device_info, process_info, *_memory_info, ...
        if isinstance(content, dict):
            for key, vals in content.items():
                series.append((f"{group.removesuffix('_info')}.{key}", vals))
    ops = doc.get("op_info") or []
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise InputError(path, "op_info: not a list of objects")
    for op in ops:
        metrics = op.get("metrics") or {}
        if not isinstance(metrics, dict):
            raise InputError(
                path, f"op_info of op {str(op.get('op_id'))[:20]}: metrics is not an object"
            )
        for key, vals in metrics.items():
            series.append((f"op{op.get('op_id')}.{key}", vals))
    names: list[str] = []
    samples: list[int] = []
    values: list[float] = []
    for name, vals in series:
        hi = 100 if name.endswith("_utilization") else MAX_NUMBER  # percent of all CPUs
        if not _numbers_within(vals, hi):
            raise InputError(path, f"{name}: not a list of numbers within [0, {hi}]")
        names += [name] * len(vals)
        samples += range(len(vals))
        values += vals
    stamps = doc.get("time_stamp") or []
    if not _numbers_within(stamps, MAX_NUMBER):
        raise InputError(path, "time_stamp: not a list of numbers within range")
    return {
        "series": names,
        "sample": np.array(samples, dtype=np.int64),
        "value": np.array(values, dtype=np.float64),
        "sampling_interval_ms": _positive(doc.get("sampling_interval")),
        "cpu_count": _positive(doc.get("cpu_processor_num")),
        "time_stamp": np.array(stamps, dtype=np.int64),
    }


def _numbers_within(values: Any, hi: float) -> bool:
    return isinstance(values, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= hi for v in values
    )


def _positive(value: Any) -> int | None:
    """A setting that must be a positive integer (an interval, a CPU count), else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_NUMBER
    return value if ok else None


def add_cpu_utilization(b: TraceBuilder, parsed: dict[str, Any]) -> None:
    b.add_table(
        "minddata_cpu",
        {"series": b.codes(parsed["series"]), "sample": parsed["sample"], "value": parsed["value"]},
    )
    b.add_table("minddata_cpu_time", {"ts": parsed["time_stamp"]})
    b.meta["minddata_cpu_sampling_interval_ms"] = parsed["sampling_interval_ms"]
    b.meta["cpu_count"] = parsed["cpu_count"]


def add_minddata_files(b: TraceBuilder, files: dict[str, Path]) -> None:
    """Read the MindData and HCCL files among `files` (keys as in `MINDDATA_FILES`)."""
    if "pipeline_csv" in files:
        pipeline = b.optional(files["pipeline_csv"], read_pipeline_csv)
    else:
        pipeline = None
    if pipeline is None and "pipeline_json" in files:
        pipeline = b.optional(files["pipeline_json"], read_pipeline_json)
    if pipeline is not None:
        add_pipeline(b, pipeline)
    for key in ("device_queue", "dataset_iterator"):
        if key in files:
            rows = b.optional(files[key], read_queue_log)
            if rows is not None:
                add_queue_log(b, key, rows)
    if "getnext" in files:
        getnext = b.optional(files["getnext"], read_getnext)
        if getnext is not None:
            b.add_table("getnext", getnext)
    if "cpu_utilization" in files:
        cpu = b.optional(files["cpu_utilization"], read_cpu_utilization)
        if cpu is not None:
            add_cpu_utilization(b, cpu)
    if "hccl" in files:
        hccl = b.optional(files["hccl"], read_hccl)
        if hccl is not None:
            add_hccl(b, hccl)
