"""One entry for every report format: write a bundle as `fmt` to `target`, atomically."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.analysis.options import DEFAULT_OPTIONS, Options
from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.formats.discovery import TraceFile
from mindinsight_profiler.store.atomic import write_atomic
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
    it, so a reader never sees half a report, with the mode of any new file: it is to share).
    `file` gives the tables read from the trace."""
    if fmt == "html":
        from mindinsight_profiler.export.html import render_html

        text = render_html(bundle, lang)
        write_atomic(target, lambda f: f.write(text), "w", shared=True)
    elif fmt == "md":
        from mindinsight_profiler.export.markdown import render_markdown

        text = render_markdown(bundle, lang)
        write_atomic(target, lambda f: f.write(text), "w", shared=True)
    elif fmt == "xlsx":
        from mindinsight_profiler.export.xlsx import write_xlsx

        write_atomic(
            target, lambda f: write_xlsx(bundle, f, lang, file, workspace, options), "wb",
            shared=True,
        )  # fmt: skip
    else:
        raise ValueError(f"unknown report format {fmt!r}")
