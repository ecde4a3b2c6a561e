"""Find runs, workers and spans in a log directory.

A run is a folder holding profiler output of one or more workers:
- Kineto traces `<worker>[.<span>].pt.trace.json[.gz]` (TensorBoard plugin layout); a trace
  file given directly is a run of its own, and then any `*.json[.gz]` name is accepted;
- Ascend PyTorch `*_ascend_pt/` and MindSpore 2.x `*_ascend_ms/` folders, one per worker;
- MindSpore legacy profiler folders (`step_trace_raw_<rank>_detail_time.csv`, ...), one
  worker per rank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mindinsight_profiler.errors import InputError

_TRACE_NAME = re.compile(r"^(?P<worker>.*?)(?:\.(?P<span>\d+))?\.pt\.trace\.json(?:\.gz)?$")
_ANY_JSON = re.compile(r"^(?P<worker>.*?)\.json(?:\.gz)?$")


@dataclass(frozen=True)
class TraceFile:
    """One worker's profile: a trace file, or a folder for the folder-shaped formats."""

    worker: str
    span: str
    path: Path
    format: str = "kineto"  # kineto | ascend_pt | mindspore2 | mindspore_legacy


@dataclass
class Run:
    name: str
    path: Path
    files: list[TraceFile] = field(default_factory=list)

    @property
    def workers(self) -> list[str]:
        return sorted({f.worker for f in self.files})

    def select(self, worker: str | None = None, span: str | None = None) -> TraceFile:
        """The file of `worker`/`span`, defaulting to the first worker and its first span."""
        files = [f for f in self.files if worker is None or f.worker == worker]
        files = [f for f in files if span is None or f.span == span]
        if not files:
            choices = ", ".join(
                f"{f.worker}" + (f".{f.span}" if f.span else "") for f in self.files
            )
            raise InputError(
                self.path, f"no trace for worker={worker} span={span}; found: {choices}"
            )
        return sorted(files, key=lambda f: (f.worker, f.span))[0]


def parse_name(name: str, strict: bool = True) -> tuple[str, str] | None:
    """(worker, span) from a trace file name, or None if the name is not a trace's."""
    m = _TRACE_NAME.match(name)
    if m:
        return m.group("worker"), m.group("span") or ""
    if not strict:
        m = _ANY_JSON.match(name)
        if m:
            return m.group("worker"), ""
    return None


def discover(path: str | Path) -> list[Run]:
    """Runs under `path` (a trace file, a run folder, or a folder of run folders)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    if path.is_file():
        parsed = parse_name(path.name, strict=False)
        worker, span = parsed if parsed else (path.name, "")
        return [Run(path.parent.name or path.name, path.parent, [TraceFile(worker, span, path)])]
    if folder_format(path) is not None:  # a worker folder given directly
        return [Run(path.name, path, _folder_files(path))]
    entries = sorted(path.rglob("*"))
    workers = [e for e in entries if folder_format(e) and not _inside_worker_folder(e, path)]
    files = [f for f in entries if f.is_file() and not any(w in f.parents for w in workers)]
    runs = _group_runs(path, files, strict=True)
    # Folders of traces not named like `*.pt.trace.json` (HTA's test data, renamed copies);
    # only where no profiler folder was found, so their JSON side files are not taken.
    if not runs and not workers:
        runs = _group_runs(path, files, strict=False)
    by_path = {r.path: r for r in runs}
    for folder in workers:
        parent = folder.parent
        rel = parent.relative_to(path)
        run = by_path.setdefault(parent, Run(path.name if rel == Path(".") else str(rel), parent))
        run.files.extend(_folder_files(folder))
    return sorted(by_path.values(), key=lambda r: r.name)


_LEGACY_MARKERS = re.compile(
    r"^(step_trace_raw|aicore_intermediate|framework_raw|minddata_pipeline_raw|hccl_raw)_(\d+)"
)


def _legacy_ranks(folder: Path) -> list[str]:
    ranks = {m.group(2) for f in folder.iterdir() if (m := _LEGACY_MARKERS.match(f.name))}
    return sorted(ranks, key=int)


def folder_format(folder: Path) -> str | None:
    """The format of a worker folder, or None if it is not one."""
    if not folder.is_dir():
        return None
    if folder.name == "ASCEND_PROFILER_OUTPUT" and folder.parent.name.endswith("_ascend_pt"):
        return "ascend_pt"  # the export folder inside a worker folder, given directly
    if folder.name.endswith("_ascend_pt"):
        return "ascend_pt"
    if folder.name.endswith("_ascend_ms"):
        return "mindspore2"
    if _legacy_ranks(folder):
        return "mindspore_legacy"
    return None


def _inside_worker_folder(folder: Path, root: Path) -> bool:
    """True for folders within another worker folder (they belong to that worker)."""
    return any(folder_format(p) for p in folder.parents if root in p.parents)


def _folder_files(folder: Path) -> list[TraceFile]:
    fmt = folder_format(folder)
    if fmt == "mindspore_legacy":
        return [TraceFile(f"rank{r}", "", folder, fmt) for r in _legacy_ranks(folder)]
    if folder.name == "ASCEND_PROFILER_OUTPUT":
        folder = folder.parent
    worker = folder.name.rsplit("_ascend_", 1)[0]
    return [TraceFile(worker, "", folder, fmt or "kineto")]


def _group_runs(root: Path, files: list[Path], strict: bool) -> list[Run]:
    runs: dict[Path, Run] = {}
    for file in files:
        parsed = parse_name(file.name, strict)
        if parsed is None:
            continue
        folder = file.parent
        rel = folder.relative_to(root)
        run = runs.setdefault(folder, Run(root.name if rel == Path(".") else str(rel), folder))
        run.files.append(TraceFile(parsed[0], parsed[1], file))
    return sorted(runs.values(), key=lambda r: r.name)
