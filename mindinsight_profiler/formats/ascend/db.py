"""Reader for torch_npu's database export (`export_type=db`): the same model as the text one.

With `export_type=db` a `*_ascend_pt/ASCEND_PROFILER_OUTPUT` folder holds
`ascend_pytorch_profiler[_<rank>].db` (everything trace_view.json and the CSVs hold) and,
when the job communicates, `analysis.db` (the step split and communication summaries); no
trace_view.json. This reader builds the `Trace` the text reader builds from the same job:
the same tracks, kinds, launch links and side tables (`db_events`, `db_device`, `db_links`,
`db_tables`, `db_analysis`), so every analysis and the tests' cross-checks work unchanged.

Required: the profiler database with `STRING_IDS` and at least one of `PYTORCH_API` and
`TASK`; a file that is not such a database (empty, truncated, locked, foreign) is one
`InputError` naming it. Every other table is optional: when one is missing, what it would
give is left out and `meta["warnings"]` says which table and what is lost. The files are
opened read-only (`db_file`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend import db_analysis, db_tables
from mindinsight_profiler.formats.ascend.db_device import device_events
from mindinsight_profiler.formats.ascend.db_events import (
    Tracks,
    cann_events,
    host_events,
    missing_steps,
)
from mindinsight_profiler.formats.ascend.db_file import DbFile, open_db
from mindinsight_profiler.formats.ascend.db_links import link
from mindinsight_profiler.formats.ascend.db_names import Names
from mindinsight_profiler.model.links import build_links
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import EVENT_COLUMNS, MEMORY_COLUMNS, Trace, empty_columns

ANALYSIS_DB = "analysis.db"
REQUIRED_ANY = ("PYTORCH_API", "TASK")
#: Optional tables of the profiler database, and what is missing without them.
OPTIONAL = {
    "PYTORCH_API": "no host operators",
    "TASK": "no device tasks",
    "COMPUTE_TASK_INFO": "kernels have no names, op types or cores",
    "CONNECTION_IDS": "device work is not linked to its operators",
    "CANN_API": "no CANN API calls",
    "STEP_TIME": "kernels carry no step",
}


def _device_and_rank(db: DbFile) -> tuple[int | None, int | None]:
    for table, cols in (("RANK_DEVICE_MAP", ["deviceId", "rankId"]), ("NPU_INFO", ["id"])):
        if db.has(table):
            row = db.ints(table, cols)
            if len(row[cols[0]]) and row[cols[0]][0] >= 0:
                rank = int(row["rankId"][0]) if "rankId" in row else None
                return int(row[cols[0]][0]), rank if rank is not None and rank >= 0 else None
    return None, None


def _npu_name(db: DbFile) -> str | None:
    """The chip's name from NPU_INFO ("Ascend910B"), which the device table matches."""
    if not db.has("NPU_INFO") or "name" not in db.columns("NPU_INFO"):
        return None
    names = [r[0] for r in db.texts("SELECT name FROM NPU_INFO") if isinstance(r[0], str)]
    return next((n.strip() for n in names if n.strip()), None)


def _environment(db: DbFile) -> Any:
    if not db.has("META_DATA"):
        return None
    for name, value in db.texts("SELECT name, value FROM META_DATA"):
        if name == "ENV_VARIABLES" and isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return None
    return None


