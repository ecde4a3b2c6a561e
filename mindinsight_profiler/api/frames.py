"""The report's sections as pandas DataFrames: one row per step, operator, kernel, collective.

Pure functions of the report (the `analyse --format json` dict, `analysis.schema`): every
figure is the report's own, so a DataFrame and the CLI's JSON never disagree. Column names
keep the report's units (`_us` microseconds, `_ns` nanoseconds of the trace's clock,
`_bytes`), and a section the input lacks gives an empty frame with the columns it would
have, so a notebook cell does not fail on a CPU run or an input without steps.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

#: Breakdown categories, in the report's order (`analysis.steps.breakdown.CATEGORIES`).
CATEGORIES = ("kernel", "memcpy", "memset", "communication", "runtime", "dataloader",
              "cpu_exec", "other")  # fmt: skip


def records(rows: list[dict[str, Any]], columns: list[str] | None = None) -> pd.DataFrame:
    """Rows of dicts as a frame; `columns` orders them (and names them when there are none)."""
    frame = pd.DataFrame.from_records(rows, columns=columns) if rows else None
    if frame is None:
        frame = pd.DataFrame({c: pd.Series(dtype=object) for c in columns or []})
    return frame


def steps(report: dict[str, Any]) -> pd.DataFrame:
    """One row per profiled step: its name, start, duration and whether the average counts it."""
    s = report.get("steps") or {}
    names = [str(n) for n in s.get("names") or []]
    left_out = set((s.get("covered") or {}).get("left_out") or [])
    return pd.DataFrame(
        {
            "step": pd.Series(names, dtype=object),
            "start_ns": pd.Series(s.get("start_ns") or [], dtype="int64"),
            "duration_us": pd.Series(s.get("durations_us") or [], dtype="float64"),
            "in_average": pd.Series([n not in left_out for n in names], dtype=bool),
        }
    )


def breakdown(report: dict[str, Any]) -> pd.DataFrame:
    """Each step's time per category (`<category>_us`), indexed by step name."""
    rows = report.get("breakdown_per_step_us") or []
    names = [str(n) for n in (report.get("steps") or {}).get("names") or []][: len(rows)]
    frame = records(rows, list(CATEGORIES)).add_suffix("_us").astype("float64")
    frame.index = pd.Index(names, name="step", dtype=object)
    return frame


def average_breakdown(report: dict[str, Any]) -> pd.Series:
    """The average step's time per category (`<category>_us`), as the overview shows it."""
    average = report.get("breakdown_us") or {}
    return pd.Series({f"{c}_us": float(average.get(c, 0.0)) for c in CATEGORIES}, name="average")


def step_trace(report: dict[str, Any]) -> pd.DataFrame:
    """Each step split at its forward and backward points (times relative to the section's
    `origin_ns`, us), with the number of collectives inside it."""
    section = report.get("step_trace") or {}
    columns = ["step", "start_us", "fp_us", "bp_us", "end_us", "total_us",
               "iteration_interval_us", "fp_and_bp_us", "tail_us", "fp_op", "bp_op"]  # fmt: skip
    rows = [
        {**{k: r.get(k) for k in columns}, "collectives": len(r.get("collectives") or [])}
        for r in section.get("steps") or []
    ]
    return records(rows, [*columns, "collectives"])


def data_pipeline(report: dict[str, Any]) -> pd.DataFrame:
    """Each step's wait for input data (us): all of it, and the part nothing else hid."""
    wait = (report.get("data_pipeline") or {}).get("data_wait") or {}
    names = [str(n) for n in wait.get("steps") or []]
    return pd.DataFrame(
        {
            "step": pd.Series(names, dtype=object),
            "data_wait_us": pd.Series(wait.get("per_step_us") or [], dtype="float64"),
            "exposed_us": pd.Series(wait.get("exposed_per_step_us") or [], dtype="float64"),
        }
    )


def memory(report: dict[str, Any]) -> pd.DataFrame:
    """Each device's peaks (bytes) and how many samples its curve has."""
    rows = [
        {
            "device": d.get("device"),
            "source": d.get("source"),
            "peak_allocated_bytes": d.get("peak_allocated"),
            "peak_reserved_bytes": d.get("peak_reserved"),
            "samples": d.get("samples"),
        }
        for d in (report.get("memory") or {}).get("devices") or []
    ]
    return records(rows, ["device", "source", "peak_allocated_bytes", "peak_reserved_bytes",
                          "samples"])  # fmt: skip


def communication(report: dict[str, Any]) -> pd.DataFrame:
    """One row per collective: calls, total time, bytes sent and the tool's own wait."""
    rows = [
        {k: c.get(k) for k in ("name", "calls", "total_us", "bytes", "tool_wait_us")}
        for c in (report.get("communication") or {}).get("collectives") or []
    ]
    return records(rows, ["name", "calls", "total_us", "bytes", "tool_wait_us"])


def communication_steps(report: dict[str, Any]) -> pd.DataFrame:
    """Each step's communication: total, overlapped with computation and exposed (us)."""
    rows = (report.get("communication") or {}).get("steps") or []
    columns = ["step", "step_us", "computation_us", "overlapped_us",
               "exposed_communication_us", "other_us", "communication_us"]  # fmt: skip
    return records([{k: r.get(k) for k in columns} for r in rows], columns)


#: The performance model's tables (`perf_model(level=...)`).
PERF_LEVELS = ("operators", "shapes", "kernels", "categories", "steps")


def perf_model(report: dict[str, Any], level: str = "operators") -> pd.DataFrame:
    """One of the performance model's tables: FLOPs, bytes, achieved rate and roofline."""
    if level not in PERF_LEVELS:
        raise ValueError(f"level must be one of {', '.join(PERF_LEVELS)}, not {level!r}")
    return records((report.get("perf_model") or {}).get(level) or [])
