"""Where the memory of a cold analysis goes: RSS at each stage's start and end, and its peak.

Runs what `mindinsight analyse` does (read, report, cache write) in this process while a
thread samples the process's RSS every few milliseconds; the reader's, the report's and the
cache's stages are wrapped so that each row says the RSS when the stage began, when it
ended, and the highest sample in between (the stage's working set is peak - start). Rows
nest: a stage inside another is indented. RSS also counts freed pages glibc has not handed
back yet; `--tracemalloc` adds what Python and numpy really hold (slower).

The report's forked child (`analysis.report`, traces of 0.2-4 M events) is turned off by
default so that every section's memory shows in this process, as on the 10 GB trace where
no child is forked; `--fork` keeps it.

    PYTHONPATH=$PWD python bench/memory_stages.py TRACE [--fork] [--tracemalloc]
        [--wrap MODULE:FUNCTION ...] [--cached WORKSPACE] [--json OUT]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(BENCH_DIR.parent))

PAGE = os.sysconf("SC_PAGE_SIZE")
INTERVAL_S = 0.005


def rss_mb() -> tuple[float, float]:
    """(RSS, its anonymous part) in MB: the rest is mapped files (page cache the kernel can
    reclaim, e.g. spilled or cached columns)."""
    with open("/proc/self/statm") as fh:
        fields = fh.read().split()
    resident, shared = int(fields[1]), int(fields[2])
    return resident * PAGE / 2**20, (resident - shared) * PAGE / 2**20


class Sampler(threading.Thread):
    """Keeps the highest RSS seen since each open stage began."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.open: list[dict[str, Any]] = []
        self.rows: list[dict[str, Any]] = []
        self.peak = 0.0
        self.anon_peak = 0.0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(INTERVAL_S):
            self.sample()

    def sample(self) -> float:
        now, anon = rss_mb()
        self.peak = max(self.peak, now)
        self.anon_peak = max(self.anon_peak, anon)
        for row in list(self.open):
            row["peak_mb"] = max(row["peak_mb"], now)
            row["anon_peak_mb"] = max(row.get("anon_peak_mb", anon), anon)
        return now

    def traced(self) -> float:
        """With tracemalloc on: the traced (Python and numpy) MB now; the peak since the last
        call is folded into every open stage's `traced_peak_mb`."""
        if not tracemalloc.is_tracing():
            return 0.0
        now, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for row in self.open:
            row["traced_peak_mb"] = max(row["traced_peak_mb"], peak / 2**20)
        return now / 2**20

    def stage(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            start = self.sample()
            traced = self.traced()
            row = {"stage": name, "depth": len(self.open), "start_mb": start, "peak_mb": start}
            row.update(traced_mb=traced, traced_peak_mb=traced)
            row["t0"] = time.perf_counter()
            self.rows.append(row)
            self.open.append(row)
            try:
                return fn(*args, **kwargs)
            finally:
                row["traced_end_mb"] = self.traced()
                row["end_mb"] = self.sample()
                row["wall_s"] = time.perf_counter() - row.pop("t0")
                self.open.remove(row)

        return wrapped

    def stop(self) -> None:
        self._halt.set()
        self.join()

    def table(self) -> str:
        lines = [
            "| stage | wall s | start MB | peak MB | end MB | +peak | +kept | anon peak MB "
            "| traced +peak,kept |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in self.rows:
            name = "&nbsp;&nbsp;" * r["depth"] + r["stage"]
            lines.append(
                f"| {name} | {r['wall_s']:.2f} | {r['start_mb']:.0f} | {r['peak_mb']:.0f} | "
                f"{r['end_mb']:.0f} | {r['peak_mb'] - r['start_mb']:+.0f} | "
                f"{r['end_mb'] - r['start_mb']:+.0f} | {r.get('anon_peak_mb', 0):.0f} | "
                f"{r['traced_peak_mb'] - r['traced_mb']:+.0f}, "
                f"{r['traced_end_mb'] - r['traced_mb']:+.0f} |"
            )
        lines.append(
            f"\nprocess peak (sampled): {self.peak:.0f} MB, anonymous {self.anon_peak:.0f} MB"
        )
        return "\n".join(lines)


def _wrap(sampler: Sampler, owner: Any, attr: str, name: str) -> None:
    setattr(owner, attr, sampler.stage(name, getattr(owner, attr)))


def instrument(sampler: Sampler, fork: bool) -> None:
    """Wrap the stages where they are looked up (module globals, methods, section specs)."""
    from mindinsight_profiler.analysis import report as report_module
    from mindinsight_profiler.analysis import sections
    from mindinsight_profiler.formats.kineto import merge, reader
    from mindinsight_profiler.model import links
    from mindinsight_profiler.pipeline import reports

    if not fork:
        report_module.FORK_MAX_EVENTS = 0
    _wrap(sampler, reports, "_read", "read")
    _wrap(sampler, reader, "_read_columns", "stream, decode, add batches")
    _wrap(sampler, merge.ColumnMerger, "columns", "concatenate columns")
    _wrap(sampler, reader, "build_links", "build_links")
    for fn in ("_nest", "_link_runtimes", "_link_device_work"):
        _wrap(sampler, links, fn, fn)
    _wrap(sampler, reports, "_report", "report")
    _wrap(sampler, reports, "to_report", "report contract (typed)")
    for section in sections.SECTIONS:
        object.__setattr__(section, "build", sampler.stage(section.key, section.build))
    for prop in sections.SHARED:
        cached = sections.ReportInputs.__dict__.get(prop)
        if cached is not None:
            cached.func = sampler.stage(f"shared: {prop}", cached.func)
    _wrap(sampler, reports, "_save", "cache write")


def report_of_cached(path: Path, workspace: Any) -> None:
    """The report of the trace cached for `path`, its columns first copied out of the
    memory-mapped files (so RSS counts them once, as after a read)."""
    from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS
    from mindinsight_profiler.pipeline import reports

    trace = reports.load_trace(path, workspace)
    for table in (trace.events, trace.memory, trace.flows):
        for name, column in table.items():
            table[name] = np.array(column)
    reports._report(trace, path, "", DEFAULT_OPTIONS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", type=Path)
    parser.add_argument("--fork", action="store_true", help="keep the report's forked child")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument(
        "--cached", type=Path, metavar="WORKSPACE",
        help="measure the report only, on the trace cached in this workspace (copied into "
        "memory, as a read leaves it): the report's stages without a read each time",
    )  # fmt: skip
    parser.add_argument("--tracemalloc", action="store_true", help="also trace allocations")
    parser.add_argument(
        "--wrap", action="append", default=[], metavar="MODULE:FUNCTION",
        help="also a row for this function (looked up as a module global), e.g. "
        "mindinsight_profiler.analysis.operators.stats:_inner_time",
    )  # fmt: skip
    args = parser.parse_args(argv)
    from mindinsight_profiler.pipeline import reports
    from mindinsight_profiler.store.cache import Workspace

    if args.tracemalloc:
        tracemalloc.start()
    sampler = Sampler()
    sampler.start()
    instrument(sampler, args.fork)
    for spec in args.wrap:
        module, _, name = spec.partition(":")
        _wrap(sampler, importlib.import_module(module), name, name)
    started = time.perf_counter()
    if args.cached:
        report_of_cached(args.trace, Workspace(args.cached))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            reports.analyse_file(args.trace, Workspace(Path(tmp)))
    wall = time.perf_counter() - started
    sampler.stop()
    print(f"{args.trace}: {wall:.1f} s")
    print(sampler.table())
    if args.json:
        args.json.write_text(json.dumps({"wall_s": wall, "rows": sampler.rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
