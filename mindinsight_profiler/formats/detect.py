"""Choose the reader for an input file (one reader per format; more arrive with new formats)."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.kineto import read_kineto
from mindinsight_profiler.formats.mindspore2 import is_mindspore2, read_mindspore2
from mindinsight_profiler.formats.mindspore_legacy import is_mindspore_legacy, read_mindspore_legacy
from mindinsight_profiler.model.trace import Trace


def read_trace(path: Path, progress: ProgressFn | None = None) -> Trace:
    """Read any supported trace file into the normalised model."""
    if is_mindspore2(path):
        return read_mindspore2(path)
    if is_mindspore_legacy(path):
        return read_mindspore_legacy(path)
    return read_kineto(path, progress)
