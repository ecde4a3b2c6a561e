"""Run the real `mindinsight` CLI in a subprocess (what a user runs), with its output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def run_cli(
    *args: str | Path, env: dict[str, str] | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mindinsight_profiler", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, env=full_env,
    )  # fmt: skip
