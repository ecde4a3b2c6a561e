"""Find runs, workers and spans in a log directory (TensorBoard plugin layout).

A run is a folder holding trace files; each file is one worker's span, named
`<worker>[.<span>].pt.trace.json[.gz]`. A trace file given directly is a run of its own,
and then any `*.json[.gz]` name is accepted.
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
    worker: str
    span: str
    path: Path


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
        parsed = parse_name(path.name, strict=True)
        worker, span = parsed if parsed else (path.name, "")
        return [Run(path.parent.name or path.name, path.parent, [TraceFile(worker, span, path)])]
    files = sorted(f for f in path.rglob("*") if f.is_file())
    runs = _group_runs(path, files, strict=True)
    # Folders of traces not named like `*.pt.trace.json` (HTA's test data, renamed copies).
    return runs or _group_runs(path, files, strict=True)


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
