"""MindSpore step trace: `step_trace_raw_{rank}_detail_time.csv` and its FP/BP point names.

The CSV holds, per step, the device's system-counter readings (syscnt) at the step start,
the forward-propagation start (FP), the backward-propagation end (BP) and the iteration end,
plus a start and end reading for each reduce (communication) stage, named by columns
`<stage>_start_point` / `<stage>_end_point` (`stream_10_parallel_0`, or in newer files
`stream_11_0_Receive-op2068`). The stage durations the CSV also carries are derived
values; the model keeps only the points (converted to ns) so every figure is recomputed by
`analysis.step_trace`, and can be checked against the file.

The last row is an average (`step_num` "-", or "0" in hand-edited fixtures); rows whose
step number is not a positive integer are summary rows and are not steps. The stage
durations of the last summary row are kept as written (`profiler_average_ns`, in
`trace.meta["step_trace_profiler_average_ns"]`): MindInsight's advisor reads that row, not
a recomputed average, so parity with it needs the profiler's own figures. A row whose
stages do not add up to its total (hand-edited fixtures) is not kept, and a warning says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.event_times import MAX_TIME_NS
from mindinsight_profiler.formats.mindspore.events import TraceBuilder
from mindinsight_profiler.formats.side_files import CsvTable, read_csv, read_json
from mindinsight_profiler.model.kinds import Kind

#: Ascend system counter: 100 MHz, i.e. 10 ns per tick (MindInsight: 100,000 per ms).
SYSCNT_HZ = 100_000_000
STEP_TABLE = "step_trace"
REDUCE_TABLE = "step_trace_reduce"
_SUFFIX_START, _SUFFIX_END = "_start_point", "_end_point"


def syscnt_to_ns(values: np.ndarray, hz: int, path: Path) -> np.ndarray:
    """Convert syscnt ticks to ns exactly (integer arithmetic; 100 MHz gives x10).

    InputError (naming `path`) for ticks beyond the times `event_times` accepts."""
    if (values.astype(np.float64) * (1e9 / hz) > MAX_TIME_NS).any():
        raise InputError(path, "a syscnt tick count out of range")
    if 1_000_000_000 % hz == 0:
        return values.astype(np.int64) * (1_000_000_000 // hz)
    return (values.astype(np.int64) * 1_000_000_000) // hz


def reduce_stages(header: list[str]) -> list[str]:
    """Names of the reduce stages in a step-trace header, in column order."""
    names = []
    for col in header:
        if col.endswith(_SUFFIX_START) and col != "start_point":
            stage = col[: -len(_SUFFIX_START)]
            if stage + _SUFFIX_END in header:
                names.append(stage)
    return names


def read_step_trace_csv(path: Path, hz: int = SYSCNT_HZ) -> dict[str, Any]:
    """Step points and reduce stages of one step-trace CSV, in ns (see module doc)."""
    table = read_csv(path, ["step_num", "start_point", "end_point", "fp_point"])
    step_cells = table.text("step_num")
    is_step = np.array([s.isascii() and s.isdigit() and int(s) > 0 for s in step_cells], bool)
    if not is_step.any():
        raise InputError(path, "no step rows (only summary rows)")
    average = _summary_row(table.select(~is_step), hz)
    table = table.select(is_step)

    def points(name: str) -> np.ndarray:
        return syscnt_to_ns(table.numbers(name, "int64"), hz, path)

    start, end, fp = points("start_point"), points("end_point"), points("fp_point")
    # Inference runs have no BP point: the whole fp..end span is forward.
    bp = points("bp_point") if table.has("bp_point") else end.copy()
    bad = np.flatnonzero((end < start) | (fp < start) | (bp < fp) | (end < bp))
    if len(bad):
        raise InputError(
            path, f"step {table.text('step_num')[bad[0]]}: points out of order (start<=fp<=bp<=end)"
        )
    stages = reduce_stages(table.header)
    return {
        "step": table.numbers("step_num", "int64").astype(np.int32),
        "start_ns": start,
        "fp_ns": fp,
        "bp_ns": bp,
        "end_ns": end,
        "stages": stages,
        "stage_start_ns": [points(s + _SUFFIX_START) for s in stages],
        "stage_end_ns": [points(s + _SUFFIX_END) for s in stages],
        "profiler_average_ns": average,
    }


def _summary_row(summary: CsvTable, hz: int) -> dict[str, int] | None:
    """Stage durations (ns) of the last summary row as the profiler wrote them, or None.

    An unreadable summary row is ignored: the steps do not depend on it.
    """
    if not summary.rows:
        return None
    last = summary.select(np.arange(len(summary.rows)) == len(summary.rows) - 1)
    out = {}
    for col in ("total", "iteration_interval", "fp_and_bp", "fp", "tail"):
        if last.has(col):
            try:
                out[col] = int(syscnt_to_ns(last.numbers(col, "int64"), hz, summary.path)[0])
            except InputError:
                continue
    return out or None


#: How far the written stages may be from the written total (rounding of syscnt).
_ADD_UP_TOLERANCE = 0.01


def _consistent(row: dict[str, int]) -> bool:
    """Whether an average row's stages add up to its total, as the profiler writes them;
    a hand-edited row (total 0 beside a 12 ms interval) would make the advisor and the
    step-trace page disagree, so it is only kept when it holds together."""
    stages = [row[k] for k in ("iteration_interval", "fp_and_bp", "tail") if k in row]
    total = row.get("total", 0)
    if total <= 0 or len(stages) < 3:
        return False
    return abs(sum(stages) - total) <= _ADD_UP_TOLERANCE * total


def add_step_trace(builder: TraceBuilder, parsed: dict[str, Any]) -> None:
    """Step points as a side table, steps as `ProfilerStep#N` ranges, stages as ranges.

    Naming the step ranges `ProfilerStep#N` lets the framework-neutral step analysis find
    them, exactly as it finds PyTorch's.
    """
    step = parsed["step"]
    n = len(step)
    written = parsed.get("profiler_average_ns")
    if written and _consistent(written):
        builder.meta["step_trace_profiler_average_ns"] = written
    elif written:
        added = sum(written.get(k, 0) for k in ("iteration_interval", "fp_and_bp", "tail"))
        builder.warn(
            "step trace: the file's average row is not used: its stages add up to "
            f"{added / 1e6:.3f} ms but its total is {written.get('total', 0) / 1e6:.3f} ms; "
            "averages are recomputed from the step rows"
        )
    builder.add_table(
        STEP_TABLE,
        {k: parsed[k] for k in ("step", "start_ns", "fp_ns", "bp_ns", "end_ns")},
    )
    names = builder.codes([f"ProfilerStep#{s}" for s in step.tolist()])
    track = builder.track("Step Trace", "steps", "Step Trace", "steps")
    builder.add_events(parsed["start_ns"], parsed["end_ns"], Kind.USER_ANNOTATION, names, track)
    stages: list[str] = parsed["stages"]
    if not stages:
        builder.add_table(
            REDUCE_TABLE,
            {
                "step": np.zeros(0, np.int32),
                "stage": np.zeros(0, np.int32),
                "start_ns": np.zeros(0, np.int64),
                "end_ns": np.zeros(0, np.int64),
            },
        )
        return
    stage_codes = builder.codes(stages)
    starts = np.stack(parsed["stage_start_ns"], axis=1).ravel()  # row-major: step, stage
    ends = np.stack(parsed["stage_end_ns"], axis=1).ravel()
    steps_long = np.repeat(step, len(stages))
    codes_long = np.tile(stage_codes, n)
    builder.add_table(
        REDUCE_TABLE,
        {"step": steps_long, "stage": codes_long, "start_ns": starts, "end_ns": ends},
    )
    present = ends > starts
    tid = np.array([s.split("_")[1] if s.startswith("stream_") else s for s in stages])
    stage_tracks = np.array(
        [builder.track("Step Trace", f"stream {t}", "Step Trace", f"stream {t}") for t in tid],
        dtype=np.int32,
    )
    builder.add_events(
        starts[present],
        ends[present],
        Kind.OTHER,
        codes_long[present],
        np.tile(stage_tracks, n)[present],
    )


def read_point_names(path: Path) -> dict[str, str]:
    """FP start and BP end operator names from `step_trace_point_info*.json`."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, "expected a JSON object with fp_start and bp_end")
    return {k: str(doc[k]) for k in ("fp_start", "bp_end") if k in doc}
