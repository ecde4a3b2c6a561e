"""SIGKILL the whole server in the middle of an analysis: the next start finishes it, and the
cache entry is whole (report loads, every file matches its checksum in the sealed manifest)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import SHARED_DATA, shared
from tests.server.service import Server, group_alive

pytestmark = pytest.mark.slow

#: Large enough that its analysis takes seconds (made by bench/make_inputs.py).
CANDIDATES = [Path("/tmp/mi-bench-inputs/x6"), Path("/tmp/mi-bench-inputs/x3")]


def _large_input() -> Path:
    for folder in CANDIDATES:
        found = sorted(folder.glob("*.pt.trace.json*")) if folder.is_dir() else []
        if found:
            return found[0]
    if not (SHARED_DATA / "torch_cpu/large").exists():
        pytest.skip("no large input: run bench/make_inputs.py, or provide ../shared/data")
    return sorted(shared("torch_cpu/large").glob("*.pt.trace.json*"))[0]


def _place(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    target = folder / source.name
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
    return target


def _wait_analysing(server: Server, timeout: float = 120.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = server.get("/api/v1/runs")["runs"]
        if runs and runs[0]["state"] == "analysing" and runs[0].get("progress", 0) > 0:
            return float(runs[0]["progress"])
        assert not runs or runs[0]["state"] in ("queued", "analysing"), (runs, server.logs())
        time.sleep(0.05)
    raise AssertionError(f"never seen analysing: {server.logs()}")


def test_sigkill_mid_analysis_then_restart(tmp_path: Path) -> None:
    trace = _place(_large_input(), tmp_path / "base" / "big")
    server = Server(tmp_path / "base", tmp_path / "ws")
    server.start("--reload-interval", "1")
    pid = server.master_pid()
    try:
        progress = _wait_analysing(server)
    finally:
        os.killpg(pid, signal.SIGKILL)  # master, workers and the analysis process at once
    deadline = time.monotonic() + 10
    while group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(pid)
    assert 0 < progress < 100
    assert server.pid_file.exists()  # killed: nobody cleaned up
    file = discover(trace.parent)[0].select()
    entry = Workspace(server.workspace).entry(file.path, cache_variant(file.format, file.worker))
    assert entry.load_report() is None  # killed before the entry was renamed into place

    printed = server.start("--reload-interval", "1")
    assert "stale pid file" in printed
    try:
        (run,) = server.wait_settled(timeout=400)
        assert run["state"] == "ready", (run, server.logs())
    finally:
        server.stop()

    report = entry.load_report()  # verifies the SHA-256 of report.json against the manifest
    assert report is not None and json.loads(report)["operators"]
    loaded = entry.load_trace(verify=True)  # every column's CRC32
    assert loaded is not None and len(loaded.events["start_ns"]) > 0
