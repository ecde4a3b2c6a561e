"""Run discovery on a timer, and analysis of new or changed inputs in a process pool.

Every gunicorn worker rescans the base dir (each keeps its own registry), but only one of
them per server queues analyses: the one holding `<workspace>/server-<port>.leader.lock`.
Followers retry the lock on every tick, so when the leader dies gunicorn's replacement (or
another worker) takes over. The parse itself runs in a separate process so a request never
waits behind it, and `analyse_file` takes the workspace's per-input lock, so two servers
sharing a workspace never parse the same input twice. An input whose overview is ready but
whose advice or timeline index is missing (a server stopped in the middle, rules edited)
stays ready and gets only those stages queued (`server.stages.to_resume`).

With `--scheduler ADDR` the analyses go to that Dask cluster instead of a local pool (the same
`concurrent.futures` interface, `scale.dask_executor`); the workspace, the base dir and the
rules folders must then be at the same paths on every Dask worker.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import multiprocessing
import os
import threading
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime
from typing import IO

from apscheduler.schedulers.background import BackgroundScheduler  # type: ignore[import-untyped]

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.pipeline.keys import advice_name, cache_variant
from mindinsight_profiler.pipeline.scale import on_worker, shares_cores
from mindinsight_profiler.server.jobs import analyse_input
from mindinsight_profiler.server.logs import log_to
from mindinsight_profiler.server.services import Services
from mindinsight_profiler.server.stages import STAGES, pending, stages_of, to_resume
from mindinsight_profiler.server.state import FAILED, QUEUED, READY, StateStore
from mindinsight_profiler.store.cache import Workspace

log = logging.getLogger(__name__)


class Background:
    """One server process's discovery timer and (when leader) its analysis pool."""

    def __init__(self, services: Services) -> None:
        settings = services.settings
        assert settings.workspace is not None
        self.services = services
        self.workspace = Workspace(settings.workspace)
        self.store = StateStore(self.workspace.root, services.settings.options)
        self.lock_path = self.workspace.root / f"server-{settings.port}.leader.lock"
        self._lock_file: IO[str] | None = None
        self._pool: Executor | None = None
        self._client: contextlib.ExitStack | None = None  # the Dask client, when there is one
        self._in_flight: dict[str, Future[str]] = {}
        self._mutex = threading.Lock()
        self.scheduler = BackgroundScheduler(daemon=True)

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        interval = self.services.settings.reload_interval
        kwargs = {"max_instances": 1, "coalesce": True, "next_run_time": datetime.now()}
        if interval > 0:
            self.scheduler.add_job(self.tick, "interval", seconds=interval, **kwargs)
        else:  # scan once; analysis of what it found still runs to the end
            self.scheduler.add_job(self.tick, "date", run_date=datetime.now())
        self.scheduler.start()

    def stop(self) -> None:
        """Stop the timer and the pool: queued analyses are dropped, a running one killed.

        A killed analysis leaves no cache entry (entries are renamed into place whole) and a
        state of `analysing`, which the next start treats as not done.
        """
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        self._drop_executor()
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    # -- the periodic job ------------------------------------------------------------------
    def tick(self) -> None:
        try:
            entries = self.services.registry.scan()
            if self._is_leader():
                for entry in entries.values():
                    for file in entry.files:
                        self._maybe_queue(file, entry.run)
        except Exception:  # the timer must survive one bad scan; the reason goes to the log
            log.exception("run discovery failed")

    def _is_leader(self) -> bool:
        if self._lock_file is not None:
            return True
        self.workspace.root.mkdir(parents=True, exist_ok=True)
        f = open(self.lock_path, "a")  # noqa: SIM115 (held for the process's lifetime)
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            return False
        self._lock_file = f
        log.info("process %d leads the analysis of this server", os.getpid())
        return True

    def _maybe_queue(self, file: TraceFile, run: Run) -> None:
        key = self.store.path(file).name
        with self._mutex:
            if key in self._in_flight:
                return
        try:
            entry = self.workspace.entry(
                file.source, cache_variant(file.format, file.worker, self.services.settings.options)
            )
        except OSError as exc:  # vanished or unreadable between discovery and now
            self.store.write(file, FAILED, "", error=f"{file.path}: unreadable: {exc}")
            return
        settings = self.services.settings
        rec = self.store.read(file)
        stages: tuple[str, ...] = STAGES
        resume = False  # the overview is ready: only stages after it are to be built
        if rec is not None and rec.get("fingerprint") == entry.key:
            if rec["state"] == FAILED:
                return  # failed for this very content: retried only when the input changes
            if rec["state"] == READY and (entry.dir / "manifest.json").exists():
                # the overview stands; build only the stages that are missing: the advice
                # under the current rules (a rule file edited while the server runs changes
                # its name) and a timeline index a killed job left unbuilt
                advice = entry.dir / advice_name(settings.rules_dirs, run)
                stages = to_resume(rec, advice.exists(), advice.name)
                if not stages:
                    return
                resume = True
        if not resume:
            self.store.write(file, QUEUED, entry.key, progress=0.0)
        else:  # still ready: the overview stays served while the stages are built
            assert rec is not None
            queued = {name: {"state": QUEUED} for name in stages}
            self.store.update(file, rec, stages={**stages_of(rec), **queued})
        shared = shares_cores(settings.jobs, settings.scheduler)
        args = (file, run, self.workspace.root, settings.rules_dirs, entry.key, settings.options,
                stages)  # fmt: skip
        try:
            future = self._executor().submit(on_worker, shared, analyse_input, *args)
        except (BrokenProcessPool, RuntimeError):
            self._drop_executor()  # replaced on the next submit; this input waits for next tick
            return
        except InputError as exc:  # the Dask scheduler cannot be reached: try again next tick
            log.error("analysis of %s not queued: %s", file.path, exc)
            return
        with self._mutex:
            self._in_flight[key] = future
        future.add_done_callback(lambda fut: self._done(key, file, entry.key, fut))

    def _done(self, key: str, file: TraceFile, fingerprint: str, future: Future[str]) -> None:
        with self._mutex:
            self._in_flight.pop(key, None)
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None and self._pool is not None:  # the process died (OOM killer?)
            log.error("analysis process of %s died: %s", file.path, exc)
            self._died(file, fingerprint, f"{file.path}: analysis process died: {exc}")
            if self._client is None:  # a broken local pool; Dask replaces lost workers itself
                self._drop_executor()

    def _died(self, file: TraceFile, fingerprint: str, error: str) -> None:
        """Record a job's death: a ready overview stays, only its unfinished stages fail."""
        rec = self.store.read(file)
        if rec is None or rec["state"] != READY or rec.get("fingerprint") != fingerprint:
            self.store.write(file, FAILED, fingerprint, error=error)
            return
        stages = stages_of(rec)
        for name in pending(rec):
            stages[name] = {**stages[name], "state": FAILED, "error": error}
        self.store.update(file, rec, stages=stages)

    def _executor(self) -> Executor:
        """The local pool (`--jobs` processes), or the Dask cluster's executor (`--scheduler`)."""
        if self._pool is not None:
            return self._pool
        settings = self.services.settings
        if settings.scheduler:
            from mindinsight_profiler.pipeline.scale import dask_executor

            stack = contextlib.ExitStack()
            self._pool = stack.enter_context(dask_executor(settings.scheduler))
            self._client = stack
            log.info("analysing on the Dask cluster at %s", settings.scheduler)
            return self._pool
        # spawn: forking a process that runs threads (this scheduler) is unsafe
        ctx = multiprocessing.get_context("spawn")
        workers = max(1, settings.jobs)
        log_file = self.workspace.root / "logs" / f"server-{settings.port}.log"
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=log_to, initargs=(log_file,)
        )
        log.info("analysing on a local pool of %d processes", workers)
        return self._pool

    def _drop_executor(self) -> None:
        """Stop the pool (queued work dropped, running processes killed) or leave Dask.

        On Dask the queued tasks are cancelled and the client closed; a task already
        running there finishes on its worker (its cache entry is written whole or not at all).
        """
        pool, self._pool = self._pool, None
        client, self._client = self._client, None
        if client is not None:
            if pool is not None:
                pool.shutdown(wait=False)  # cancels what the cluster has not finished
            client.close()
        elif pool is not None:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                if proc.is_alive():
                    proc.terminate()
