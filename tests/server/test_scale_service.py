"""`mindinsight start --jobs 2` and `--scheduler ADDR` analyse a many-rank run in the background.

The base dir holds an 8-rank run made from HTA's real Kineto pair (tests/integration/
scale_runs). Every rank must end ready, the served cluster view must equal what
`mindinsight cluster` computes for the same run, and the server log must show where the
analyses ran: two local pool processes, or the Dask cluster.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.server.settings import Settings
from tests.integration.cli import run_cli
from tests.integration.scale_runs import kineto_run
from tests.server.service import Server, group_alive

pytestmark = pytest.mark.slow

RANKS = 8


def _log(server: Server) -> list[dict[str, Any]]:
    path = server.workspace / "logs" / f"server-{server.port}.log"
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


def _check_served(server: Server) -> None:
    """All ranks ready; the served cluster view equals `mindinsight cluster` on the run."""
    (run,) = server.wait_settled()
    assert run["state"] == "ready", (run, server.logs())
    detail = server.get(f"/api/v1/runs/{run['id']}")
    assert len(detail["inputs"]) == RANKS
    assert all(i["state"] == "ready" for i in detail["inputs"]), detail["inputs"]
    served = server.get(f"/api/v1/runs/{run['id']}/cluster")
    done = run_cli("cluster", server.base / "ranks", "--format", "json",
                   "--workspace", server.workspace)  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    for key in ("workers", "ranks", "slowest", "collectives", "stages", "outliers", "comm_matrix"):
        assert served[key] == cli[key], key
    assert [r["rank"] for r in served["ranks"]] == list(range(RANKS))


def test_jobs_and_scheduler_settings(tmp_path: Path) -> None:
    env = {"MINDINSIGHT_SUMMARY_BASE_DIR": str(tmp_path), "MINDINSIGHT_JOBS": "3",
           "MINDINSIGHT_SCHEDULER": "tcp://head:8786"}  # fmt: skip
    settings = Settings.from_env(env)
    assert (settings.jobs, settings.scheduler) == (3, "tcp://head:8786")
    assert Settings.from_env(settings.to_env()) == settings
    defaults = Settings.from_env({"MINDINSIGHT_SUMMARY_BASE_DIR": str(tmp_path)})
    assert (defaults.jobs, defaults.scheduler) == (1, None)  # one local process, as before
    with pytest.raises(InputError, match="MINDINSIGHT_JOBS"):
        Settings.from_env({**env, "MINDINSIGHT_JOBS": "0"})
    bad = run_cli("start", "--summary-base-dir", tmp_path, "--jobs", "0",
                  "--workspace", tmp_path / "ws")  # fmt: skip
    assert bad.returncode == 2 and "--jobs" in bad.stderr


def test_start_with_jobs_analyses_every_rank(tmp_path: Path) -> None:
    kineto_run(tmp_path / "base" / "ranks", RANKS)
    server = Server(tmp_path / "base", tmp_path / "ws")
    server.start("--jobs", "2", "--reload-interval", "1")
    pid = server.master_pid()
    try:
        _check_served(server)
        log = _log(server)
        assert any(r["message"] == "analysing on a local pool of 2 processes" for r in log)
        analysed = {r["pid"] for r in log if r["message"].startswith("analysed ")}
        assert len(analysed) == 2, server.logs()  # both pool processes took ranks
    finally:
        server.stop()
    assert not group_alive(pid)


def test_start_with_a_dask_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed")
    # a reader on a Dask worker (a daemon process) must not try to start decode helpers
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "2")
    kineto_run(tmp_path / "base" / "ranks", RANKS)
    server = Server(tmp_path / "base", tmp_path / "ws")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        server.start("--scheduler", cluster.scheduler_address, "--reload-interval", "1")
        try:
            _check_served(server)
            log = _log(server)
            started = f"analysing on the Dask cluster at {cluster.scheduler_address}"
            assert any(r["message"] == started for r in log), server.logs()
            # the analyses ran on the Dask workers, not in a local pool of the server
            assert not any(r["message"].startswith("analysing on a local pool") for r in log)
            assert not any(r["message"].startswith("analysed ") for r in log)
        finally:
            server.stop()
