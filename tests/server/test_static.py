"""The dashboard's files as the server sends them: the page under any URL prefix, assets
cached for a year and gzip-compressed when accepted, JSON 404s for unknown API paths and
missing files, and a plain 503 that says how to build the UI when it is not built."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_profiler.server.app import create_app
from mindinsight_profiler.server.errors import register_error_handlers
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.static import make_blueprint


@pytest.fixture
def ui(tmp_path: Path) -> Path:
    """A stand-in build: an index.html with a base element and one hashed asset."""
    folder = tmp_path / "_ui"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(
        '<!doctype html><head><base href="/" /><script src="./assets/index-abc.js"></script>'
        '</head><body><div id="app"></div></body>'
    )
    (folder / "assets" / "index-abc.js").write_text("console.log('hi');\n" * 200)
    return folder


def ui_app(ui: Path, prefix: str = "") -> FlaskClient:
    """A Flask app serving the stand-in build the way create_app serves the real one."""
    app = Flask(__name__)
    register_error_handlers(app)
    app.register_blueprint(make_blueprint(prefix, ui), url_prefix=prefix or None)
    return app.test_client()


def test_pages_get_index_with_the_prefix_as_base(tmp_path: Path, ui: Path) -> None:
    for prefix in ("", "/mi"):
        c = ui_app(ui, prefix)
        for path in ("/", "/runs/0123456789abcdef/overview", "/runs/x/timeline?t0=1"):
            response = c.get(prefix + path)
            assert response.status_code == 200, path
            assert f'<base href="{prefix}/" />'.encode() in response.data
            assert response.headers["Cache-Control"] == "no-cache"


def test_assets_are_cached_and_compressed(tmp_path: Path, ui: Path) -> None:
    c = ui_app(ui)
    plain = c.get("/assets/index-abc.js")
    assert plain.status_code == 200 and "immutable" in plain.headers["Cache-Control"]
    assert plain.headers.get("Content-Encoding") is None
    packed = c.get("/assets/index-abc.js", headers={"Accept-Encoding": "gzip, deflate"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "javascript" in packed.headers["Content-Type"]
    assert gzip.decompress(packed.data) == plain.data and len(packed.data) < len(plain.data) / 4
    assert packed.headers["Vary"] == "Accept-Encoding"


@pytest.mark.parametrize(
    "path", ["/assets/missing.js", "/favicon.ico", "/api/v1/nope", "/api", "/assets/../index.html",
             "/x/..%2f..%2fetc/passwd"],
)  # fmt: skip
def test_missing_files_and_api_paths_are_json_404s(tmp_path: Path, ui: Path, path: str) -> None:
    response = ui_app(ui).get(path)
    assert response.status_code == 404, path
    assert response.json and response.json["error"]["code"] == "not_found"


def test_without_a_build_pages_say_how_to_build(tmp_path: Path) -> None:
    response = ui_app(tmp_path / "nothing").get("/runs/abc/overview")
    assert response.status_code == 503
    assert b"scripts/build_ui.sh" in response.data and b"/api/v1/runs" in response.data


def test_the_api_wins_over_the_page_in_the_real_app(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    settings = Settings(tmp_path / "base", workspace=tmp_path / "ws", url_path_prefix="/mi")
    c = create_app(settings, start_background_work=False).test_client()
    assert c.get("/mi/api/v1/runs").json == {"runs": []}
    missing = c.get("/mi/api/v1/runs/0123456789abcdef/nope")
    assert missing.status_code == 404 and missing.json["error"]["code"] == "not_found"
    assert c.get("/mi/healthz").json == {"status": "ok"}
