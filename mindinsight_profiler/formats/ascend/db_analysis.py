"""torch_npu's `analysis.db`: the tool's own step split and communication summaries.

Written beside the profiler database when the job communicates; it holds what
`step_trace_time.csv`, `communication.json` and `communication_matrix.json` hold in the text
export, in the same units (StepTraceTime in us; CommAnalyzerTime in ms with its start in us;
CommAnalyzerMatrix in MB, ms and GB/s). The tables are returned under the text reader's
names and columns. A table the file lacks is simply absent (the caller says so in
`meta["warnings"]`); group names are joined to op names with `@` as the JSON files key them.
"""

from __future__ import annotations

import numpy as np

from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.formats.ascend.db_names import Names

Table = dict[str, np.ndarray]

#: StepTraceTime columns (us) -> the text reader's `step_trace_time` columns (ns).
STEP_COLUMNS = {
    "computing": "computing_ns",
    "communication_not_overlapped": "comm_not_overlapped_ns",
    "overlapped": "overlapped_ns",
    "communication": "communication_ns",
    "free": "free_ns",
    "stage": "stage_ns",
    "bubble": "bubble_ns",
    "communication_not_overlapped_and_exclude_receive": "comm_not_overlapped_excl_receive_ns",
    "preparing": "preparing_ns",
}
TIME_COLUMNS = ["start_timestamp", "elapse_time", "transit_time", "wait_time"]
TIME_COLUMNS += ["synchronization_time", "idle_time"]
TABLES = ("StepTraceTime", "CommAnalyzerTime", "CommAnalyzerMatrix")


def _ns(values: np.ndarray, scale: float) -> np.ndarray:
    return np.where(np.isfinite(values), np.rint(values * scale), -1).astype(np.int64)


def step_trace_time(db: DbFile) -> Table | None:
    if not db.has("StepTraceTime"):
        return None
    out: Table = {"step": db.ints("StepTraceTime", ["step"])["step"]}
    f = db.floats("StepTraceTime", list(STEP_COLUMNS))
    out.update({ours: _ns(f[theirs], 1e3) for theirs, ours in STEP_COLUMNS.items()})
    return out


def _text_rows(db: DbFile, table: str, cols: list[str]) -> list[list[str]]:
    have = db.columns(table)
    exprs = [f"COALESCE(CAST(\"{c}\" AS TEXT), '')" if c in have else "''" for c in cols]
    return [[str(v) for v in r] for r in db.texts(f'SELECT {", ".join(exprs)} FROM "{table}"')]


def communication(db: DbFile, names: Names) -> Table | None:
    """One row per (step, op) with its time split, as `tables.read_communication`."""
    if not db.has("CommAnalyzerTime"):
        return None
    t = _text_rows(db, "CommAnalyzerTime", ["step", "type", "hccl_op_name", "group_name"])
    f = db.floats("CommAnalyzerTime", TIME_COLUMNS)
    return {
        "step": names.coded([r[0] for r in t]),
        "kind": names.coded([r[1] for r in t]),
        "op": names.coded([f"{r[2]}@{r[3]}" if r[3] else r[2] for r in t]),
        "start_ns": _ns(f["start_timestamp"], 1e3),
        "elapse_ns": _ns(f["elapse_time"], 1e6),
        "transit_ns": _ns(f["transit_time"], 1e6),
        "wait_ns": _ns(f["wait_time"], 1e6),
        "sync_ns": _ns(f["synchronization_time"], 1e6),
        "idle_ns": _ns(f["idle_time"], 1e6),
    }


def communication_matrix(db: DbFile, names: Names) -> Table | None:
    """One row per (step, op group, src-dst link), as `tables.read_communication_matrix`."""
    if not db.has("CommAnalyzerMatrix"):
        return None
    cols = ["step", "type", "hccl_op_name", "group_name", "transport_type", "op_name"]
    t = _text_rows(db, "CommAnalyzerMatrix", cols)
    r = db.ints("CommAnalyzerMatrix", ["src_rank", "dst_rank"])
    f = db.floats("CommAnalyzerMatrix", ["transit_size", "transit_time", "bandwidth"])
    return {
        "step": names.coded([x[0] for x in t]),
        "kind": names.coded([x[1] for x in t]),
        "group": names.coded([f"{x[2]}@{x[3]}" if x[3] else x[2] for x in t]),
        "src_rank": r["src_rank"],
        "dst_rank": r["dst_rank"],
        "transport": names.coded([x[4] for x in t]),
        "op": names.coded([x[5] for x in t]),
        "size_mb": f["transit_size"],
        "time_ns": _ns(f["transit_time"], 1e6),
        "bandwidth_gbps": f["bandwidth"],
    }


def comm_packets(db: DbFile, names: Names) -> Table | None:
    """One row per (step, op, transport, packet size) with packets, as
    `tables.read_comm_packets` (CommAnalyzerBandwidth: package_size MB, total_duration ms)."""
    if not db.has("CommAnalyzerBandwidth"):
        return None
    cols = ["step", "type", "hccl_op_name", "group_name", "transport_type"]
    t = _text_rows(db, "CommAnalyzerBandwidth", cols)
    f = db.floats("CommAnalyzerBandwidth", ["package_size", "count", "total_duration"])
    keep = np.flatnonzero(f["count"] > 0)
    t = [t[i] for i in keep.tolist()]
    return {
        "step": names.coded([r[0] for r in t]),
        "kind": names.coded([r[1] for r in t]),
        "op": names.coded([f"{r[2]}@{r[3]}" if r[3] else r[2] for r in t]),
        "transport": names.coded([r[4] for r in t]),
        "size_mb": f["package_size"][keep],
        "count": f["count"][keep],
        "time_ns": _ns(f["total_duration"][keep], 1e6),
    }
