"""Many ranks analysed in parallel: a Dask LocalCluster, the local process pool, a serial loop.

Runs of eight ranks are built in tmp from real two-rank data (tests/integration/scale_runs):
HTA's Kineto pair and the Ascend PyTorch level-1 pair. The cluster summary must be the same
whichever engine analysed the ranks, every rank must leave its cache entry in the shared
workspace, and a corrupt rank must be reported by its file while the others arrive.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.analysis.cluster.rank_summary import rank_summary
from mindinsight_profiler.analysis.cluster.summary import cluster_summary
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.formats.discovery import Run, discover
from mindinsight_profiler.pipeline.reports import analyse_file
from mindinsight_profiler.pipeline.scale import RankFailures, run_files, summarise_run
from tests.integration.cli import run_cli
from tests.integration.scale_runs import ascend_run, kineto_run

pytestmark = pytest.mark.slow

RANKS = 8


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("ranks")
    return {
        "kineto": discover(kineto_run(root / "kineto", RANKS))[0],
        "ascend": discover(ascend_run(root / "ascend", RANKS))[0],
    }


def _serial(run: Run) -> list[dict[str, Any]]:
    """The reference: one rank after another in this process, without any cache."""
    out = []
    for f in run_files(run):
        report, _ = analyse_file(f.source, None, None, f.format, f.worker)
        out.append(rank_summary(report_for(report, f.worker, f.span)))
    return out


def _corrupt_copy(run: Run, dest: Path, victim: str) -> tuple[Run, Path]:
    """A copy of the Kineto run whose `victim` trace is cut short (a truncated gzip)."""
    shutil.copytree(run.path, dest)
    bad = dest / f"{victim}.pt.trace.json.gz"
    bad.write_bytes(bad.read_bytes()[:20_000])
    return discover(dest)[0], bad


def test_dask_pool_and_serial_agree(
    runs: dict[str, Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    # decode helpers wherever a reader may start them: Dask's daemon workers must not try
    monkeypatch.setenv("MINDINSIGHT_READ_PROCESSES", "2")
    done: list[tuple[int, int]] = []
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        for name, run in runs.items():
            assert len(run.workers) == RANKS
            serial = _serial(run)
            assert sorted(s["rank"] for s in serial) == list(range(RANKS))  # distinct ranks
            dask_ws, pool_ws = tmp_path / f"dask-{name}", tmp_path / f"pool-{name}"
            on_dask = summarise_run(
                run, dask_ws, scheduler=address, progress=lambda d, t: done.append((d, t))
            )
            on_pool = summarise_run(run, pool_ws, jobs=2)
            expected = cluster_summary(serial)
            assert len(expected["ranks"]) == RANKS and expected["collectives"], name
            assert cluster_summary(on_dask) == expected, name
            assert cluster_summary(on_pool) == expected, name
            assert on_dask == on_pool == serial, name
            # each rank was analysed into the shared workspace where it ran
            assert len(list((dask_ws / "cache").glob("*/manifest.json"))) == RANKS
            # the Dask workers are separate processes: the cluster really did the work
            assert len(cluster.workers) == 2
        assert done[-RANKS:] == [(i, RANKS) for i in range(1, RANKS + 1)]

        bad_run, bad = _corrupt_copy(runs["kineto"], tmp_path / "bad", "rank03")
        with pytest.raises(RankFailures) as caught:
            summarise_run(bad_run, tmp_path / "dask-bad", scheduler=address)
    (failure,) = caught.value.failures
    assert failure.worker == "rank03" and failure.path == str(bad)
    assert str(bad) in str(caught.value)
    good = [s for s in _serial(runs["kineto"]) if s["worker"] != "rank03"]
    assert caught.value.summaries == good


def _cli(*args: str | Path) -> Any:
    done = run_cli("cluster", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_cli_json(runs: dict[str, Run], tmp_path: Path) -> None:
    run = runs["ascend"]
    out = _cli(run.path, "--jobs", "2", "--format", "json", "--workspace", tmp_path / "ws")
    serial = _serial(run)
    assert out["summaries"] == serial and out["failed"] == []
    assert out["workers"] == run.workers
    expected = cluster_summary(serial)
    assert {k: out[k] for k in expected} == expected
    assert [r["rank"] for r in out["stages"]] == list(range(RANKS))
    table = run_cli("cluster", run.path, "--workspace", tmp_path / "ws")  # cached now
    assert table.returncode == 0, table.stderr
    slowest = expected["slowest"]
    assert f"slowest rank {slowest['rank']}:" in table.stdout
    assert f"{slowest['step_us'] / 1000:,.3f} ms per step" in table.stdout


def test_cli_bad_inputs(runs: dict[str, Run], tmp_path: Path) -> None:
    missing = run_cli("cluster", tmp_path / "nowhere")
    assert missing.returncode == 2 and str(tmp_path / "nowhere") in missing.stderr
    bad_jobs = run_cli("cluster", runs["kineto"].path, "--jobs", "0")
    assert bad_jobs.returncode == 2 and "--jobs" in bad_jobs.stderr

    bad_run, bad = _corrupt_copy(runs["kineto"], tmp_path / "bad", "rank05")
    done = run_cli("cluster", bad_run.path, "--format", "json", "--workspace", tmp_path / "ws")
    assert done.returncode == 2
    assert f"rank rank05 failed: {bad}" in done.stderr
    out = json.loads(done.stdout)
    assert [f["path"] for f in out["failed"]] == [str(bad)]
    good = [s for s in _serial(runs["kineto"]) if s["worker"] != "rank05"]
    assert out["summaries"] == good
    assert {k: out[k] for k in ("ranks", "slowest", "collectives")} == cluster_summary(good)
