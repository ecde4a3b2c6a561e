"""The dashboard's files: the built UI (`mindinsight_profiler/_ui`, made by `scripts/build_ui.sh`).

- Hashed assets (`assets/*`) are cached for a year: their names change with their content,
  and are sent gzip-compressed to browsers that accept it (about a quarter of the bytes,
  which matters behind an SSH tunnel; compressed once per file and process).
- Every other path that looks like a page of the app (no file extension) gets `index.html`
  with `<base href>` set to the URL prefix, so the Vue router's history mode and relative
  asset URLs work at any depth and behind `--url-path-prefix`; it is never cached, so a new
  build is picked up on the next load.
- `api/...` never falls back to the page: an unknown API path is a JSON 404.
- Without a build, pages answer 503 with a plain message saying how to build it (the API
  keeps working).
"""

from __future__ import annotations

import gzip
import mimetypes
import re
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, request, send_from_directory
from werkzeug.security import safe_join

from mindinsight_profiler.server.errors import ApiError

UI_DIR = Path(__file__).resolve().parent.parent / "_ui"
ASSET_MAX_AGE_S = 365 * 24 * 3600
_BASE = re.compile(r'<base href="[^"]*"\s*/?>')
NOT_BUILT = (
    "The dashboard is not built into this installation (mindinsight_profiler/_ui is missing).\n"
    "From a source checkout run: bash scripts/build_ui.sh\n"
    "The REST API still works: see /api/v1/runs and /api/v1/openapi.json.\n"
)


@lru_cache(maxsize=8)
def _index_html(path: str, mtime_ns: int, prefix: str) -> str:
    """index.html with the prefix as its base (cached per build and prefix)."""
    text = Path(path).read_text(encoding="utf-8")
    return _BASE.sub(f'<base href="{prefix}/" />', text, count=1)


_COMPRESSIBLE = (".js", ".css", ".svg", ".json", ".html")


@lru_cache(maxsize=64)
def _gzipped(path: str, mtime_ns: int) -> bytes:
    """The file's bytes gzip-compressed (cached per file version)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


def _asset(ui_dir: Path, path: str) -> Response:
    """A hashed asset, compressed when the browser accepts gzip; cached for a year."""
    full = safe_join(str(ui_dir), path)
    if full is None or not Path(full).is_file():
        raise ApiError(404, "not_found", f"no file /{path}")
    if full.endswith(_COMPRESSIBLE) and "gzip" in request.headers.get("Accept-Encoding", ""):
        body = _gzipped(full, Path(full).stat().st_mtime_ns)
        mime = mimetypes.guess_type(full)[0] or "application/octet-stream"
        response = Response(body, mimetype=mime)
        response.headers["Content-Encoding"] = "gzip"
        response.headers["Vary"] = "Accept-Encoding"
    else:
        response = send_from_directory(ui_dir, path, max_age=ASSET_MAX_AGE_S)
    response.headers["Cache-Control"] = f"public, max-age={ASSET_MAX_AGE_S}, immutable"
    return response


def _page(ui_dir: Path, prefix: str) -> Response:
    index = ui_dir / "index.html"
    try:
        mtime = index.stat().st_mtime_ns
    except OSError:
        return Response(NOT_BUILT, status=503, mimetype="text/plain",
                        headers={"Cache-Control": "no-store"})  # fmt: skip
    html = _index_html(str(index), mtime, prefix)
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-cache"})


def make_blueprint(prefix: str, ui_dir: Path = UI_DIR) -> Blueprint:
    """Serve the UI at `prefix/` (registered after the API, whose routes take precedence)."""
    bp = Blueprint("ui", __name__)

    @bp.get("/")
    def index() -> Response:
        return _page(ui_dir, prefix)

    @bp.get("/<path:path>")
    def files(path: str) -> Response:
        if path == "api" or path.startswith("api/"):
            raise ApiError(404, "not_found", f"no API endpoint /{path}")
        if ".." in path or "\\" in path or "\x00" in path:
            raise ApiError(404, "not_found", "not found")
        if path.startswith("assets/"):
            return _asset(ui_dir, path)
        if "." in path.rsplit("/", 1)[-1]:  # a file that is not in the build
            raise ApiError(404, "not_found", f"no file /{path}")
        return _page(ui_dir, prefix)

    return bp
