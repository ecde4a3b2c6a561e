"""Everything a shared report shows about one worker, gathered once for every format.

The figures are the ones the dashboard serves: the report is `report_for` of the cached
analysis (the same dict `mindinsight analyse --format json` prints and the API sections
are cut from), the advice is `advise_file`'s (the stored advice of the same rules), and the
extra tables are computed by the functions the API routes call. A format never analyses:
it only lays out a bundle, so the HTML, the workbook and the summary cannot disagree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindinsight_profiler._version import __version__
from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.analysis.schema import report_for
from mindinsight_profiler.formats.discovery import Run, TraceFile
from mindinsight_profiler.model.trace import Trace
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.pipeline.reports import analyse_file, load_trace
from mindinsight_profiler.store.cache import Workspace

#: Version of what the exported files hold (bumped when a sheet, section or field changes).
EXPORT_SCHEMA_VERSION = 1


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class ReportBundle:
    """One worker's analysis as every export format reads it (all times in us unless the
    key says otherwise, as in the JSON report)."""

    run: str  # the run's name, as the dashboard lists it
    worker: str
    span: str
    source: str  # the input's path or URL, as given
    report: dict[str, Any]  # report_for(...): the JSON report's sections
    advice: Advice
    generated_at: str = field(default_factory=_now)  # ISO 8601, UTC
    version: str = __version__


def gather(
    file: TraceFile,
    run: Run | None = None,
    workspace: Workspace | None = None,
    options: Options = DEFAULT_OPTIONS,
    rules_dirs: Sequence[str | Path] = (),
) -> ReportBundle:
    """The bundle of one worker: its cached report and advice (analysed when missing)."""
    typed, _ = analyse_file(file.source, workspace, None, file.format, file.worker, options)
    report = report_for(typed, file.worker, file.span)
    advice = advise_file(file, run, workspace, rules_dirs, options)
    return ReportBundle(
        run=run.name if run is not None else file.path.name,
        worker=file.worker,
        span=file.span,
        source=str(file.path),
        report=report,
        advice=advice,
    )


def trace_of(
    file: TraceFile, workspace: Workspace | None = None, options: Options = DEFAULT_OPTIONS
) -> Trace:
    """The worker's model (memory-mapped from the cache): for the tables a report does not
    hold (operators by input shape, memory allocations)."""
    return load_trace(file.source, workspace, None, file.format, file.worker, options)
