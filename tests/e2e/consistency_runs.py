"""The runs the consistency tests read, and a server over them.

"Every run in ../shared/data": with `MI_TEST_ALL_RUNS=1` the server's base dir is
../shared/data itself (the server only reads it; its workspace is a temporary folder), and
every run discovery finds there is checked. By default a representative set, one run per
input family, is linked into a temporary base dir: the browser walk over every run's
workers takes several minutes on a two-core machine (the analysis itself under a minute).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tests.server.service import Server

CPU_TRACE = "cnn_nw0_active5.1795320550475422677.pt.trace.json"
#: base-dir name -> folder (or file) under ../shared/data: one run per input family
REPRESENTATIVE = {
    "kineto_gpu": "kineto/resnet50_num_workers_0",  # Kineto, GPU, 6 steps
    "kineto_cpu/cnn_nw0.pt.trace.json": f"torch_cpu/small/{CPU_TRACE}",  # Kineto, CPU only
    "hta_two_ranks": "hta/trace_filter",  # Kineto 2.x, two ranks of a 128-rank job
    "ascend_pytorch": "ascend_pytorch/level1",  # torch_npu text export, two ranks
    "ms_cluster": "mindspore_legacy/cluster_propose",  # MindSpore legacy, 4 ranks, hccl_raw
    "ms_fixtures": "mindspore_legacy/profiler_fixtures",  # MindSpore legacy, kernels + step trace
    "ms2_cpu": "mindspore_cpu/new_api_pynative",  # MindSpore 2.x ascend_ms
}  # fmt: skip

ALL_RUNS = os.environ.get("MI_TEST_ALL_RUNS") == "1"


def representative_base(base: Path) -> Path:
    """`base` with a copy of each representative run (skips when the data is absent).

    Copies, not symlinks: the server serves nothing whose real path leaves the base dir.
    """
    for name, rel in REPRESENTATIVE.items():
        source = SHARED_DATA / rel
        if not source.exists():
            pytest.skip(f"real data not available: {source} (../shared/data)")
        target = base / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
    return base


def consistency_server(factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A started server over the runs (all of ../shared/data with MI_TEST_ALL_RUNS=1),
    every run settled; stopped afterwards."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not available: {SHARED_DATA} (../shared/data)")
    base = SHARED_DATA if ALL_RUNS else representative_base(factory.mktemp("consistency-base"))
    server = Server(base, factory.mktemp("consistency-ws"))
    server.start("--reload-interval", "0")
    try:
        runs = server.wait_settled(timeout=900)
        assert len(runs) >= (len(REPRESENTATIVE) if not ALL_RUNS else 1), runs
        yield server
    finally:
        server.stop()
