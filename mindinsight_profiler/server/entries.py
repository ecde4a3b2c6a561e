"""Which cache entry holds an input's results, asked on every request of the server.

An entry is named by the input's fingerprint (store/cache.py: path, size, mtime and the
input's first and last MiB), which costs up to about 2 ms a file to compute: more than serving
most requests, and seconds for the 1,000 ranks of one cluster page. The workspace remembers
them across processes (store/fingerprints.py); each process also keeps the entries it
found, trusted for a regular local file as long as the kernel's identity of the file is
unchanged (a stat), for other inputs for a few seconds.
"""

from __future__ import annotations

import time
from threading import Lock

from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.server.services import services
from mindinsight_profiler.store.cache import CacheEntry, Workspace
from mindinsight_profiler.store.fingerprints import file_identity


def workspace() -> Workspace:
    return Workspace(services().settings.workspace)


#: How long a process trusts the fingerprint of an input that is not one regular file (a
#: folder, a remote object): a changed input is seen within this time.
FINGERPRINT_TTL_S = 2.0
#: Fingerprints kept per process (each a few hundred bytes).
ENTRIES_KEPT = 65536
_entries: dict[tuple[str, str, str], tuple[float, tuple[int, ...] | None, CacheEntry]] = {}
_entries_lock = Lock()


def _file_stat(file: TraceFile) -> tuple[int, ...] | None:
    """A settled regular local file's identity (store/fingerprints.py): while it is
    unchanged, so is the fingerprint. None for other inputs."""
    return None if file.remote is not None else file_identity(file.path)


def cache_entry(file: TraceFile) -> CacheEntry:
    """The input's cache entry. Its fingerprint hashes the input's first and last MiB (about
    2 ms a large file, seconds for the 1,000 ranks of a cluster page), so it is kept: for
    a regular file while its `_file_stat` is unchanged (a stat, microseconds), for other
    inputs `FINGERPRINT_TTL_S`."""
    ws = workspace()
    ident = file.remote.identity() if file.remote is not None else str(file.path)
    key = (
        str(ws.root),
        ident,
        cache_variant(file.format, file.worker, services().settings.options),
    )
    now = time.monotonic()
    seen = _file_stat(file)
    with _entries_lock:
        hit = _entries.get(key)
    if hit is not None and (
        seen == hit[1] if seen is not None else now - hit[0] < FINGERPRINT_TTL_S
    ):
        return hit[2]
    entry = ws.entry(file.source, key[2])
    with _entries_lock:
        if len(_entries) >= ENTRIES_KEPT:
            _entries.clear()
        _entries[key] = (now, seen, entry)
    return entry
