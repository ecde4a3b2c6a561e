"""Choose the reader for an input: one reader per format, picked by discovery's tag."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import registry
from mindinsight_profiler.formats.discovery import folder_format
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.model.trace import Trace

#: Every format's tag, in registry order.
TAGS = tuple(spec.tag for spec in registry.FORMATS)


def read_trace(
    path: Path, fmt: str | None = None, worker: str = "", progress: ProgressFn | None = None
) -> Trace:
    """Read one worker's profile (a file or a folder) into the normalised model.

    `fmt` is discovery's tag; without it the format is recognised from the path.
    """
    if fmt is None:
        fmt = folder_format(path) or FormatTag.KINETO
    spec = registry.spec_of(fmt)
    if spec is None:
        raise InputError(path, f"unknown input format {fmt!r}")
    return spec.read(path, worker, progress)
