"""Ascend PyTorch (torch_npu) profiler output: trace_view.json and the CSV tables."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.model.trace import Trace


def _read(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    from mindinsight_profiler.formats.ascend.reader import read_ascend_pt  # the reader on use

    return read_ascend_pt(path, progress)


SPEC = FormatSpec(
    FormatTag.ASCEND_PT, "pytorch", _read, staged_subfolders=("ASCEND_PROFILER_OUTPUT",)
)
