"""Find runs, workers and spans in a log directory.

A run is a folder holding profiler output of one or more workers:
- Kineto traces `<worker>[.<span>].pt.trace.json[.gz]` (TensorBoard plugin layout); a trace
  file given directly is a run of its own, and then any `*.json[.gz]` name is accepted; in
  a local folder without such names, `*.json[.gz]` files whose text starts like a trace
  (`export_chrome_trace` output, HTA's data);
- Ascend PyTorch `*_ascend_pt/` and MindSpore 2.x `*_ascend_ms/` folders, one per worker;
- MindSpore legacy profiler folders (`step_trace_raw_<rank>_detail_time.csv`, ...), one
  worker per rank.

Kineto traces of several workers in one folder are the ranks of one job only when their
headers say so (`ranks_of_one_job`); otherwise each worker is a run of its own, named
`<folder>/<worker>` (`Run.part`), whose spans stay together. Worker folders side by side
are the ranks of one run (their parent), unless two of them name the same worker (MindSpore
legacy folders each holding rank0..N): then each folder is a run of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mindinsight_profiler.errors import InputError
from mindinsight_profiler.formats import registry
from mindinsight_profiler.formats.sources import RemoteInput, Source
from mindinsight_profiler.formats.spec import FormatTag
from mindinsight_profiler.formats.tree import ROOT, LocalTree, Tree

_TRACE_NAME = re.compile(r"^(?P<worker>.*?)(?:\.(?P<span>\d+))?\.pt\.trace\.json(?:\.gz)?$")
_ANY_JSON = re.compile(r"^(?P<worker>.*?)\.json(?:\.gz)?$")


@dataclass(frozen=True)
class TraceFile:
    """One worker's profile: a trace file, or a folder for the folder-shaped formats."""

    worker: str
    span: str
    path: Path
    format: str = FormatTag.KINETO  # a `FormatTag` (a str): see formats/registry.py
    #: Set for an input in object storage: `path` is then where it is staged locally.
    remote: RemoteInput | None = None

    @property
    def source(self) -> Source:
        """What the pipeline reads: the local path, or the remote input (staged first)."""
        return self.remote if self.remote is not None else self.path


@dataclass
class Run:
    name: str
    path: Path
    files: list[TraceFile] = field(default_factory=list)
    #: What discovery left out of the run and why (e.g. a JSON file that is not a trace).
    notes: list[str] = field(default_factory=list)
    #: Set when `path` holds several runs (unrelated single-worker traces): the worker this
    #: run is, also the last part of `name`. Empty for a run that is its whole folder.
    part: str = ""

    @property
    def folder_name(self) -> str:
        """The name of the folder the run lies in (`name` less `part`)."""
        return self.name[: -len(self.part) - 1] if self.part else self.name

    @property
    def workers(self) -> list[str]:
        return sorted({f.worker for f in self.files})

    def by_worker(self, span: str | None = None) -> dict[str, TraceFile]:
        """`select(worker, span)` of every worker that has the span, in one pass over the
        files (a `select` per worker scans them all: a million steps for 1,000 ranks)."""
        best: dict[str, TraceFile] = {}
        for f in self.files:
            if span is not None and f.span != span:
                continue
            found = best.get(f.worker)
            if found is None or f.span < found.span:
                best[f.worker] = f
        return {worker: best[worker] for worker in sorted(best)}

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


#: What `analyse` and `open_run` say of a location with none of the inputs this reads.
NO_OUTPUT = (
    "no profiler output found (*.pt.trace.json[.gz], *_ascend_pt, *_ascend_ms, "
    "MindSpore profiler folders)"
)


