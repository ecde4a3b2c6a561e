"""Host events of torch_npu's profiler database in the model's columns.

The database holds what trace_view.json holds, as tables; this module and `db_device`
give them the shape the text reader gives them, so every analysis reads both alike:

- `PYTORCH_API` (times in ns, kept as TEXT): `op` rows -> CPU_OP (ProfilerStep#N included,
  with input shapes/dtypes and the call stack of `PYTORCH_CALLCHAINS`), `trace` rows (python
  frames) -> PYTHON_FUNCTION, task-queue `Enqueue`/`Dequeue@..` rows -> OTHER with category
  `enqueue`/`dequeue`, `mstx` ranges -> USER_ANNOTATION; each on its thread (`globalTid`:
  pid in the high 32 bits, tid in the low 32), in a process named `Python`.
- `CANN_API` -> RUNTIME ranges on the `CANN` process, named `<Level>@<api>` as in the text
  export (`AscendCL@aclnnMm`, `Node@launch`, `Hccl@Launch_Ffts`).
- `STEP_TIME` adds a `ProfilerStep#<id>` operator only where `PYTORCH_API` has none for a
  step (the step markers are otherwise PyTorch's own ranges, as in the text export).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.formats.ascend.db_names import CANN_PREFIX, Names, clean
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import EVENT_COLUMNS, Track, empty_columns

_HOST_KIND = {
    "op": (Kind.CPU_OP, "cpu_op"),
    "trace": (Kind.PYTHON_FUNCTION, "python_function"),
    "mstx": (Kind.USER_ANNOTATION, "mstx"),
    "queue": (Kind.OTHER, "enqueue"),
}


@dataclass
class Tracks:
    """(pid, tid) -> dense track code, in order of first use, with the tracks themselves."""

    index: dict[tuple[str, str], int] = field(default_factory=dict)
    tracks: list[Track] = field(default_factory=list)

    def code(self, pid: str, tid: str, process: str, thread: str, device: bool = False) -> int:
        key = (pid, tid)
        if key not in self.index:
            self.index[key] = len(self.tracks)
            self.tracks.append(Track(pid, tid, process, thread, is_device=device))
        return self.index[key]

    def threads(self, global_tid: np.ndarray, process: str, pid_label: str = "") -> np.ndarray:
        """Track codes of `globalTid` values (pid << 32 | tid), one thread each."""
        uniq, inverse = np.unique(global_tid, return_inverse=True)
        codes = np.empty(len(uniq), dtype=np.int32)
        for j, g in enumerate(uniq.tolist()):
            pid, tid = (g >> 32) & 0xFFFFFFFF, g & 0xFFFFFFFF
            codes[j] = self.code(pid_label or str(pid), str(tid), process, f"Thread {tid}")
        return codes[inverse.ravel()] if len(global_tid) else np.zeros(0, dtype=np.int32)


def columns(n: int) -> dict[str, np.ndarray]:
    return empty_columns(EVENT_COLUMNS, n)


@dataclass
class Host:
    """Host events plus what linking needs: each row's CONNECTION_IDS key."""

    cols: dict[str, np.ndarray]
    connection_key: np.ndarray  # PYTORCH_API.connectionId (a key into CONNECTION_IDS), -1
    #: PYTORCH_API's shape and dtype columns held each other's contents (read swapped)
    swapped: bool = False


def _callchains(db: DbFile, names: Names, wanted: np.ndarray) -> dict[int, int]:
    """Call stack code of each callchain id in `wanted` (frames joined by `;`)."""
    if not db.has("PYTORCH_CALLCHAINS") or not len(wanted):
        return {}
    c = db.ints("PYTORCH_CALLCHAINS", ["id", "stack", "stackDepth"])
    keep = np.isin(c["id"], wanted)
    order = np.lexsort((c["stackDepth"][keep], c["id"][keep]))
    ids, stacks = c["id"][keep][order], c["stack"][keep][order]
    out: dict[int, int] = {}
    bounds = np.flatnonzero(np.diff(ids)) + 1
    for part_ids, part in zip(np.split(ids, bounds), np.split(stacks, bounds), strict=True):
        if len(part_ids):
            text = ";".join(clean(names.text(s)) for s in part.tolist())
            out[int(part_ids[0])] = names.strings.intern(text) if text else -1
    return out


#: A shape cell: dims of each input (`32,64,55,55`), `;`-separated, possibly empty.
_SHAPE_CELL = re.compile(r"^[\d,\[\]\s;]*$")
#: Cells sampled to tell which of the two columns holds the shapes.
_SAMPLE = 500


def _shape_like(names: Names, ids: np.ndarray) -> float:
    """Share of the non-empty sampled cells that read as shapes."""
    texts = [clean(names.text(i)) for i in np.unique(ids[ids >= 0])[:_SAMPLE].tolist()]
    texts = [t for t in texts if t.strip("; ")]
    return sum(bool(_SHAPE_CELL.match(t)) for t in texts) / len(texts) if texts else 0.0


