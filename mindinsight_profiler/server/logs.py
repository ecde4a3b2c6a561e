"""Structured server logs: one JSON object per line in `<workspace>/logs/server-<port>.log`.

Every server process (gunicorn workers and their analysis processes) appends to the same
file; lines are short single writes, so they do not interleave.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any


class JsonFormatter(logging.Formatter):
    """Time, level, process, logger, message (and the exception when there is one)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(record.created))
            + f".{int(record.msecs):03d}",
            "level": record.levelname.lower(),
            "pid": record.process,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out)


def log_to(path: Path) -> None:
    """Send this package's INFO and above to `path` (once per process and file)."""
    root = logging.getLogger("mindinsight_profiler")
    if any(getattr(h, "baseFilename", None) == str(path) for h in root.handlers):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path)
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(logging.INFO)
