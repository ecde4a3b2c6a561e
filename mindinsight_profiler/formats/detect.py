"""Choose the reader for an input file (one reader per format; more arrive with new formats)."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.ascend_pt import is_ascend_pt, read_ascend_pt
from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.kineto import read_kineto
from mindinsight_profiler.model.trace import Trace


def read_trace(path: Path, progress: ProgressFn | None = None) -> Trace:
    """Read any supported trace file (or Ascend PyTorch output folder) into the model."""
    if is_ascend_pt(path):
        return read_ascend_pt(path, progress)
    return read_kineto(path, progress)
