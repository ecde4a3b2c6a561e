"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np


def json_default(value: Any) -> Any:
    """JSON for numpy scalars and paths, which `json` does not know."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_atomic(
    path: Path, write: Callable[[IO[Any]], object], mode: str = "w", shared: bool = False
) -> None:
    """`write` into a temporary file in the same folder, then rename it over `path`: a
    reader never sees half a file. `shared`: a file for people (a report, an export) gets
    the mode any new file would (the umask's), not the temporary file's 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            write(f)
        if shared:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (os.umask sets it, which would race
    with other threads of a server); 022 where /proc does not say."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_bytes_atomic(path: Path, *parts: bytes) -> None:
    """`parts` one after the other in one file (no joined copy of a large payload)."""

    def write(f: IO[bytes]) -> None:
        for part in parts:
            f.write(part)

    write_atomic(path, write, "wb")


def write_json_atomic(path: Path, data: Any) -> None:
    """JSON, streamed into the temporary file (a report is not built as one string first)."""
    write_atomic(path, lambda f: json.dump(data, f, separators=(",", ":"), default=json_default))