def _shape_columns(
    names: Names, shapes: np.ndarray, dtypes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:
    """(shapes, dtypes) as they are meant, and whether they were swapped. torch_npu's export
    writes each column's cells into the other (inputShapes holds `float;Scalar`, inputDtypes
    `32,64;`), so they are told apart by their contents: operator tables never show dtypes
    as shapes. Nothing is lost, so it is no warning (`meta["pytorch_api_swapped"]`)."""
    if _shape_like(names, shapes) < 0.5 <= _shape_like(names, dtypes):
        return dtypes, shapes, True
    return shapes, dtypes, False


def host_events(db: DbFile, names: Names, tracks: Tracks) -> Host:
    """`PYTORCH_API` rows as events (see module doc); empty when the table is absent."""
    if not db.has("PYTORCH_API"):
        return Host(columns(0), np.zeros(0, dtype=np.int64))
    cols_wanted = ["startNs", "endNs", "globalTid", "connectionId", "name", "inputShapes"]
    cols_wanted += ["inputDtypes", "callchainId", "type"]
    p = db.ints("PYTORCH_API", cols_wanted)
    n = len(p["startNs"])
    cols = columns(n)
    cols["start_ns"] = p["startNs"]
    cols["end_ns"] = np.maximum(p["endNs"], p["startNs"])
    cols["name"] = names.codes(p["name"])
    cols["track"] = tracks.threads(p["globalTid"], "Python")
    kind_of = {t: _HOST_KIND.get(label, (Kind.OTHER, "")) for t, label in names.api_types.items()}
    for t in np.unique(p["type"]).tolist():
        kind, cat = kind_of.get(t, (Kind.CPU_OP, "cpu_op") if t == -1 else (Kind.OTHER, ""))
        rows = p["type"] == t
        cols["kind"][rows] = kind
        if cat:
            cols["cat"][rows] = names.strings.intern(cat)
    dequeue = names.strings.intern("dequeue")
    is_dequeue = np.isin(cols["name"], names.strings.codes_where(lambda s: s.startswith("Dequeue")))
    cols["cat"][(cols["kind"] == Kind.OTHER) & is_dequeue] = dequeue
    ops = cols["kind"] == Kind.CPU_OP
    shapes, dtypes, swapped = _shape_columns(names, p["inputShapes"], p["inputDtypes"])
    cols["input_dims"] = np.where(ops, names.codes(shapes, clean), -1).astype(np.int32)
    cols["input_types"] = np.where(ops, names.codes(dtypes, clean), -1).astype(np.int32)
    chains = _callchains(db, names, np.unique(p["callchainId"][ops & (p["callchainId"] >= 0)]))
    if chains:
        cols["call_stack"] = np.array(
            [
                chains.get(c, -1) if o else -1
                for c, o in zip(p["callchainId"].tolist(), ops, strict=True)
            ],
            dtype=np.int32,
        )
    keys = np.where(ops | (cols["kind"] == Kind.OTHER), p["connectionId"], -1)
    return Host(cols, keys, swapped)


def cann_events(
    db: DbFile, names: Names, tracks: Tracks
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """`CANN_API` rows as RUNTIME ranges, and each row's connectionId."""
    if not db.has("CANN_API"):
        return columns(0), np.zeros(0, dtype=np.int64)
    c = db.ints("CANN_API", ["startNs", "endNs", "type", "globalTid", "connectionId", "name"])
    n = len(c["startNs"])
    cols = columns(n)
    cols["start_ns"] = c["startNs"]
    cols["end_ns"] = np.maximum(c["endNs"], c["startNs"])
    cols["kind"][:] = Kind.RUNTIME
    cols["track"] = tracks.threads(c["globalTid"], "CANN", "CANN")
    pairs = c["type"] * (1 << 32) + c["name"]
    uniq, inverse = np.unique(pairs, return_inverse=True)
    labels = []
    for pair in uniq.tolist():
        level = names.api_types.get(pair >> 32, "")
        prefix = CANN_PREFIX.get(level, level.capitalize())
        api = names.text(pair & 0xFFFFFFFF)
        labels.append(f"{prefix}@{api}" if prefix else api)
    cols["name"] = names.coded(labels)[inverse.ravel()] if n else cols["name"]
    return cols, c["connectionId"]


def missing_steps(db: DbFile, names: Names, host: Host) -> dict[str, np.ndarray]:
    """`ProfilerStep#<id>` operators for `STEP_TIME` rows that `PYTORCH_API` does not mark,
    on the thread holding the most operators (the training loop's)."""
    if not db.has("STEP_TIME"):
        return columns(0)
    s = db.ints("STEP_TIME", ["id", "startNs", "endNs"])
    present = set(names.strings.lookup(np.unique(host.cols["name"][host.cols["name"] >= 0])))
    rows = [j for j, i in enumerate(s["id"].tolist()) if f"ProfilerStep#{i}" not in present]
    ops = host.cols["track"][host.cols["kind"] == Kind.CPU_OP]
    if not rows or not len(ops):
        return columns(0)
    cols = columns(len(rows))
    cols["start_ns"] = s["startNs"][rows]
    cols["end_ns"] = np.maximum(s["endNs"][rows], s["startNs"][rows])
    cols["kind"][:] = Kind.CPU_OP
    cols["cat"][:] = names.strings.intern("cpu_op")
    cols["name"] = names.coded([f"ProfilerStep#{s['id'][j]}" for j in rows])
    cols["track"][:] = int(np.bincount(ops).argmax())
    return cols
