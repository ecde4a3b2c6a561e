"""The real `mindinsight start` / `stop` over a base dir of real runs and malformed ones.

The base dir is made in tmp by copying real files (symlinks out of it would be refused by
the registry): Kineto GPU, Ascend PyTorch and MindSpore runs side by side, a truncated gzip
trace and a JSON file that is not a trace.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, shared
from tests.integration.cli import run_cli
from tests.server.service import Server, free_port, group_alive, without_windows

pytestmark = pytest.mark.slow


def _base_dir(root: Path) -> Path:
    base = root / "base"
    shutil.copytree(shared("kineto/resnet50_num_workers_4"), base / "kineto_gpu")
    shutil.copytree(
        shared("ascend_pytorch/level1/rank0_ascend_pt"), base / "ascend" / "rank0_ascend_pt"
    )
    shutil.copytree(
        shared("mindspore_legacy/run_2/normal_run/profiler"), base / "mindspore" / "profiler"
    )
    good = next(shared("kineto/resnet50_num_workers_4").glob("*.pt.trace.json.gz"))
    (base / "truncated").mkdir()
    (base / "truncated" / "worker0.1.pt.trace.json.gz").write_bytes(good.read_bytes()[:30000])
    (base / "not_a_trace").mkdir()
    with gzip.open(base / "not_a_trace" / "worker0.1.pt.trace.json.gz", "wt") as f:
        f.write('{"hello": "this is not a trace", "values": [1, 2, 3]}')
    for path in base.rglob("*"):  # copies of read-only data: the test must be able to clean up
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base


def _cli_json(*args: str | Path) -> Any:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _served_equals_cli(server: Server, rid: str, folder: Path) -> None:
    """Every report view, the table sizes and the advice of the live server vs the CLI."""
    ws = server.workspace
    cli = _cli_json("analyse", folder, "--format", "json", "--workspace", ws)
    query = f"worker={cli['worker']}"
    overview = server.get(f"/api/v1/runs/{rid}/overview?{query}")
    for section in ("format", "steps", "breakdown_us", "gpu", "op_types"):
        assert overview[section] == cli[section], (folder.name, section)
    assert overview["breakdown_per_step_us"] == cli["breakdown_per_step_us"]
    for path, section in (("step-trace", "step_trace"), ("data-pipeline", "data_pipeline"),
                          ("memory", "memory"), ("communication", "communication"),
                          ("modules", "modules")):  # fmt: skip
        assert server.get(f"/api/v1/runs/{rid}/{path}?{query}")["data"] == cli[section], path
    kernels = server.get(f"/api/v1/runs/{rid}/kernels?{query}&limit=5")
    assert kernels["total"] == len(cli["kernels"])
    operators = server.get(f"/api/v1/runs/{rid}/operators?{query}&limit=5")
    assert operators["total"] == len(cli["operators"])
    advice = server.get(f"/api/v1/runs/{rid}/advice?{query}")["advice"]
    cli_advice = _cli_json("advise", folder, "--format", "json", "--workspace", ws)
    assert [f["id"] for f in advice["findings"]] == [f["id"] for f in cli_advice["findings"]]
    assert without_windows(advice) == cli_advice


def test_start_analyse_everything_and_stop(tmp_path: Path) -> None:
    server = Server(_base_dir(tmp_path), tmp_path / "ws")
    printed = server.start("--reload-interval", "1")
    assert server.url in printed
    pid = server.master_pid()
    try:
        assert server.get("/healthz") == {"status": "ok"}
        assert server.get("/version")["api"] == "v1"
        runs = {r["name"]: r for r in server.wait_settled()}
        assert set(runs) == {"kineto_gpu", "ascend", "mindspore", "truncated", "not_a_trace"}
        for name in ("kineto_gpu", "ascend", "mindspore"):
            assert runs[name]["state"] == "ready", (runs[name], server.logs())
            assert "error" not in runs[name]
            detail = server.get(f"/api/v1/runs/{runs[name]['id']}")
            assert detail["inputs"] and all(i["state"] == "ready" for i in detail["inputs"])
        for name in ("truncated", "not_a_trace"):
            assert runs[name]["state"] == "failed", runs[name]
            assert f"{name}/worker0.1.pt.trace.json.gz" in runs[name]["error"]
        # every good input was analysed into the cache by the server; its answers equal the
        # CLI's for the same input (the CLI reads the same cache entries back)
        for name in ("kineto_gpu", "ascend", "mindspore"):
            _served_equals_cli(server, runs[name]["id"], server.base / name)
        log = (server.workspace / "logs" / f"server-{server.port}.log").read_text()
        assert '"level": "info"' in log and "analysed" in log
    finally:
        stopped = server.stop()
    assert "stopped" in stopped
    assert not server.pid_file.exists()
    assert not group_alive(pid)  # master, workers and analysis processes all gone


def test_clear_errors(tmp_path: Path) -> None:
    missing = run_cli("start", "--summary-base-dir", tmp_path / "nope", "--port", str(free_port()),
                      "--workspace", tmp_path / "ws")  # fmt: skip
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws")
    server.start()
    try:
        again = run_cli("start", "--summary-base-dir", server.base, "--port", str(server.port),
                        "--workspace", server.workspace)  # fmt: skip
        assert again.returncode == 2 and "already running" in again.stderr
        other_ws = run_cli("start", "--summary-base-dir", server.base, "--port",
                           str(server.port), "--workspace", tmp_path / "ws2")  # fmt: skip
        assert other_ws.returncode == 2 and "cannot bind" in other_ws.stderr
    finally:
        server.stop()
    nothing = run_cli("stop", "--port", str(server.port), "--workspace", server.workspace)
    assert nothing.returncode == 2 and "no server started" in nothing.stderr
    server.pid_file.write_text("999999\n")  # a server killed without cleaning up
    stale = run_cli("stop", "--port", str(server.port), "--workspace", server.workspace)
    assert stale.returncode == 2 and "stale pid file" in stale.stderr
    assert not server.pid_file.exists()


def test_warns_when_not_loopback(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws")
    printed = server.start("--host", "0.0.0.0")
    try:
        assert "WARNING: binding to 0.0.0.0" in printed
    finally:
        server.stop()


def test_foreground_stops_on_sigterm(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    server = Server(tmp_path / "base", tmp_path / "ws")
    cmd = [sys.executable, "-m", "mindinsight_profiler", "start", "--foreground",
           "--summary-base-dir", str(server.base), "--port", str(server.port),
           "--workspace", str(server.workspace)]  # fmt: skip
    cli = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not server.pid_file.exists() or not _answers(server):
            assert cli.poll() is None and time.monotonic() < deadline, server.logs()
            time.sleep(0.2)
        master = server.master_pid()
        cli.send_signal(signal.SIGTERM)
        assert cli.wait(timeout=60) == 0
    finally:
        if cli.poll() is None:
            cli.kill()
    assert not group_alive(master) and not server.pid_file.exists()


def _answers(server: Server) -> bool:
    try:
        return bool(server.get("/healthz")["status"] == "ok")
    except OSError:
        return False


def test_edited_rules_reach_the_served_advice(tmp_path: Path) -> None:
    """A rule file edited under a running server: its advice is recomputed, not left at 409."""
    base = tmp_path / "base" / "cnn"
    base.mkdir(parents=True)
    shutil.copyfile(
        shared("torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"),
        base / "worker0.1.pt.trace.json",
    )
    rules = tmp_path / "rules"
    rules.mkdir()
    builtin = (ROOT / "rules" / "dataloader_wait.toml").read_text()
    rule = rules / "dataloader_wait.toml"
    rule.write_text(builtin.replace("threshold = 0.05", "threshold = 0.5"))
    server = Server(tmp_path / "base", tmp_path / "ws")
    server.start("--reload-interval", "1", "--rules-dir", str(rules))
    try:
        (run,) = server.wait_settled()
        assert run["state"] == "ready", server.logs()

        def fired() -> list[str]:
            advice = server.get(f"/api/v1/runs/{run['id']}/advice")["advice"]
            return [f["id"] for f in advice["findings"]]

        assert "dataloader_wait" not in fired()  # the data wait is 4.1 % of the step
        time.sleep(0.05)  # a distinct mtime for the edited file
        rule.write_text(builtin.replace("threshold = 0.05", "threshold = 0.01"))
        deadline = time.monotonic() + 60
        while True:
            try:
                if "dataloader_wait" in fired():
                    break
            except urllib.error.HTTPError as exc:  # 409 while the advice is recomputed
                assert exc.code == 409
            assert time.monotonic() < deadline, server.logs()
            time.sleep(0.5)
    finally:
        server.stop()
