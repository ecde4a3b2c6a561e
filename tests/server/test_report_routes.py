"""The report download (`/runs/<run>/report`) and the ranks' shared clock (`/runs/<run>/clock`)
over the real runs the API tests analyse (tests/server/conftest.py).

The report route lays out the cached report and the *stored* advice (never analysing or
advising in a request) and streams a temporary file that is gone once sent. The writers
themselves are tested with the export layer; here a stand-in writer records the bundle it
was given, and one test downloads the real files.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mindinsight_profiler.analysis.cluster.clock import ClockAlignment
from mindinsight_profiler.cli.report import file_stem
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.server import access
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.routes import clock as clock_route
from mindinsight_profiler.server.routes import reports
from mindinsight_profiler.server.settings import Settings
from tests.conftest import shared
from tests.integration.cli import run_cli
from tests.server.test_api_endpoints import RUNS, WORKERS, Api

MIMES = {"html": "text/html", "xlsx": "application/vnd.openxmlformats", "md": "text/markdown"}


class Recorder:
    """A stand-in for `export.write.write_format`: writes a line naming what it got."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ReportBundle, str, TraceFile | None]] = []

    def __call__(self, fmt: str, bundle: ReportBundle, target: Path, lang: str = "en",
                 file: TraceFile | None = None, *_: Any) -> None:  # fmt: skip
        self.calls.append((fmt, bundle, lang, file))
        target.write_text(f"{fmt} {lang} {bundle.worker} {len(bundle.advice.findings)}\n")


@pytest.fixture(scope="module")
def advised(api: Api) -> Api:
    """The API with rank1's advice stored too (the fixture advises each run's first worker)."""
    done = run_cli("advise", api.folder["ascend"], "--worker", "rank1", "--workspace", api.ws)
    assert done.returncode == 0, done.stderr
    return api


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Recorder:
    found = Recorder()
    monkeypatch.setattr(reports, "write_format", found)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # to see the file go
    return found


def _get(api: Api, key: str, view: str, **params: Any) -> Any:
    return api.client.get(f"/api/v1/runs/{api.id[key]}/{view}", query_string=params)


@pytest.mark.parametrize("fmt", ["html", "xlsx", "md"])
def test_report_is_the_served_report_and_advice_as_an_attachment(
    advised: Api, recorder: Recorder, tmp_path: Path, fmt: str
) -> None:
    api = advised
    response = _get(api, "ascend", "report", format=fmt, lang="zh", worker="rank1")
    assert response.status_code == 200, response.json
    name = f"{file_stem('ascend/level1', 'rank1')}.{fmt}"
    assert response.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert response.mimetype.startswith(MIMES[fmt])
    advice = api.get("ascend", "advice", worker="rank1")["advice"]
    assert response.data.decode() == f"{fmt} zh rank1 {len(advice['findings'])}\n"
    assert int(response.headers["Content-Length"]) == len(response.data)
    assert list(tmp_path.glob("mindinsight-report-*")) == []  # unlinked once open
    got, bundle, lang, file = recorder.calls[-1]
    assert (got, lang, bundle.worker, bundle.run) == (fmt, "zh", "rank1", "ascend/level1")
    assert file is not None and file.worker == "rank1"
    cli = api.cli["ascend", "rank1"]
    assert bundle.report == cli  # what `mindinsight analyse --format json` prints
    served = {k: v for k, v in advice.items() if k != "findings"}
    assert {k: v for k, v in msgspec.to_builtins(bundle.advice).items() if k != "findings"} \
        == served  # fmt: skip
    assert [f.id for f in bundle.advice.findings] == [f["id"] for f in advice["findings"]]
    # named as the API names files: under the base dir, never by the server's path
    assert bundle.source.startswith("ascend/level1/") and str(api.base) not in bundle.source


