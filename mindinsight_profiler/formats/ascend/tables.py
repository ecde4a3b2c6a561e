"""The Ascend export's summary files, read into side tables of the model.

These files hold what the event stream does not: the tool's own per-step split
(`step_trace_time.csv`), per-op-type statistics (`op_statistic.csv`), the op type and core
of each kernel (`kernel_details.csv`), memory series and per-operator allocations, and the
communication summaries, and the device memory each CANN component reserved
(`npu_module_mem.csv`). They are kept as they are (numbers in columns, strings as codes)
so that analyses can use them and tests can check our own figures against the tool's.
Every reader raises `InputError` naming its file; which files are required is decided by
`ascend_pt`, not here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import notices
from mindinsight_profiler.formats.ascend.csv_files import FLOAT, INT, STR, TIME_US, Col, read_csv
from mindinsight_profiler.formats.event_times import MAX_TIME_NS
from mindinsight_profiler.formats.side_files import read_json
from mindinsight_profiler.model.strings import StringTable

Table = dict[str, np.ndarray]

#: Largest memory figure (MB) taken from a file: 8 PB, far above any device, still exact
#: when it becomes bytes.
MAX_MB = 2**33

STEP_TRACE_TIME = {
    "step": Col("Step", INT),
    "computing_ns": Col("Computing", TIME_US),
    "comm_not_overlapped_ns": Col("Communication(Not Overlapped)", TIME_US),
    "overlapped_ns": Col("Overlapped", TIME_US),
    "communication_ns": Col("Communication", TIME_US),
    "free_ns": Col("Free", TIME_US),
    "stage_ns": Col("Stage", TIME_US),
    "bubble_ns": Col("Bubble", TIME_US, required=False),
    "comm_not_overlapped_excl_receive_ns": Col(
        "Communication(Not Overlapped and Exclude Receive)", TIME_US, required=False
    ),
    "preparing_ns": Col("Preparing", TIME_US, required=False),
}
OP_STATISTIC = {
    "op_type": Col("OP Type", STR),
    "core_type": Col("Core Type", STR, required=False),
    "count": Col("Count", INT),
    "total_ns": Col("Total Time(us)", TIME_US),
    "min_ns": Col("Min Time(us)", TIME_US),
    "avg_ns": Col("Avg Time(us)", TIME_US),
    "max_ns": Col("Max Time(us)", TIME_US),
    "ratio_pct": Col("Ratio(%)", FLOAT, required=False, hi=100),
}
#: AI Core PMU pipe ratios of kernel_details.csv (0-1), as the database's TASK_PMU_INFO names them.
PMU_RATIOS = ["aic_mac_ratio", "aic_scalar_ratio", "aic_mte1_ratio", "aic_mte2_ratio"]
PMU_RATIOS += ["aic_fixpipe_ratio", "aiv_vec_ratio", "aiv_scalar_ratio", "aiv_mte2_ratio"]
PMU_RATIOS += ["aiv_mte3_ratio", "aiv_mac_ratio", "aiv_mte1_ratio"]
KERNEL_DETAILS = {
    "step_id": Col("Step Id", INT, required=False),
    "name": Col("Name", STR),
    "op_type": Col("Type", STR, required=False),
    "core_type": Col("Accelerator Core", STR, required=False),
    "start_ns": Col("Start Time(us)", TIME_US),
    "duration_ns": Col("Duration(us)", TIME_US),
    "wait_ns": Col("Wait Time(us)", TIME_US, required=False),
    "block_dim": Col("Block Dim", INT, required=False),
    "stream_id": Col("Stream ID", INT, required=False),
    "task_id": Col("Task ID", INT, required=False),
    "input_shapes": Col("Input Shapes", STR, required=False),
    "input_dtypes": Col("Input Data Types", STR, required=False),
    "input_formats": Col("Input Formats", STR, required=False),
    **{f"pmu_{m}": Col(m, FLOAT, required=False, hi=1) for m in PMU_RATIOS},
    "cube_utilization_pct": Col("cube_utilization(%)", FLOAT, required=False, hi=100),
    # cycles of all blocks and the core time, as TASK_PMU_INFO's aic_/aiv_total_* (time in ns)
    "pmu_aic_total_cycles": Col("aic_total_cycles", FLOAT, required=False),
    "pmu_aic_total_time": Col("aicore_time(us)", TIME_US, required=False),
    "pmu_aiv_total_cycles": Col("aiv_total_cycles", FLOAT, required=False),
    "pmu_aiv_total_time": Col("aiv_time(us)", TIME_US, required=False),
}
MEMORY_RECORD = {
    "component": Col("Component", STR),
    "ts_ns": Col("Timestamp(us)", TIME_US),
    "total_allocated_mb": Col("Total Allocated(MB)", FLOAT, hi=MAX_MB),
    "total_reserved_mb": Col("Total Reserved(MB)", FLOAT, hi=MAX_MB),
    "total_active_mb": Col("Total Active(MB)", FLOAT, required=False, hi=MAX_MB),
    "device": Col("Device Type", STR, required=False),
}
OPERATOR_MEMORY = {
    "name": Col("Name", STR),
    "size_kb": Col("Size(KB)", FLOAT, hi=MAX_MB * 1024),
    "alloc_ns": Col("Allocation Time(us)", TIME_US),
    "release_ns": Col("Release Time(us)", TIME_US, required=False),
    "duration_ns": Col("Duration(us)", TIME_US, required=False),
    "alloc_total_allocated_mb": Col(
        "Allocation Total Allocated(MB)", FLOAT, required=False, hi=MAX_MB
    ),
    "alloc_total_reserved_mb": Col(
        "Allocation Total Reserved(MB)", FLOAT, required=False, hi=MAX_MB
    ),
    "release_total_allocated_mb": Col(
        "Release Total Allocated(MB)", FLOAT, required=False, hi=MAX_MB
    ),
    "release_total_reserved_mb": Col(
        "Release Total Reserved(MB)", FLOAT, required=False, hi=MAX_MB
    ),
    "device": Col("Device Type", STR, required=False),
}
NPU_MODULE_MEM = {
    "component": Col("Component", STR),
    "ts_ns": Col("Timestamp(us)", TIME_US),
    "total_reserved_mb": Col("Total Reserved(MB)", FLOAT, hi=MAX_MB),
    "device": Col("Device", STR, required=False),
}
API_STATISTIC = {
    "level": Col("Level", STR),
    "api": Col("API Name", STR),
    "total_ns": Col("Time(us)", TIME_US),
    "count": Col("Count", INT),
    "avg_ns": Col("Avg(us)", TIME_US),
    "min_ns": Col("Min(us)", TIME_US),
    "max_ns": Col("Max(us)", TIME_US),
}

#: CSV file name -> (table name, columns, a header-only file is valid).
CSV_TABLES: dict[str, tuple[str, dict[str, Col], bool]] = {
    "step_trace_time.csv": ("step_trace_time", STEP_TRACE_TIME, False),
    "op_statistic.csv": ("op_statistic", OP_STATISTIC, False),
    "kernel_details.csv": ("kernel_details", KERNEL_DETAILS, False),
    "memory_record.csv": ("memory_record", MEMORY_RECORD, False),
    "operator_memory.csv": ("operator_memory", OPERATOR_MEMORY, False),
    "api_statistic.csv": ("api_statistic", API_STATISTIC, False),
    "npu_module_mem.csv": ("npu_module_mem", NPU_MODULE_MEM, False),
}


def read_csv_table(path: Path, strings: StringTable) -> tuple[str, Table]:
    """(table name, columns) of one of the known CSV files."""
    name, columns, allow_empty = CSV_TABLES[path.name]
    return name, read_csv(path, columns, strings, allow_empty)


def _value(path: Path, key: str, value: Any, hi: float = math.inf) -> float:
    """A number of a summary file, NaN when absent; a value of another type or outside
    [0, hi] is read as absent with a warning (once per key)."""
    if value is None:
        return math.nan
    if not isinstance(value, int | float) or isinstance(value, bool):
        notices.warn(path, f"{key!r} is not a number ({str(value)[:40]!r}): read as absent")
        return math.nan
    if not 0 <= value <= hi:  # NaN fails too
        notices.warn(path, f"{key!r} out of range ({value!r:.40}): read as absent")
        return math.nan
    return float(value)


def _time_ns(path: Path, key: str, value: Any, unit_ns: int) -> int:
    """A time in `unit_ns` units as int ns, -1 when absent (see `_value`)."""
    v = _value(path, key, value, MAX_TIME_NS / unit_ns)
    return -1 if math.isnan(v) else round(v * unit_ns)


def _json(path: Path) -> dict[str, Any]:
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "not a communication summary: the document is not a JSON object")
    return doc


def _ops(path: Path, doc: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(step, 'collective'|'p2p', op name, info) for every op of every step."""
    out = []
    for step, groups in doc.items():
        if not isinstance(groups, dict):
            raise InputError(path, f"{step}: expected an object of p2p/collective ops")
        for kind in ("collective", "p2p"):
            ops = groups.get(kind) or {}
            if not isinstance(ops, dict):
                raise InputError(path, f"{step}.{kind}: expected an object")
            for op, info in ops.items():
                if not isinstance(info, dict):
                    raise InputError(path, f"{step}.{kind}.{op}: expected an object")
                out.append((str(step), kind, str(op), info))
    return out


