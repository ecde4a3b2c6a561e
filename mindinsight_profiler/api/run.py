"""`open_run`: one worker's analysed profile, from Python, its sections as DataFrames.

The same pipeline as `mindinsight analyse` (discovery, the workspace cache, the report
contract), so a notebook and the CLI give the same figures and share the cache: opening a
run that the dashboard or the CLI analysed already reads the cached report in milliseconds.
The report is computed on first use, and the trace (memory-mapped from the cache) only
for what needs it: other groupings of the tables, the timeline, the advice.
"""

from __future__ import annotations

import warnings
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.operators.tables import KERNEL_GROUPS, OPERATOR_GROUPS
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.report import grouped_tables
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.analysis.timeline.select import row_columns, window_rows
from mindinsight_profiler.api import frames
from mindinsight_profiler.api.findings import Findings
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import NO_OUTPUT, TraceFile, pick_run
from mindinsight_profiler.formats.discovery import Run as FoundRun
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.staging import discover_location

#: `workspace=` default: the CLI's cache folder (`~/.mindinsight/cache`, MINDINSIGHT_WORKSPACE).
DEFAULT = "default"


def workspace_of(workspace: str | Path | Workspace | None) -> Workspace | None:
    """The cache a call reads through: the default one, a folder, a Workspace, or None
    (no cache: every call analyses again)."""
    if workspace is None or isinstance(workspace, Workspace):
        return workspace
    return Workspace(None if workspace == DEFAULT else Path(workspace))


def open_run(
    path: str | Path,
    *,
    worker: str | None = None,
    span: str | None = None,
    run: str | None = None,
    workspace: str | Path | Workspace | None = DEFAULT,
    options: Options = DEFAULT_OPTIONS,
) -> Run:
    """One worker's profile under `path` (a trace file, a profiler output folder, a folder
    of runs, or an object-storage URL), as `mindinsight analyse` picks it: the run called
    `run` (default: the first, with a warning naming the others), then `worker` and `span`
    (default: the first). Raises `InputError` naming the path when nothing is found there.
    """
    ws = workspace_of(workspace)
    runs = discover_location(path, ws)
    if not runs:
        raise InputError(path, NO_OUTPUT)
    chosen = pick_run(runs, worker, run)
    if len(runs) > 1 and run is None:
        others = ", ".join(r.name for r in runs if r is not chosen)
        warnings.warn(
            f"{path}: {len(runs)} runs found, opening {chosen.name} (others: {others}); "
            "run=NAME opens another",
            stacklevel=2,
        )
    return Run(chosen, chosen.select(worker, span), ws, options)


