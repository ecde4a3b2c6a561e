"""Background work of a server process: run discovery and analysis of new inputs.

Started by `create_app` in every gunicorn worker (see scheduler.py for how the workers
share the work). Without a workspace in the settings nothing starts: analysis writes into
the workspace, and an app made for a test or a tool should not fill `~/.mindinsight`
behind its caller's back (`mindinsight start` always passes one).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from types import FrameType
from typing import Any

from mindinsight_profiler.server.logs import log_to
from mindinsight_profiler.server.scheduler import Background
from mindinsight_profiler.server.services import Services

log = logging.getLogger(__name__)


def configure_logging(services: Services) -> None:
    """Structured logs of this package to `<workspace>/logs/server-<port>.log` (appended)."""
    settings = services.settings
    if settings.workspace is not None:
        log_to(settings.workspace / "logs" / f"server-{settings.port}.log")


def _chain_signals(stop: Any) -> None:
    """Stop the background work on SIGTERM/SIGINT/SIGQUIT, then let gunicorn's handler run.

    gunicorn installs its worker handlers before loading the app, so they are chained, not
    replaced: the worker still finishes its requests and exits as gunicorn intends.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        previous = signal.getsignal(signum)

        def handler(sig: int, frame: FrameType | None, previous: Any = previous) -> None:
            stop()
            if callable(previous):
                previous(sig, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(sig, signal.SIG_DFL)
                os.kill(os.getpid(), sig)

        signal.signal(signum, handler)


def start_background(services: Services) -> Background | None:
    """Start discovery and analysis for this process; stopped on SIGTERM and at exit."""
    if services.settings.workspace is None:
        log.info("no workspace set: background discovery and analysis are off")
        return None
    configure_logging(services)
    background = Background(services)
    background.start()
    atexit.register(background.stop)
    _chain_signals(background.stop)
    log.info(
        "background started: base dir %s, reload every %ss",
        services.settings.summary_base_dir,
        services.settings.reload_interval,
    )
    return background
