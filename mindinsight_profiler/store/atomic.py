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


def _write_atomic(path: Path, write: Callable[[IO[Any]], object], mode: str = "w") -> None:
    """`write` into a temporary file in the same folder, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, mode) as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, *parts: bytes) -> None:
    """`parts` one after the other in one file (no joined copy of a large payload)."""

    def write(f: IO[bytes]) -> None:
        for part in parts:
            f.write(part)

    _write_atomic(path, write, "wb")


def write_json_atomic(path: Path, data: Any) -> None:
    """JSON, streamed into the temporary file (a report is not built as one string first)."""
    _write_atomic(path, lambda f: json.dump(data, f, separators=(",", ":"), default=json_default))
