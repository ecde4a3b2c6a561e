"""The CLI and the server share one workspace without hiding each other's entries.

Seen in issue 19: `mindinsight advise` on a trace file the dashboard serves (a one-file run,
so its stored advice has another name) removed the server's stored advice, and `/advice`
answered 409 until the scheduler noticed (forever with `--reload-interval 0`). Each copy
must survive the other's writes; old copies are pruned only beyond a count and a grace time.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.advice import (
    ADVICE_GRACE_S,
    ADVICE_KEPT,
    advise_file,
    prune_advice,
)
from mindinsight_profiler.store.cache import Workspace
from tests.integration.cli import run_cli
from tests.server.service import Server
from tests.server.test_cache_integrity import App, _analyse, _base


def test_cli_advice_on_the_trace_file_leaves_the_servers_advice(tmp_path: Path) -> None:
    base = _base(tmp_path)
    # a second span of the worker: the run is then more than the one file the CLI is given
    (first,) = (base / "cnn").iterdir()
    shutil.copyfile(first, base / "cnn" / "worker0.2.pt.trace.json")
    entry = _analyse(base, tmp_path / "ws")
    app = App(base, tmp_path / "ws")
    status, served = app.get("advice")
    assert status == 200
    (server_copy,) = entry.dir.glob("advice-*.json")

    # what `mindinsight advise <the trace file>` does: the file alone is the run
    (one_file_run,) = discover(first)
    file = one_file_run.select()
    cli = advise_file(file, one_file_run, Workspace(tmp_path / "ws"))
    assert len(list(entry.dir.glob("advice-*.json"))) == 2  # the CLI's copy beside it
    assert server_copy.exists()
    assert [f.id for f in cli.findings] == [f["id"] for f in served["advice"]["findings"]]
    assert app.get("advice") == (200, served)
    # and the other way round: the server's background analysis keeps the CLI's copy
    _analyse(base, tmp_path / "ws")
    assert len(list(entry.dir.glob("advice-*.json"))) == 2


def test_prune_keeps_recent_copies_and_a_bounded_number(tmp_path: Path) -> None:
    now = time.time()
    paths = []
    for i in range(ADVICE_KEPT + 4):
        path = tmp_path / f"advice-{i:02d}.json"
        path.write_text("{}")
        age = ADVICE_GRACE_S * 2 + i  # 00 the newest
        os.utime(path, (now - age, now - age))
        paths.append(path)
    fresh = tmp_path / "advice-fresh.json"
    fresh.write_text("{}")
    removed = prune_advice(fresh, now)
    # the newest ADVICE_KEPT (fresh and 00..06) stay; the older ones go
    assert sorted(removed) == paths[ADVICE_KEPT - 1 :]
    assert all(p.exists() for p in paths[: ADVICE_KEPT - 1]) and fresh.exists()
    # copies within the grace time are never removed, however many there are
    many = []
    for i in range(ADVICE_KEPT * 2):
        path = tmp_path / f"advice-new{i:02d}.json"
        path.write_text("{}")
        many.append(path)
    removed = prune_advice(fresh, time.time())
    assert sorted(removed) == paths[: ADVICE_KEPT - 1]  # only the old ones beyond the count
    assert all(p.exists() for p in many) and fresh.exists()


def test_rewriting_an_entry_leaves_no_aside_copy(tmp_path: Path) -> None:
    base = _base(tmp_path)
    entry = _analyse(base, tmp_path / "ws")
    App(base, tmp_path / "ws").get("advice")
    entry.invalidate()
    _analyse(base, tmp_path / "ws")  # rewrites the entry over the old folder
    assert (entry.dir / "manifest.json").exists()
    assert list(entry.dir.glob("advice-*.json"))  # the sidecar carried over
    leftovers = [p.name for p in entry.root.iterdir() if p.name.startswith((".old-", ".tmp-"))]
    assert leftovers == []


def test_live_server_keeps_serving_while_the_cli_advises(tmp_path: Path) -> None:
    """The seen case end to end: `mindinsight start` (no rescans), then `mindinsight advise`
    on one of its trace files in a terminal; `/advice` answers 200 throughout."""
    base = _base(tmp_path)
    (first,) = (base / "cnn").iterdir()
    shutil.copyfile(first, base / "cnn" / "worker0.2.pt.trace.json")
    server = Server(base, tmp_path / "ws")
    server.start("--reload-interval", "0")
    try:
        (run,) = server.wait_settled()
        path = f"/api/v1/runs/{run['id']}/advice"
        before = server.get(path)
        cli = run_cli("advise", first, "--workspace", server.workspace, "--format", "json")
        assert cli.returncode == 0, cli.stderr
        for _ in range(5):  # a few reads: a hidden entry would answer 409 to every one
            assert server.get(path) == before
    finally:
        server.stop()