def read_communication(path: Path, strings: StringTable) -> Table:
    """`communication.json`: one row per (step, op) with its time split, in ns."""
    rows = _ops(path, _json(path))
    info = [r[3].get("Communication Time Info") or {} for r in rows]

    def col(key: str) -> np.ndarray:
        return np.array([_time_ns(path, key, i.get(key), 1_000_000) for i in info], np.int64)

    start_key = "Start Timestamp(us)"
    start = [_time_ns(path, start_key, i.get(start_key), 1000) for i in info]
    return {
        "step": np.array([strings.intern(r[0]) for r in rows], dtype=np.int32),
        "kind": np.array([strings.intern(r[1]) for r in rows], dtype=np.int32),
        "op": np.array([strings.intern(r[2]) for r in rows], dtype=np.int32),
        "start_ns": np.array(start, np.int64),
        "elapse_ns": col("Elapse Time(ms)"),
        "transit_ns": col("Transit Time(ms)"),
        "wait_ns": col("Wait Time(ms)"),
        "sync_ns": col("Synchronization Time(ms)"),
        "idle_ns": col("Idle Time(ms)"),
    }


def read_comm_packets(path: Path, strings: StringTable) -> Table:
    """`communication.json`'s packet sizes: one row per (step, op, transport, packet size) from
    each op's `Size Distribution` ({size MB: [count, total ms]}); `Total Op Info` is left out."""
    rows = []
    for step, kind, op, info in _ops(path, _json(path)):
        if op == "Total Op Info":
            continue
        bandwidth = info.get("Communication Bandwidth Info") or {}
        if not isinstance(bandwidth, dict):
            raise InputError(path, f"{step}.{op}: 'Communication Bandwidth Info' is not an object")
        for transport, v in bandwidth.items():
            sizes = v.get("Size Distribution") if isinstance(v, dict) else None
            if not isinstance(sizes, dict):
                continue
            for size, pair in sizes.items():
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise InputError(path, f"{step}.{op}.{transport}: size {size}: not [count, ms]")
                rows.append((step, kind, op, str(transport), size, pair[0], pair[1]))

    def num(i: int, key: str) -> np.ndarray:
        return np.array([_value(path, key, _number(r[i])) for r in rows], dtype=np.float64)

    return {
        "step": np.array([strings.intern(r[0]) for r in rows], dtype=np.int32),
        "kind": np.array([strings.intern(r[1]) for r in rows], dtype=np.int32),
        "op": np.array([strings.intern(r[2]) for r in rows], dtype=np.int32),
        "transport": np.array([strings.intern(r[3]) for r in rows], dtype=np.int32),
        "size_mb": num(4, "Size Distribution size"),
        "count": num(5, "Size Distribution count"),
        "time_ns": np.array(
            [_time_ns(path, "Size Distribution time", r[6], 10**6) for r in rows], np.int64
        ),
    }