def discover(path: str | Path) -> list[Run]:
    """Runs under `path` (a trace file, a run folder, or a folder of run folders)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    if path.is_file():
        parsed = parse_name(path.name, strict=False)
        worker, span = parsed if parsed else (path.name, "")
        return [Run(path.parent.name or path.name, path.parent, [TraceFile(worker, span, path)])]
    return discover_tree(LocalTree(path), lambda rel: path / rel)


def discover_tree(tree: Tree, place: Callable[[PurePosixPath], Path]) -> list[Run]:
    """Runs in a folder given as a tree (local, or a listing of object keys).

    `place` turns a path relative to the tree's root into the path the runs carry (the
    local folder, or where a remote input will be staged).
    """
    if _format(tree, ROOT) is not None:  # a worker folder given directly
        return [Run(tree.name(ROOT), place(ROOT), _folder_files(tree, ROOT, place))]
    entries = tree.entries()
    workers = [e for e in entries if _format(tree, e) and not _inside_worker_folder(tree, e)]
    files = [f for f in entries if tree.is_file(f) and not any(w in f.parents for w in workers)]
    runs = _group_runs(tree, files, place, strict=True)
    # Traces not named like `*.pt.trace.json` (HTA's data, `export_chrome_trace` output) are
    # taken only when their text starts like a trace: beside traces lie other JSON files
    # (CUDA-graph capture's `execution_details.json`, configs), which are noted, not read.
    taken = {r.path for r in runs}
    plain = [f for f in files if place(f.parent) not in taken and _ANY_JSON.match(f.name)]
    runs += _group_runs(tree, [f for f in plain if _is_trace(tree, f)], place, strict=False)
    by_path = {r.path: r for r in runs}
    read = {f.path for r in runs for f in r.files}
    for f in files:
        run = by_path.get(place(f.parent))
        if run is not None and _ANY_JSON.match(f.name) and place(f) not in read:
            run.notes.append(f"{f.name}: not a trace (no traceEvents at its start), ignored")
    for parent, folders in _by_parent(tree, workers, place).items():
        if len(folders) > 1 and _workers_collide([f for _, f in folders]):
            # e.g. MindSpore legacy folders side by side, each holding its own rank0..N:
            # the same worker twice is not one job, so each folder is a run of its own
            for folder, own in folders:
                by_path.setdefault(place(folder), Run(str(folder), place(folder), own))
            continue
        name = tree.name(ROOT) if parent == ROOT else str(parent)
        run = by_path.setdefault(place(parent), Run(name, place(parent)))
        for _, own in folders:
            run.files.extend(own)
    split = [part for run in by_path.values() for part in _split(tree, run, place)]
    return sorted(split, key=lambda r: (r.folder_name, r.part))


def _by_parent(
    tree: Tree, workers: list[PurePosixPath], place: Callable[[PurePosixPath], Path]
) -> dict[PurePosixPath, list[tuple[PurePosixPath, list[TraceFile]]]]:
    """Worker folders grouped by the folder they lie in, each with its workers' files."""
    out: dict[PurePosixPath, list[tuple[PurePosixPath, list[TraceFile]]]] = {}
    for folder in workers:
        out.setdefault(folder.parent, []).append((folder, _folder_files(tree, folder, place)))
    return out


def _workers_collide(groups: list[list[TraceFile]]) -> bool:
    """Whether two folders name the same worker (and span)."""
    seen: set[tuple[str, str]] = set()
    for files in groups:
        keys = {(f.worker, f.span) for f in files}
        if keys & seen:
            return True
        seen |= keys
    return False


def pick_run(runs: list[Run], worker: str | None = None, name: str | None = None) -> Run:
    """The run a command reads when a location holds several: the one called `name` (its
    whole name or its last part, e.g. `cnn_nw2_active5` of `small/cnn_nw2_active5`), else
    the first one that has `worker` (so `--worker W` picks the run of W), else the first."""
    if name is not None:
        found = [r for r in runs if name in (r.name, r.name.rsplit("/", 1)[-1], r.part)]
        if len(found) != 1:
            names = ", ".join(r.name for r in runs)
            why = "no run" if not found else "several runs"
            raise InputError(runs[0].path, f"{why} called {name!r}; runs: {names}")
        runs = found
    if worker is not None and len(runs) > 1:
        for run in runs:
            if worker in run.workers:
                return run
        found_workers = ", ".join(sorted({w for run in runs for w in run.workers}))
        raise InputError(runs[0].path, f"no run has worker {worker}; workers: {found_workers}")
    return runs[0]