def _join(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    full = [{**empty_columns(EVENT_COLUMNS, len(p["start_ns"])), **p} for p in parts]
    return {
        c: np.concatenate([p[c] for p in full]).astype(EVENT_COLUMNS[c][0]) for c in EVENT_COLUMNS
    }


def _analysis(out: Path, names: Names, tables: dict[str, Any], warnings: list[str]) -> None:
    path = out / ANALYSIS_DB
    if not path.is_file():
        warnings.append(f"{path}: no such file: no step_trace_time or communication summaries")
        return
    try:
        with open_db(path) as adb:
            for table in db_analysis.TABLES:
                if not adb.has(table):
                    warnings.append(f"{path}: no {table} table")
            for name, value in (
                ("step_trace_time", db_analysis.step_trace_time(adb)),
                ("communication", db_analysis.communication(adb, names)),
                ("communication_matrix", db_analysis.communication_matrix(adb, names)),
                ("comm_packets", db_analysis.comm_packets(adb, names)),
            ):
                if value is not None:
                    tables[name] = value
    except InputError as exc:
        warnings.append(str(exc))


def read_ascend_db(root: Path, out: Path, path: Path, meta: dict[str, Any]) -> Trace:
    """The model of one torch_npu database export; `meta` is the folder's (profiler_info)."""
    strings = StringTable()
    warnings: list[str] = []
    with open_db(path) as db:
        if not db.has("STRING_IDS") or not any(db.has(t) for t in REQUIRED_ANY):
            found = ", ".join(sorted(db.tables)[:10]) or "none"
            raise InputError(
                path, f"not a torch_npu profiler database: needs STRING_IDS and PYTORCH_API "
                f"or TASK (tables found: {found})",
            )  # fmt: skip
        warnings += [
            f"{path}: no {t} table: {lost}" for t, lost in OPTIONAL.items() if not db.has(t)
        ]
        names = Names(db, strings)
        device, rank = _device_and_rank(db)
        tracks = Tracks()
        host = host_events(db, names, tracks)
        steps = missing_steps(db, names, host)
        cann, cann_conn = cann_events(db, names, tracks)
        dev = device_events(db, names, tracks, -1 if device is None else device)
        cols = _join([host.cols, steps, cann, dev.cols])
        none = np.full(len(host.connection_key), -1, dtype=np.int64)
        n_steps, n_cann, n_dev = len(steps["start_ns"]), len(cann_conn), len(dev.connection)
        host_key = np.concatenate([host.connection_key, np.full(n_steps + n_cann + n_dev, -1)])
        launch_id = np.concatenate([none, np.full(n_steps, -1), cann_conn, dev.connection])
        linked = link(db, cols, host_key.astype(np.int64), launch_id.astype(np.int64), strings)
        events = _join([cols, linked.launches])
        dev.kernels.event += len(none) + n_steps + n_cann
        step_rows = (
            db.ints("STEP_TIME", ["id", "startNs", "endNs"]) if db.has("STEP_TIME") else None
        )
        kd = db_tables.kernel_details(db, names, dev.kernels, events, step_rows)
        tables: dict[str, Any] = {"kernel_details": kd}
        tables["op_statistic"] = db_tables.op_statistic(kd, strings.intern("HCCL"))
        for name, reader in (
            ("memory_record", db_tables.memory_record),
            ("operator_memory", db_tables.operator_memory),
            ("npu_module_mem", db_tables.npu_module_mem),
            ("api_statistic", db_tables.api_statistic),
            ("overlap_analysis", db_tables.overlap_analysis),
        ):
            table = reader(db, names)
            if table is not None:
                tables[name] = table
        environment = _environment(db)
        npu_name = _npu_name(db)
        hccl = db.has("COMMUNICATION_OP") and bool(
            len(db.ints("COMMUNICATION_OP", ["opId"])["opId"])
        )
    if len(events["start_ns"]) == 0:
        raise InputError(path, "the database holds no events")
    _analysis(out, names, tables, warnings)
    meta = dict(meta)
    if meta.get("rank") is None and rank is not None:
        meta["rank"] = rank
        meta["distributed_info"] = {
            "rank": rank,
            "world_size": meta.get("world_size"),
            "backend": None,
        }
    if meta.get("distributed_info") and hccl:
        meta["distributed_info"] = {**meta["distributed_info"], "backend": "hccl"}
    meta["device_id"] = device
    meta["device_name"] = npu_name
    meta["environment"] = meta.get("environment") or environment
    meta["export"] = "db"
    meta["pytorch_api_swapped"] = host.swapped
    meta["event_count"] = len(events["start_ns"])
    meta["warnings"] = warnings
    flows = linked.flows
    trace = Trace(
        events, empty_columns(MEMORY_COLUMNS, 0), flows, strings, tracks.tracks, meta, tables
    )
    build_links(trace)
    return trace
