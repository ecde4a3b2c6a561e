"""Kineto (PyTorch profiler) Chrome-trace JSON: decode, merge chunks, read."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.model.trace import Trace


def _read(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    from mindinsight_profiler.formats.kineto.reader import read_kineto  # the reader on use

    return read_kineto(path, progress)


SPEC = FormatSpec(FormatTag.KINETO, "pytorch", _read)