def several_runs_note(runs: list[Run], chosen: Run, doing: str) -> str:
    """What a command says when a location holds several runs: which it reads and how to
    pick another."""
    others = ", ".join(r.name for r in runs if r is not chosen)
    return (
        f"mindinsight: {len(runs)} runs found, {doing} {chosen.name} "
        f"(others: {others}; pick one with --run NAME)"
    )


#: Ranks of one job start their profiles together; first events further apart than this
#: are taken as separate runs (only when every header tells its start).
RANK_START_SPREAD_US = 3600 * 1e6


@dataclass(frozen=True)
class TraceHeader:
    """What a Kineto trace's first `SNIFF_BYTES` tell about its job."""

    rank: int | None = None
    world_size: int | None = None
    #: The earliest event timestamp in the head, in microseconds since the epoch
    #: (`baseTimeNanoseconds` added where the trace has it), or None.
    start_us: float | None = None
    #: False when the head is no trace's (a broken file, a link to something else): such a
    #: file tells nothing about its job and splits none.
    is_trace: bool = True


def trace_header(tree: Tree, file: PurePosixPath) -> TraceHeader | None:
    """`distributedInfo` rank/world size and first timestamps from the head of a trace;
    None when the tree cannot read it."""
    head = tree.head(file, SNIFF_BYTES)
    if head is None:
        return None
    if not head.lstrip().startswith(b"{") or not any(key in head for key in _TRACE_KEYS):
        return TraceHeader(is_trace=False)
    text = head.decode("utf-8", errors="replace")
    rank = world = None
    info = _json_after(text, '"distributedInfo"')
    if isinstance(info, dict):
        rank, world = _int(info.get("rank")), _int(info.get("world_size"))
    start = None
    events = text.find('"traceEvents"')
    if events >= 0:
        stamps = [float(m) for m in _TS.findall(text, events)]
        stamps = [t for t in stamps if t > 0]
        if stamps:
            base = _int(_json_after(text, '"baseTimeNanoseconds"'))
            start = min(stamps) + (base / 1000 if base is not None else 0.0)
    return TraceHeader(rank, world, start)


def ranks_of_one_job(headers: list[TraceHeader]) -> bool:
    """Whether traces of several workers (each worker's first file's header) are the ranks of
    one job: each names an integer rank in `distributedInfo`, all one world size, no rank
    twice, and, where every head tells its start, the starts within `RANK_START_SPREAD_US`."""
    ranks = [h.rank for h in headers]
    if any(r is None for r in ranks) or len(set(ranks)) != len(ranks):
        return False
    worlds = {h.world_size for h in headers}
    if len(worlds) != 1 or None in worlds:
        return False
    starts = [h.start_us for h in headers]
    if all(s is not None for s in starts):
        known = [s for s in starts if s is not None]
        return max(known) - min(known) <= RANK_START_SPREAD_US
    return True


#: A timestamp, only where its number ends inside the head: the head may cut one short
#: (`"ts": 4` of `"ts": 4776274979553.03`), which would read as a start hours earlier.
_TS = re.compile(r'"ts"\s*:\s*"?(\d+(?:\.\d+)?)(?=[\s,}"\]])')


