"""One entry for every report format: write a bundle as `fmt` to `target`, atomically."""

from __future__ import annotations

import os
from pathlib import Path

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.store.atomic import write_bytes_atomic
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
    os.chmod(target, 0o666 & ~_umask())


def _umask() -> int:
    """The process's umask, read without changing it (os.umask sets it, which would race
    with other threads of a server); 022 where /proc does not say. A report is a file to
    share: it gets the mode any new file would, not the temporary file's 0600."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
