"""One timeline for several ranks of a run: gather them (CLI side), write them (both sides).

`gather_ranks` reads each worker's model through the pipeline (memory-mapped from the
workspace cache, analysed first when missing), keeps the wanted ranks and asks the advisor
for their evidence ranges; the server builds the same `RankInput`s from its cache instead.
`write_merged` writes a `MergedTimeline` as a Perfetto protobuf or Chrome-trace JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.perfetto import RankCounts, write_perfetto
from mindinsight_profiler.export.ranks import (
    MergedTimeline,
    RankInput,
    annotations_of,
    distinct_ranks,
    pick_ranks,
    rank_number,
)
from mindinsight_profiler.export.timeline_json import write_timeline_json
from mindinsight_profiler.formats.discovery import Run
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import load_trace
from mindinsight_profiler.store.cache import Workspace

FORMATS = ("perfetto", "json")
SUFFIX = {"perfetto": ".perfetto-trace", "json": ".json"}


def gather_ranks(
    run: Run,
    wanted: list[int] | None,
    workspace: Workspace | None = None,
    options: Options = DEFAULT_OPTIONS,
    rules_dirs: Sequence[str | Path] = (),
    span: str | None = None,
    advice: bool = True,
) -> list[RankInput]:
    """The wanted ranks of `run` (all when None) with their advisor annotations, in rank
    order; ValueError naming a rank the run does not have."""
    found = []
    for position, worker in enumerate(run.workers):
        file = run.select(worker, span)
        trace = load_trace(file.source, workspace, None, file.format, file.worker, options)
        found.append((RankInput(rank_number(trace, position), worker, trace), file))
    files = {r.worker: f for r, f in found}
    picked = pick_ranks(distinct_ranks([r for r, _ in found]), wanted)
    if not advice:
        return picked
    out = []
    for r in picked:
        notes = annotations_of(advise_file(files[r.worker], run, workspace, rules_dirs, options))
        out.append(RankInput(r.rank, r.worker, r.trace, notes))
    return out


def write_merged(merged: MergedTimeline, path: str | Path, fmt: str) -> list[RankCounts]:
    """`merged` as `fmt` ("perfetto" or "json") at `path`; what was written per rank."""
    if fmt == "perfetto":
        return write_perfetto(merged, path)
    if fmt == "json":
        return write_timeline_json(merged, path)
    raise ValueError(f"unknown timeline format {fmt!r} (perfetto or json)")
