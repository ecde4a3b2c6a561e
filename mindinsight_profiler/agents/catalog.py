"""The runs an agent may ask about: those found under the base folder, named as found.

An agent names a run and a worker, never a path: every name is looked up among the runs
discovered under the base folder, so no argument can reach a file outside it (a name that
is not a run's is an error that lists the runs). Reports, traces and advice come through
the workspace cache, as for the CLI and the dashboard.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.analysis.timeline.index import TimelineIndex
from mindinsight_profiler.errors import BadArgument, InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile, discover
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline, load_trace
from mindinsight_profiler.store.cache import Workspace

#: Seconds a listing of the base folder is reused before it is read again.
RESCAN_S = 10.0
#: Reports kept in memory between calls (the least recently asked for goes first).
REPORTS_KEPT = 32


class Catalog:
    """Runs under `base_dir`, each analysed (once, cached in `workspace`) on request."""

    def __init__(
        self, base_dir: Path, workspace: Workspace | None, options: Options = DEFAULT_OPTIONS
    ) -> None:
        self.base_dir = Path(base_dir).resolve()
        if not self.base_dir.is_dir():
            raise InputError(base_dir, "not a folder")
        self.workspace = workspace
        self.options = options
        self._runs: list[Run] = []
        self._listed = -RESCAN_S
        # the reports asked for lately (a few hundred kB each; the cache keeps all of them)
        self._reports: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()

    def runs(self) -> list[Run]:
        """The runs under the base folder (listed again after `RESCAN_S`)."""
        now = time.monotonic()
        if now - self._listed >= RESCAN_S:
            self._runs = [r for r in discover(self.base_dir) if self._inside(r)]
            self._listed = now
        return self._runs

    def _inside(self, run: Run) -> bool:
        """Whether every file of `run` is under the base folder once links are resolved (a
        link inside it to a folder elsewhere does not make that folder reachable)."""
        return all(f.path.resolve().is_relative_to(self.base_dir) for f in run.files)

    def run(self, name: str) -> Run:
        for run in self.runs():
            if run.name == name:
                return run
        known = ", ".join(r.name for r in self.runs()[:50]) or "none"
        raise BadArgument("run", f"no run called {name!r} under the base folder; runs: {known}")

    def file(self, name: str, worker: str | None = None) -> TraceFile:
        run = self.run(name)
        if worker is not None and worker not in run.workers:
            raise BadArgument("worker", f"run {name!r} has no worker {worker!r}; workers: "
                              f"{', '.join(run.workers[:50])}")  # fmt: skip
        return run.select(worker)

    def report(self, name: str, worker: str | None = None) -> dict[str, Any]:
        """The `analyse --format json` document of one worker (computed once per process)."""
        file = self.file(name, worker)
        key = (name, file.worker)
        if key not in self._reports:
            typed, _ = analyse_file(
                file.source, self.workspace, None, file.format, file.worker, self.options
            )
            self._reports[key] = report_for(typed, file.worker, file.span)
            while len(self._reports) > REPORTS_KEPT:
                self._reports.popitem(last=False)
        self._reports.move_to_end(key)
        return self._reports[key]

    def trace(self, name: str, worker: str | None = None) -> Trace:
        file = self.file(name, worker)
        return load_trace(file.source, self.workspace, None, file.format, file.worker,
                          self.options)  # fmt: skip

    def timeline(self, name: str, worker: str | None = None) -> tuple[Trace, TimelineIndex]:
        """The trace and its level-of-detail index (built once, kept in the cache entry)."""
        file = self.file(name, worker)
        return load_timeline(file.source, self.workspace, None, file.format, file.worker,
                             self.options)  # fmt: skip

    def advice(self, name: str, worker: str | None = None) -> Advice:
        run = self.run(name)
        return advise_file(self.file(name, worker), run, self.workspace, (), self.options)
