"""MindSpore's `dynamic_shape_info_{rank}.json`: per step, each operator's duration and shapes.

MindSpore writes it for dynamic-shape networks (MindInsight 2.3.1 then shows its "dynamic
shape" view instead of the step trace), in one of two layouts:

- GPU (`GpuFrameWorkParser.write_dynamic_shape_data`): `{"operator": {step: [row, ...]},
  "kernel": {...}, "operator_type": {...}, "kernel_type": {...}}`, where an operator row is
  `{"step", "op_side" ("gpu" or "cpu"), "op_type", "op_name", "dur" (us), "shape_info"
  (one shape string per input)}`. `operator_type` is the writer's own per-step aggregate
  of the rows (`[total, calls, mean]` per type); it is not read, the analysis recomputes
  it from the rows. The CUDA kernels (`kernel`) are not read yet.
- Ascend (`DynamicFrameWorkParser.write_dynamic_shape_data`): `{op_type: [{op_name:
  {"op_exe_time": [us per step], "op_shape": [shape per step], "op_exe_occurrences"}}],
  ..., "op_type": {op_type: [mean per step]}}`; the writer keeps only ops that ran once per
  step, so the i-th time is step i+1. Its side is written here as "ascend".

Both become one side table `dynamic_shape` (step, side, op_type, op_name, dur_ns, shape).
A file that is no JSON object of either layout is an InputError naming it (the reader skips
the file); rows without a name or a finite duration are left out, with one warning.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.event_times import MAX_DURATION_NS
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import read_json

DYNAMIC_SHAPE_FILE = "dynamic_shape_info_{r}.json"
DYNAMIC_SHAPE_TABLE = "dynamic_shape"
#: Joins the shapes of an op's inputs into one shape key ("[32, 1]; [32, 1]").
SHAPE_JOIN = "; "
#: The Ascend layout's summary key (every other key is an op type).
_ASCEND_SUMMARY = "op_type"


def _duration_us(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    ok = math.isfinite(value) and 0 <= value * 1000 <= MAX_DURATION_NS
    return float(value) if ok else None


def _shape(value: Any) -> str:
    if isinstance(value, list):
        return SHAPE_JOIN.join(str(v) for v in value)
    return "" if value is None else str(value)


def _step(value: Any, key: str) -> int | None:
    """The step number of a row (its value, else its key), when it is one (0 to 2^31)."""
    for candidate in (value, key):
        if isinstance(candidate, str):
            text = candidate.strip()
            candidate = int(text) if text.isascii() and text.isdigit() and len(text) < 10 else None
        if isinstance(candidate, int) and not isinstance(candidate, bool):
            return candidate if 0 <= candidate < 2**31 else None
    return None


class _Rows:
    def __init__(self, layout: str) -> None:
        self.layout = layout
        self.step: list[int] = []
        self.side: list[str] = []
        self.op_type: list[str] = []
        self.op_name: list[str] = []
        self.dur_us: list[float] = []
        self.shape: list[str] = []
        self.dropped = 0

    def add(
        self, step: int | None, side: Any, op_type: Any, name: Any, dur: Any, shape: Any
    ) -> None:
        """One row; a row without a step, a name or a finite duration is counted, not kept."""
        us = _duration_us(dur)
        if step is None or us is None or not isinstance(name, str) or not name:
            self.dropped += 1
            return
        self.step.append(step)
        self.side.append(str(side or ""))
        self.op_type.append(op_type if isinstance(op_type, str) and op_type else name.split("-")[0])
        self.op_name.append(name)
        self.dur_us.append(us)
        self.shape.append(_shape(shape))


def _gpu_rows(path: Path, operators: dict[str, Any]) -> _Rows:
    rows = _Rows("gpu")
    for key, entries in operators.items():
        if not isinstance(entries, list):
            raise InputError(path, f"operator[{key!r}] is not a list of rows")
        for e in entries:
            if not isinstance(e, dict):
                rows.dropped += 1
                continue
            rows.add(
                _step(e.get("step"), key),
                e.get("op_side"),
                e.get("op_type"),
                e.get("op_name"),
                e.get("dur"),
                e.get("shape_info"),
            )
    return rows


def _ascend_rows(path: Path, doc: dict[str, Any]) -> _Rows:
    rows = _Rows("ascend")
    for op_type, ops in doc.items():
        if op_type == _ASCEND_SUMMARY:
            continue
        if not isinstance(ops, list):
            raise InputError(path, f"{op_type!r} is not a list of operators")
        for item in ops:
            if not isinstance(item, dict):
                rows.dropped += 1
                continue
            for name, detail in item.items():
                times = detail.get("op_exe_time") if isinstance(detail, dict) else None
                if not isinstance(times, list):
                    rows.dropped += 1
                    continue
                shapes = detail.get("op_shape")
                shapes = shapes if isinstance(shapes, list) else []
                for i, dur in enumerate(times):
                    shape = shapes[i] if i < len(shapes) else ""
                    rows.add(i + 1, "ascend", op_type, name, dur, shape)
    return rows


def read_dynamic_shape(path: Path) -> _Rows:
    """The file's operator rows, in file order (InputError when it is neither layout)."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "not a JSON object (dynamic shape info)")
    operators = doc.get("operator")
    if isinstance(operators, dict):
        rows = _gpu_rows(path, operators)
    elif isinstance(doc.get(_ASCEND_SUMMARY), dict):
        rows = _ascend_rows(path, doc)
    else:
        raise InputError(path, "neither an 'operator' (GPU) nor an 'op_type' (Ascend) object")
    if not rows.step:
        what = f" ({rows.dropped} rows without a name or a duration)" if rows.dropped else ""
        raise InputError(path, f"no operator rows{what}")
    return rows


def add_dynamic_shape(b: TraceBuilder, path: Path, rows: _Rows) -> None:
    """The `dynamic_shape` side table (durations in ns, strings as codes)."""
    if rows.dropped:
        b.warn(
            f"{path.name}: {rows.dropped} operator rows without a name, a step or a "
            "duration in range were left out"
        )
    b.add_table(
        DYNAMIC_SHAPE_TABLE,
        {
            "step": np.asarray(rows.step, dtype=np.int64),
            "side": b.codes(rows.side),
            "op_type": b.codes(rows.op_type),
            "op_name": b.codes(rows.op_name),
            "dur_ns": np.rint(np.asarray(rows.dur_us, dtype=np.float64) * 1000.0).astype(np.int64),
            "shape": b.codes(rows.shape),
        },
    )
    b.meta["dynamic_shape_layout"] = rows.layout
