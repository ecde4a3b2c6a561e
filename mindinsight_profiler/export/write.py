"""One entry for every report format: write a bundle as `fmt` to `target`, atomically."""

from __future__ import annotations

import os
from pathlib import Path

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.store.atomic import umask, write_bytes_atomic
from mindinsight_profiler.store.cache import Workspace


def write_format(
    fmt: str,
    bundle: ReportBundle,
    target: Path,
    lang: str = "en",
    file: TraceFile | None = None,
    workspace: Workspace | None = None,
    options: Options = DEFAULT_OPTIONS,
) -> None:
    """`bundle` as `fmt` ("html", "xlsx" or "md") in `target` (a temporary file renamed over
    it, so a reader never sees half a report). `file` gives the tables read from the trace."""
    if fmt == "html":
        from mindinsight_profiler.export.html import render_html

        write_bytes_atomic(target, render_html(bundle, lang).encode())
    elif fmt == "md":
        from mindinsight_profiler.export.markdown import render_markdown

        write_bytes_atomic(target, render_markdown(bundle, lang).encode())
    elif fmt == "xlsx":
        from mindinsight_profiler.export.xlsx import write_xlsx

        write_xlsx(bundle, target, lang, file, workspace, options)
    else:
        raise ValueError(f"unknown report format {fmt!r}")
    os.chmod(target, 0o666 & ~umask())  # a file to share, not a temporary 0600 one
