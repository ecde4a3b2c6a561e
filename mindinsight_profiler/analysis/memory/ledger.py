"""One device's memory as time-sorted columns, built once per trace for window queries.

The report's memory section (analysis/memory/section.py) answers for the whole trace; the dashboard
asks for any time window (the zoomed part of the curve). A `Ledger` holds what those
questions need, sorted by time so a window is two binary searches:
- the curve: allocated/reserved totals after each sample, and the operator that caused it;
- the changes: every allocation (+bytes) and free (-bytes) with the operator charged;
- the allocations: time, size, operator and, where it can be known, the release time.

Device labels are the report's (`CUDA:0`, `CPU`, `NPU:0 PTA`), so a device picked from the
report names the same ledger. Sources, as in analysis/memory/section.py:
- `trace.memory` (Kineto `[memory]` instants, MindSpore records): the operator is the
  innermost range open on the record's thread at its time, a free is charged to the
  operator open when it happens (the PyTorch plugin's rule), releases are paired by address;
- Ascend `memory_record` (totals per component: curves only) and `operator_memory` (one row
  per allocation with its operator and release time, charged to the PTA curve's device).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis.memory.records import (
    alloc_free_pairs,
    innermost_op,
    operator_memory_rows,
)
from mindinsight_profiler.analysis.memory.section import _KEY, _MB, _label
from mindinsight_profiler.model.trace import Trace

#: How releases are known: paired by address, given by the input's table, or not at all.
PAIRING = ("address", "table", "none")


@dataclass(frozen=True)
class Ledger:
    """One device's curve, changes and allocations (int64 ns / bytes; -1 = unknown)."""

    device: str
    source: str  # memory_events | memory_record | operator_memory
    pairing: str  # one of PAIRING
    # The curve, by time: totals after each sample; the operator (string code) behind it.
    ts_ns: np.ndarray
    allocated: np.ndarray
    reserved: np.ndarray
    curve_op: np.ndarray
    # Allocations (+) and frees (-), by time, with the operator charged.
    change_ns: np.ndarray
    change_bytes: np.ndarray
    change_op: np.ndarray
    # Allocations, by time: release -1 = not released (pairing known) or unknown (none).
    alloc_ns: np.ndarray
    alloc_bytes: np.ndarray
    alloc_op: np.ndarray
    release_ns: np.ndarray
    addr: np.ndarray

    @property
    def has_events(self) -> bool:
        return len(self.alloc_ns) > 0


def _sorted(ts: np.ndarray, *cols: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(ts, kind="stable")
    return [ts[order], *(np.asarray(c)[order] for c in cols)]


def _totals(values: np.ndarray) -> np.ndarray:
    """Totals as int64 bytes, -1 where unknown (negative or NaN)."""
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=-1.0)
    return np.maximum(np.rint(v), -1).astype(np.int64)


def _from_records(trace: Trace) -> list[Ledger]:
    """Ledgers of `trace.memory` (Kineto instants, MindSpore records), one per device."""
    m = trace.memory
    op = innermost_op(trace, m["track"], m["ts_ns"])
    op_name = np.where(op >= 0, trace.events["name"][np.clip(op, 0, None)], -1).astype(np.int64)
    dev_key = (m["device_type"].astype(np.int64) + 1) * _KEY + (m["device_id"] + 1)
    default = str(trace.meta.get("device_type") or "device").upper()
    out = []
    for key in np.unique(dev_key).tolist():
        rows = np.flatnonzero(dev_key == key)
        rows = rows[np.argsort(m["ts_ns"][rows], kind="stable")]
        ts, nbytes, ops = m["ts_ns"][rows], m["bytes"][rows], op_name[rows]
        allocated = m["total_allocated"][rows]
        if (allocated < 0).all():  # 2021 schema without totals: the running sum of sizes
            allocated = np.cumsum(nbytes)
        a, f = alloc_free_pairs(m["addr"][rows], nbytes, ts)
        release = np.full(len(rows), -1, dtype=np.int64)
        release[a] = np.where(f >= 0, ts[np.clip(f, 0, None)], -1)
        allocs = np.flatnonzero(nbytes > 0)
        changes = np.flatnonzero(nbytes != 0)
        paired = bool((m["addr"][rows] >= 0).any())
        out.append(Ledger(
            _label(key, default), "memory_events", "address" if paired else "none",
            ts, _totals(allocated), _totals(m["total_reserved"][rows]), ops,
            ts[changes], nbytes[changes], ops[changes],
            ts[allocs], nbytes[allocs], ops[allocs], release[allocs], m["addr"][rows][allocs],
        ))  # fmt: skip
    return out


