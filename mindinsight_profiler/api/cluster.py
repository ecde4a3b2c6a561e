"""`open_cluster`: every rank of a run side by side, as `mindinsight cluster` shows them.

Each rank is analysed (in parallel, through the workspace cache) into its stored summary,
and the cluster view is computed over the summaries, exactly as the CLI and the
dashboard's cluster page do; one rank opens as a `Run` for the details.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from mindinsight_profiler.analysis.cluster.view import cluster_answer, collective_rows
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.api import frames
from mindinsight_profiler.api.run import DEFAULT, Run, workspace_of
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run as FoundRun
from mindinsight_profiler.formats.discovery import pick_run
from mindinsight_profiler.pipeline.scale import RankFailures, summarise_run
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.staging import discover_location


def open_cluster(
    path: str | Path,
    *,
    run: str | None = None,
    workspace: str | Path | Workspace | None = DEFAULT,
    jobs: int | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> Cluster:
    """Every worker of the run under `path` (the one called `run`, default the first),
    analysed with `jobs` processes (default: one per core). Ranks that fail are listed in
    `failed`; the others are still compared."""
    ws = workspace_of(workspace)
    # absolute: remote inputs are staged under it, by workers that may run elsewhere
    ws = Workspace(ws.root.resolve()) if ws is not None else None
    runs = discover_location(path, ws)
    if not runs:
        raise InputError(path, "no profiler output found")
    target = pick_run(runs, None, run)
    failed: list[dict[str, str]] = []
    try:
        summaries = summarise_run(target, ws, jobs, None, None, None, options)
    except RankFailures as exc:
        summaries, failed = exc.summaries, [f.to_json() for f in exc.failures]
    return Cluster(target, summaries, failed, ws, options)


class Cluster:
    """The ranks of one run compared: `ranks()`, `stages()`, `collectives()`, `slowest`;
    `view` is the whole `mindinsight cluster --format json` answer."""

    def __init__(
        self,
        found: FoundRun,
        summaries: list[dict[str, Any]],
        failed: list[dict[str, str]],
        workspace: Workspace | None,
        options: Options,
    ) -> None:
        self._found = found
        self.summaries = summaries
        self.failed = failed
        self.workspace = workspace
        self.options = options
        self.view: dict[str, Any] = cluster_answer(found.name, summaries, failed)

    @property
    def name(self) -> str:
        return self._found.name

    def ranks(self) -> pd.DataFrame:
        """Per rank: steps, step time, computation, overlapped and exposed communication."""
        return frames.records(self.view["ranks"])

    def stages(self) -> pd.DataFrame:
        """Per worker: the step's stages (iteration interval, forward+backward, tail...)."""
        return frames.records(self.view["stages"])

    def collectives(self) -> pd.DataFrame:
        """Per collective: calls matched across ranks, transfer time and the longest wait."""
        rows = collective_rows(self.view)
        return frames.records(rows, ["name", "ranks", "calls", "matched_calls", "transfer_us",
                                     "max_waiting_us"])  # fmt: skip

    @property
    def slowest(self) -> dict[str, Any] | None:
        """The slowest rank, and by how much it is over the others."""
        out: dict[str, Any] | None = self.view["slowest"]
        return out

    def run(self, worker: str) -> Run:
        """One rank's full analysis."""
        return Run(self._found, self._found.select(worker), self.workspace, self.options)

    def __repr__(self) -> str:
        return f"<Cluster {self.name}: {len(self.summaries)} ranks, {len(self.failed)} failed>"

    def _repr_html_(self) -> str:
        table: str = self.ranks().to_html(index=False, float_format=lambda v: f"{v:,.1f}")
        return f"<p>{self.name}: {len(self.summaries)} ranks</p>{table}"
