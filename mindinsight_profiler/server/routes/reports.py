"""A worker's report to share, as a download: one HTML page, an Excel workbook or a summary.

The same files `mindinsight report` writes (`export.write.write_format`), laid out from the
cached report and the stored advice the dashboard shows, so the download agrees with the
page it was taken from. Nothing is analysed in a request: an input whose report or advice
is not stored yet answers 409 `not_ready` (422 when its analysis failed), as every route
does. The file is written to a temporary path that is unlinked as soon as it is open, so
an aborted download leaves nothing behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response

from mindinsight_profiler.export.bundle import ReportBundle
from mindinsight_profiler.export.names import SUFFIX, file_stem
from mindinsight_profiler.export.write import write_format
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.routes.common import download, endpoint
from mindinsight_profiler.server.services import services

bp = Blueprint("reports", __name__)

MIMETYPE = {
    "html": "text/html; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "md": "text/markdown; charset=utf-8",
}


def bundle_of(target: access.Target) -> ReportBundle:
    """The bundle from what the dashboard serves: the report parsed once per process and
    the stored advice (never `export.bundle.gather` here: on a cache miss it would analyse
    and advise inside the request). The source is named as errors name it (no server path)."""
    return ReportBundle(
        run=target.run.name,
        worker=target.file.worker,
        span=target.file.span,
        source=services().public(str(target.file.path)),
        report=access.report(target),
        advice=access.advice(target),
    )


@endpoint(bp, "/runs/<run>/report", schemas.ReportQuery, None)
def report_download(run: str, p: dict[str, Any]) -> Response:
    """Download the worker's report: one self-contained HTML page, an Excel workbook or a
    Markdown summary, in English or Chinese."""
    target = access.resolve(run, p.get("worker"), p.get("span"))
    bundle = bundle_of(target)
    access.trace(target)  # the workbook's tables read the cached trace: 409 until it is there
    fmt = p["format"]

    def write(path: Path) -> None:
        write_format(fmt, bundle, path, p["lang"], target.file, access.workspace(),
                     services().settings.options)  # fmt: skip

    name = file_stem(target.run.name, target.file.worker) + SUFFIX[fmt]
    return download(write, name, MIMETYPE[fmt])
