"""Fixtures of the browser tests: Chromium (`browser`, `tab`) and a live dashboard.

`dashboard` is the real `mindinsight start` on a free port over copies of three real runs
from ../shared/data (a Kineto GPU run, an Ascend two-rank run, a MindSpore run given the
dynamic-shape and FLOPs files of MindSpore's profiler fixtures), started once per session
and waited on until every run is analysed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.conftest import SHARED_DATA
from tests.e2e.browser import browser, chromium, skip_reason, tab  # noqa: F401  (fixtures)
from tests.server.service import Server

#: run name in the base dir -> folder under ../shared/data
RUNS = {
    "kineto_gpu": "kineto/resnet50_num_workers_0",
    "ascend": "ascend_pytorch/level1",
    "mindspore/profiler": "mindspore_legacy/run_2/normal_run/profiler",
}
FIXTURES = SHARED_DATA / "mindspore_legacy/profiler_fixtures"
DYNAMIC_SHAPE = FIXTURES / "dynamic_shape_info_0.json"
#: MindSpore's own FLOPs files (rank 0 of the fixtures), given to the MindSpore run as rank 1's
FLOPS_FILES = ("flops_summary_0.json", "flops_0.txt", "flops_scope_0.json")
#: the run names as discovery reports them (a MindSpore profiler folder's run is its parent)
RUN_NAMES = {"kineto_gpu": "kineto_gpu", "ascend": "ascend", "mindspore/profiler": "mindspore"}


@dataclass
class Dashboard:
    server: Server
    ids: dict[str, str]  # run name -> run id

    @property
    def url(self) -> str:
        return self.server.url

    def run_url(self, name: str, page: str = "overview", query: str = "") -> str:
        return f"{self.url}/runs/{self.ids[name]}/{page}{'?' + query if query else ''}"


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dashboard]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    missing = [rel for rel in RUNS.values() if not (SHARED_DATA / rel).exists()]
    extra = [DYNAMIC_SHAPE, *(FIXTURES / name for name in FLOPS_FILES)]
    missing += [str(p) for p in extra if not p.exists()]
    if missing:
        pytest.skip(f"real data not available: {SHARED_DATA / missing[0]} (../shared/data)")
    base = tmp_path_factory.mktemp("dashboard-base")
    for name, rel in RUNS.items():
        shutil.copytree(SHARED_DATA / rel, base / name)
    # run_2 has no dynamic-shape file; the fixtures' real one (rank 0) joins it as rank 1's
    # so the dynamic-shape card is seen on real data (as the API drift test does)
    shutil.copy(DYNAMIC_SHAPE, base / "mindspore/profiler/dynamic_shape_info_1.json")
    # and so do MindSpore's FLOPs files (run_2 has none), for the Roofline page's MindSpore card
    for name in FLOPS_FILES:
        shutil.copy(FIXTURES / name, base / "mindspore/profiler" / name.replace("_0.", "_1."))
    server = Server(base, tmp_path_factory.mktemp("dashboard-ws"))
    server.start("--reload-interval", "0")
    try:
        runs = server.wait_settled()
        not_ready = [r for r in runs if r["state"] != "ready"]
        assert not not_ready, (not_ready, server.logs())
        ids = {r["name"]: r["id"] for r in runs}
        assert set(ids) == set(RUN_NAMES.values()), ids
        yield Dashboard(server, ids)
    finally:
        server.stop()
