"""What the rest of the product needs to know about an input format, declared once.

Each family package (`kineto/`, `ascend/`, `mindspore/`) declares its `FormatSpec`s and
`registry.py` lists them: the reader dispatch (`detect.read_trace`), the framework shown in
the report, how discovery recognises a worker folder and names its workers, whether a
folder holds several workers (which the cache key must then name) and what remote staging
copies all follow the registry instead of comparing format strings.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mindinsight_profiler.formats.jsonstream import ProgressFn
from mindinsight_profiler.formats.tree import Tree
from mindinsight_profiler.model.trace import Trace


class FormatTag(enum.StrEnum):
    """A format's tag: a `str`, so JSON, cache keys and state files keep the same text."""

    KINETO = "kineto"
    ASCEND_PT = "ascend_pt"
    MINDSPORE2 = "mindspore2"
    MINDSPORE_LEGACY = "mindspore_legacy"


#: A reader: (the worker's file or folder, the worker's name, progress) -> the model.
Reader = Callable[[Path, str, "ProgressFn | None"], Trace]
#: Is the tree's folder a worker folder of this format?
Detect = Callable[[Tree, PurePosixPath], bool]
#: The workers of such a folder: (worker name, the folder its reader is given).
Workers = Callable[[Tree, PurePosixPath], list[tuple[str, PurePosixPath]]]


def folder_worker(tree: Tree, rel: PurePosixPath) -> list[tuple[str, PurePosixPath]]:
    """One worker per folder, named by the folder's name before `_ascend_` (`<host>_<pid>_...`)."""
    return [(tree.name(rel).rsplit("_ascend_", 1)[0], rel)]


@dataclass(frozen=True)
class FormatSpec:
    """One input format."""

    tag: FormatTag
    framework: str  # "pytorch" | "mindspore": the framework that writes this format
    read: Reader
    #: One folder holds several workers (legacy MindSpore ranks): the cache key names the worker.
    worker_in_key: bool = False
    #: Remote staging of a worker folder: the sub-folders its reader reads besides the
    #: folder's own files, and whether it reads the `minddata_profiling` folder beside it.
    #: None: the input is one file (plus its probe file), not a folder.
    staged_subfolders: tuple[str, ...] | None = None
    staged_beside: bool = False
    #: Folder formats: how discovery recognises a worker folder (None: found by file name).
    detect: Detect | None = None
    workers: Workers = folder_worker
