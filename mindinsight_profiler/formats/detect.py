"""Choose the reader for an input: one reader per format, picked by discovery's tag."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats.ascend.reader import read_ascend_pt
from mindinsight_profiler.formats.discovery import folder_format
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.kineto.reader import read_kineto
from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy
from mindinsight_profiler.formats.mindspore.reader_v2 import read_mindspore2
from mindinsight_profiler.model.trace import Trace

FORMATS = ("kineto", "ascend_pt", "mindspore2", "mindspore_legacy")


def read_trace(
    path: Path, fmt: str | None = None, worker: str = "", progress: ProgressFn | None = None
) -> Trace:
    """Read one worker's profile (a file or a folder) into the normalised model.

    `fmt` is discovery's tag; without it the format is recognised from the path.
    """
    if fmt is None:
        fmt = folder_format(path) or "kineto"
    if fmt == "kineto":
        return read_kineto(path, progress)
    if fmt == "ascend_pt":
        return read_ascend_pt(path, progress)
    if fmt == "mindspore2":
        return read_mindspore2(path)
    if fmt == "mindspore_legacy":
        rank = int(worker[4:]) if worker.startswith("rank") and worker[4:].isdigit() else None
        return read_mindspore_legacy(path, rank)
    raise InputError(path, f"unknown input format {fmt!r}")
