"""What clients see of failures: no server paths, no exception class names, and a failed
input's views answer its failure (422 with the reason) instead of "not analysed yet".

The failures are real: a truncated copy of a real Kineto trace analysed by the server's own
background job (`analyse_input`), and the same job with the reader made to crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.keys import cache_variant
from mindinsight_profiler.server import jobs
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.redact import public_text, redactor
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import FAILED
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared


@pytest.mark.parametrize(
    ("text", "public"),
    [
        ("/srv/base/run1/w0.json.gz: truncated", "run1/w0.json.gz: truncated"),
        ("/srv/base: empty", ".: empty"),
        ("/srv/base2/x/y.json: bad", "y.json: bad"),  # not under the base: its name only
        ("/home/u/.mi/cache/ab/manifest.json: bad", "<workspace>/cache/ab/manifest.json: bad"),
        ("w.json: internal error: TypeError: bad", "w.json: internal error: bad"),
        ("json.decoder.JSONDecodeError: Expecting value", "Expecting value"),
        ("[Errno 13] Permission denied: '/etc/x/y'", "[Errno 13] Permission denied: 'y'"),
        ("s3://bucket/runs/w.json: cannot list", "s3://bucket/runs/w.json: cannot list"),
        ("run/w0.json: 3/4 steps, 2 KB/s, Error", "run/w0.json: 3/4 steps, 2 KB/s, Error"),
    ],
)
def test_public_text(text: str, public: str) -> None:
    assert public_text(text, [("/srv/base", ""), ("/home/u/.mi", "<workspace>")]) == public


def test_redactor_covers_the_resolved_base(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    public = redactor(tmp_path / "link", tmp_path / "ws")
    assert public(f"{tmp_path}/real/run/w: bad") == "run/w: bad"
    assert public(f"{tmp_path}/link/run/w: bad") == "run/w: bad"


def _failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: bool) -> Any:
    """A test client over a base whose one run failed its analysis (really, by the job)."""
    base, ws = tmp_path / "base", tmp_path / "ws"
    good = next(shared("kineto/resnet50_num_workers_4").glob("*.pt.trace.json.gz"))
    (base / "broken").mkdir(parents=True)
    (base / "broken" / "worker0.1.pt.trace.json.gz").write_bytes(good.read_bytes()[:30000])
    (run,) = discover(base)
    (file,) = run.files
    fingerprint = Workspace(ws).entry(file.source, cache_variant(file.format, file.worker)).key
    if crash:

        def crashing(*args: object, **kwargs: object) -> None:
            raise TypeError(f"unexpected thing in {file.path} and {ws}/cache")

        monkeypatch.setattr(jobs, "analyse_file", crashing)
    assert jobs.analyse_input(file, run, Workspace(ws).root, (), fingerprint) == FAILED
    return create_app(Settings(base, workspace=ws), start_background_work=False).test_client()


def _assert_public(text: str, tmp_path: Path) -> None:
    assert str(tmp_path) not in text and "Error" not in text and "/base/" not in text, text


@pytest.mark.parametrize("crash", [False, True], ids=["bad-input", "crash"])
def test_a_failed_input_answers_its_failure_without_server_details(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: bool
) -> None:
    client = _failed_run(tmp_path, monkeypatch, crash)
    (run,) = client.get("/api/v1/runs").json["runs"]
    assert run["state"] == "failed"
    assert run["error"].startswith("broken/worker0.1.pt.trace.json.gz: "), run["error"]
    _assert_public(run["error"], tmp_path)
    (one,) = client.get(f"/api/v1/runs/{run['id']}").json["inputs"]
    assert one["state"] == "failed" and one["error"] == run["error"]
    for view in ("overview", "operators", "timeline", "advice"):
        response = client.get(f"/api/v1/runs/{run['id']}/{view}")
        assert response.status_code == 422, (view, response.json)
        error = response.json["error"]
        assert error["code"] == "analysis_failed" and error["state"] == "failed"
        assert error["reason"] == run["error"] and run["error"] in error["message"]
        _assert_public(error["message"], tmp_path)
    if crash:  # the class and the paths are in the server's log, not the answer
        assert "internal error" in run["error"] and "unexpected thing" not in run["error"]
    else:
        assert "cannot decompress" in run["error"], run["error"]
