"""Attacks answered safely: traversal in every path segment and parameter, a symlink to
/etc/passwd in the base dir, huge sizes, unknown parameters and wrong types.

Every answer must be a 400 or 404 JSON error with `Cache-Control: no-store`, with no stack
trace and nothing from outside the base dir, and the server must keep serving afterwards.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_profiler.formats.discovery import discover
from mindinsight_profiler.pipeline.reports import analyse_file
from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.routes.common import ENDPOINTS
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.store.cache import Workspace
from tests.conftest import shared

TRAVERSALS = [
    "../../../../etc/passwd", "..%2f..%2f..%2fetc%2fpasswd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252fetc%252fpasswd", "..\\..\\..\\etc\\passwd", "..%5c..%5cetc%5cpasswd",
    "/etc/passwd", "%2Fetc%2Fpasswd", "worker0%00", "worker0\x00/../../etc/passwd", "evil",
    "..", ".", "~root", "C:\\Windows\\win.ini",
]  # fmt: skip
PARAMS = ["worker", "span", "device", "other", "other_worker", "other_span", "search", "q",
          "sort", "group_by", "tracks", "type", "min_severity", "order"]  # fmt: skip
SECRET = "root:"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, str, Path]:
    base = tmp_path_factory.mktemp("base")
    run = base / "good"
    shutil.copytree(shared("kineto/resnet50_num_workers_0"), run)
    (base / "evil").mkdir()
    (base / "evil" / "worker0.1.pt.trace.json").symlink_to("/etc/passwd")
    (run / "evil.2.pt.trace.json").symlink_to("/etc/passwd")
    (base / "etc").symlink_to("/etc", target_is_directory=True)
    ws = tmp_path_factory.mktemp("ws")
    for file in (f for f in discover(run)[0].files if f.worker == "worker0"):
        analyse_file(file.path, Workspace(ws), None, file.format, file.worker)
    client = create_app(Settings(base, workspace=ws), start_background_work=False).test_client()
    runs = client.get("/api/v1/runs").json["runs"]
    assert [(r["name"], r["workers"]) for r in runs] == [("good", ["worker0"])]
    return client, runs[0]["id"], base


def check_refused(response: Any, what: str) -> None:
    assert response.status_code in (400, 404), (what, response.status_code, response.data[:300])
    body = response.get_json(silent=True)
    assert body and set(body["error"]) >= {"code", "message"}, what
    assert response.headers["Cache-Control"] == "no-store", what
    text = response.get_data(as_text=True)
    assert SECRET not in text and "Traceback" not in text and 'File "' not in text, what


def paths(rid: str) -> list[str]:
    return [f"/api/v1{e.rule.replace('<run>', rid)}" for e in ENDPOINTS]


def test_traversal_in_the_run_segment_and_after_it(setup: tuple[FlaskClient, str, Path]) -> None:
    client, rid, _ = setup
    for bad in TRAVERSALS:
        around = [f"/api/v1/runs/{bad}", f"/api/v1/runs/{rid}/{bad}", f"/api/v1/runs/{rid}/x/{bad}"]
        for path in [*paths(bad), *around]:
            check_refused(client.get(path), path)


def test_traversal_in_every_parameter(setup: tuple[FlaskClient, str, Path]) -> None:
    client, rid, _ = setup
    for path in paths(rid):
        for name in PARAMS:
            for bad in TRAVERSALS:
                response = client.get(path, query_string={name: bad})
                if response.status_code == 200:  # a search text is only text
                    assert name in ("search", "q") and SECRET not in response.get_data(True)
                    continue
                if response.status_code == 409:  # a valid value; not analysed here
                    assert name in ("search", "q", "sort", "order"), (path, name)
                    continue
                check_refused(response, f"{path}?{name}={bad!r}")


def test_symlinks_out_of_the_base_dir_are_never_served(
    setup: tuple[FlaskClient, str, Path],
) -> None:
    client, rid, _ = setup
    for worker in ("evil", "worker0/../evil", "etc"):
        response = client.get(f"/api/v1/runs/{rid}/overview", query_string={"worker": worker})
        check_refused(response, worker)
    for span in ("2", "1"):
        response = client.get(f"/api/v1/runs/{rid}/timeline/export", query_string={"span": span})
        check_refused(response, span)


def test_huge_sizes_unknown_parameters_and_wrong_types(
    setup: tuple[FlaskClient, str, Path],
) -> None:
    client, rid, _ = setup
    base = f"/api/v1/runs/{rid}"
    cases = [
        ("operators", {"limit": 10**9}, "limit"),
        ("operators", {"limit": "9" * 400}, "limit"),
        ("kernels", {"limit": 1001}, "limit"),
        ("operators", {"limit": 0}, "limit"),
        ("operators", {"offset": -1}, "offset"),
        ("operators", {"limit": "abc"}, "limit"),
        ("operators", {"limit": "1.5"}, "limit"),
        ("operators", {"search": "x" * 10_000}, "search"),
        ("operators", {"sort": "__class__"}, "sort"),
        ("operators", {"group_by": "name;drop"}, "group_by"),
        ("operators", {"type": "aten"}, "type"),
        ("diff", {"other": rid, "top": 10**6}, "top"),
        ("diff", {}, "other"),
        ("timeline", {"width_px": 10**9}, "width_px"),
        ("timeline", {"max_items": 10**7}, "max_items"),
        ("timeline", {"start_ns": "soon"}, "start_ns"),
        ("timeline", {"start_ns": 10, "end_ns": 5}, "end_ns"),
        ("timeline", {"tracks": "1," * 5000}, "tracks"),
        ("timeline/search", {"q": "conv", "limit": 10**6}, "limit"),
        ("timeline/export", {"gzip": "perhaps"}, "gzip"),
        ("advice", {"min_severity": "urgent"}, "min_severity"),
        ("overview", {"rm": "-rf"}, "rm"),
        ("overview", {"worker": ["worker0", "worker0"]}, "worker"),
        ("overview", {"worker": "w" * 1000}, "worker"),
        ("cluster", {"worker": "worker0"}, "worker"),
    ]
    for path, params, name in cases:
        response = client.get(f"{base}/{path}", query_string=params)
        check_refused(response, f"{path} {params}")
        assert response.status_code == 400, (path, params)
        error = response.json["error"]
        assert error["code"] == "bad_parameter" and error["parameter"] == name, (path, error)
        assert name in error["message"], error


def test_still_serving_after_the_attacks(setup: tuple[FlaskClient, str, Path]) -> None:
    client, rid, _ = setup
    for bad in TRAVERSALS[:4]:
        client.get(f"/api/v1/runs/{bad}/overview", query_string={"worker": bad})
    assert client.get("/healthz").json == {"status": "ok"}
    overview = client.get(f"/api/v1/runs/{rid}/overview")
    assert overview.status_code == 200 and overview.json["worker"] == "worker0"
    page = client.get(f"/api/v1/runs/{rid}/operators", query_string={"limit": 1000})
    assert page.status_code == 200 and len(page.json["rows"]) == page.json["total"]
