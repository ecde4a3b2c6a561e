"""`mindinsight mcp` as a subprocess: the SDK's client over stdio and over streamable HTTP
(with the token rules of the web server), and the same figures as the REST API."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_mcp_tools import make_base

pytest.importorskip("mcp", reason="the MCP SDK is a dev dependency")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mindinsight_profiler.cli.main import main as cli_main
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("mcp-sub")
    base, ws = make_base(root), root / "ws"
    assert cli_main(["analyse", str(base / "kineto_gpu"), "--format", "json",
                     "--workspace", str(ws)]) == 0  # fmt: skip
    return base, ws


def _command(base: Path, ws: Path, *extra: str) -> list[str]:
    return ["-m", "mindinsight_profiler", "mcp", "--summary-base-dir", str(base),
            "--workspace", str(ws), *extra]  # fmt: skip


async def _calls(client: Client) -> dict[str, Any]:
    runs = json.loads((await client.call_tool("list_runs", {})).content[0].text)
    overview = await client.call_tool("run_overview", {"run": "kineto_gpu"})
    ops = await client.call_tool("operators", {"run": "kineto_gpu", "limit": 3,
                                               "sort": "device_self_us"})  # fmt: skip
    bad = await client.call_tool("run_overview", {"run": "../../etc"})
    return {
        "runs": runs,
        "overview": json.loads(overview.content[0].text),
        "operators": json.loads(ops.content[0].text),
        "bad": (bad.is_error, bad.content[0].text),
    }


def _check(got: dict[str, Any], base: Path, ws: Path) -> None:
    assert "kineto_gpu" in {r["run"] for r in got["runs"]["runs"]}
    assert got["bad"][0] and "run: no run called '../../etc'" in got["bad"][1]
    # the same figures as the REST API's
    client = create_app(Settings(base, workspace=ws), False).test_client()
    rid = next(
        r["id"] for r in client.get("/api/v1/runs").json["runs"] if r["name"] == "kineto_gpu"
    )
    rest = client.get(f"/api/v1/runs/{rid}/overview").json
    assert got["overview"]["average_step_breakdown_us"] == rest["breakdown_us"]
    assert got["overview"]["steps"]["average_us"] == rest["steps"]["average_us"]
    rows = client.get(f"/api/v1/runs/{rid}/operators?sort=device_self_us&limit=3").json["rows"]
    assert got["operators"]["rows"] == rows


def test_stdio(setup: tuple[Path, Path]) -> None:
    base, ws = setup
    params = StdioServerParameters(command=sys.executable, args=_command(base, ws), env=ENV)

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            return await _calls(client)

    _check(asyncio.run(main()), base, ws)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError("the MCP server did not start")


def test_http_on_loopback(setup: tuple[Path, Path]) -> None:
    base, ws = setup
    port = _free_port()
    proc = subprocess.Popen([sys.executable, *_command(base, ws, "--transport", "http",
                                                       "--port", str(port))],
                            env=ENV, stderr=subprocess.PIPE)  # fmt: skip
    try:
        _wait_port(port, proc)

        async def main() -> dict[str, Any]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await _calls(client)

        _check(asyncio.run(main()), base, ws)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_http_token_is_required_when_set(setup: tuple[Path, Path]) -> None:
    base, ws = setup
    port, token = _free_port(), "a-test-token-0123456789"
    proc = subprocess.Popen([sys.executable, *_command(base, ws, "--transport", "http",
                                                       "--port", str(port), "--token", token)],
                            env=ENV, stderr=subprocess.PIPE)  # fmt: skip
    try:
        _wait_port(port, proc)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()

        def post(headers: dict[str, str]) -> int:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/mcp", data=body, method="POST",
                headers={"Content-Type": "application/json",
                         "Accept": "application/json, text/event-stream", **headers},
            )  # fmt: skip
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return int(response.status)
            except urllib.error.HTTPError as exc:
                return int(exc.code)

        assert post({}) == 401
        assert post({"Authorization": "Bearer wrong-token-0123456789"}) == 401
        assert post({"Authorization": f"Bearer {token}"}) != 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_bad_base_folder_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, *_command(tmp_path / "missing", tmp_path / "ws")],
                          env=ENV, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("mindinsight: error:")
    assert "not a folder" in done.stderr and "Traceback" not in done.stderr
