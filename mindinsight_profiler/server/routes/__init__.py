"""The analysis endpoints under /api/v1 (one module per area)."""

from __future__ import annotations

from flask import Blueprint


def register_routes(api: Blueprint) -> None:
    """Attach every analysis route to the versioned API blueprint (before it is registered)."""
