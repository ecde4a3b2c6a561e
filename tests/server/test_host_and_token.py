"""The Host check (DNS rebinding) and the token of a server bound to anything but loopback.

In process on the app, then on the real `mindinsight start`: bound to 127.0.0.2 (Linux
routes all of 127/8 to loopback, and the server treats any address but 127.0.0.1, ::1 and
localhost as reachable by others), it prints a URL with its token and answers 401 without
it; bound to 127.0.0.1 it needs none, as before, and both refuse a foreign Host.
"""

from __future__ import annotations

import http.client
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.guard import cookie_name, host_allowed, token_matches
from mindinsight_profiler.server.settings import Settings
from tests.integration.cli import run_cli
from tests.server.service import Server

TOKEN = "s3cret-token-0123456789"


@pytest.mark.parametrize(
    ("host", "bound", "extra", "allowed"),
    [
        ("127.0.0.1:8080", "127.0.0.1", (), True),
        ("localhost:8080", "127.0.0.1", (), True),
        ("[::1]:8080", "127.0.0.1", (), True),
        ("evil.example", "127.0.0.1", (), False),
        ("evil.example:8080", "127.0.0.1", (), False),
        ("localhost.evil.example", "127.0.0.1", (), False),
        ("evil.example", "127.0.0.1", ("evil.example",), True),
        ("anything.example", "127.0.0.1", ("*",), True),
        ("127.0.0.2:9", "127.0.0.2", (), True),
        ("localhost", "127.0.0.2", (), False),  # names resolve; only the bound address is safe
        ("10.1.2.3", "0.0.0.0", (), True),  # a wildcard bind: any address (not rebindable)
        ("evil.example", "0.0.0.0", (), False),
        ("Proxy.Example.", "10.0.0.1", ("proxy.example",), True),
    ],
)
def test_host_allowed(host: str, bound: str, extra: tuple[str, ...], allowed: bool) -> None:
    assert host_allowed(host, bound, extra) is allowed


def test_token_matches() -> None:
    assert token_matches([None, "wrong", TOKEN], TOKEN)
    assert not token_matches([None, TOKEN[:-1], TOKEN + "x", ""], TOKEN)


def _client(tmp_path: Path, **settings: Any) -> Any:
    app = create_app(Settings(tmp_path, workspace=tmp_path / "ws", **settings), False)
    return app.test_client()


def test_a_foreign_host_gets_a_json_403(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/api/v1/runs").status_code == 200  # the test client says localhost
    for path in ("/api/v1/runs", "/healthz", "/"):
        bad = client.get(path, headers={"Host": "evil.example"})
        assert bad.status_code == 403 and bad.json["error"]["code"] == "host_not_allowed"
        assert "evil.example" in bad.json["error"]["message"]
    proxied = _client(tmp_path, allowed_hosts=("evil.example",))
    assert proxied.get("/api/v1/runs", headers={"Host": "evil.example"}).status_code == 200


def test_token_by_query_cookie_or_bearer(tmp_path: Path) -> None:
    client = _client(tmp_path, token=TOKEN, port=8123)
    for path in ("/api/v1/runs", "/", "/api/v1/openapi.json"):
        refused = client.get(path)
        assert refused.status_code == 401 and refused.json["error"]["code"] == "unauthorized"
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/healthz").status_code == 200  # for probes; it says nothing
    assert client.get("/api/v1/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
    bearer = client.get("/api/v1/runs", headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.status_code == 200 and "Set-Cookie" not in bearer.headers
    # ?token= is not an unknown parameter of the view, and sets the cookie for the dashboard
    opened = client.get(f"/api/v1/runs?token={TOKEN}")
    assert opened.status_code == 200 and opened.json == {"runs": []}
    cookie = opened.headers["Set-Cookie"]
    assert cookie.startswith(f"{cookie_name(8123)}={TOKEN}") and "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert client.get("/api/v1/runs").status_code == 200  # the client keeps the cookie now
    other = _client(tmp_path, token=TOKEN, port=8123)
    other.set_cookie(cookie_name(8123), "wrong")
    assert other.get("/api/v1/runs").status_code == 401


def test_no_token_without_settings_token(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/api/v1/runs").status_code == 200
    assert client.get("/api/v1/runs?token=whatever").status_code == 200  # dropped, not a 400


def _request(server: Server, path: str, **headers: str) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    body = json.loads(raw) if response.getheader("Content-Type") == "application/json" else raw
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


@pytest.mark.slow
def test_real_server_off_loopback_needs_its_token(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws", host="127.0.0.2")
    printed = server.start()
    try:
        assert "WARNING: binding to 127.0.0.2" in printed and "401" in printed
        found = re.search(rf"{re.escape(server.url)}/\?token=([\w.~-]+)", printed)
        assert found, printed
        token = found[1]
        assert len(token) >= 32
        status, _, body = _request(server, "/api/v1/runs")
        assert status == 401 and body["error"]["code"] == "unauthorized"
        status, _, body = _request(server, "/")
        assert status == 401 and body["error"]["code"] == "unauthorized"
        assert _request(server, "/healthz")[0] == 200
        status, headers, body = _request(server, f"/api/v1/runs?token={token}")
        assert status == 200 and body == {"runs": []}
        cookie = headers["set-cookie"].split(";")[0]
        assert _request(server, "/api/v1/runs", Cookie=cookie)[0] == 200
        assert _request(server, "/api/v1/runs", Authorization=f"Bearer {token}")[0] == 200
        status, _, body = _request(server, "/api/v1/runs", Host="evil.example",
                                   Authorization=f"Bearer {token}")  # fmt: skip
        assert status == 403 and body["error"]["code"] == "host_not_allowed"
    finally:
        server.stop()


@pytest.mark.slow
def test_real_server_token_from_environment_and_no_auth(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws", host="127.0.0.2")
    os.environ["MINDINSIGHT_TOKEN"] = TOKEN
    try:
        printed = server.start()
    finally:
        del os.environ["MINDINSIGHT_TOKEN"]
    try:
        assert f"?token={TOKEN}" in printed
        assert _request(server, "/api/v1/runs")[0] == 401
        assert _request(server, "/api/v1/runs", Authorization=f"Bearer {TOKEN}")[0] == 200
    finally:
        server.stop()
    printed = server.start("--no-auth")
    try:
        assert "with --no-auth" in printed and "?token=" not in printed
        assert _request(server, "/api/v1/runs")[0] == 200
    finally:
        server.stop()
    both = run_cli("start", "--summary-base-dir", server.base, "--host", "127.0.0.2",
                   "--no-auth", "--token", TOKEN, "--workspace", server.workspace)  # fmt: skip
    assert both.returncode == 2 and "--no-auth" in both.stderr
    short = run_cli("start", "--summary-base-dir", server.base, "--token", "abc",
                    "--workspace", server.workspace)  # fmt: skip
    assert short.returncode == 2 and "--token" in short.stderr


@pytest.mark.slow
def test_real_server_on_loopback_needs_no_token(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws")
    printed = server.start()
    try:
        assert "?token=" not in printed and "WARNING" not in printed
        assert f"at {server.url}/ (pid" in printed
        status, _, body = _request(server, "/api/v1/runs")
        assert status == 200 and body == {"runs": []}
        status, _, body = _request(server, "/api/v1/runs", Host="evil.example")
        assert status == 403 and body["error"]["code"] == "host_not_allowed"
        assert _request(server, "/api/v1/runs", Host=f"localhost:{server.port}")[0] == 200
    finally:
        server.stop()
