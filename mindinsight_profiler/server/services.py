"""What every route reaches: the settings, the run registry and the analysis states.

Its own module, below the app factory and the routes, so that routes, access helpers and the
background work import it without importing `app.py` (which imports them).
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from mindinsight_profiler.analysis.sections import pages_for
from mindinsight_profiler.server.redact import redactor
from mindinsight_profiler.server.registry import RunEntry, RunRegistry
from mindinsight_profiler.server.settings import Settings
from mindinsight_profiler.server.state import StateStore
from mindinsight_profiler.store.cache import Workspace

#: The key of the services in `Flask.extensions`.
EXTENSION = "mindinsight"


class Services:
    """What routes reach through `services()`: settings and the run registry."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = RunRegistry(settings.summary_base_dir, settings.workspace)
        self.states = StateStore(Workspace(settings.workspace).root, settings.options)
        #: A message as a client may see it (no server paths, no exception class names).
        self.public = redactor(settings.summary_base_dir, Workspace(settings.workspace).root)


def services() -> Services:
    """The services of the app handling the current request."""
    svc: Services = current_app.extensions[EXTENSION]
    return svc


def run_json(entry: RunEntry) -> dict[str, Any]:
    """A run as the run list shows it: names, workers, formats, the dashboard pages those
    formats can have, and the analysis state."""
    formats = {f.format for f in entry.files}
    state = services().states.run_state(entry.files)
    if "error" in state:
        state["error"] = services().public(state["error"])
    return {
        "id": entry.id,
        "name": entry.name,
        "workers": entry.run.workers,
        "formats": sorted(formats),
        "pages": pages_for(formats),
        "notes": entry.run.notes,
        **state,
    }
