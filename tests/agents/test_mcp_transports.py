"""`mindinsight mcp` as a subprocess: the same figures as the REST API over stdio and HTTP,
the token rules of the web server over HTTP, and a bad base folder in one line."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_mcp_tools import Call, http_server, make_base, stdio_server, with_client

pytest.importorskip("mcp", reason="the MCP SDK is a dev dependency")

from mindinsight_profiler.agents.catalog import Catalog
from mindinsight_profiler.cli.main import main as cli_main
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("mcp-sub")
    base, ws = make_base(root), root / "ws"
    assert cli_main(["analyse", str(base / "kineto_gpu"), "--format", "json",
                     "--workspace", str(ws)]) == 0  # fmt: skip
    return Catalog(base, Workspace(ws))


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_rest_api_figures(transport: str, catalog: Catalog) -> None:
    got: dict[str, Any] = {}

    async def body(call: Call) -> None:
        got["overview"] = await call("run_overview", {"run": "kineto_gpu"})
        got["operators"] = await call("operators", {"run": "kineto_gpu", "limit": 3,
                                                    "sort": "device_self_us"})  # fmt: skip
        got["kernels"] = await call("kernels", {"run": "kineto_gpu", "limit": 3})

    with_client(catalog, body, transport)
    assert catalog.workspace is not None
    client = create_app(Settings(catalog.base_dir, workspace=catalog.workspace.root),
                        False).test_client()  # fmt: skip
    runs = client.get("/api/v1/runs").json["runs"]
    rid = next(r["id"] for r in runs if r["name"] == "kineto_gpu")
    rest = client.get(f"/api/v1/runs/{rid}/overview").json
    assert got["overview"]["average_step_breakdown_us"] == rest["breakdown_us"]
    assert got["overview"]["steps"]["average_us"] == rest["steps"]["average_us"]
    rows = client.get(f"/api/v1/runs/{rid}/operators?sort=device_self_us&limit=3").json["rows"]
    assert got["operators"]["rows"] == rows
    rows = client.get(f"/api/v1/runs/{rid}/kernels?sort=total_us&limit=3").json["rows"]
    assert got["kernels"]["rows"] == rows


def test_http_token_is_required_when_set(catalog: Catalog) -> None:
    token = "a-test-token-0123456789"
    with http_server(catalog, "--token", token) as url:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()

        def post(headers: dict[str, str]) -> int:
            request = urllib.request.Request(
                url, data=body, method="POST",
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


def test_a_bad_base_folder_is_one_line(tmp_path: Path, catalog: Catalog) -> None:
    stdio = stdio_server(catalog)
    args = [a if a != str(catalog.base_dir) else str(tmp_path / "missing") for a in stdio.args]
    done = subprocess.run([sys.executable, *args], env=stdio.env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("mindinsight: error:")
    assert "not a folder" in done.stderr and "Traceback" not in done.stderr


def test_without_the_sdk_it_says_what_to_install(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [
        m
        for m in sys.modules
        if m == "mcp" or m.startswith(("mcp.", "mindinsight_profiler.agents.server"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    status = cli_main(["mcp", "--summary-base-dir", str(catalog.base_dir)])
    err = capsys.readouterr().err
    assert status == 1 and "pip install 'mindinsight-profiler[agents]'" in err
    assert err.startswith("mindinsight: error:") and "internal error" not in err
