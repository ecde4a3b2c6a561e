"""Launch records and flows of torch_npu's profiler database (see `db_device` for why).

`CONNECTION_IDS` maps the key in `PYTORCH_API.connectionId` to one or more connection ids:
the launch ids that `TASK`, `COMMUNICATION_OP` and `CANN_API` rows carry (torch -> device),
and ids shared by two host rows (task-queue enqueue -> dequeue, forward -> backward). The
flows drawn on the timeline are the text export's: `async_npu` (operator -> device work),
`HostToDevice` (CANN launch -> device work), `async_task_queue` and `fwdbwd`.

Device work no operator launched (CANN's own copies) is linked to its CANN call instead, so
that step boundaries see it as launched inside the step, as they see it in the text export.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import FLOW_COLUMNS, empty_columns

LAUNCH_NAME = "torch_to_npu"
LAUNCH_CAT = "async_npu"


@dataclass
class Linked:
    launches: dict[str, np.ndarray]  # RUNTIME records, EVENT_COLUMNS (minus the defaults)
    flows: dict[str, np.ndarray]


def _expand(db: DbFile, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, connection id) for every CONNECTION_IDS entry of each row's key."""
    rows = np.flatnonzero(key >= 0)
    if not db.has("CONNECTION_IDS") or not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ci = db.ints("CONNECTION_IDS", ["id", "connectionId"])
    order = np.argsort(ci["id"], kind="stable")
    ids, conns = ci["id"][order], ci["connectionId"][order]
    lo = np.searchsorted(ids, key[rows], "left")
    count = np.searchsorted(ids, key[rows], "right") - lo
    first = np.repeat(np.cumsum(count) - count, count)
    idx = np.arange(int(count.sum())) - first + np.repeat(lo, count)
    return np.repeat(rows, count), conns[idx]


def _first_by(conn: np.ndarray, rows: np.ndarray, start: np.ndarray, last: bool) -> dict[int, int]:
    """For each connection id: its row starting first (or last)."""
    order = np.lexsort((start[rows], conn))
    out: dict[int, int] = {}
    for c, r in zip(conn[order].tolist(), rows[order].tolist(), strict=True):
        if last or c not in out:
            out[c] = r
    return out


def link(
    db: DbFile,
    cols: dict[str, np.ndarray],
    host_key: np.ndarray,
    launch_id: np.ndarray,
    strings: StringTable,
) -> Linked:
    """Launch records (setting `corr` of the launched device work) and flows."""
    start, kind = cols["start_ns"], cols["kind"]
    rows, conn = _expand(db, host_key)
    dev = np.flatnonzero((is_kind(kind, DEVICE_KINDS) | (kind == Kind.SYNC)) & (launch_id >= 0))
    first_work = _first_by(launch_id[dev], dev, start, last=False)
    is_op = kind[rows] == Kind.CPU_OP
    launcher = _first_by(conn[is_op], rows[is_op], start, last=True)  # innermost: latest start
    launched = np.array(sorted(set(launcher) & set(first_work)), dtype=np.int64)
    work = dev[np.isin(launch_id[dev], launched) & is_kind(kind[dev], DEVICE_KINDS)]
    cols["corr"][work] = launch_id[work]
    # Work no operator launched (copies issued by CANN itself, e.g. aclrtMemcpyAsync): its
    # CANN call is the launch, as a runtime call is in a Kineto trace.
    cann_rows = np.flatnonzero((kind == Kind.RUNTIME) & (launch_id >= 0))
    orphan_ids = np.setdiff1d(np.array(sorted(first_work), dtype=np.int64), launched)
    by_cann = cann_rows[np.isin(launch_id[cann_rows], orphan_ids)]
    cols["corr"][by_cann] = launch_id[by_cann]
    work = dev[np.isin(launch_id[dev], launch_id[by_cann]) & is_kind(kind[dev], DEVICE_KINDS)]
    cols["corr"][work] = launch_id[work]
    op = np.array([launcher[c] for c in launched.tolist()], dtype=np.int64)
    launches = {
        "start_ns": start[op],
        "end_ns": start[op],
        "kind": np.full(len(op), Kind.RUNTIME, dtype=np.uint8),
        "name": np.full(len(op), strings.intern(LAUNCH_NAME), dtype=np.int32),
        "cat": np.full(len(op), strings.intern(LAUNCH_CAT), dtype=np.int32),
        "track": cols["track"][op],
        "corr": launched,
    }
    flows = _Flows(cols, strings)
    flows.pairs(LAUNCH_CAT, launched, op, [first_work[c] for c in launched.tolist()])
    cann = np.flatnonzero((kind == Kind.RUNTIME) & np.isin(launch_id, launched))
    target = [first_work[c] for c in launch_id[cann].tolist()]
    flows.pairs("HostToDevice", launch_id[cann], cann, target)
    other = ~np.isin(conn, launched)
    groups = _first_by(conn[other], rows[other], start, last=False)
    for c, r in zip(conn[other].tolist(), rows[other].tolist(), strict=True):
        s = groups[c]
        if r != s:
            cat = "fwdbwd" if kind[s] == Kind.CPU_OP else "async_task_queue"
            flows.pairs(cat, np.array([c]), np.array([s]), [r])
    return Linked(launches, flows.table())


class _Flows:
    """`s`/`f` flow rows, collected in pieces and joined once."""

    def __init__(self, cols: dict[str, np.ndarray], strings: StringTable) -> None:
        self.cols, self.strings = cols, strings
        self.parts: list[dict[str, np.ndarray]] = []

    def pairs(self, cat: str, ids: np.ndarray, src: np.ndarray, dst: list[int]) -> None:
        dst_a = np.asarray(dst, dtype=np.int64)
        for phase, at in ((ord("s"), np.asarray(src, dtype=np.int64)), (ord("f"), dst_a)):
            part = empty_columns(FLOW_COLUMNS, len(at))
            part["ts_ns"] = self.cols["start_ns"][at]
            part["track"] = self.cols["track"][at]
            part["flow_id"] = np.asarray(ids, dtype=np.int64)
            part["phase"][:] = phase
            part["cat"][:] = self.strings.intern(cat)
            self.parts.append(part)

    def table(self) -> dict[str, np.ndarray]:
        if not self.parts:
            return empty_columns(FLOW_COLUMNS, 0)
        return {c: np.concatenate([p[c] for p in self.parts]) for c in FLOW_COLUMNS}
