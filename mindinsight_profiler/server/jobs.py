"""The analysis of one input, run in a background process (never in a request).

It fills everything the endpoints serve from: the cached report (`analyse_file`), the
advice (`advise_file`) and the timeline index (`load_timeline`), and records the input's
state as it goes. Each step writes atomically and holds the workspace's per-input lock, so
a process killed in the middle leaves a missing entry, never a corrupt one, and the next
server start simply analyses the input again.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import Report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline
from mindinsight_profiler.server.state import ANALYSING, FAILED, READY, StateStore

log = logging.getLogger(__name__)

#: Progress is written at most this often (seconds) and per whole percent.
PROGRESS_EVERY_S = 0.5


class _Progress:
    """A `ProgressFn` that records the percentage, and stops work when the server is gone.

    The analysis process is a child of a gunicorn worker; if that worker dies (SIGKILL), the
    orphan would keep parsing for minutes and then write state for a server that no longer
    exists. Checking the parent pid on each callback ends it within a block.
    """

    def __init__(self, store: StateStore, file: TraceFile, fingerprint: str) -> None:
        self.store, self.file, self.fingerprint = store, file, fingerprint
        self.parent = os.getppid()
        self.last_pct, self.last_t = -1, 0.0

    def __call__(self, done: int, total: int) -> None:
        if os.getppid() != self.parent:
            os._exit(1)  # orphaned: the server was killed; the next start analyses again
        pct = int(100 * done / total) if total > 0 else 0
        now = time.monotonic()
        if pct != self.last_pct and now - self.last_t >= PROGRESS_EVERY_S:
            self.last_pct, self.last_t = pct, now
            self.store.write(self.file, ANALYSING, self.fingerprint, progress=float(min(pct, 99)))


def input_summary(report: Report) -> dict[str, Any]:
    """What the run list shows of an analysed input (framework and device badges, steps)."""
    return {
        "framework": report.framework,
        "device": report.device_type,
        "steps": report.steps.count,
        "step_us": report.steps.average_us,
        "step_covered": msgspec.to_builtins(report.steps.covered),
    }


def analyse_input(
    file: TraceFile,
    run: Run,
    workspace_root: Path,
    rules_dirs: tuple[Path, ...],
    fingerprint: str,
    options: Options = DEFAULT_OPTIONS,
) -> str:
    """Analyse one input into the cache; returns the final state (also written)."""
    from mindinsight_profiler.store.cache import Workspace

    store = StateStore(workspace_root, options)
    workspace = Workspace(workspace_root)
    store.write(file, ANALYSING, fingerprint, progress=0.0)
    started = time.monotonic()
    try:
        progress = _Progress(store, file, fingerprint)
        report, _ = analyse_file(
            file.source, workspace, progress, file.format, file.worker, options
        )
        advise_file(file, run, workspace, rules_dirs, options)
        load_timeline(file.source, workspace, None, file.format, file.worker, options)
    except InputError as exc:
        log.warning("analysis failed: %s", exc)
        store.write(file, FAILED, fingerprint, error=str(exc))
        return FAILED
    except Exception:  # one input's bug must not stop the others; the reason is kept
        log.exception("analysis of %s crashed", file.path)
        store.write(
            file,
            FAILED,
            fingerprint,
            error=f"{file.path}: internal error while analysing it (see the server log)",
        )
        return FAILED
    elapsed = time.monotonic() - started
    store.write(file, READY, fingerprint, progress=100.0, seconds=round(elapsed, 3),
                summary=input_summary(report))  # fmt: skip
    log.info("analysed %s in %.1f s", file.path, elapsed)
    return READY