def _from_ascend(trace: Trace) -> list[Ledger]:
    """Ledgers of the Ascend tables: one per `memory_record` component; `operator_memory`
    rows (PyTorch allocations) go with the PTA curve of their device."""
    rec = trace.tables.get("memory_record")
    opm = operator_memory_rows(trace)
    curves: list[tuple[str, list[np.ndarray]]] = []
    if rec is not None and len(rec["ts_ns"]) and "component" in rec:
        # codes + 1: an absent device or component (-1) keeps the key's parts apart
        key = (rec["device"].astype(np.int64) + 1) * _KEY + (rec["component"] + 1)
        for k in np.unique(key).tolist():
            rows = np.flatnonzero(key == k)
            device, component = _code(trace, k // _KEY - 1), _code(trace, k % _KEY - 1)
            label = f"{device or 'NPU'} {component or ''}".strip()
            curves.append((label, _sorted(
                rec["ts_ns"][rows], _totals(rec["total_allocated_mb"][rows] * _MB),
                _totals(rec["total_reserved_mb"][rows] * _MB),
            )))  # fmt: skip
    if opm is None or not len(opm["alloc_ns"]):
        return [_curve_only(label, *cols) for label, cols in curves]
    target = next((label for label, _ in curves if label.endswith(" PTA")), None)
    out = [_curve_only(label, *cols) for label, cols in curves if label != target]
    alloc_ns, nbytes, ops, release = _sorted(
        opm["alloc_ns"], np.rint(opm["size_kb"] * 1024).astype(np.int64),
        opm["name"].astype(np.int64), opm["release_ns"],
    )  # fmt: skip
    freed = release >= 0
    change_ns, change_bytes, change_op = _sorted(
        np.concatenate([alloc_ns, release[freed]]), np.concatenate([nbytes, -nbytes[freed]]),
        np.concatenate([ops, ops[freed]]),
    )  # fmt: skip
    if target is not None:
        ts, allocated, reserved = dict(curves)[target]
        # The allocation that produced a sample, where the two tables share its time.
        at = np.searchsorted(alloc_ns, ts)
        hit = (at < len(alloc_ns)) & (alloc_ns[np.minimum(at, len(alloc_ns) - 1)] == ts)
        curve_op = np.where(hit, ops[np.minimum(at, len(ops) - 1)], -1)
        label = target
    else:  # no PTA curve: the totals the allocation table records at each change
        label = _code(trace, int(opm["device"][0])) or "NPU"
        ts, allocated, reserved, curve_op = _table_curve(opm)
    none = np.full(len(alloc_ns), -1, dtype=np.int64)
    out.insert(0, Ledger(
        label, "operator_memory", "table", ts, allocated, reserved, curve_op.astype(np.int64),
        change_ns, change_bytes, change_op, alloc_ns, nbytes, ops, release, none,
    ))  # fmt: skip
    return out


def _table_curve(opm: dict[str, np.ndarray]) -> list[np.ndarray]:
    """(ts, allocated, reserved, operator) from `operator_memory`'s totals at each change."""
    freed = opm["release_ns"] >= 0

    def both(at_alloc: str, at_release: str) -> np.ndarray:
        return np.concatenate([opm[at_alloc], opm[at_release][freed]])

    return _sorted(
        both("alloc_ns", "release_ns"),
        _totals(both("alloc_total_allocated_mb", "release_total_allocated_mb") * _MB),
        _totals(both("alloc_total_reserved_mb", "release_total_reserved_mb") * _MB),
        np.concatenate([opm["name"], np.full(int(freed.sum()), -1)]),
    )


def _curve_only(label: str, ts: np.ndarray, allocated: np.ndarray, reserved: np.ndarray) -> Ledger:
    e = np.zeros(0, dtype=np.int64)
    return Ledger(label, "memory_record", "none", ts, allocated, reserved,
                  np.full(len(ts), -1, dtype=np.int64), e, e, e, e, e, e, e, e)  # fmt: skip


def _code(trace: Trace, code: int) -> str | None:
    return trace.strings[code] if code >= 0 else None


def memory_ledgers(trace: Trace) -> list[Ledger]:
    """Every device's ledger (see module doc); empty when the input holds no memory data."""
    if len(trace.memory["ts_ns"]):
        return _from_records(trace)
    return _from_ascend(trace)


def default_device(ledgers: list[Ledger]) -> Ledger | None:
    """The device a page opens on: an accelerator with allocation events, else any with
    events, else the first (a CUDA run's interesting memory is not the host's)."""
    with_events = [d for d in ledgers if d.has_events]
    accel = [d for d in with_events if not d.device.startswith("CPU")]
    found = accel or with_events or ledgers
    return found[0] if found else None
