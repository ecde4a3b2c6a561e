"""The runs under the summary base dir, each behind an opaque id.

A client never sends a path: it sends a run id (a hash of the run folder's path relative to
the base dir, plus `#<worker>` for one of several runs in one folder: `Run.part`) and a
worker/span name that must be one of that run's. Discovery results are filtered so that
nothing outside the base dir is ever served: a file or folder whose real path (symlinks
resolved) is not inside the base dir's real path is dropped.

A base dir in object storage (`s3://bucket/prefix`) is listed on each scan; its runs carry
the paths their objects are staged to in the workspace, which mirror the keys below the
prefix, so run ids are the same as for a local copy of the tree and the same check keeps
every staged object inside the base's staging folder. A failed listing (network, expired
credentials) keeps the runs of the last good one.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile, discover
from mindinsight_profiler.server.errors import ApiError
from mindinsight_profiler.store.cache import Workspace

log = logging.getLogger(__name__)

RUN_ID = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class RunEntry:
    id: str
    name: str
    run: Run

    @property
    def files(self) -> list[TraceFile]:
        return self.run.files


def run_id(base: Path, folder: Path, part: str = "") -> str:
    """Stable across processes and restarts: every gunicorn worker agrees on it. `part`
    tells apart runs that share a folder (`#` is not in a worker name's place in a path)."""
    rel = folder.resolve().relative_to(base.resolve()).as_posix()
    key = f"{rel}#{part}" if part else rel
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _inside(path: Path, base: Path) -> bool:
    try:
        path.resolve().relative_to(base)
    except (ValueError, OSError):
        return False
    return True


def _within(file: TraceFile, base: Path) -> TraceFile:
    """A remote input less any object staged outside the base (e.g. MindData files beside
    a worker folder that is the base itself): those are never downloaded or read."""
    if file.remote is None:
        return file
    members = tuple(m for m in file.remote.members if _inside(m.local, base))
    scopes = tuple(s for s in file.remote.scopes if _inside(s[0], base))
    return replace(file, remote=replace(file.remote, members=members, scopes=scopes))


class RunRegistry:
    """Thread-safe map of run id -> run, replaced as a whole by each `scan`."""

    def __init__(self, base_dir: Path | str, workspace: Path | None = None) -> None:
        self.base_dir = base_dir
        self.workspace = Workspace(workspace)  # where a remote base's inputs are staged
        self._runs: dict[str, RunEntry] = {}
        self._lock = threading.Lock()

    def _discover(self) -> tuple[Path, list[Run]]:
        """(the local base that every input must lie in, the runs found)."""
        if isinstance(self.base_dir, Path):
            base = self.base_dir.resolve()
            return base, discover(base)
        from mindinsight_profiler.store.remote import discover_remote, staged_path

        root = self.workspace.root
        return staged_path(self.base_dir, root).resolve(), discover_remote(self.base_dir, root)

    def scan(self) -> dict[str, RunEntry]:
        """Discover the runs now; returns the new map (also kept)."""
        try:
            base, runs = self._discover()
        except InputError as exc:
            if isinstance(self.base_dir, str):
                log.warning("keeping the runs of the last listing: %s", exc)
                with self._lock:
                    return dict(self._runs)
            base, runs = Path(), []
        found: dict[str, RunEntry] = {}
        for run in runs:
            if not _inside(run.path, base):
                continue
            files = [_within(f, base) for f in run.files if _inside(f.path, base)]
            if not files:
                continue
            safe = Run(run.name, run.path, files, run.notes, run.part)
            rid = run_id(base, run.path, run.part)
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
