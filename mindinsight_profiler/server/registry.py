"""The runs under the summary base dir, each behind an opaque id.

A client never sends a path: it sends a run id (a hash of the run folder's path relative to
the base dir) and a worker/span name that must be one of that run's. Discovery results are
filtered so that nothing outside the base dir is ever served: a file or folder whose real
path (symlinks resolved) is not inside the base dir's real path is dropped.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile, discover
from mindinsight_profiler.server.errors import ApiError

RUN_ID = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class RunEntry:
    id: str
    name: str
    run: Run

    @property
    def files(self) -> list[TraceFile]:
        return self.run.files


def run_id(base: Path, folder: Path) -> str:
    """Stable across processes and restarts: every gunicorn worker agrees on it."""
    rel = folder.resolve().relative_to(base.resolve()).as_posix()
    return hashlib.sha256(rel.encode()).hexdigest()[:16]


def _inside(path: Path, base: Path) -> bool:
    try:
        path.resolve().relative_to(base)
    except (ValueError, OSError):
        return False
    return True


class RunRegistry:
    """Thread-safe map of run id -> run, replaced as a whole by each `scan`."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self._runs: dict[str, RunEntry] = {}
        self._lock = threading.Lock()

    def scan(self) -> dict[str, RunEntry]:
        """Discover the runs now; returns the new map (also kept)."""
        base = self.base_dir.resolve()
        try:
            runs = discover(base)
        except InputError:
            runs = []
        found: dict[str, RunEntry] = {}
        for run in runs:
            if not _inside(run.path, base):
                continue
            files = [f for f in run.files if _inside(f.path, base)]
            if not files:
                continue
            safe = Run(run.name, run.path, files)
            rid = run_id(base, run.path)
            found[rid] = RunEntry(rid, run.name, safe)
        with self._lock:
            self._runs = found
        return found

    def runs(self) -> list[RunEntry]:
        with self._lock:
            return sorted(self._runs.values(), key=lambda e: e.name)

    def get(self, rid: str) -> RunEntry:
        if not RUN_ID.match(rid or ""):
            raise ApiError(400, "bad_parameter", "run: not a run id", parameter="run")
        with self._lock:
            entry = self._runs.get(rid)
        if entry is None:
            raise ApiError(404, "not_found", f"run {rid} not found", parameter="run")
        return entry

    def file(
        self, rid: str, worker: str | None = None, span: str | None = None
    ) -> tuple[RunEntry, TraceFile]:
        """The run and one of its workers' inputs (default: the first worker, first span)."""
        entry = self.get(rid)
        try:
            return entry, entry.run.select(worker, span)
        except InputError as exc:
            raise ApiError(404, "not_found", exc.problem, parameter="worker") from None
