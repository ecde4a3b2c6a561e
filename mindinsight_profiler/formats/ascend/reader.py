"""Reader for Ascend PyTorch (torch_npu) profiler output (`*_ascend_pt` folders).

What the folder holds decides: `ASCEND_PROFILER_OUTPUT/trace_view.json` (the text export)
is read here; without it, an `ascend_pytorch_profiler*.db` (the `export_type=db` export) is
read by `ascend.db`; with neither, one `InputError` says what was looked for.

Text export: required `ASCEND_PROFILER_OUTPUT/trace_view.json` (the events). Optional: the summary
files of `ascend_tables` and `profiler_info_*.json`. A bad required file is an `InputError`
naming it; a bad optional file is skipped with its error recorded in `meta["warnings"]`, so
a folder with one damaged summary still yields everything its good files hold.

Launch links: torch_npu writes its own operator -> device task relation as `async_npu`
flows (`s` at the launching operator's start on its thread, `f` at the task's start). Each
flow becomes a zero-length RUNTIME record `torch_to_npu` at the `s` point, correlated with
its task, so `build_links` attaches tasks to runtimes and runtimes (by containment) to the
innermost operator, exactly as for Kineto. CANN API calls (profiler level 1) are RUNTIME
ranges on their own threads, without correlation: their time shows as runtime, but the
launch relation comes from the flows, which exist at every level.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import jsonstream, notices, phases, utf8
from mindinsight_profiler.formats.ascend import trace as at
from mindinsight_profiler.formats.ascend.db_file import DB_GLOB, find_db
from mindinsight_profiler.formats.ascend.events import build_events, join_nearest
from mindinsight_profiler.formats.ascend.tables import (
    CSV_TABLES,
    JSON_TABLES,
    Table,
    read_csv_table,
)
from mindinsight_profiler.formats.chunked import decode_chunks
from mindinsight_profiler.formats.event_times import settle
from mindinsight_profiler.formats.side_files import TOO_DEEP, read_json
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.links import build_links
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import Trace

log = logging.getLogger(__name__)

OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
TRACE_FILE = "trace_view.json"
_NPU = re.compile(r"NPU:(\d+)")


def _folders(path: Path) -> tuple[Path, Path]:
    """(run folder holding profiler_info, ASCEND_PROFILER_OUTPUT folder) of `path`."""
    if path.name == OUTPUT_DIR:
        return path.parent, path
    return path, path / OUTPUT_DIR


def is_ascend_pt(path: str | Path) -> bool:
    """Whether `path` is a torch_npu output folder (or its ASCEND_PROFILER_OUTPUT).

    `*_ascend_pt` names decide; MindSpore's look-alike `*_ascend_ms` folders are refused;
    other names need `profiler_info_*.json` with torch_npu's `common_config`.
    """
    path = Path(path)
    if not path.is_dir():
        return False
    root, out = _folders(path)
    if not (out / TRACE_FILE).is_file() and find_db(out) is None:
        return False
    if root.name.endswith("_ascend_pt"):
        return True
    if root.name.endswith("_ascend_ms"):
        return False
    return any("common_config" in _dict(_info(p, quiet=True), "config") for p in _info_files(root))


def _info_files(root: Path) -> list[Path]:
    return sorted(root.glob("profiler_info*.json"))


def _info(path: Path, quiet: bool = False) -> dict[str, Any]:
    """An optional JSON object (profiler_info, profiler_metadata); {} when it is absent or
    unsound, with a warning naming the file unless `quiet` (it never takes the run down)."""
    if not path.is_file():
        return {}
    try:
        if quiet:
            with notices.gathering():
                doc = read_json(path)
        else:
            doc = read_json(path)
    except InputError as exc:
        if not quiet:
            notices.warn(path, f"skipped: {exc.problem}")
        return {}
    if not isinstance(doc, dict):
        if not quiet:
            notices.warn(path, "skipped: not a JSON object")
        return {}
    return doc


def _dict(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """`doc[key]` when it is an object, else {} (these files are read as hints)."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_events(path: Path, progress: jsonstream.ProgressFn | None) -> at.Decoded:
    def on_piece(piece: jsonstream.Piece) -> None:
        if piece.kind == "whole":
            raise InputError(path, "not a trace: expected a JSON array of events")
        if piece.kind == "head" and piece.data.strip():
            raise InputError(path, "not a trace: expected a bare JSON array of events")

    if not path.is_file():
        raise InputError(path, "no such file (required)")
    if path.stat().st_size == 0:
        raise InputError(path, "the file is empty")
    try:
        chunks = decode_chunks(path, at.decode_chunk, on_piece, progress)
    except msgspec.ValidationError as exc:
        raise InputError(path, f"not a valid trace_view: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, f"invalid or truncated JSON: {exc}") from None
    except RecursionError:
        raise InputError(path, TOO_DEEP) from None
    merged = at.Decoded()
    for c in chunks:
        merged.ranges += c.ranges
        merged.flows += c.flows
        merged.metadata += c.metadata
        merged.count += c.count
        merged.invalid_utf8 += c.invalid_utf8
        merged.unknown_phase += c.unknown_phase
        merged.begin_end += c.begin_end
    if merged.invalid_utf8:
        notices.warn(path, utf8.replaced_warning(merged.invalid_utf8))
    if merged.unknown_phase:
        notices.warn(path, phases.unknown_warning(merged.unknown_phase))
    unmatched = at.with_begin_end(merged)
    if unmatched:
        notices.warn(path, phases.unmatched_warning(unmatched))
    timed = len(merged.ranges) + len(merged.flows)
    merged.ranges, merged.times, bad = at.usable(merged.ranges, ("ts", "dur"))
    merged.flows, flow_times, bad_flows = at.usable(merged.flows, ("ts",))
    merged.times["flow_ts"] = flow_times["ts"]
    bad.add(bad_flows)
    settle(path, bad, timed)
    return merged


def _side_tables(
    out: Path, strings: StringTable
) -> tuple[dict[str, Table], list[str], list[dict[str, str]]]:
    """Every optional summary file that is present and sound; problems as warnings, and
    the skipped files as {file, problem} (`meta["damaged_files"]`)."""
    tables: dict[str, Table] = {}
    warnings: list[str] = []
    damaged: list[dict[str, str]] = []
    for name in sorted(CSV_TABLES) + sorted(JSON_TABLES):
        file = out / name
        if not file.is_file():
            continue
        try:
            if name in CSV_TABLES:
                read = dict([read_csv_table(file, strings)])
            else:
                read = {table: reader(file, strings) for table, reader in JSON_TABLES[name]}
        except InputError as exc:
            log.warning("skipping %s", exc)
            warnings.append(str(exc))
            damaged.append({"file": name, "problem": exc.problem})
            continue
        tables.update(read)
    return tables, warnings, damaged


def _device_id(tables: dict[str, Table], strings: StringTable) -> int | None:
    """The NPU id from the memory files' `NPU:<n>` device column, when present."""
    for name in ("memory_record", "operator_memory"):
        codes = tables.get(name, {}).get("device")
        if codes is None:
            continue
        for code in np.unique(codes[codes >= 0]).tolist():
            m = _NPU.fullmatch(strings[code])
            if m:
                return int(m.group(1))
    return None


def _meta(root: Path, device: int | None, hccl: bool) -> dict[str, Any]:
    info_files = _info_files(root)
    info = _info(info_files[0]) if info_files else {}
    metadata = _info(root / "profiler_metadata.json")
    rank = _int(info.get("rank_id", metadata.get("rank_id")))
    world = _int(metadata.get("world_size", info.get("world_size")))
    config = _dict(info, "config")
    level = _dict(config, "experimental_config").get("_profiler_level")
    distributed = None
    if rank is not None and rank >= 0:
        distributed = {"rank": rank, "world_size": world, "backend": "hccl" if hccl else None}
    environment = metadata.get("ENV_VARIABLES")
    return {
        "format": FormatTag.ASCEND_PT,
        "framework": "pytorch",
        "source": root.name,
        "rank": rank,
        "world_size": world,
        "distributed_info": distributed,
        "device_type": "npu",
        "device_id": device,
        "profiler_level": level if isinstance(level, str) else None,
        "profiler_config": config or None,
        "environment": environment if isinstance(environment, dict) else None,
    }


@notices.collected
def read_ascend_pt(path: str | Path, progress: jsonstream.ProgressFn | None = None) -> Trace:
    """Read one torch_npu output folder into the normalised model (links included)."""
    root, out = _folders(Path(path))
    if not out.is_dir():
        raise InputError(out, "no such folder: not an Ascend PyTorch profiler output")
    trace_path = out / TRACE_FILE
    if not trace_path.is_file():
        db_path = find_db(out)
        if db_path is None:
            raise InputError(
                out, f"no {TRACE_FILE} (text export) and no {DB_GLOB} (export_type=db): "
                "not an Ascend PyTorch profiler output",
            )  # fmt: skip
        from mindinsight_profiler.formats.ascend.db import read_ascend_db  # the reader on use

        return read_ascend_db(root, out, db_path, _meta(root, None, False))
    decoded = _read_events(trace_path, progress)
    strings = StringTable()
    tables, warnings, damaged = _side_tables(out, strings)
    device = _device_id(tables, strings)
    built = build_events(decoded, strings, device if device is not None else -1)
    if built.invalid_utf8:
        notices.warn(trace_path, utf8.replaced_warning(built.invalid_utf8))
    if built.bad_streams:
        notices.warn(
            trace_path, f"{built.bad_streams} 'Physic Stream Id'(s) out of range read as absent"
        )
    if len(built.events["start_ns"]) == 0:
        raise InputError(trace_path, "the trace holds no events")
    tables.update(built.tables)
    meta = _meta(root, device, any(t.process_name == "HCCL" for t in built.tracks))
    meta["event_count"] = decoded.count
    meta["warnings"] = warnings
    meta["damaged_files"] = damaged
    trace = Trace(built.events, built.memory, built.flows, strings, built.tracks, meta, tables)
    build_links(trace)
    _attach_kernel_details(trace)
    return trace


#: kernel_details.csv rounds some start times differently from trace_view.json (by 1 ns).
KERNEL_MATCH_TOLERANCE_NS = 1000


def _attach_kernel_details(trace: Trace) -> None:
    """Give each `kernel_details` row the index of its kernel event, or -1.

    The event is the kernel of the same name starting nearest to the row's start, within
    `KERNEL_MATCH_TOLERANCE_NS` (the CSV's HCCL rows are 1 ns off the trace).
    """
    kd = trace.tables.get("kernel_details")
    if kd is None:
        return
    ev = trace.events
    k = np.flatnonzero(ev["kind"] == Kind.KERNEL)
    row = join_nearest(
        ev["name"][k], ev["start_ns"][k], kd["name"], kd["start_ns"], KERNEL_MATCH_TOLERANCE_NS
    )
    kd["event"] = np.full(len(row), -1, dtype=np.int64)
    kd["event"][row >= 0] = k[row[row >= 0]]
