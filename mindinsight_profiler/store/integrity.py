"""Checksummed ("sealed") workspace files: a damaged, edited or older file is a miss, never served.

Each file the workspace derives from an input and reads back later (a cache entry's
manifest, stored advice, an input's server state, the record of a staged remote object) is
one header line and its payload, written together in one atomic write (temporary file +
rename), so the check and the payload always come from the same write:

    mindinsight-sealed/1 <kind> <payload size> <SHA-256 of the payload, hex>\\n<payload>

Reading checks the header, the kind, the size and the hash of the bytes just read (hashed in
memory, no second read of the file), and raises `CacheError` naming the file and the problem
on any difference: an edited field (still valid JSON), a truncated or partly overwritten
file, a deleted checksum, a file an older version wrote without a header, a file of another
kind put in its place. Callers treat that as a miss: they log it and rebuild from the input.

Threat addressed: accidental damage and stale formats (disk and copy errors, a crash, a hand
edit, an older release's files), the ways the issue's edited advice could arise. It is not
a defence against someone who means to forge an entry: they can recompute an unkeyed hash.
A keyed HMAC would not change that here: its key would live in the same workspace, readable
by the same user who can write the entries, and every Dask worker and server sharing the
workspace would need it too; the workspace is trusted as much as the user's own files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mindinsight_profiler.errors import CacheError
from mindinsight_profiler.store.atomic import write_bytes_atomic

#: Version of the header line itself; another version is a miss (rebuilt), not an error.
SEAL_FORMAT = 1
_MAGIC = b"mindinsight-sealed/"
#: A header is short; a file whose first line is longer is not one of ours.
_HEADER_MAX = 256


def sha256_hex(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def seal(kind: str, payload: bytes) -> bytes:
    """The header line for `payload` (written before it, in the same file)."""
    return b"%s%d %s %d %s\n" % (
        _MAGIC, SEAL_FORMAT, kind.encode(), len(payload), sha256_hex(payload).encode()
    )  # fmt: skip


def unseal(data: bytes, kind: str, where: Path) -> memoryview:
    """The verified payload of a sealed file's bytes (a view: no copy of a large payload)."""
    end = data.find(b"\n", 0, _HEADER_MAX)
    if not data.startswith(_MAGIC) or end < 0:
        raise CacheError(f"{where}: not a checksummed file (an older format?)")
    fields = data[len(_MAGIC) : end].split(b" ")
    if len(fields) != 4:
        raise CacheError(f"{where}: malformed checksum header")
    version, got_kind, size, digest = fields
    if version != b"%d" % SEAL_FORMAT:
        raise CacheError(f"{where}: checksum header of format {version.decode(errors='replace')}"
                         f", not {SEAL_FORMAT}")  # fmt: skip
    if got_kind != kind.encode():
        raise CacheError(f"{where}: holds {got_kind.decode(errors='replace')}, not {kind}")
    payload = memoryview(data)[end + 1 :]
    if not size.isdigit() or int(size) != len(payload):
        said = size.decode(errors="replace")
        raise CacheError(f"{where}: {len(payload)} bytes, header says {said} (truncated, edited)")
    if sha256_hex(payload).encode() != digest:
        raise CacheError(f"{where}: checksum mismatch (changed after it was written)")
    return payload


def write_sealed(path: Path, kind: str, payload: bytes) -> None:
    """Header and payload in one atomic write (a reader sees the old file or the new one)."""
    write_bytes_atomic(path, seal(kind, payload), payload)


def read_sealed(path: Path, kind: str) -> memoryview | None:
    """The verified payload; None when there is no such file; CacheError when it is damaged,
    of another kind or format, or unreadable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CacheError(f"{path}: unreadable: {exc}") from None
    return unseal(data, kind, path)