def _json_after(text: str, key: str) -> object:
    """The JSON value after the first `key:` in `text`, or None (absent or cut off)."""
    at = text.find(key)
    if at < 0:
        return None
    colon = text.find(":", at + len(key))
    if colon < 0:
        return None
    start = colon + 1
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except ValueError:
        return None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _split(tree: Tree, run: Run, place: Callable[[PurePosixPath], Path]) -> list[Run]:
    """The run itself, or one run per worker when its Kineto traces are not one job's
    (workers whose first file is not a trace at all are left out of the decision)."""
    workers = run.workers
    if len(workers) < 2 or any(f.format != FormatTag.KINETO for f in run.files):
        return [run]
    root = place(ROOT)
    headers = []
    for worker in workers:
        first = run.select(worker)
        try:
            rel = PurePosixPath(first.path.relative_to(root).as_posix())
        except ValueError:
            return [run]
        header = trace_header(tree, rel)
        if header is None:  # contents unreadable: nothing to tell them apart by
            return [run]
        if header.is_trace:
            headers.append(header)
    if len(headers) < 2 or ranks_of_one_job(headers):
        return [run]
    owner = {note: _owner(note, workers) for note in run.notes}  # None: the folder's
    return [
        Run(
            f"{run.name}/{w}",
            run.path,
            [f for f in run.files if f.worker == w],
            [note for note in run.notes if owner[note] in (w, None)],
            part=w,
        )
        for w in workers
    ]


def _owner(note: str, workers: list[str]) -> str | None:
    """The worker whose file a note names (`<worker>.meta.json: ...`), if any."""
    named = [w for w in workers if note.startswith(f"{w}.")]
    return max(named, key=len) if named else None


#: How much of a plain-named JSON file is read to tell a trace from other JSON.
SNIFF_BYTES = 64 * 1024
_TRACE_KEYS = (b'"traceEvents"', b'"schemaVersion"')


def _is_trace(tree: Tree, file: PurePosixPath) -> bool:
    """Whether a `*.json[.gz]` file (not named `*.pt.trace.json`) is a Kineto/Chrome trace:
    an object whose first 64 KB hold `traceEvents` or Kineto's `schemaVersion`
    (`prof.export_chrome_trace("trace.json")` and HTA's data are named freely)."""
    if parse_name(file.name, strict=False) is None:
        return False
    head = tree.head(file, SNIFF_BYTES)
    if not head or not head.lstrip().startswith(b"{"):
        return False
    return any(key in head for key in _TRACE_KEYS)


def folder_format(folder: Path) -> str | None:
    """The format of a worker folder, or None if it is not one."""
    return _format(LocalTree(folder), ROOT)


def _format(tree: Tree, rel: PurePosixPath) -> str | None:
    """The format of the tree's folder `rel`, or None if it is not a worker folder."""
    if not tree.is_dir(rel):
        return None
    return next(
        (s.tag for s in registry.FORMATS if s.detect is not None and s.detect(tree, rel)), None
    )


def _inside_worker_folder(tree: Tree, folder: PurePosixPath) -> bool:
    """True for folders within another worker folder (they belong to that worker)."""
    return any(_format(tree, p) for p in folder.parents if p != ROOT)


def _folder_files(
    tree: Tree, folder: PurePosixPath, place: Callable[[PurePosixPath], Path]
) -> list[TraceFile]:
    fmt = _format(tree, folder)
    spec = registry.spec_of(fmt) if fmt is not None else None
    if spec is None:
        return [TraceFile(tree.name(folder).rsplit("_ascend_", 1)[0], "", place(folder))]
    return [TraceFile(w, "", place(rel), spec.tag) for w, rel in spec.workers(tree, folder)]


def _group_runs(
    tree: Tree, files: list[PurePosixPath], place: Callable[[PurePosixPath], Path], strict: bool
) -> list[Run]:
    runs: dict[PurePosixPath, Run] = {}
    for file in files:
        parsed = parse_name(file.name, strict)
        if parsed is None:
            continue
        folder = file.parent
        name = tree.name(ROOT) if folder == ROOT else str(folder)
        run = runs.setdefault(folder, Run(name, place(folder)))
        run.files.append(TraceFile(parsed[0], parsed[1], place(file)))
    return sorted(runs.values(), key=lambda r: r.name)
