"""Build the model's columns from decoded `trace_view.json` events.

Kinds come from `ascend_trace.kinds`; this module adds the parts that need all events at
once: the tracks, the launch records made from `async_npu` flows (see `ascend_pt`), the
flow table, and the `overlap_analysis` side table (the tool's own intervals).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from mindinsight_profiler.formats.ascend import trace as at
from mindinsight_profiler.formats.numbers import as_int
from mindinsight_profiler.model.kinds import DEVICE_KINDS, Kind, is_kind
from mindinsight_profiler.model.strings import StringTable
from mindinsight_profiler.model.trace import (
    EVENT_COLUMNS,
    MEMORY_COLUMNS,
    Track,
    empty_columns,
)

#: Flows by which torch_npu links an operator (start) to the device task it launched.
LAUNCH_FLOW_CAT = "async_npu"
LAUNCH_NAME = "torch_to_npu"
_DEVICE_PROCESSES = ("Ascend Hardware", "HCCL")


@dataclass
class Built:
    events: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    flows: dict[str, np.ndarray]
    tracks: list[Track]
    tables: dict[str, dict[str, np.ndarray]]
    invalid_utf8: int = 0  # byte sequences in argument texts read as U+FFFD
    bad_streams: int = 0  # `Physic Stream Id`s out of range, read as absent


class _Tracks:
    """(pid, tid) -> dense track code, in order of first use."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, str], int] = {}

    def codes(self, events: list[at._Event]) -> np.ndarray:
        keys = [(str(e.pid), str(e.tid)) for e in events]
        return np.fromiter(
            (self.index.setdefault(k, len(self.index)) for k in keys), np.int32, len(keys)
        )

    def tracks(self, procs: at.Processes) -> list[Track]:
        out = []
        for pid, tid in self.index:
            pname = procs.process.get(pid, "")
            out.append(
                Track(
                    pid,
                    tid,
                    pname,
                    procs.thread.get((pid, tid), ""),
                    is_device=pname in _DEVICE_PROCESSES,
                )
            )
        return out


def _codes(strings: StringTable, values: list[str]) -> np.ndarray:
    return np.fromiter(map(strings.intern, values), np.int32, len(values))


def _flow_table(
    flows: list[at._Event], ts_ns: np.ndarray, strings: StringTable, tracks: _Tracks
) -> dict[str, np.ndarray]:
    return {
        "ts_ns": ts_ns,
        "track": tracks.codes(flows),
        "flow_id": np.fromiter((as_int(e.id) for e in flows), np.int64, len(flows)),
        "phase": np.fromiter((ord(e.ph) for e in flows), np.uint8, len(flows)),
        "cat": _codes(strings, [e.cat for e in flows]),
    }


