"""The Excel workbook (to be written: issue 20)."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.store.cache import Workspace


def write_xlsx(
    bundle: ReportBundle,
    target: Path,
    lang: str = "en",
    file: TraceFile | None = None,
    workspace: Workspace | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> None:
    """One sheet per table, numeric cells, units in the headers, frozen headers, filters."""
    raise NotImplementedError("xlsx workbook")
