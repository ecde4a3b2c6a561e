"""Workspace cache: a parsed trace and its report, keyed by the input's fingerprint.

Layout: `<workspace>/cache/<key>/` holds one file per table of columns (`store.columns`:
reopened memory-mapped, so a later open costs milliseconds, not a re-parse),
`strings.json`, `report.json` and a `manifest.json` with the schema versions, the columns'
layout and the size and checksum of every file. The manifest is sealed
(`store.integrity`: its own SHA-256 in a header line); the JSON files' SHA-256 is checked
on the bytes read (they are read whole anyway), the columns' CRC32 as they are reopened (a
pass over memory-mapped data that is not otherwise read: CRC32 is about 3.5 times faster
than SHA-256 here, and as sure to catch a damaged block). An entry is built in a temporary
folder and renamed into place, so readers never see half an entry; a per-key lock keeps
two processes from parsing the same file at once. Small files derived from the report (a
rank's cluster summary) are listed in the same manifest, written in the same `save` or
added later with `add_json`. A damaged, edited or older-format entry raises CacheError
naming the file; the caller logs it, `invalidate`s the entry and rebuilds it. The user's
input is only read.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from mindinsight_profiler._version import __version__
from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.formats.sources import RemoteInput, Source
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import SCHEMA_VERSION, Trace, Track
from mindinsight_profiler.store.atomic import json_default, write_bytes_atomic
from mindinsight_profiler.store.columns import crc32_of, map_table, write_table
from mindinsight_profiler.store.fingerprints import (
    file_identity,
    memo_path,
    recall,
    remember,
    sample,
)
from mindinsight_profiler.store.integrity import seal, sha256_hex, unseal

#: 2: a sealed manifest, SHA-256 of the JSON files (entries of format 1 sit under other keys).
#: 3: one file per table (`store.columns`), not one `.npy` per column.
CACHE_FORMAT = 3
_TABLES = ("events", "memory", "flows")


def _file_identity(h: Any, path: Path, resolved: Path) -> None:
    st = path.stat()
    h.update(f"{resolved}|{st.st_size}|{st.st_mtime_ns}".encode())
    h.update(sample(path, st))  # its first and last MiB


def fingerprint(path: Source, variant: str = "") -> str:
    """Identity of an input (a file, or a folder of files) and of what is read from it.

    Per file: path, size, mtime and its first and last MiB: cheap even for gigabyte traces,
    and any rewrite changes size, mtime or the content at the ends (a trace is one JSON
    document, so appending changes its end). A remote input's identity is its listing (URL,
    size and ETag/mtime per object): no download to tell whether it changed. `variant` tells
    apart several workers read from one folder (MindSpore legacy ranks).
    """
    h = hashlib.sha256()
    if isinstance(path, RemoteInput):
        h.update(path.identity().encode())
    else:
        if path.is_dir():  # the folder resolved once, not each of its (hundreds of) files
            root = path.resolve()
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                _file_identity(h, f, root / f.relative_to(path))
        else:
            _file_identity(h, path, path.resolve())
    h.update(f"|{variant}|schema={SCHEMA_VERSION}|cache={CACHE_FORMAT}".encode())
    return h.hexdigest()[:32]


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), default=json_default).encode()


#: Files beside the manifest that `save` keeps when it rewrites an entry (not in the manifest:
#: each is checked by its own reader).
SIDECARS = ("advice-*.json",)


class CacheEntry:
    """One cached input: `load_*` returns None on a miss, raises CacheError when corrupt."""

    def __init__(self, root: Path, key: str) -> None:
        self.root = root
        self.key = key
        self.dir = root / key

    def _manifest(self) -> dict[str, Any] | None:
        """The verified manifest; None when the entry is absent."""
        path = self.dir / "manifest.json"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheError(f"{path}: unreadable manifest: {exc}") from None
        try:
            manifest = json.loads(bytes(unseal(data, "manifest", path)))
            formats = (manifest["cache_format"], manifest["schema_version"])
            manifest["files"].items()
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise CacheError(f"{path}: undecodable manifest: {exc!r}") from None
        if formats != (CACHE_FORMAT, SCHEMA_VERSION):  # under this key only by mistake
            raise CacheError(f"{path}: cache format {formats[0]} schema {formats[1]}, "
                             f"not {CACHE_FORMAT} {SCHEMA_VERSION}")  # fmt: skip
        return dict(manifest)

    def _checked(self, manifest: dict[str, Any], name: str, verify: bool) -> Path:
        """A column file of the right size, its CRC32 checked when `verify`."""
        info = manifest["files"].get(name)
        path = self.dir / name
        if info is None or not path.exists() or path.stat().st_size != info["size"]:
            raise CacheError(f"{path}: missing or truncated cache file")
        if verify and crc32_of(path) != info["crc32"]:
            raise CacheError(f"{path}: checksum mismatch")
        return path

    def _table(self, manifest: dict[str, Any], name: str, verify: bool) -> dict[str, np.ndarray]:
        """The columns of one table file (`store.columns`), checked."""
        path = self._checked(manifest, f"{name}.bin", verify)
        return map_table(path, manifest["layouts"][name])

    def _read_checked(self, manifest: dict[str, Any], name: str) -> bytes:
        """A JSON file's bytes, its size and SHA-256 checked on what was read."""
        info = manifest["files"].get(name)
        path = self.dir / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CacheError(f"{path}: missing or unreadable cache file: {exc}") from None
        if info is None or len(data) != info.get("size") or sha256_hex(data) != info.get("sha256"):
            raise CacheError(f"{path}: checksum mismatch (truncated or changed)")
        return data

    def load_report(self, name: str = "report") -> bytes | None:
        """The stored report's JSON, checksum verified; the caller decodes it with its type
        (the store does not know the report's contract: `pipeline.reports.cached_report`)."""
        manifest = self._manifest()
        if manifest is None or f"{name}.json" not in manifest["files"]:
            return None
        return self._read_checked(manifest, f"{name}.json")

    def add_json(self, name: str, data: bytes) -> bool:
        """Add or replace one JSON file of the entry (`name.json`), its size and SHA-256 put
        in the manifest as `save` does, so it is checked, invalidated and rebuilt with the
        rest. The caller holds the entry's lock (`Workspace.lock`). False when the entry is
        absent; CacheError when its manifest is damaged.

        The file is written before the manifest that names it (each atomically): a reader
        sees the old manifest, which does not list it or lists the previous checksum (a
        mismatch: a miss), or the new one, with the file in place.
        """
        manifest = self._manifest()
        if manifest is None:
            return False
        write_bytes_atomic(self.dir / f"{name}.json", data)
        manifest["files"][f"{name}.json"] = {"size": len(data), "sha256": sha256_hex(data)}
        body = _json_bytes(manifest)
        write_bytes_atomic(self.dir / "manifest.json", seal("manifest", body), body)
        return True

    def load_trace(self, verify: bool = True) -> Trace | None:
        """The cached trace with columns memory-mapped (read-only)."""
        manifest = self._manifest()
        if manifest is None:
            return None
        try:
            tables = {table: self._table(manifest, table, verify) for table in _TABLES}
            side = {
                table: self._table(manifest, f"side.{table}", verify)
                for table in manifest["side_tables"]
            }
            strings = json.loads(self._read_checked(manifest, "strings.json"))
            tracks = [Track(**t) for t in manifest["tracks"]]
            meta = manifest["meta"]
        except (ValueError, OSError, KeyError, TypeError) as exc:
            raise CacheError(f"{self.dir}: unreadable cache entry: {exc}") from None
        trace = Trace(
            tables["events"], tables["memory"], tables["flows"], StringTable(strings), tracks,
            meta, side,
        )  # fmt: skip
        try:
            trace.check()
        except ValueError as exc:
            raise CacheError(f"{self.dir}: inconsistent cache entry: {exc}") from None
        return trace

    def save(self, trace: Trace, reports: dict[str, bytes]) -> None:
        """Write the entry atomically (temp folder + rename); a concurrent writer's copy wins.

        `reports`: name -> the report's JSON, encoded by the caller from its typed struct."""
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{self.key}-", dir=self.root))
        try:
            files: dict[str, dict[str, int | str]] = {}
            layouts: dict[str, dict] = {}
            named = [(t, getattr(trace, t)) for t in _TABLES]
            named += [(f"side.{t}", columns) for t, columns in trace.tables.items()]
            for name, columns in named:
                files[f"{name}.bin"], layouts[name] = write_table(tmp / f"{name}.bin", columns)
            for name, data in {"strings": _json_bytes(trace.strings.to_list()), **reports}.items():
                (tmp / f"{name}.json").write_bytes(data)
                files[f"{name}.json"] = {"size": len(data), "sha256": sha256_hex(data)}
            manifest = {
                "cache_format": CACHE_FORMAT,
                "schema_version": SCHEMA_VERSION,
                "writer": __version__,
                "layouts": layouts,
                "side_tables": list(trace.tables),
                "tracks": [asdict(t) for t in trace.tracks],
                "meta": trace.meta,
                "files": files,
            }
            body = _json_bytes(manifest)
            (tmp / "manifest.json").write_bytes(seal("manifest", body) + body)
            self._keep_sidecars(tmp)
            # the old copy is renamed aside, not removed in place: removing a large entry
            # takes long enough for the server to answer "not ready" for a run it serves
            old = None
            if self.dir.exists():
                old = Path(tempfile.mkdtemp(prefix=f".old-{self.key}-", dir=self.root))
                # (another process may have moved or replaced it meanwhile)
                with contextlib.suppress(OSError):
                    os.replace(self.dir, old / "entry")
            try:
                os.rename(tmp, self.dir)
            except OSError:  # another process renamed its copy first
                shutil.rmtree(tmp, ignore_errors=True)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _keep_sidecars(self, tmp: Path) -> None:
        """Carry derived files of the same input (stored advice) into the rewritten entry.

        A rewrite (e.g. adding the timeline index) does not change the input, and each
        sidecar's name already holds the key it depends on; dropping them would only make
        the next request recompute them (or, for a cache-only server, answer "not ready").
        """
        for pattern in SIDECARS:
            for path in self.dir.glob(pattern) if self.dir.is_dir() else []:
                try:
                    shutil.copy2(path, tmp / path.name)
                except OSError:
                    continue

    def invalidate(self) -> None:
        """Make the entry a miss for every reader (its manifest removed): the next analysis
        rebuilds it, keeping its sidecars, and the server's scheduler sees it as not analysed."""
        (self.dir / "manifest.json").unlink(missing_ok=True)


