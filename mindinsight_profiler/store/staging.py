"""Stage a remote input into the workspace before it is read, and only what changed.

Each object is streamed (one GET read in 64 KiB pieces on S3, 8 MiB reads elsewhere; never
the whole object in memory) to a hidden temporary name beside its place and renamed into
place, so a reader never sees half a file. Its listed size and version and the SHA-256 of
the staged bytes are recorded in `<stage>/versions/` (sealed: `store.integrity`) *after* the
rename: a crash in between leaves a record that does not match, and the object is fetched
again; so is a staged copy damaged or edited since (its hash is checked each time it is
about to be read: staging only runs on a cache miss, before a parse that costs far more).
A per-input lock keeps two processes (two server workers, a CLI beside a server) from
downloading the same input at once. Files that the input's staged folders hold but the
listing no longer names are removed, so a file deleted on the server is not read from an
older copy.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from mindinsight_profiler.errors import CacheError, InputError
from mindinsight_profiler.formats.discovery import Run, discover
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.sources import Member, RemoteInput, parse_location
from mindinsight_profiler.store import remote
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.store.integrity import read_sealed, write_sealed

log = logging.getLogger(__name__)

#: Temporary files older than this (seconds) are left-overs of a killed download.
STALE_PART_S = 3600.0


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _record_path(stage: Path, m: Member) -> Path:
    return stage / "versions" / _digest(m.url)


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(remote.CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _record(stage: Path, m: Member) -> None:
    """Record the staged copy of `m`: its listed size and version, the hash of its bytes."""
    data = {"size": m.size, "version": m.version, "sha256": _file_sha256(m.local)}
    write_sealed(_record_path(stage, m), "staged", json.dumps(data).encode())


def _current(stage: Path, m: Member) -> bool:
    """Whether the staged copy is the listed version, whole and unchanged since staged."""
    path = _record_path(stage, m)
    try:
        payload = read_sealed(path, "staged")
        if payload is None:
            return False
        recorded = json.loads(bytes(payload))
        if (recorded["size"], recorded["version"]) != (m.size, m.version):
            return False  # a new version on the server
        if m.local.stat().st_size == m.size and _file_sha256(m.local) == recorded["sha256"]:
            return True
        problem = "its staged copy changed since it was downloaded"
    except (CacheError, ValueError, TypeError, KeyError) as exc:
        problem = f"its record is damaged: {exc}"
    except OSError as exc:
        problem = f"its staged copy is unreadable: {exc}"
    log.warning("downloading %s again: %s", m.url, problem)
    return False


def _open(fs: Any, rpath: str) -> Any:
    """The object opened for sequential reads without a read-ahead cache (bounded memory)."""
    try:
        return fs.open(rpath, "rb", block_size=remote.CHUNK, cache_type="none")
    except TypeError:  # a filesystem without these options
        return fs.open(rpath, "rb")


def _fetch(fs: Any, rpath: str, fd: int, tmp: str, report: ProgressFn) -> None:
    """Copy one object into the open temporary file, holding one block at a time."""
    if hasattr(fs, "max_concurrency"):  # s3fs: one streaming GET, read in 64 KiB pieces
        os.close(fd)  # (its default parallel download would hold 10 parts of 50 MiB)
        from fsspec.callbacks import Callback

        class Progress(Callback):
            def call(self, *args: Any, **kwargs: Any) -> None:
                report(int(self.value), 0)

        fs.get_file(rpath, tmp, max_concurrency=1, callback=Progress())
        return
    got = 0
    with os.fdopen(fd, "wb") as out, _open(fs, rpath) as src:
        while chunk := src.read(remote.CHUNK):
            out.write(chunk)
            got += len(chunk)
            report(got, 0)


def _download(m: Member, progress: ProgressFn | None, done: int, total: int) -> None:
    fs, rpath = remote.filesystem(m.url)
    m.local.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{m.local.name}.", suffix=".part", dir=m.local.parent)

    def report(got: int, _: int) -> None:
        if progress is not None:
            progress(done + got, total)

    try:
        _fetch(fs, rpath, fd, tmp, report)
        got = os.path.getsize(tmp)
        if got != m.size:
            raise InputError(m.url, f"changed while downloading (listed {m.size} bytes, got "
                             f"{got}); it is fetched again on the next try")  # fmt: skip
        os.replace(tmp, m.local)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, InputError) or not isinstance(exc, Exception):
            raise
        if isinstance(exc, FileNotFoundError):
            raise InputError(m.url, "no longer exists (deleted since it was listed)") from None
        if isinstance(exc, PermissionError):
            raise InputError(m.url, f"access denied: {remote._one_line(exc)}") from None
        raise InputError(m.url, f"download failed: {remote._one_line(exc)}") from None


def _prune(r: RemoteInput) -> None:
    """Remove staged files in the input's own folders that the listing no longer names."""
    keep = {m.local for m in r.members}
    now = time.time()
    for folder, deep in r.scopes:
        if not folder.is_dir():
            continue
        for path in folder.rglob("*") if deep else folder.iterdir():
            if path in keep or not path.is_file():
                continue
            if path.name.startswith(".") and path.name.endswith(".part"):
                try:  # another process's download in flight, unless it is old
                    if now - path.stat().st_mtime < STALE_PART_S:
                        continue
                except OSError:
                    continue
            path.unlink(missing_ok=True)


def stage(r: RemoteInput, progress: ProgressFn | None = None) -> Path:
    """Make the staged copy of the input current; returns its local path for the reader."""
    lock_path = r.stage_dir / "locks" / f"{_digest(r.url)}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            stale = [m for m in r.members if not _current(r.stage_dir, m)]
            total, done = sum(m.size for m in stale), 0
            for m in stale:
                _download(m, progress, done, total)
                _record(r.stage_dir, m)
                done += m.size
            _prune(r)
            if all(m.local != r.local for m in r.members):
                r.local.mkdir(parents=True, exist_ok=True)  # a worker folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return r.local


def local_path(source: Path | RemoteInput, progress: ProgressFn | None = None) -> Path:
    """The local path of a source, staging a remote one first."""
    return stage(source, progress) if isinstance(source, RemoteInput) else source


def staging_root(workspace: Workspace | None) -> Path:
    """Where remote inputs are staged: the workspace, or (`--no-cache`) a temporary folder
    removed when the process exits."""
    if workspace is not None:
        return workspace.root
    tmp = tempfile.mkdtemp(prefix="mindinsight-stage-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return Path(tmp)


def discover_location(location: str | Path, workspace: Workspace | None) -> list[Run]:
    """Runs under a local path, a `file://` URL or a remote URL (listed, not downloaded).

    Remote inputs are to be staged in `workspace` (without one, in a temporary folder).
    """
    where = parse_location(location)
    if isinstance(where, Path):
        return discover(where)
    return remote.discover_remote(where, staging_root(workspace))