def _number(value: Any) -> Any:
    """A size key of `Size Distribution` ("2.064384") as a float; other values unchanged."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _is_rank(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) < 10


def read_communication_matrix(path: Path, strings: StringTable) -> Table:
    """`communication_matrix.json`: one row per (step, op group, src-dst link)."""
    rows = []
    for step, kind, op, links in _ops(path, _json(path)):
        for link, v in links.items():
            src, _, dst = str(link).partition("-")
            if not isinstance(v, dict) or not (_is_rank(src) and _is_rank(dst)):
                raise InputError(path, f"{step}.{op}.{link}: not a src-dst link")
            rows.append((step, kind, op, int(src), int(dst), v))

    def val(key: str) -> np.ndarray:
        return np.array([_value(path, key, r[5].get(key)) for r in rows], dtype=np.float64)

    return {
        "step": np.array([strings.intern(r[0]) for r in rows], dtype=np.int32),
        "kind": np.array([strings.intern(r[1]) for r in rows], dtype=np.int32),
        "group": np.array([strings.intern(r[2]) for r in rows], dtype=np.int32),
        "src_rank": np.array([r[3] for r in rows], dtype=np.int64),
        "dst_rank": np.array([r[4] for r in rows], dtype=np.int64),
        "transport": np.array(
            [strings.intern(str(r[5].get("Transport Type", ""))) for r in rows], np.int32
        ),
        "op": np.array([strings.intern(str(r[5].get("Op Name", ""))) for r in rows], np.int32),
        "size_mb": val("Transit Size(MB)"),
        "time_ns": np.array(
            [_time_ns(path, "Transit Time(ms)", r[5].get("Transit Time(ms)"), 10**6) for r in rows],
            np.int64,
        ),
        "bandwidth_gbps": val("Bandwidth(GB/s)"),
    }


#: file -> the side tables read from it (table name, reader).
JSON_TABLES: dict[str, tuple[tuple[str, Callable[[Path, StringTable], Table]], ...]] = {
    "communication.json": (
        ("communication", read_communication),
        ("comm_packets", read_comm_packets),
    ),
    "communication_matrix.json": (("communication_matrix", read_communication_matrix),),
}
