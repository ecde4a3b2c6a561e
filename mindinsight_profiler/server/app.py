"""The Flask app factory: `create_app()` (settings from the environment) for gunicorn.

Routes are thin: they validate parameters, resolve the run through the registry and call
pure functions of the pipeline; errors become JSON in `errors.py`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify

from mindinsight_profiler._version import __version__
from mindinsight_profiler.server.background import start_background
from mindinsight_profiler.server.errors import register_error_handlers
from mindinsight_profiler.server.registry import RunEntry, RunRegistry
from mindinsight_profiler.server.routes import register_routes
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import StateStore
from mindinsight_profiler.server.static import make_blueprint as ui_blueprint
from mindinsight_profiler.store.cache import Workspace

EXTENSION = "mindinsight"

#: Headers on every response: no sniffing, no framing, scripts only from this origin.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "object-src 'none'; frame-ancestors 'none'; base-uri 'self'"
    ),
}


class Services:
    """What routes reach through `services()`: settings and the run registry."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = RunRegistry(settings.summary_base_dir, settings.workspace)
        self.states = StateStore(Workspace(settings.workspace).root)


def services() -> Services:
    svc: Services = current_app.extensions[EXTENSION]
    return svc


def run_json(entry: RunEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "name": entry.name,
        "workers": entry.run.workers,
        "formats": sorted({f.format for f in entry.files}),
        **services().states.run_state(entry.files),
    }


health = Blueprint("health", __name__)
api = Blueprint("api_v1", __name__)


@health.get("/healthz")
def healthz() -> Response:
    return jsonify({"status": "ok"})


@health.get("/version")
def version() -> Response:
    return jsonify({"version": __version__, "api": "v1"})


@api.get("/runs")
def list_runs() -> Response:
    return jsonify({"runs": [run_json(e) for e in services().registry.runs()]})


@api.get("/runs/<run>")
def get_run(run: str) -> Response:
    entry = services().registry.get(run)
    return jsonify(dict(run_json(entry), inputs=services().states.inputs(entry.files)))


def create_app(settings: Settings | None = None, start_background_work: bool = True) -> Flask:
    """The app; without `settings` they come from `MINDINSIGHT_*` environment variables."""
    settings = settings or Settings.from_env()
    app = Flask(__name__, static_folder=None)
    app.config.update(DEBUG=False, TESTING=False, JSON_SORT_KEYS=False)
    svc = Services(settings)
    svc.registry.scan()
    app.extensions[EXTENSION] = svc
    if start_background_work:
        start_background(svc)
    register_error_handlers(app)
    prefix = settings.url_path_prefix
    app.register_blueprint(health, url_prefix=prefix or None)
    app.register_blueprint(api, url_prefix=f"{prefix}/api/v1")
    app.register_blueprint(ui_blueprint(prefix), url_prefix=prefix or None)

    @app.after_request
    def headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return app


register_routes(api)
