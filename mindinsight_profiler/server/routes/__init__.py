"""The analysis endpoints under /api/v1 (one module per area)."""

from __future__ import annotations

from flask import Blueprint

from mindinsight_profiler.server import openapi
from mindinsight_profiler.server.routes import (
    clock,
    memory,
    reports,
    runs,
    sections,
    tables,
    timeline,
)


def register_routes(api: Blueprint) -> None:
    """Attach every route to the versioned API blueprint (before it is registered)."""
    for module in (runs, sections, tables, timeline, memory, reports, clock):
        api.register_blueprint(module.bp)
    openapi.register(api)