def join_rows(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index of the first element of `keys` equal to each `wanted` (structured), else -1."""
    out = np.full(len(wanted), -1, dtype=np.int64)
    if len(keys) == 0 or len(wanted) == 0:
        return out
    order = np.argsort(keys, kind="stable")
    pos = np.searchsorted(keys[order], wanted)
    pos_c = np.clip(pos, 0, len(order) - 1)
    hit = (pos < len(order)) & (keys[order][pos_c] == wanted)
    out[hit] = order[pos_c[hit]]
    return out


def join_nearest(
    group: np.ndarray, t: np.ndarray, want_group: np.ndarray, want_t: np.ndarray, tol: int
) -> np.ndarray:
    """For each wanted (group, time): the index of the element of the same group whose time
    is nearest, if within `tol`, else -1 (vectorised: one sort, one search, two neighbours).
    """
    out = np.full(len(want_t), -1, dtype=np.int64)
    if len(t) == 0 or len(want_t) == 0:
        return out
    order = np.lexsort((t, group))
    g, ts = group[order], t[order]
    keys = pair_key(g, ts)
    pos = np.searchsorted(keys, pair_key(want_group, want_t))
    best_gap = np.full(len(want_t), np.iinfo(np.int64).max, dtype=np.int64)
    for cand in (pos - 1, pos):
        c = np.clip(cand, 0, len(ts) - 1)
        ok = (cand >= 0) & (cand < len(ts)) & (g[c] == want_group)
        gap = np.where(ok, np.abs(ts[c] - want_t), np.iinfo(np.int64).max)
        better = ok & (gap <= tol) & (gap < best_gap)
        out[better] = order[c[better]]
        best_gap = np.where(better, gap, best_gap)
    return out


def pair_key(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows (a, b) as one structured array: it sorts and searches lexicographically."""
    out = np.empty(len(a), dtype=[("a", np.int64), ("b", np.int64)])
    out["a"] = a
    out["b"] = b
    return out


def _launches(
    cols: dict[str, np.ndarray], flows: dict[str, np.ndarray], strings: StringTable
) -> dict[str, np.ndarray]:
    """Launch records from `async_npu` flow pairs; sets `corr` of the tasks they launched.

    A pair is an `s` and an `f` with the same id; its task is the device event starting at
    the `f` point on the `f` track. Pairs whose task is not found are dropped.
    """
    cat = strings.intern(LAUNCH_FLOW_CAT)
    is_launch = flows["cat"] == cat
    s = np.flatnonzero(is_launch & (flows["phase"] == ord("s")))
    f = np.flatnonzero(is_launch & (flows["phase"] == ord("f")))
    row = join_rows(flows["flow_id"][f], flows["flow_id"][s])
    s, f_of_s = s[row >= 0], f[row[row >= 0]]
    dev = np.flatnonzero(is_kind(cols["kind"], DEVICE_KINDS))
    task = join_rows(
        pair_key(cols["track"][dev], cols["start_ns"][dev]),
        pair_key(flows["track"][f_of_s], flows["ts_ns"][f_of_s]),
    )
    found = task >= 0
    s, task = s[found], dev[task[found]]
    corr = np.arange(len(s), dtype=np.int64)
    cols["corr"][task] = corr
    out = empty_columns(EVENT_COLUMNS, len(s))
    out["start_ns"] = flows["ts_ns"][s]
    out["end_ns"] = flows["ts_ns"][s]
    out["kind"][:] = Kind.RUNTIME
    out["name"][:] = strings.intern(LAUNCH_NAME)
    out["cat"][:] = cat
    out["track"] = flows["track"][s]
    out["corr"] = corr
    return out


def _overlap_table(
    events: list[at._Event], times: dict[str, np.ndarray], rows: np.ndarray, strings: StringTable
) -> dict[str, np.ndarray]:
    start = times["ts"][rows]
    return {
        "type": _codes(strings, [events[i].name for i in rows.tolist()]),
        "start_ns": start,
        "end_ns": start + times["dur"][rows],
    }


def build_events(decoded: at.Decoded, strings: StringTable, device: int) -> Built:
    """Model columns of all complete events plus launch records (links not yet built)."""
    procs = at.Processes.of(decoded.metadata)
    tracks = _Tracks()
    ranges = decoded.ranges
    kind, overlap = at.kinds(ranges, procs)
    keep = np.flatnonzero(~overlap)
    events = [ranges[i] for i in keep.tolist()]
    kind = kind[keep]
    n = len(events)
    cols = empty_columns(EVENT_COLUMNS, n)
    start = decoded.times["ts"][keep]
    cols["start_ns"] = start
    cols["end_ns"] = start + decoded.times["dur"][keep]
    cols["kind"] = kind
    cols["name"] = _codes(strings, list(map(attrgetter("name"), events)))
    task_types = [e.cat or e.args.task_type for e in events]
    cols["cat"] = np.where(
        np.array([bool(t) for t in task_types], dtype=bool), _codes(strings, task_types), -1
    ).astype(np.int32)
    cols["track"] = tracks.codes(events)
    on_device = np.isin(kind, [int(k) for k in (*DEVICE_KINDS, Kind.SYNC)])
    cols["device"][on_device] = device
    hw = np.array([procs.process.get(str(e.pid)) == "Ascend Hardware" for e in events], bool)
    stream = np.fromiter((as_int(e.args.stream) for e in events), np.int64, n)
    bad_stream = (stream < -1) | (stream >= 2**31)  # read as absent, counted
    stream[bad_stream] = -1
    cols["stream"] = np.where(hw, stream, -1).astype(np.int32)
    bad_streams = int((bad_stream & hw).sum())
    ops = np.flatnonzero(kind == Kind.CPU_OP)
    texts, replaced = at.text_columns(events, ops, strings.intern)
    cols.update(texts)

    flows = _flow_table(decoded.flows, decoded.times["flow_ts"], strings, tracks)
    launches = _launches(cols, flows, strings)
    merged = {c: np.concatenate([cols[c], launches[c]]) for c in EVENT_COLUMNS}
    overlap_rows = np.flatnonzero(overlap)
    tables = {"overlap_analysis": _overlap_table(ranges, decoded.times, overlap_rows, strings)}
    memory = empty_columns(MEMORY_COLUMNS, 0)
    return Built(merged, memory, flows, tracks.tracks(procs), tables, replaced, bad_streams)
