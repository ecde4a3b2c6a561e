"""The API over the real Kineto, Ascend and MindSpore runs, analysed once per session."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import shared
from tests.server.test_api_endpoints import RUNS, Api


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Api:
    """Copies of the runs, analysed by the real CLI, and a test client over their cache."""
    base = tmp_path_factory.mktemp("base").resolve()
    for src, dst in RUNS.values():
        shutil.copytree(shared(src), base / dst)
    return Api(base, tmp_path_factory.mktemp("ws"))
