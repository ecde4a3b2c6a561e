"""Column batches from the native scanner (`_scan.c`), when it is built and the chunk is usual.

The Python path (msgspec structs, then one pass per column) cost about 2 CPU-seconds per
million events; the scanner reads the JSON text straight into the same columns in one pass.
It declines (None) any chunk it does not read exactly as the Python path would: `B`/`E`
events, times that are not plain numbers or are out of range, ints beyond int64, unexpected
types, bytes that are not UTF-8, malformed JSON. The Python path then reads that chunk, so
its values and its error messages stay the reference (`tests/unit/test_native_scan.py`
compares both on every real trace and on mutated ones).

`MINDINSIGHT_NATIVE_SCAN=0` turns it off. Without a compiler at install time the extension is not
built (setup.py marks it optional) and everything reads through the Python path.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mindinsight_profiler.formats.event_times import durations_from_us
from mindinsight_profiler.formats.kineto.batch import DEVICE_ARGS, MEMORY_ARGS, Batch, in_range
from mindinsight_profiler.formats.kineto.interner import string_table
from mindinsight_profiler.model.kinds import DEVICE_KINDS, OP_TREE_KINDS, Kind, kind_of_category

try:
    from mindinsight_profiler.formats.kineto import _scan  # type: ignore[attr-defined]
except ImportError:  # not built: no compiler at install time
    _scan = None


def _mask(kinds: tuple[Kind, ...]) -> bytes:
    return bytes(1 if k in kinds else 0 for k in range(256))


_DEVICE_MASK = _mask(DEVICE_KINDS)
_OP_MASK = _mask(OP_TREE_KINDS)


def available() -> bool:
    """Whether chunks are read natively: the extension is built and not turned off."""
    return _scan is not None and os.environ.get("MINDINSIGHT_NATIVE_SCAN", "1") != "0"


def _kind_code(category: str) -> int:
    return int(kind_of_category(category))


def _array(buffer: bytearray, dtype: type) -> np.ndarray:
    return np.frombuffer(buffer, dtype=dtype)


def scan_batch(data: bytes | memoryview) -> Batch | None:
    """The batch of a JSON array of events, or None when the Python path must read it."""
    if not available():
        return None
    out: dict[str, Any] | None = _scan.scan(
        data, _kind_code, _DEVICE_MASK, _OP_MASK, int(Kind.INSTANT)
    )
    if out is None:
        return None
    out_of_range: dict[str, int] = {}
    events = _complete(out["complete"], out_of_range)
    if events is None:  # a duration the Python path leaves out, with a warning
        return None
    strings, replaced = string_table(out["keys"])
    return Batch(
        events=events,
        memory=_memory(out["memory"], out_of_range),
        flows=_flows(out["flows"]),
        strings=strings,
        invalid_utf8=replaced,
        tracks=[(str(p), str(t)) for p, t in out["tracks"]],
        metadata=out["metadata"],
        count=out["count"],
        out_of_range=out_of_range,
        timed=out["timed"],
        unknown_phase=out["unknown"],
    )


def _complete(raw: dict[str, bytearray], out_of_range: dict[str, int]) -> dict | None:
    """The complete-event columns as `decode._complete_columns` makes them, or None if a
    duration is unusable."""
    start = _array(raw["start_ns"], np.int64)
    dur = _array(raw["dur"], np.float64)
    dur[_array(raw["instant"], np.bool_)] = 0.0
    dur_ns, problem = durations_from_us(dur)
    if problem.any():
        return None
    kind = _array(raw["kind"], np.uint8)
    n = len(kind)
    cols = {
        "start_ns": start,
        "end_ns": start + dur_ns,
        "kind": kind,
        "name": _array(raw["name"], np.int32),
        "cat": _array(raw["cat"], np.int32),
        "track": _array(raw["track"], np.int32),
        "ext_id": _array(raw["ext_id"], np.int64),
        "corr": _array(raw["corr"], np.int64),
    }
    dev = np.flatnonzero(np.isin(kind, [int(k) for k in DEVICE_KINDS]))
    for col, attr, dtype, fill in DEVICE_ARGS:
        values = _array(raw[col], np.float64 if np.dtype(dtype).kind == "f" else np.int64)
        full = np.full(n, fill, dtype=dtype)
        full[dev] = in_range(values[dev], attr, dtype, out_of_range)
        cols[col] = full
    for col in ("grid", "block", "input_dims", "input_types", "concrete_inputs", "call_stack"):
        cols[col] = _array(raw[col], np.int32)
    cols["comm_msg"] = _array(raw["comm_msg"], np.int32)
    return cols


def _memory(raw: dict[str, bytearray], out_of_range: dict[str, int]) -> dict:
    cols = {
        "ts_ns": _array(raw["ts_ns"], np.int64),
        "track": _array(raw["track"], np.int32),
        "addr": _array(raw["addr"], np.int64),
    }
    for col, attr, dtype in MEMORY_ARGS:
        cols[col] = in_range(_array(raw[col], np.int64), attr, dtype, out_of_range)
    return cols


def _flows(raw: dict[str, bytearray]) -> dict:
    return {
        "ts_ns": _array(raw["ts_ns"], np.int64),
        "track": _array(raw["track"], np.int32),
        "flow_id": _array(raw["flow_id"], np.int64),
        "phase": _array(raw["phase"], np.uint8),
        "cat": _array(raw["cat"], np.int32),
    }
