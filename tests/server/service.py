"""End-to-end helper (viztracer-style): the real `mindinsight start` on a free port.

`Server` starts the CLI in a subprocess, polls the API, and stops it with
`mindinsight stop`; on a failed assertion the test prints the server's logs.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.integration.cli import run_cli


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    base: Path
    workspace: Path
    port: int = 0
    host: str = "127.0.0.1"  # another (e.g. 127.0.0.2) is "not loopback" to the server

    def __post_init__(self) -> None:
        self.port = self.port or free_port()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid_file(self) -> Path:
        return self.workspace / f"server-{self.port}.pid"

    def start(self, *extra: str) -> str:
        out = run_cli(
            "start", "--summary-base-dir", self.base, "--port", str(self.port),
            "--workspace", self.workspace, "--workers", "2",
            *(["--host", self.host] if self.host != "127.0.0.1" else []), *extra, timeout=120,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr + self.logs()
        return out.stdout + out.stderr

    def stop(self) -> str:
        out = run_cli("stop", "--port", str(self.port), "--workspace", self.workspace)
        assert out.returncode == 0, out.stderr + self.logs()
        return out.stdout

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def wait_settled(self, timeout: float = 300.0) -> list[dict[str, Any]]:
        """The runs once every one is ready or failed, with no stage after the overview
        (advice, timeline index) still pending (fails the test after `timeout`)."""
        deadline = time.monotonic() + timeout
        runs: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            runs = self.get("/api/v1/runs")["runs"]
            settled = all(r["state"] in ("ready", "failed") and not r.get("pending") for r in runs)
            if runs and settled:
                return runs
            time.sleep(0.5)
        raise AssertionError(f"runs not settled in {timeout} s: {runs}\n{self.logs()}")

    def master_pid(self) -> int:
        return int(self.pid_file.read_text())

    def logs(self) -> str:
        out = []
        for path in sorted((self.workspace / "logs").glob("*")):
            out.append(f"--- {path.name}\n" + path.read_text(errors="replace")[-4000:])
        return "\n".join(out)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def without_windows(advice: dict[str, Any]) -> dict[str, Any]:
    """The served advice less what the API adds to say where evidence lands (the CLI has
    none): `window_ns`, `event` and `tracks` of time ranges, `worker` of ranks.

    Each window must be the range moved to a common origin: every range shifted by the same
    amount, so the timeline opens exactly the range the CLI names. Events and tracks come
    only with a range, a worker only with a rank.
    """
    shifts = set()
    for finding in advice["findings"]:
        for ev in finding["evidence"]:
            window = ev.pop("window_ns", None)
            event, tracks = ev.pop("event", None), ev.pop("tracks", None)
            if "start_ns" in ev:
                assert window is not None and window[1] - window[0] == ev["end_ns"] - ev["start_ns"]
                shifts.add(ev["start_ns"] - window[0])
            else:
                assert window is None and event is None and tracks is None
            assert tracks is None or (tracks and all(isinstance(t, int) for t in tracks))
            if ev.pop("worker", None) is not None:
                assert ev.get("rank") is not None
    assert len(shifts) <= 1, shifts
    return advice
