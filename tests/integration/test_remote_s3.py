"""Runs read from an S3-compatible server give what the same runs give from a local folder.

The test starts moto's S3 server on a free loopback port, uploads copies of real runs (the
Kineto V100 run, the Ascend two-rank run, MindSpore run_2) and compares, through the real
CLI and the real server, `s3://` (credentials and endpoint from the AWS_* variables, as a
user sets them) and `file://` URLs with the local folder: `analyse` and `advise` JSON, a
changed object re-staged and re-analysed, and `mindinsight start --summary-base-dir s3://`
serving the same runs (same ids) with the same overviews.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.server.service import Server, free_port

pytest.importorskip("s3fs")
pytest.importorskip("moto")
pytestmark = pytest.mark.slow

BUCKET = "profiles"
RUNS = {  # shared data -> place in the base dir; the run folder given to the CLI
    "kineto": ("kineto/resnet50_num_workers_0", "kineto/resnet50", "kineto/resnet50"),
    "ascend": ("ascend_pytorch/level1", "ascend/level1", "ascend/level1"),
    "ms": ("mindspore_legacy/run_2/normal_run/profiler", "ms/profiler", "ms"),
}
WORKERS = {"kineto": ["worker0"], "ascend": ["rank0", "rank1"], "ms": ["rank1"]}
OTHER_TRACE = "kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"


@dataclass
class S3:
    endpoint: str
    fs: Any  # s3fs.S3FileSystem
    base: Path  # the local copy of what is uploaded under s3://profiles/logs

    def url(self, rel: str = "") -> str:
        return f"s3://{BUCKET}/logs" + (f"/{rel}" if rel else "")

    def upload(self, local: Path, key: str) -> None:
        for path in sorted(local.rglob("*")) if local.is_dir() else [local]:
            if path.is_file():
                rel = path.relative_to(local).as_posix() if local.is_dir() else ""
                self.fs.put_file(str(path), f"{BUCKET}/{key}" + (f"/{rel}" if rel else ""))


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "moto server exited"
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"moto server at {url} did not answer in {timeout} s")


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3]:
    import s3fs

    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    env = pytest.MonkeyPatch()
    try:
        _wait_http(endpoint + "/moto-api/", proc)
        # what a user exports; every CLI and server process below inherits it
        user = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_ENDPOINT_URL": endpoint, "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
        for name, value in user.items():
            env.setenv(name, value)
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "MINDINSIGHT_STORAGE_OPTIONS"):
            env.delenv(name, raising=False)
        fs = s3fs.S3FileSystem(endpoint_url=endpoint, key="testing", secret="testing",
                               skip_instance_cache=True)  # fmt: skip
        fs.mkdir(BUCKET)
        base = tmp_path_factory.mktemp("base")
        for src, dst, _ in RUNS.values():
            shutil.copytree(shared(src), base / dst)
        store = S3(endpoint, fs, base)
        store.upload(base, "logs")
        yield store
    finally:
        env.undo()
        proc.terminate()
        proc.wait(timeout=20)


def cli_json(*args: str | Path) -> Any:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _staged(workspace: Path, name: str) -> list[Path]:
    return sorted(p for p in (workspace / "remote").rglob(name) if p.is_file())


def test_analyse_and_advise_of_s3_urls_equal_the_local_folder(s3: S3, tmp_path: Path) -> None:
    local_ws, remote_ws = tmp_path / "ws-local", tmp_path / "ws-s3"
    for key, (_, _, run) in RUNS.items():
        for worker in WORKERS[key]:
            args = ("--worker", worker, "--format", "json")
            local = cli_json("analyse", s3.base / run, *args, "--workspace", local_ws)
            remote = cli_json("analyse", s3.url(run), *args, "--workspace", remote_ws)
            assert remote == local, (key, worker)
            assert local["steps"]["count"] > 0
        local_advice = cli_json(
            "advise", s3.base / run, "--format", "json", "--workspace", local_ws
        )
        remote_advice = cli_json(
            "advise", s3.url(run), "--format", "json", "--workspace", remote_ws
        )
        assert remote_advice == local_advice, key
    # staged once, under the workspace, and not fetched again by a later analysis
    (trace,) = _staged(remote_ws, "worker0.1623143089861.pt.trace.json.gz")
    assert (
        trace.read_bytes()
        == next((s3.base / "kineto/resnet50").glob("worker0.16231430*")).read_bytes()
    )
    before = trace.stat().st_mtime_ns
    cli_json("analyse", s3.url("kineto/resnet50"), "--format", "json", "--workspace", remote_ws)
    assert trace.stat().st_mtime_ns == before
    # without a cache (staged into a temporary folder) the answer is the same
    cached = cli_json("analyse", s3.url("ms"), "--format", "json", "--workspace", remote_ws)
    assert cli_json("analyse", s3.url("ms"), "--format", "json", "--no-cache") == cached


def test_file_urls_equal_the_local_folder(s3: S3, tmp_path: Path) -> None:
    for key in ("kineto", "ascend"):
        run = s3.base / RUNS[key][2]
        args = ("--format", "json", "--workspace", tmp_path / "ws")
        assert cli_json("analyse", run.as_uri(), *args) == cli_json("analyse", run, *args)
        assert cli_json("advise", run.as_uri(), *args) == cli_json("advise", run, *args)
    assert not (tmp_path / "ws/remote").exists()  # local files are read in place


def test_a_changed_object_is_staged_again_and_analysed_again(s3: S3, tmp_path: Path) -> None:
    ws = ("--format", "json", "--workspace", tmp_path / "ws")
    local = tmp_path / "local"
    first = sorted(shared(RUNS["kineto"][0]).glob("*.pt.trace.json.gz"))[0]
    (local / "kineto").mkdir(parents=True)
    shutil.copyfile(first, local / "kineto/worker0.pt.trace.json.gz")
    shutil.copytree(shared("ascend_pytorch/level1"), local / "ascend")
    s3.upload(local, "changing")
    url = f"s3://{BUCKET}/changing"
    before = cli_json("analyse", f"{url}/kineto", *ws)
    assert before == cli_json("analyse", local / "kineto", *ws)
    ascend_before = cli_json("analyse", f"{url}/ascend", "--worker", "rank1", *ws)
    cli_json("analyse", f"{url}/ascend", "--worker", "rank0", *ws)

    # the trace object replaced (another run's trace), a CSV of one Ascend rank deleted
    shutil.copyfile(shared(OTHER_TRACE), local / "kineto/worker0.pt.trace.json.gz")
    s3.upload(local / "kineto/worker0.pt.trace.json.gz", "changing/kineto/worker0.pt.trace.json.gz")
    gone = "ascend/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv"
    (local / gone).unlink()
    s3.fs.rm(f"{BUCKET}/changing/{gone}")
    (rank0_csv,) = [p for p in _staged(tmp_path / "ws", "memory_record.csv") if "rank0" in str(p)]
    rank0_mtime = rank0_csv.stat().st_mtime_ns

    after = cli_json("analyse", f"{url}/kineto", *ws)
    assert after == cli_json("analyse", local / "kineto", *ws)
    assert after != before and after["steps"] != before["steps"]
    (staged,) = _staged(tmp_path / "ws", "worker0.pt.trace.json.gz")
    assert staged.read_bytes() == shared(OTHER_TRACE).read_bytes()

    ascend_after = cli_json("analyse", f"{url}/ascend", "--worker", "rank1", *ws)
    assert ascend_after == cli_json("analyse", local / "ascend", "--worker", "rank1", *ws)
    assert ascend_after != ascend_before
    assert [p for p in _staged(tmp_path / "ws", "memory_record.csv") if "rank1" in str(p)] == []
    cli_json("analyse", f"{url}/ascend", "--worker", "rank0", *ws)
    assert rank0_csv.stat().st_mtime_ns == rank0_mtime  # the unchanged rank is not fetched again


def _one_line_error(done: subprocess.CompletedProcess[str], url: str, problem: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert done.stderr.startswith(f"mindinsight: error: {url}: ") and problem in done.stderr


def test_errors_are_one_line_naming_the_url(s3: S3, tmp_path: Path) -> None:
    for url, problem in (
        ("s3://no-such-bucket/logs", "not found"),
        (s3.url("no/such/prefix"), "not found"),
        ("gs://bucket/logs", "needs the gcsfs package: pip install gcsfs"),
        ("nosuchprotocol://bucket/logs", "unknown protocol"),
    ):
        _one_line_error(run_cli("analyse", url, "--no-cache"), url, problem)
        _one_line_error(run_cli("advise", url, "--no-cache"), url, problem)
    trace = next(p for p in s3.fs.find(f"{BUCKET}/logs/kineto") if p.endswith(".json.gz"))
    for url, problem in (("s3://no-such-bucket/logs", "not found"),
                         (f"s3://{trace}", "an object, not a prefix")):  # fmt: skip
        started = run_cli("start", "--summary-base-dir", url, "--port", str(free_port()),
                          "--workspace", tmp_path / "ws")  # fmt: skip
        _one_line_error(started, url, problem)
    bad = run_cli("analyse", s3.url("ms"), "--storage-options", "[1]")
    assert (
        bad.returncode == 2 and "MINDINSIGHT_STORAGE_OPTIONS: must be a JSON object" in bad.stderr
    )


def _served(server: Server) -> dict[str, Any]:
    """Every run as listed, and the overview of each of its workers."""
    runs = server.wait_settled(timeout=300)
    out: dict[str, Any] = {}
    for run in runs:
        assert run["state"] == "ready", (run, server.logs())
        overviews = {w: server.get(f"/api/v1/runs/{run['id']}/overview?worker={w}")
                     for w in run["workers"]}  # fmt: skip
        out[run["name"]] = {**run, "overviews": overviews}
    return out


def test_server_with_an_s3_base_serves_what_a_local_base_serves(s3: S3, tmp_path: Path) -> None:
    # keys that must never be served: outside the prefix, or not a safe local path
    s3.fs.pipe(f"{BUCKET}/logs-other/w.pt.trace.json", b"{}")
    s3.fs.pipe(f"{BUCKET}/logs/evil/../../outside/w.pt.trace.json", b"{}")
    assert any(".." in p for p in s3.fs.find(f"{BUCKET}/logs")), "the key is kept literally"
    local = Server(s3.base, tmp_path / "ws-local")
    local.start("--workers", "1", "--reload-interval", "0")
    try:
        expected = _served(local)
    finally:
        local.stop()
    remote = Server(s3.url(), tmp_path / "ws-s3")  # type: ignore[arg-type]  # a URL
    remote.start("--workers", "1", "--reload-interval", "1")
    key = next(p for p in s3.fs.find(f"{BUCKET}/logs/kineto") if "1623143089861" in p)
    try:
        served = _served(remote)
        assert served == expected
        assert sorted(served) == ["ascend/level1", "kineto/resnet50", "ms"]
        # the trace object replaced on the server: listed again, analysed again
        old = served["kineto/resnet50"]["summary"]
        s3.fs.put_file(str(shared(OTHER_TRACE)), key)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            runs = {r["name"]: r for r in remote.get("/api/v1/runs")["runs"]}
            now = runs["kineto/resnet50"]
            if now["state"] == "ready" and now.get("summary") != old:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"change not picked up: {now}\n{remote.logs()}")
        other = cli_json("analyse", shared(OTHER_TRACE), "--format", "json", "--no-cache")
        assert now["summary"]["step_us"] == pytest.approx(other["steps"]["average_us"])
    finally:
        remote.stop()
        s3.fs.put_file(str(next((s3.base / "kineto/resnet50").glob("*1623143089861*"))), key)


def test_plain_named_traces_are_found_by_their_text_in_s3(s3: S3, tmp_path: Path) -> None:
    """Beside a named trace, `*.json[.gz]` objects that start like a trace are runs (the
    start of each is read, gzip undone), as in a local folder; other JSON is left alone."""
    import gzip

    from mindinsight_profiler.formats.discovery import discover
    from mindinsight_profiler.store.remote import discover_remote

    local = tmp_path / "sniff"
    (local / "named").mkdir(parents=True)
    (local / "named/w.pt.trace.json").write_text('{"traceEvents": []}')
    (local / "plain").mkdir()
    rank = '"distributedInfo": {{"rank": {}, "world_size": 2}}'  # two ranks of one job
    (local / "plain/trace.json").write_text(f'{{{rank.format(0)}, "traceEvents": [{{"ph": "X"}}]}}')
    with gzip.open(local / "plain/rank-1.json.gz", "wt") as f:
        f.write(f'{{"schemaVersion": 1, {rank.format(1)}, "traceEvents": []}}')
    (local / "configs").mkdir()
    (local / "configs/train.json").write_text('{"lr": 0.1}')
    s3.upload(local, "sniff")
    found = discover_remote(f"s3://{BUCKET}/sniff", tmp_path / "ws")
    shape = [(r.name, r.workers) for r in found]
    assert shape == [("named", ["w"]), ("plain", ["rank-1", "trace"])]
    assert shape == [(r.name, r.workers) for r in discover(local)]
