"""Input fingerprints remembered in the workspace, so that a fresh process need not hash again.

A cache entry is named by its input's fingerprint (`cache.fingerprint`), which reads and
hashes the input's first and last MiB: about 1 ms a file from the page cache, more from a
cold disk or a network filesystem. A fresh server's first cluster page over 1,000 ranks
spent over a second on that alone, before reading any entry. So each fingerprint computed
for a regular local file is remembered in `<cache>/.fingerprints/<hash of path and
variant>`, with the file's identity as the kernel keeps it (device, inode, size, mtime and
ctime), and used again only while that identity is unchanged: any write to the file
changes its ctime, which, unlike the mtime, no one can set back; a replaced file has
another inode. A file changed within `SETTLE_NS` of its ctime is not remembered (a
filesystem's clock tick may hide a second write; the input may still be being written).

Folders (an input of several files) and remote inputs are fingerprinted every time: their
identity is not one stat. Within one process, though, the bytes sampled from a file are
kept by its identity (`sample`), so the workers of one folder input read it once.

A memo file is sealed (`integrity`); a damaged one is a miss, recomputed and rewritten, and
an unwritable workspace only costs the speed-up.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
import time
from collections import OrderedDict
from pathlib import Path

from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.store.integrity import read_sealed, write_sealed

#: A file changed this recently (ns) is fingerprinted, not remembered.
SETTLE_NS = 2_000_000_000
_KIND = "fingerprint"


def file_identity(path: Path) -> tuple[int, ...] | None:
    """(device, inode, size, mtime, ctime) of a regular file that has settled; None for
    anything else (a folder, a missing file, a file changed in the last `SETTLE_NS`)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return settled_identity(st) if stat.S_ISREG(st.st_mode) else None


def settled_identity(st: os.stat_result) -> tuple[int, ...] | None:
    """(device, inode, size, mtime, ctime) of `st`, or None when it changed in the last
    `SETTLE_NS` (a second write may still come, hidden by the clock's tick)."""
    if time.time_ns() - st.st_ctime_ns < SETTLE_NS:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def memo_path(cache_root: Path, path: Path, variant: str) -> Path:
    """Where the fingerprint of `path` read as `variant` is remembered."""
    name = hashlib.sha256(f"{path}\0{variant}".encode()).hexdigest()[:32]
    return cache_root / ".fingerprints" / name


def recall(memo: Path, identity: tuple[int, ...]) -> str | None:
    """The remembered fingerprint when the memo is sound and of this identity."""
    try:
        payload = read_sealed(memo, _KIND)
        if payload is None:
            return None
        data = json.loads(bytes(payload))
        if tuple(data["identity"]) == identity and isinstance(data["key"], str):
            return str(data["key"])
    except (CacheError, ValueError, KeyError, TypeError):
        pass  # damaged or of another shape: recomputed and rewritten
    return None


def remember(memo: Path, identity: tuple[int, ...], key: str) -> None:
    """Best effort: an unwritable workspace only costs the speed-up."""
    body = json.dumps({"identity": list(identity), "key": key}).encode()
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        write_sealed(memo, _KIND, body)
    except OSError:
        pass


#: Bytes read from each end of a file for its fingerprint (`cache.fingerprint`).
SAMPLE = 1 << 20
#: Samples kept in this process (bytes in all), by file identity: each worker of a folder
#: input (MindSpore ranks share one folder) fingerprints the whole folder, and three
#: workers of an 11 MB folder read it three times.
SAMPLES_KEPT_BYTES = 32 << 20
_samples: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
_samples_bytes = 0
_samples_lock = threading.Lock()


def sample(path: Path, st: os.stat_result) -> bytes:
    """The first and last `SAMPLE` bytes of `path` (the whole of a smaller file), as the
    fingerprint hashes them; from memory when the file's identity is unchanged since this
    process last read it (and it settled: see `SETTLE_NS`)."""
    global _samples_bytes
    key = settled_identity(st)
    if key is not None:
        with _samples_lock:
            kept = _samples.get(key)
            if kept is not None:
                _samples.move_to_end(key)
                return kept
    with open(path, "rb") as f:
        data = f.read(SAMPLE)
        if st.st_size > SAMPLE:
            f.seek(max(SAMPLE, st.st_size - SAMPLE))
            data += f.read(SAMPLE)
    if key is not None and len(data) <= SAMPLES_KEPT_BYTES // 8:
        with _samples_lock:
            if key not in _samples:
                _samples[key] = data
                _samples_bytes += len(data)
            while _samples_bytes > SAMPLES_KEPT_BYTES:
                _, dropped = _samples.popitem(last=False)
                _samples_bytes -= len(dropped)
    return data
