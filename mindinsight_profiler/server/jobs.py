"""The analysis of one input, run in a background process (never in a request).

It fills everything the endpoints serve from, first answer first: the cached report
(`analyse_file`), after which the input is `ready` and its overview served; then the advice
(`advise_file`) and the timeline index (`load_timeline`), each a stage with its own state
(`server.stages`). Each step writes atomically and holds the workspace's per-input lock, so
a process killed in the middle leaves a missing entry, never a corrupt one, and the next
server start builds what is missing: the whole analysis, or only the stages after it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import Report
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.keys import advice_name
from mindinsight_profiler.pipeline.reports import analyse_file, load_timeline
from mindinsight_profiler.server.stages import ADVICE, LABELS, STAGES, TIMELINE, stages_of
from mindinsight_profiler.server.state import ANALYSING, FAILED, QUEUED, READY, StateStore

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
    stages: tuple[str, ...] = STAGES,
) -> str:
    """Analyse one input into the cache; returns the input's state (also written).

    The overview first: `ready` (with its summary) as soon as the report is cached, then
    each of `stages` (all of them, or those a restart found missing) with its own state. An
    input whose overview is ready already for this content (a resumed job) stays `ready`
    throughout: its report is read back from the cache, never parsed again.
    """
    from mindinsight_profiler.store.cache import Workspace

    store = StateStore(workspace_root, options)
    workspace = Workspace(workspace_root)
    prior = store.read(file)
    resumed = prior is not None and prior["state"] == READY and prior["fingerprint"] == fingerprint
    if not resumed:
        store.write(file, ANALYSING, fingerprint, progress=0.0)
    started = time.monotonic()
    try:
        progress = _Progress(store, file, fingerprint)
        report, cached = analyse_file(
            file.source, workspace, progress, file.format, file.worker, options
        )
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
    elapsed = round(time.monotonic() - started, 3)
    if not cached:  # the entry was (re)written without a timeline index: every stage again
        stages = STAGES
    known = stages_of(prior) if resumed else {}
    record = {
        "state": READY, "fingerprint": fingerprint, "progress": 100.0,
        "seconds": prior.get("seconds", elapsed) if prior is not None and resumed else elapsed,
        "summary": input_summary(report),
        "stages": {name: {"state": QUEUED} if name in stages else known.get(name, {"state": QUEUED})
                   for name in STAGES},
    }  # fmt: skip
    store.update(file, record)
    log.info("overview of %s ready in %.1f s", file.path, elapsed)
    steps = {
        ADVICE: lambda: advise_file(file, run, workspace, rules_dirs, options),
        TIMELINE: lambda: load_timeline(
            file.source, workspace, None, file.format, file.worker, options
        ),
    }
    rules = advice_name(rules_dirs, run)
    for name in (n for n in STAGES if n in stages):
        _stage(store, file, record, name, steps[name], rules if name == ADVICE else None)
    log.info("analysed %s in %.1f s", file.path, time.monotonic() - started)
    return READY


def _stage(
    store: StateStore,
    file: TraceFile,
    record: dict[str, Any],
    name: str,
    build: Callable[[], object],
    rules: str | None,
) -> None:
    """Build one stage, recording it as `analysing`, then `ready` or `failed` with the reason
    (naming the file); a failure never undoes the overview, nor stops the next stage."""
    mark: dict[str, Any] = {"rules": rules} if rules is not None else {}
    record["stages"][name] = {"state": ANALYSING, **mark}
    store.update(file, record)
    started = time.monotonic()
    try:
        build()
    except InputError as exc:
        log.warning("%s of %s failed: %s", name, file.path, exc)
        error = f"{file.path}: the {LABELS[name]} could not be built: {exc}"
        record["stages"][name] = {"state": FAILED, "error": error, **mark}
    except Exception:  # a stage's bug must not take the overview down; the reason is kept
        log.exception("%s of %s crashed", name, file.path)
        what = f"internal error while building its {LABELS[name]} (see the server log)"
        error = f"{file.path}: {what}"
        record["stages"][name] = {"state": FAILED, "error": error, **mark}
    else:
        seconds = round(time.monotonic() - started, 3)
        record["stages"][name] = {"state": READY, "seconds": seconds, **mark}
    store.update(file, record)
