"""MindSpore profiler output: 2.x `*_ascend_ms` folders and legacy profiler dirs."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.formats.tree import Tree
from mindinsight_profiler.model.trace import Trace


def _read_v2(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    from mindinsight_profiler.formats.mindspore.reader_v2 import read_mindspore2

    return read_mindspore2(path)


def _read_legacy(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    """One rank of a legacy folder: discovery names its workers `rank<N>`."""
    from mindinsight_profiler.formats.mindspore.reader_legacy import read_mindspore_legacy

    rank = int(worker[4:]) if worker.startswith("rank") and worker[4:].isdecimal() else None
    return read_mindspore_legacy(path, rank)


#: Files that mark a legacy profiler folder, and the rank each belongs to.
_LEGACY_MARKERS = re.compile(
    r"^(step_trace_raw|aicore_intermediate|framework_raw|minddata_pipeline_raw|hccl_raw)_(\d+)"
)


def legacy_ranks(names: list[str]) -> list[str]:
    """The ranks whose files a legacy profiler folder holds, in rank order."""
    ranks = {m.group(2) for name in names if (m := _LEGACY_MARKERS.match(name))}
    return sorted(ranks, key=int)


def _legacy_workers(tree: Tree, rel: PurePosixPath) -> list[tuple[str, PurePosixPath]]:
    return [(f"rank{r}", rel) for r in legacy_ranks(tree.names(rel))]


V2_SPEC = FormatSpec(
    FormatTag.MINDSPORE2,
    "mindspore",
    _read_v2,
    staged_subfolders=("ASCEND_PROFILER_OUTPUT", "FRAMEWORK", "minddata_profiling"),
    staged_beside=True,
    detect=lambda tree, rel: tree.name(rel).endswith("_ascend_ms"),
)
LEGACY_SPEC = FormatSpec(
    FormatTag.MINDSPORE_LEGACY,
    "mindspore",
    _read_legacy,
    worker_in_key=True,
    staged_subfolders=(),
    detect=lambda tree, rel: bool(legacy_ranks(tree.names(rel))),
    workers=_legacy_workers,
)
