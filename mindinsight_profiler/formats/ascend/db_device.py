"""Device events of torch_npu's profiler database, and the links from host operators.

- `TASK` rows are the device's work, one track per stream (`Ascend Hardware`). A task with a
  `COMPUTE_TASK_INFO` row is a KERNEL named by it (its op type, accelerator core, block dim
  and shapes go to the `kernel_details` side table); a task with a `COMMUNICATION_TASK_INFO`
  row is a hardware step of a collective (OTHER: the collective itself counts, as in the
  text export). Other tasks go by their task type: copies -> MEMCPY, event/notify tasks ->
  SYNC, profiling markers -> OTHER. A task without info that shares its launch
  (`connectionId`) with a kernel or a collective is that launch's container (an FFTS+ parent
  task or the collective's own task record): OTHER, so its time is not counted twice.
- `COMMUNICATION_OP` rows are the collectives: KERNELs on the `HCCL` process (named
  `hcom_*`, so analyses see communication), their steps on `Plane <n>` tracks (OTHER).
- Links: `CONNECTION_IDS` maps an operator's `connectionId` key to the launch ids its device
  work carries. As the text reader does with `async_npu` flows, each launch becomes a
  zero-length RUNTIME record `torch_to_npu` at the operator's start on its thread, whose
  `corr` the launched work shares; `build_links` then attaches work to operators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.formats.ascend.db_events import Tracks, columns
from mindinsight_profiler.formats.ascend.db_file import DbFile
from mindinsight_profiler.formats.ascend.db_names import Names
from mindinsight_profiler.model.kinds import Kind

COPY_TASKS = frozenset({"MEMCPY_ASYNC", "SDMA", "SDMA_SQE", "PCIE_DMA_SQE", "MEMCPY"})
SYNC_TASKS = frozenset(
    {"EVENT_RECORD", "EVENT_WAIT", "EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "Notify Wait",
     "Notify Record", "Write Value", "NOTIFY_WAIT", "NOTIFY_RECORD"}
)  # fmt: skip
IDLE_TASKS = frozenset({"PROFILING_ENABLE", "PROFILING_DISABLE", "PLACE_HOLDER_SQE"})
COMPUTE_COLS = ["globalTaskId", "name", "taskType", "opType", "blockDim", "mixBlockDim"]
COMPUTE_COLS += ["inputShapes", "inputDataTypes", "inputFormats", "waitNs"]


@dataclass
class Kernels:
    """The kernel events (compute tasks, then collectives) with their `kernel_details` facts."""

    event: np.ndarray  # index into the device columns (offset by the caller)
    task_id: np.ndarray  # globalTaskId (-1 for collectives): the key of TASK_PMU_INFO
    cols: dict[str, np.ndarray]  # op_type, core_type, block_dim, wait_ns, stream_id, ...


@dataclass
class Device:
    cols: dict[str, np.ndarray]
    connection: np.ndarray  # each row's launch id (-1: none)
    kernels: Kernels


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row of `keys` (unique) holding each `wanted` value, else -1."""
    if not len(keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    pos = np.clip(np.searchsorted(keys[order], wanted), 0, len(keys) - 1)
    return np.where(keys[order][pos] == wanted, order[pos], -1)


def _task_kind(task_type: str) -> Kind:
    if task_type in COPY_TASKS or "DMA" in task_type:
        return Kind.MEMCPY
    if task_type in SYNC_TASKS:
        return Kind.SYNC
    if task_type in IDLE_TASKS:
        return Kind.OTHER
    return Kind.KERNEL


TASK_COLS = ["startNs", "endNs", "deviceId", "connectionId", "globalTaskId", "taskType"]
TASK_COLS += ["streamId", "taskId"]
OP_COLS = ["opName", "startNs", "endNs", "connectionId", "groupName", "opType", "waitNs"]
OP_COLS += ["deviceId"]


def device_events(db: DbFile, names: Names, tracks: Tracks, device: int) -> Device:
    """Tasks, collectives and collective steps as events (see module doc)."""
    t = db.ints("TASK", TASK_COLS)
    comp = db.ints("COMPUTE_TASK_INFO", COMPUTE_COLS)
    ctask = db.ints("COMMUNICATION_TASK_INFO", ["globalTaskId", "taskType", "planeId"])
    cop = db.ints("COMMUNICATION_OP", OP_COLS)
    n, connection = len(t["startNs"]), t["connectionId"]
    cols = columns(n)
    cols["start_ns"], cols["end_ns"] = t["startNs"], np.maximum(t["endNs"], t["startNs"])
    cols["device"] = np.where(t["deviceId"] >= 0, t["deviceId"], device).astype(np.int16)
    cols["stream"] = t["streamId"].astype(np.int32)
    cols["track"] = _stream_tracks(tracks, t["streamId"])
    cols["name"] = names.codes(t["taskType"])
    cols["cat"] = cols["name"].copy()
    types = names.strings.lookup(cols["name"])
    cols["kind"] = np.array([_task_kind(x) for x in types], dtype=np.uint8)
    crow = _lookup(comp["globalTaskId"], t["globalTaskId"])
    is_comm = np.isin(t["globalTaskId"], ctask["globalTaskId"])
    has = crow >= 0
    cols["kind"][is_comm] = Kind.OTHER
    cols["kind"][has] = Kind.KERNEL
    cols["name"][has] = names.codes(comp["name"][crow[has]])
    cols["cat"][has] = names.codes(comp["taskType"][crow[has]])
    owned = np.concatenate([connection[has], cop["connectionId"]])
    container = ~has & ~is_comm & np.isin(connection, owned) & (connection >= 0)
    cols["kind"][container & (cols["kind"] != Kind.SYNC)] = Kind.OTHER
    ops = _collectives(cop, names, tracks, device)
    planes = _planes(t, ctask, names, tracks)
    merged = {c: np.concatenate([cols[c], ops[c], planes[c]]) for c in cols}
    no_launch = np.full(len(planes["kind"]), -1, dtype=np.int64)
    conn = np.concatenate([connection, cop["connectionId"], no_launch])
    return Device(merged, conn, _kernels(t, comp, crow, cop, names))


def _stream_tracks(tracks: Tracks, streams: np.ndarray) -> np.ndarray:
    uniq, inverse = np.unique(streams, return_inverse=True)
    codes = np.array(
        [tracks.code("Ascend Hardware", str(s), "Ascend Hardware", f"Stream {s}", True)
         for s in uniq.tolist()], dtype=np.int32,
    )  # fmt: skip
    return codes[inverse.ravel()] if len(streams) else np.zeros(0, dtype=np.int32)


def _collectives(
    cop: dict[str, np.ndarray], names: Names, tracks: Tracks, device: int
) -> dict[str, np.ndarray]:
    cols = columns(len(cop["startNs"]))
    cols["start_ns"], cols["end_ns"] = cop["startNs"], np.maximum(cop["endNs"], cop["startNs"])
    cols["kind"][:] = Kind.KERNEL
    cols["name"] = names.codes(cop["opName"])
    cols["device"] = np.where(cop["deviceId"] >= 0, cop["deviceId"], device).astype(np.int16)
    groups = {g: j for j, g in enumerate(dict.fromkeys(cop["groupName"].tolist()))}
    cols["track"] = np.array(
        [tracks.code("HCCL", f"group{groups[g]}", "HCCL", f"Group {groups[g]} Communication", True)
         for g in cop["groupName"].tolist()], dtype=np.int32,
    )  # fmt: skip
    return cols


def _planes(
    t: dict[str, np.ndarray],
    ctask: dict[str, np.ndarray],
    names: Names,
    tracks: Tracks,
) -> dict[str, np.ndarray]:
    """The steps of collectives on their network planes, timed by their TASK rows."""
    row = _lookup(t["globalTaskId"], ctask["globalTaskId"])
    ok = np.flatnonzero(row >= 0)
    cols = columns(len(ok))
    r = row[ok]
    cols["start_ns"], cols["end_ns"] = t["startNs"][r], np.maximum(t["endNs"][r], t["startNs"][r])
    cols["name"] = names.codes(ctask["taskType"][ok])
    cols["track"] = np.array(
        [tracks.code("HCCL", f"plane{p}", "HCCL", f"Plane {p}", True)
         for p in ctask["planeId"][ok].tolist()], dtype=np.int32,
    )  # fmt: skip
    return cols


def _kernels(
    t: dict[str, np.ndarray],
    comp: dict[str, np.ndarray],
    crow: np.ndarray,
    cop: dict[str, np.ndarray],
    names: Names,
) -> Kernels:
    """Facts of each kernel for `kernel_details`: compute tasks, then the collectives."""
    k = np.flatnonzero(crow >= 0)
    r, m = crow[k], len(cop["startNs"])
    none = np.full(m, -1, dtype=np.int64)

    def both(compute: np.ndarray, collective: np.ndarray) -> np.ndarray:
        return np.concatenate([compute.astype(np.int64), collective.astype(np.int64)])

    facts = {
        "op_type": both(names.codes(comp["opType"][r]), names.codes(cop["opType"])),
        "core_type": both(names.codes(comp["taskType"][r]), names.coded(["HCCL"] * m)),
        "block_dim": both(comp["blockDim"][r], np.zeros(m)),
        "wait_ns": both(comp["waitNs"][r], cop["waitNs"]),
        "stream_id": both(t["streamId"][k], none),
        "task_id": both(t["taskId"][k], none),
        "input_shapes": both(names.codes(comp["inputShapes"][r]), none),
        "input_dtypes": both(names.codes(comp["inputDataTypes"][r]), none),
        "input_formats": both(names.codes(comp["inputFormats"][r]), none),
    }
    for key in ("op_type", "core_type", "input_shapes", "input_dtypes", "input_formats"):
        facts[key] = facts[key].astype(np.int32)
    event = both(k, len(t["startNs"]) + np.arange(m))
    return Kernels(event, both(t["globalTaskId"][k], none), facts)
