"""`GET /api/v1/runs/<run>/timeline/export-ranks`: several ranks on one timeline, served
from the workspace cache as a download; the same file the CLI writes, every bad parameter
a 400 naming it."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.export.ranks import merge
from mindinsight_profiler.export.timeline import gather_ranks
from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import load_timeline
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared
from tests.perfetto_read import read_perfetto

RUNS = {"hta": "hta/trace_filter", "ascend": "ascend_pytorch/level1"}
ONE = "torch_cpu/small/cnn_nw0_active5.1795320550475422677.pt.trace.json"


class Served:
    def __init__(self, base: Path, ws: Path) -> None:
        self.base, self.ws = base, Workspace(ws)
        for name, src in RUNS.items():
            shutil.copytree(shared(src), base / name)
            run = discover(base / name)[0]
            for file in run.files:  # as the background analysis does: index, then advice
                load_timeline(file.path, self.ws, None, file.format, file.worker)
                advise_file(file, run, self.ws)
        (base / "one").mkdir()
        shutil.copy(shared(ONE), base / "one" / "w0.1.pt.trace.json")
        file = discover(base / "one")[0].files[0]
        load_timeline(file.path, self.ws, None, file.format, file.worker)  # no advice yet
        app = create_app(Settings(base, workspace=ws), start_background_work=False)
        self.client: FlaskClient = app.test_client()
        self.id = {r["name"]: r["id"] for r in self.client.get("/api/v1/runs").json["runs"]}

    def get(self, run: str, **params: Any) -> Any:
        url = f"/api/v1/runs/{self.id[run]}/timeline/export-ranks"
        return self.client.get(url, query_string=params)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    return Served(tmp_path_factory.mktemp("base").resolve(), tmp_path_factory.mktemp("ws"))


def _leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("mindinsight-ranks-*")}


@pytest.mark.parametrize("run", list(RUNS))
def test_the_download_is_the_merged_timeline_of_the_cache(
    served: Served, run: str, tmp_path: Path
) -> None:
    before = _leftovers()
    response = served.get(run)
    assert response.status_code == 200, response.json
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    assert response.headers["Content-Disposition"].endswith('.perfetto-trace"')
    assert int(response.headers["Content-Length"]) == len(response.data)
    assert "X-Advice-Missing" not in response.headers
    assert _leftovers() == before  # the temporary file went once it was open
    (tmp_path / "got.pftrace").write_bytes(response.data)
    rb = read_perfetto(tmp_path / "got.pftrace")
    ranks = gather_ranks(discover(served.base / run)[0], None, served.ws)
    merged = merge(ranks)
    assert sorted(rb.processes.values()) == sorted(r.label for r in ranks)
    assert response.headers["X-Clock-Alignment"] == merged.alignment.method
    for i, r in enumerate(ranks):
        tracks = rb.children(rb.process_of(r.label))
        names = Counter(s.name for u, n in tracks.items() if not n.startswith("advisor")
                        for s in rb.slices.get(u, []))  # fmt: skip
        ev = r.trace.events
        assert names == Counter(r.trace.strings.lookup(ev["name"][merged.rows(i)]))
        notes = [s for u, n in tracks.items() if n.startswith("advisor")
                 for s in rb.slices.get(u, [])]  # fmt: skip
        assert len(notes) == len(r.annotations) and (run != "ascend" or notes)


def test_json_a_rank_and_a_window(served: Served) -> None:
    response = served.get("hta", format="json", ranks="1", start_ns=100_000_000,
                          end_ns=200_000_000)  # fmt: skip
    assert response.status_code == 200 and response.mimetype == "application/json"
    doc = json.loads(response.data)
    procs = [e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "process_name"]
    assert procs == ["rank 1 (sampled_rank-1)"]
    ranks = gather_ranks(discover(served.base / "hta")[0], [1], served.ws, advice=False)
    merged = merge(ranks, (100_000_000, 200_000_000))
    slices = [e for e in doc["traceEvents"] if e["ph"] in ("X", "i")]
    assert len(slices) == len(merged.rows(0)) > 0


def test_a_run_of_one_worker_without_advice_yet(served: Served) -> None:
    response = served.get("one")
    assert response.status_code == 200
    assert response.headers["X-Advice-Missing"] == "w0"


@pytest.mark.parametrize(
    ("params", "parameter", "message"),
    [
        ({"ranks": "5"}, "ranks", "unknown rank 5 (this run has 0, 1)"),
        ({"ranks": "0;rm"}, "ranks", "ranks"),
        ({"format": "pdf"}, "format", "format"),
        ({"start_ns": 10, "end_ns": 5}, "end_ns", "after start_ns"),
        ({"start_ns": 9 * 10**15}, "start_ns", "holds no events"),
        ({"worker": "sampled_rank-0"}, "worker", "worker"),
    ],
)
def test_bad_parameters_are_a_400_naming_them(
    served: Served, params: dict[str, Any], parameter: str, message: str
) -> None:
    response = served.get("hta", **params)
    assert response.status_code == 400, response.data[:200]
    error = response.json["error"]
    assert error["code"] == "bad_parameter" and error["parameter"] == parameter
    assert message in error["message"]
