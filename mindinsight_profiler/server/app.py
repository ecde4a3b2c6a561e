"""The Flask app factory: `create_app()` (settings from the environment) for gunicorn.

Routes are thin: they validate parameters, resolve the run through the registry and call
pure functions of the pipeline; errors become JSON in `errors.py`.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify

from mindinsight_profiler._version import __version__
from mindinsight_profiler.server.background import start_background
from mindinsight_profiler.server.errors import register_error_handlers
from mindinsight_profiler.server.guard import install_guard
from mindinsight_profiler.server.routes import register_routes
from mindinsight_profiler.server.services import EXTENSION, Services
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.static import make_blueprint as ui_blueprint

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


health = Blueprint("health", __name__)
api = Blueprint("api_v1", __name__)
register_routes(api)


@health.get("/healthz")
def healthz() -> Response:
    return jsonify({"status": "ok"})


@health.get("/version")
def version() -> Response:
    return jsonify({"version": __version__, "api": "v1"})


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
    register_error_handlers(app, svc.public)
    install_guard(app, settings)
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
