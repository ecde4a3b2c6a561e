"""The stage pages' API: step trace at chosen FP/BP points, MindData queues per step, and
each worker's stages on the cluster view.

Expected values come from the analysis functions on an independent read of the input
(`step_trace_section` over `read_trace`) or from the raw MindData and cluster files,
parsed here with plain Python; the served answers come from the workspace cache only.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.analysis.steps.step_trace import step_trace_section
from mindinsight_profiler.formats.detect import read_trace
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import analyse_file
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.schemas import MAX_POINT
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.tracegen import op, write_trace

KINETO = "kineto/resnet50_num_workers_0"
MS_RUN2 = "mindspore_legacy/run_2/normal_run/profiler"
MS_CLUSTER = "mindspore_legacy/cluster_propose"
MS_CPU = "mindspore_cpu/legacy_pynative_mdprofiler"
#: run folder in the base dir -> (source, folder the run's files are discovered in)
RUNS = {
    "kineto": (KINETO, "kineto"),
    "ms": (MS_RUN2, "ms/profiler"),
    "cluster": (MS_CLUSTER, "cluster/profiler"),
    "mscpu": (MS_CPU, "mscpu"),
}
ZERO_GRAD = "Optimizer.zero_grad#SGD.zero_grad"


def _synthetic(folder: Path) -> None:
    """Two steps; `setup` runs once before the first step, so no step holds it."""
    events = [op("setup", 0, 5)]
    for k, t0 in enumerate((10, 110)):
        events += [
            op(f"ProfilerStep#{k + 1}", t0, 90),
            op("forward", t0 + 10, 40),
            op("backward", t0 + 55, 30),
        ]
    folder.mkdir()
    write_trace(folder / "w0.1.pt.trace.json", events)


class Api:
    def __init__(self, base: Path, ws: Path) -> None:
        self.base = base
        for name in (*RUNS, "synthetic"):
            for run in discover(base / name):
                for f in run.files:
                    analyse_file(f.path, Workspace(ws), None, f.format, f.worker)
        app = create_app(Settings(base, workspace=ws), start_background_work=False)
        self.client: FlaskClient = app.test_client()
        runs = self.client.get("/api/v1/runs").json["runs"]
        self.id = {r["name"]: r["id"] for r in runs}
        self.workers = {r["name"]: r["workers"] for r in runs}

    def get(self, run: str, view: str, status: int = 200, **params: Any) -> dict[str, Any]:
        response = self.client.get(f"/api/v1/runs/{self.id[run]}/{view}", query_string=params)
        assert response.status_code == status, response.json
        body: dict[str, Any] = response.json
        return body


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Api:
    base = tmp_path_factory.mktemp("base").resolve()
    for src, dst in RUNS.values():
        shutil.copytree(shared(src), base / dst)
    _synthetic(base / "synthetic")
    api = Api(base, tmp_path_factory.mktemp("ws"))
    assert set(api.id) == {*RUNS, "synthetic"}, api.id
    return api


def _kineto_file(api: Api) -> Path:
    return next(f.path for f in discover(api.base / "kineto")[0].files if f.worker == "worker0")


@pytest.fixture(autouse=True)
def _no_env_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FP_POINT", raising=False)
    monkeypatch.delenv("BP_POINT", raising=False)


def test_points_chosen_in_the_query_recompute_the_step_trace(api: Api) -> None:
    trace = read_trace(_kineto_file(api))
    auto = api.get("kineto", "step-trace")["data"]
    for params in (
        {"fp_point": ZERO_GRAD},
        {"bp_point": "Optimizer.step#SGD.step"},
        {"fp_point": ZERO_GRAD, "bp_point": "Optimizer.step#SGD.step"},
    ):
        got = api.get("kineto", "step-trace", **params)["data"]
        assert got == step_trace_section(trace, params.get("fp_point"), params.get("bp_point"))
        for key in ("fp_point", "bp_point"):
            want = "argument" if key in params else "auto"
            assert got[key]["source"] == want
        assert got["fp_point"]["steps_found"] == len(auto["steps"])
        assert [r["total_us"] for r in got["steps"]] == [r["total_us"] for r in auto["steps"]]
        assert got["steps"] != auto["steps"]
        # asked again: the same answer (memoized per process)
        assert api.get("kineto", "step-trace", **params)["data"] == got
    # without points: the cached report's section
    assert api.get("kineto", "step-trace")["data"] == auto


def test_a_point_no_operator_has_is_a_400_naming_it(api: Api) -> None:
    for name in ("fp_point", "bp_point"):
        err = api.get("kineto", "step-trace", 400, **{name: "no such operator"})["error"]
        assert err["parameter"] == name and "no such operator" in err["message"]
        err = api.get("kineto", "step-trace", 400, **{name: "x" * (MAX_POINT + 1)})["error"]
        assert err["parameter"] == name
        assert api.get("kineto", "step-trace", 400, **{name: ""})["error"]["parameter"] == name


def test_a_point_outside_every_step_is_found_in_no_step(api: Api) -> None:
    auto = api.get("synthetic", "step-trace")["data"]
    got = api.get("synthetic", "step-trace", fp_point="setup")["data"]
    assert got["fp_point"] == {"name": "setup", "source": "argument", "steps_found": 0}
    # the automatic points stay where no step has the named one
    assert [r["fp_us"] for r in got["steps"]] == [r["fp_us"] for r in auto["steps"]]


def test_mindspore_points_cannot_be_moved(api: Api) -> None:
    err = api.get("ms", "step-trace", 400, bp_point="Default/AssignAdd-op138")["error"]
    assert err["parameter"] == "bp_point" and "MindSpore" in err["message"]


def _queue_lines(path: Path) -> tuple[list[tuple[int, int, int]], dict[tuple[int, int], float]]:
    """(step, size, capacity) queue lines and {(step, kind): ms} time lines of a queue log."""
    sizes, times = [], {}
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == "1":
            sizes.append((int(f[2]), int(f[3]), int(f[1])))
        elif f and f[0] == "0":
            times[int(f[2]), int(f[1])] = float(f[3])
    return sizes, times


def test_queue_sizes_per_step_equal_the_minddata_files(api: Api) -> None:
    folder = shared(MS_RUN2)
    steps = api.get("ms", "data-pipeline")
    q = steps["queue_steps"]
    assert [h["source"] for h in q["host"]] == ["device_queue", "dataset_iterator"]
    assert [h["used_for_verdict"] for h in q["host"]] == [True, False]
    for h in q["host"]:
        sizes, times = _queue_lines(folder / f"{h['source']}_profiling_1.txt")
        assert list(zip(h["steps"], h["size"], strict=True)) == [(str(s), n) for s, n, _ in sizes]
        assert h["capacity"] == max(c for _, _, c in sizes)
    # the verdict's host queue is the series drawn first
    host = next(x for x in steps["data"]["queues"] if x["name"] == "host_queue")
    assert host["empty"] == q["host"][0]["size"].count(0)
    getnext = [line.split() for line in (folder / "minddata_aicpu_1.txt").read_text().splitlines()]
    assert q["chip"]["size"] == [int(f[3]) for f in getnext]
    assert q["chip"]["wait_us"] == [int(f[2]) - int(f[1]) for f in getnext]
    _, times = _queue_lines(folder / "device_queue_profiling_1.txt")
    t = q["times"][0]
    assert t["source"] == "device_queue"
    for kind, code in (("get", 0), ("push", 1), ("total", 2)):
        want = [times.get((int(s), code)) for s in t["steps"]]
        assert t[f"{kind}_us"] == [None if v is None else v * 1000 for v in want]


def test_queue_sizes_of_a_real_mindspore_cpu_run(api: Api) -> None:
    q = api.get("mscpu", "data-pipeline")["queue_steps"]
    path = next((shared(MS_CPU) / "minddata_profiling").glob("dataset_iterator_profiling_*.txt"))
    sizes, _ = _queue_lines(path)
    assert [h["source"] for h in q["host"]] == ["dataset_iterator"]
    assert q["host"][0]["size"] == [n for _, n, _ in sorted(sizes)]
    assert q["chip"] is None


def test_no_queue_steps_for_pytorch(api: Api) -> None:
    got = api.get("kineto", "data-pipeline")
    assert got["data"]["framework"] == "pytorch" and got["queue_steps"] is None


def test_cluster_stages_per_worker(api: Api) -> None:
    cluster = api.get("cluster", "cluster")
    rows = cluster["stages"]
    assert [r["worker"] for r in rows] == api.workers["cluster"]
    assert sorted(r["rank"] for r in rows) == sorted(r["rank"] for r in cluster["ranks"])
    for row in rows:
        avg = api.get("cluster", "step-trace", worker=row["worker"])["data"]["average"]
        for key in ("total", "iteration_interval", "fp_and_bp", "tail"):
            assert row[f"{key}_us"] == avg[f"{key}_us"]
        rank = row["rank"]
        path = shared(MS_CLUSTER) / f"ascend_cluster_analyse_pipeline-parallel_2_4_{rank}.csv"
        last = list(csv.DictReader(path.read_text().splitlines()))[-1]  # the average row
        assert row["stage_us"] == pytest.approx(float(last["stage_time"]) * 1000)
        assert row["computation_us"] == pytest.approx(float(last["computation_time"]) * 1000)


def test_cluster_of_one_worker_without_communication(api: Api) -> None:
    cluster = api.get("kineto", "cluster")
    assert cluster["ranks"] == [] and cluster["slowest"] is None
    assert [r["worker"] for r in cluster["stages"]] == ["worker0"]
