"""The analysis endpoints under /api/v1 (one module per area)."""

from __future__ import annotations

from flask import Blueprint


def register_routes(api: Blueprint) -> None:
    """Attach every analysis route to the versioned API blueprint (before it is registered).

    Imported here, not at the top: the route modules reach `services()` in app.py, which
    calls this function while it is being imported.
    """
    from mindinsight_profiler.server import openapi
    from mindinsight_profiler.server.routes import memory, sections, tables, timeline

    for module in (sections, tables, timeline, memory):
        api.register_blueprint(module.bp)
    openapi.register(api)