class Run:
    """One worker's analysed profile. Methods return DataFrames with the report's units in
    the column names; `report` is the whole `analyse --format json` document."""

    def __init__(
        self, found: FoundRun, file: TraceFile, workspace: Workspace | None, options: Options
    ) -> None:
        self._found = found
        self.file = file
        self.workspace = workspace
        self.options = options

    # --- what it is --------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The run's name (its folder, relative to where it was found)."""
        return self._found.name

    @property
    def worker(self) -> str:
        return self.file.worker

    @property
    def workers(self) -> list[str]:
        """Every worker of the run (`open_run(path, worker=...)` opens another)."""
        return list(self._found.workers)

    @property
    def format(self) -> str:
        return str(self.file.format)

    @cached_property
    def report(self) -> dict[str, Any]:
        """The `mindinsight analyse --format json` document of this worker (plain data)."""
        typed, _ = analyse_file(
            self.file.source, self.workspace, None, self.file.format, self.file.worker,
            self.options,
        )  # fmt: skip
        return report_for(typed, self.worker, self.file.span)

    def trace(self) -> Trace:
        """The normalised trace (columns memory-mapped from the cache when there is one)."""
        return load_trace(
            self.file.source, self.workspace, None, self.file.format, self.file.worker,
            self.options,
        )  # fmt: skip

    def summary(self) -> dict[str, Any]:
        """The overview's figures: framework, device, steps and the average step."""
        r = self.report
        s = r.get("steps") or {}
        return {
            "run": self.name,
            "worker": self.worker,
            "format": r.get("format"),
            "framework": r.get("framework"),
            "device_type": r.get("device_type"),
            "steps": s.get("count"),
            "average_step_us": s.get("average_us"),
            "mfu": ((r.get("perf_model") or {}).get("totals") or {}).get("mfu"),
            **{str(k): float(v) for k, v in frames.average_breakdown(r).items()},
        }

    # --- sections ----------------------------------------------------------------------

    def steps(self) -> pd.DataFrame:
        return frames.steps(self.report)

    def breakdown(self, average: bool = False) -> pd.DataFrame | pd.Series:
        """Each step's time per category; `average=True`: the average step's, as a Series."""
        if average:
            return frames.average_breakdown(self.report)
        return frames.breakdown(self.report)

    def operators(self, group_by: str = "name") -> pd.DataFrame:
        """Operator statistics grouped by `name`, `name_input` (and input shapes) or
        `name_stack` (and call stack); the last two read the trace."""
        return frames.records(self._tables(group_by, "name")[0])

    def kernels(self, group_by: str = "name") -> pd.DataFrame:
        """Kernel statistics grouped by `name` or `name_op_launch` (and launching operator)."""
        return frames.records(self._tables("name", group_by)[1])

    def _tables(self, ops_by: str, kernels_by: str) -> tuple[list[dict[str, Any]], ...]:
        if ops_by not in OPERATOR_GROUPS:
            raise ValueError(f"group_by must be one of {', '.join(OPERATOR_GROUPS)}")
        if kernels_by not in KERNEL_GROUPS:
            raise ValueError(f"group_by must be one of {', '.join(KERNEL_GROUPS)}")
        if ops_by == "name" and kernels_by == "name":
            return self.report["operators"], self.report["kernels"]
        return grouped_tables(self.trace(), ops_by, kernels_by)

    def step_trace(self) -> pd.DataFrame:
        return frames.step_trace(self.report)

    def data_pipeline(self) -> pd.DataFrame:
        return frames.data_pipeline(self.report)

    def memory(self) -> pd.DataFrame:
        return frames.memory(self.report)

    def communication(self, per_step: bool = False) -> pd.DataFrame:
        """Collectives (calls, time, bytes); `per_step=True`: each step's overlap."""
        if per_step:
            return frames.communication_steps(self.report)
        return frames.communication(self.report)

    def perf_model(self, level: str = "operators") -> pd.DataFrame:
        """The performance model's `operators`, `shapes`, `kernels`, `categories` or
        `steps` table (FLOPs, bytes, achieved rate, roofline, MFU)."""
        return frames.perf_model(self.report, level)

    def timeline(
        self,
        start_ns: int | None = None,
        end_ns: int | None = None,
        tracks: list[str] | None = None,
        min_duration_ns: int = 0,
        limit: int = 100_000,
    ) -> pd.DataFrame:
        """Events overlapping [start_ns, end_ns) (the trace's clock, as `steps().start_ns`),
        of the tracks named (`"pid/tid"` or a thread or process name; all when None), at
        least `min_duration_ns` long, by start; raises ValueError past `limit` rows."""
        trace = self.trace()
        rows = window_rows(trace, start_ns, end_ns, tracks, min_duration_ns, limit=limit)
        return pd.DataFrame(row_columns(trace, rows))

    def advise(self, rules_dirs: list[str | Path] | None = None) -> Findings:
        """The advisor's ranked findings (the same as `mindinsight advise`)."""
        advice: Advice = advise_file(
            self.file, self._found, self.workspace, rules_dirs or (), self.options
        )
        return Findings(advice)

    # --- display -----------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Run {self.name} worker={self.worker} format={self.format}>"

    def _repr_html_(self) -> str:
        from mindinsight_profiler.api.display import run_html

        return run_html(self.summary(), self.steps())
