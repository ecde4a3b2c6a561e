"""Ascend PyTorch (torch_npu) profiler output: trace_view.json and the CSV tables."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.spec import FormatSpec, FormatTag
from mindinsight_profiler.formats.tree import Tree
from mindinsight_profiler.model.trace import Trace


def _read(path: Path, worker: str, progress: ProgressFn | None) -> Trace:
    from mindinsight_profiler.formats.ascend.reader import read_ascend_pt  # the reader on use

    return read_ascend_pt(path, progress)


#: The export folder inside a worker folder (`<host>_<pid>_<ts>_ascend_pt/`).
OUTPUT = "ASCEND_PROFILER_OUTPUT"


def _is_export(tree: Tree, rel: PurePosixPath) -> bool:
    """The export folder given directly: its worker is the folder around it."""
    return tree.name(rel) == OUTPUT and tree.parent_name(rel).endswith("_ascend_pt")


def _detect(tree: Tree, rel: PurePosixPath) -> bool:
    return _is_export(tree, rel) or tree.name(rel).endswith("_ascend_pt")


def _workers(tree: Tree, rel: PurePosixPath) -> list[tuple[str, PurePosixPath]]:
    folder = rel.parent if _is_export(tree, rel) else rel
    return [(tree.name(folder).rsplit("_ascend_", 1)[0], folder)]


SPEC = FormatSpec(
    FormatTag.ASCEND_PT,
    "pytorch",
    _read,
    staged_subfolders=(OUTPUT,),
    detect=_detect,
    workers=_workers,
)
