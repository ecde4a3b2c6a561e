"""MindSpore profiler output: 2.x `*_ascend_ms` folders and legacy profiler dirs."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.model.trace import Trace


def _read_v2(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    from mindinsight_profiler.formats.mindspore.reader_v2 import read_mindspore2

    return read_mindspore2(path)


def _read_legacy(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    """One rank of a legacy folder: discovery names its workers `rank<N>`."""
    from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy

    rank = int(worker[4:]) if worker.startswith("rank") and worker[4:].isdigit() else None
    return read_mindspore_legacy(path, rank)


V2_SPEC = FormatSpec(
    FormatTag.MINDSPORE2,
    "mindspore",
    _read_v2,
    staged_subfolders=("ASCEND_PROFILER_OUTPUT", "FRAMEWORK", "minddata_profiling"),
    staged_beside=True,
)
LEGACY_SPEC = FormatSpec(
    FormatTag.MINDSPORE_LEGACY, "mindspore", _read_legacy, worker_in_key=True, staged_subfolders=()
)
