"""Background work of a server process: run discovery and analysis of new inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mindinsight_profiler.server.app import Services


def start_background(services: Services) -> None:
    """Start discovery and analysis for this process (no-op until implemented)."""
