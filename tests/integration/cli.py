"""Run the real `mindinsight` CLI in a subprocess (what a user runs), with its output."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
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


# The CLI with, at exit, its own peak RSS (VmHWM, kB) on stderr. rusage would also count
# the image before exec, i.e. the pytest process with torch already loaded.
_REPORT_PEAK = """
import atexit, sys
def peak():
    status = open("/proc/self/status").read()
    sys.stderr.write("VmHWM " + status.split("VmHWM:")[1].split()[0] + "\\n")
atexit.register(peak)
from mindinsight_profiler.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Measured:
    returncode: int
    peak_mb: float
    stdout: str
    stderr: str  # without the peak line


def cli_peak(*args: str | Path, env: dict[str, str] | None = None) -> Measured:
    """`run_cli`, and the CLI process's peak RSS in MB."""
    r = subprocess.run(
        [sys.executable, "-c", _REPORT_PEAK, *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    lines = r.stderr.strip().splitlines()
    peaks = [int(line.split()[1]) for line in lines if line.startswith("VmHWM ")]
    assert peaks, r.stderr
    other = "\n".join(line for line in lines if not line.startswith("VmHWM "))
    return Measured(r.returncode, peaks[-1] / 1024, r.stdout, other)
