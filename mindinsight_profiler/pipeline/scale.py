"""Analyse every worker (rank) of a run in parallel: a local process pool, or a Dask cluster.

Per-rank analysis is independent, so it scales out on an existing engine rather than a
home-made one: `concurrent.futures.ProcessPoolExecutor` on one machine, and Dask
distributed (`Client(address).get_executor()`, the same executor interface) across many.
Each task parses and analyses one worker's input where it is scheduled, through
`pipeline.analyse_file`, which fills the workspace cache under its per-input lock, and
returns only the worker's `rank_summary` (kilobytes, whatever the trace's size; read alone
from the entry when the rank is cached: pipeline/summaries.py). The driver
never holds a full report, so its memory stays flat in the number of ranks.

On Dask the workspace and the run's files must be reachable under the same absolute paths
on every worker (a shared filesystem: NFS, Lustre, a mounted bucket): the tasks receive
paths, not data, and the cache key includes the resolved input path. A run in object
storage (`s3://...`) is staged by each worker into the shared workspace, with the
credentials and `MINDINSIGHT_STORAGE_OPTIONS` of the worker's own environment. Workers need
this package installed in the same version. The options configured on the driver (FP/BP
points, device spec) travel with each task (a worker's own environment is not read).

A rank that fails (unreadable file, a crash, a worker process that died) is reported by
its file; the other ranks' summaries still arrive (`RankFailures` carries both).

The cores go to ranks, not to one rank's decoding: with more than one pool process, or on
Dask, each rank is read by one process (`MINDINSIGHT_READ_PROCESSES=1`, unless set), so J
processes do not each start their own decode helpers. Dask worker processes are daemons,
which may not start children at all: there it is always one.

Dask's nanny starts its workers with `MALLOC_TRIM_THRESHOLD_=65536`, which made each rank
cost about a fifth more CPU there than in the pool (the heap's pages mapped and unmapped
over and over); each task runs in `util.heap.task_heap`, which gives it glibc's adaptive
heap and returns the freed memory when it ends.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.formats.sources import Source
from mindinsight_profiler.store.cache import Workspace
from mindinsight_profiler.util.heap import task_heap

log = logging.getLogger(__name__)

#: What a `--scheduler` without Dask installed says.
NEEDS_DASK = "needs Dask: pip install 'mindinsight_profiler[dask]'"
#: Seconds to wait for a Dask scheduler to answer before giving up with a clear error.
CONNECT_TIMEOUT_S = 20

#: Called with (ranks done, ranks in total) after each rank finishes, failed ones included.
RankProgress = Callable[[int, int], None]

#: The reader's decode-helper count (formats/chunked.py).
READ_PROCESSES_ENV = "MINDINSIGHT_READ_PROCESSES"


@dataclass(frozen=True)
class RankFailure:
    """One rank whose analysis failed: which worker, which file, and why."""

    worker: str
    span: str
    path: str
    error: str

    def to_json(self) -> dict[str, str]:
        return {"worker": self.worker, "span": self.span, "path": self.path, "error": self.error}


class RankFailures(InputError):
    """Some ranks failed; `summaries` holds those that did not (in the run's worker order)."""

    def __init__(
        self, run: Run, failures: list[RankFailure], summaries: list[dict[str, Any]]
    ) -> None:
        self.failures = failures
        self.summaries = summaries
        total = len(failures) + len(summaries)
        reasons = "; ".join(f.error for f in failures[:5])
        more = f" (and {len(failures) - 5} more)" if len(failures) > 5 else ""
        super().__init__(run.path, f"{len(failures)} of {total} ranks failed: {reasons}{more}")


def run_files(run: Run, span: str | None = None) -> list[TraceFile]:
    """One input per worker: `span` where the worker has it, else each worker's first span."""
    files = list(run.by_worker(span).values())
    if span is not None and not files:
        raise InputError(run.path, f"no worker has span {span!r}")
    return files


def single_reader(shared: bool) -> None:
    """In a worker process: read each input with one process where the cores are shared
    (`shared`: other ranks run beside it) or where children are impossible (a daemon)."""
    if multiprocessing.current_process().daemon:
        os.environ[READ_PROCESSES_ENV] = "1"
    elif shared:
        os.environ.setdefault(READ_PROCESSES_ENV, "1")


def shares_cores(jobs: int, scheduler: str | None) -> bool:
    """Whether several inputs are analysed at once (a pool of more than one, or Dask): then
    each reads with one process (`single_reader`)."""
    return bool(scheduler) or jobs > 1


def on_worker(shared: bool, fn: Callable[..., Any], *args: Any) -> Any:
    """Run `fn(*args)` in a pool process or on a Dask worker, after `single_reader`, with
    glibc's adaptive heap (`util.heap.task_heap`: Dask's workers fix its thresholds)."""
    single_reader(shared)
    with task_heap():
        return fn(*args)


def source_name(source: Source) -> str:
    """How an input is named in errors: its URL when remote, else its path."""
    return str(source) if isinstance(source, Path) else source.url


def summarise_file(
    source: Source,
    fmt: str,
    worker: str,
    span: str,
    root: str,
    shared: bool = True,
    options: Options = DEFAULT_OPTIONS,
) -> dict[str, Any]:
    """The task: analyse one input into the workspace at `root`, return its summary.

    Runs in a pool process or on a Dask worker. Errors come back as text naming the file
    (`{"error": ...}`), not as exceptions, so nothing that fails to unpickle crosses over.
    """
    from mindinsight_profiler.pipeline.summaries import summary_of

    single_reader(shared)
    try:
        with task_heap():
            return {"summary": summary_of(source, Workspace(root), fmt, worker, span, options)}
    except InputError as exc:
        return {"error": str(exc)}
    except Exception as exc:  # one rank's bug must not lose the others; the reason goes back
        name = source_name(source)
        log.exception("analysis of %s crashed", name)
        return {"error": f"{name}: internal error: {type(exc).__name__}: {exc}"}


def default_jobs(ranks: int) -> int:
    """The CPU count, at most one process per rank."""
    return max(1, min(os.cpu_count() or 1, ranks))


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[Executor]:
    """A concurrent.futures executor over the Dask cluster at `address` (closed on exit)."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler", NEEDS_DASK) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(address, f"cannot reach the Dask scheduler: {exc}") from None
    try:
        # pure=False: a file that changed between two calls must be analysed again
        yield client.get_executor(pure=False)
    finally:
        client.close()


@contextlib.contextmanager
def _executor(jobs: int, scheduler: str | None) -> Iterator[Executor]:
    if scheduler:
        with dask_executor(scheduler) as executor:
            yield executor
        return
    # spawn: the caller may run threads (a server's scheduler), which fork would copy broken
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _absolute(file: TraceFile) -> Source:
    """The input as a worker elsewhere can find it (a relative path means nothing there)."""
    return file.remote if file.remote is not None else file.path.resolve()


def _workspace_root(workspace: Workspace | str | Path | None) -> str:
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    return str(ws.root.resolve())


def summarise_run(
    run: Run,
    workspace: Workspace | str | Path | None,
    jobs: int | None = None,
    scheduler: str | None = None,
    span: str | None = None,
    progress: RankProgress | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> list[dict[str, Any]]:
    """Every worker's `rank_summary`, analysed in parallel (pool of `jobs`, or Dask).

    Summaries come back in the run's worker order. Raises `RankFailures` (an `InputError`)
    after all ranks finished when any failed; it carries the summaries of the others.
    """
    files = run_files(run, span)
    if jobs is not None and jobs < 1:
        raise InputError("--jobs", "must be at least 1")
    root = _workspace_root(workspace)
    jobs = jobs or default_jobs(len(files))
    shared = shares_cores(jobs, scheduler)
    results: dict[int, dict[str, Any]] = {}
    failures: dict[int, RankFailure] = {}
    with _executor(jobs, scheduler) as executor:
        futures: dict[Future[dict[str, Any]], int] = {
            executor.submit(
                summarise_file, _absolute(f), f.format, f.worker, f.span, root, shared, options
            ): i
            for i, f in enumerate(files)
        }
        for done, future in enumerate(as_completed(futures), 1):
            i, f = futures[future], files[futures[future]]
            try:
                outcome = future.result()
            except Exception as exc:  # the process running it died (OOM killer, lost worker)
                died = f"analysis process died: {type(exc).__name__}: {exc}"
                outcome = {"error": f"{source_name(f.source)}: {died}"}
            if "summary" in outcome:
                results[i] = outcome["summary"]
            else:
                failures[i] = RankFailure(f.worker, f.span, source_name(f.source), outcome["error"])
                log.info("rank %s failed: %s", f.worker, outcome["error"])
            if progress is not None:
                progress(done, len(files))
    summaries = [results[i] for i in sorted(results)]
    if failures:
        raise RankFailures(run, [failures[i] for i in sorted(failures)], summaries)
    return summaries