def test_report_never_advises_or_analyses_in_the_request(
    advised: Api, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*_: Any, **__: Any) -> Any:
        raise AssertionError("computed in a request")

    import mindinsight_profiler.export.bundle as bundle_module
    import mindinsight_profiler.pipeline.advice as advice_module

    for name in ("advise_report", "advise_file"):
        monkeypatch.setattr(advice_module, name, forbidden)
    for name in ("analyse_file", "advise_file"):
        monkeypatch.setattr(bundle_module, name, forbidden)
    for worker in WORKERS["ascend"]:
        response = _get(advised, "ascend", "report", format="md", worker=worker)
        assert response.status_code == 200, response.json
    assert len(recorder.calls) == 2


@pytest.mark.parametrize(
    ("params", "parameter"),
    [({"format": "pdf"}, "format"), ({}, "format"), ({"format": "md", "lang": "fr"}, "lang"),
     ({"format": "md", "colour": "red"}, "colour")],
)  # fmt: skip
def test_bad_report_parameters_are_400(api: Api, params: dict[str, str], parameter: str) -> None:
    response = _get(api, "kineto", "report", **params)
    assert response.status_code == 400, response.json
    assert response.json["error"]["parameter"] == parameter


def test_clock_places_each_rank_by_its_first_event(api: Api) -> None:
    clock = api.get("ascend", "clock")
    windows = [api.get("ascend", "timeline", worker=w, max_items=1)["window"]
               for w in WORKERS["ascend"]]  # fmt: skip
    origins = [w["origin_ns"] for w in windows]
    assert clock["workers"] == WORKERS["ascend"] and clock["run"] == api.id["ascend"]
    assert clock["offsets_ns"] == [0, 0] and clock["method"] == "wall_clock"
    assert clock["shift_ns"] == [o - min(origins) for o in origins]
    # the two ranks share their four all-reduces, whose ends agree within 20 us: wall clock
    assert min(clock["shift_ns"]) == 0 and clock["matched"] == 4
    assert api.get("kineto", "clock")["shift_ns"] == [0]


def test_clock_is_estimated_once_and_adds_the_offsets(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def align(traces: list[Any]) -> ClockAlignment:
        calls.append(len(traces))
        return ClockAlignment([0, -3_000_000_000], "collectives", 7)

    monkeypatch.setattr(clock_route, "align_ranks", align)
    monkeypatch.setattr(access, "_run_views", type(access._run_views)())
    first = api.get("ascend", "clock")
    assert api.get("ascend", "clock") == first and calls == [2]
    origins = [api.get("ascend", "timeline", worker=w, max_items=1)["window"]["origin_ns"]
               for w in WORKERS["ascend"]]  # fmt: skip
    placed = [origins[0], origins[1] - 3_000_000_000]
    assert first["shift_ns"] == [p - min(placed) for p in placed]
    assert (first["method"], first["matched"], first["offsets_ns"]) == \
        ("collectives", 7, [0, -3_000_000_000])  # fmt: skip


def test_report_and_clock_wait_for_the_analysis(tmp_path: Path) -> None:
    """409 `not_ready` before anything is analysed, and while the advice is not stored yet
    (the report is analysed, the advice not): never computed in the request."""
    base = tmp_path / "base"
    shutil.copytree(shared(RUNS["ms"][0]), base / "ms" / "profiler")
    ws = tmp_path / "ws"
    client = create_app(Settings(base, workspace=ws), False).test_client()
    rid = client.get("/api/v1/runs").json["runs"][0]["id"]
    for path in ("report?format=md", "clock"):
        response = client.get(f"/api/v1/runs/{rid}/{path}")
        assert response.status_code == 409 and response.json["error"]["code"] == "not_ready"
    done = run_cli("analyse", base / "ms", "--workspace", ws, "--format", "json")
    assert done.returncode == 0, done.stderr
    response = client.get(f"/api/v1/runs/{rid}/report?format=md")
    assert response.status_code == 409, response.json
    assert "the advice" in response.json["error"]["message"]
    assert client.get(f"/api/v1/runs/{rid}/clock").status_code == 200
