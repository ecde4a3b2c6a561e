"""A minimal progress bar on stderr, for reading large inputs (no dependency needed)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Redraws one line at most 10 times a second; silent until the work takes 0.5 s."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.started = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.started < 0.5 or now - self.last < 0.1:
            return
        self.last = now
        frac = min(done / total, 1.0) if total else 0.0
        filled = int(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {frac:4.0%} {now - self.started:5.1f}s")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * (len(self.label) + self.width + 20) + "\r")
            self.stream.flush()