class Workspace:
    """The folder holding caches and state (default `~/.mindinsight`)."""

    def __init__(self, root: str | Path | None = None) -> None:
        default = os.environ.get("MINDINSIGHT_WORKSPACE") or Path.home() / ".mindinsight"
        self.root = Path(root or default).expanduser()

    @property
    def cache_root(self) -> Path:
        return self.root / "cache"

    def entry(self, source: Source, variant: str = "") -> CacheEntry:
        return CacheEntry(self.cache_root, self.fingerprint(source, variant))

    def fingerprint(self, source: Source, variant: str = "") -> str:
        """`fingerprint`, remembered for a settled local file (store/fingerprints.py)."""
        if isinstance(source, RemoteInput):
            return fingerprint(source, variant)
        identity = file_identity(source)
        if identity is None:
            return fingerprint(source, variant)
        memo = memo_path(self.cache_root, source, variant)
        key = recall(memo, identity)
        if key is None:
            key = fingerprint(source, variant)
            remember(memo, identity, key)
        return key

    @contextlib.contextmanager
    def lock(self, entry: CacheEntry, wait: bool = True) -> Iterator[bool]:
        """Exclusive per-key lock so concurrent processes parse an input once. Yields True
        once held; with `wait=False` it yields False at once when another process holds it
        (a request must not wait for someone else's parse)."""
        self.cache_root.mkdir(parents=True, exist_ok=True)
        with open(self.cache_root / f".{entry.key}.lock", "w") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
