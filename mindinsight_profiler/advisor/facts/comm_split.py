"""Facts: how this rank's HCCL time splits into transfer and waiting, by the profiler's own
figures (torch_npu `communication.json`, or `analysis.db`'s CommAnalyzerTime).

msprof's communication analysis splits each collective's elapsed time into Transit (data
moving on a link), Wait (the first Notify_Wait of the op, waiting for the peer's handshake),
Synchronization and Idle (everything else: later Notify_Wait tasks and gaps), with Elapse =
Transit + Wait + Idle. On a rank that reaches a collective before a slower peer the waiting
shows up as Idle as often as Wait (an 8-rank torch_npu AlexNet job: 96.4 ms Idle and 5.9 ms
Wait of 106.0 ms elapsed, while one Notify_Wait task on rank 5 lasts 78.8 ms), so the time
not transferring is Wait + Idle, not Wait alone. Comparing the profiled ranks instead
(communication.py) misses a late rank that was not profiled.

Exports without that split (torch_npu Level0: no communication.json) still hold the HCCL
`Notify Wait` / `Notify_Wait` tasks on the device: the time they cover inside the
collectives is the waiting (Level0 of the same job: one Notify Wait of 72.7 ms in a 73.0 ms
all-reduce).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.compute import step_windows
from mindinsight_profiler.advisor.facts.registry import (
    Context,
    Observed,
    Unavailable,
    fact,
    step_share,
)
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.analysis import intervals as iv
from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.model.kinds import Kind

_NEEDS = (
    "the profiler's communication split (torch_npu communication.json or analysis.db) or "
    "HCCL Notify Wait tasks"
)
_NOTIFY_WAIT = frozenset({"Notify Wait", "Notify_Wait", "NOTIFY_WAIT"})
#: The summary row communication.json adds to every step and kind.
_TOTAL = "Total Op Info"


def tool_split(ctx: Context) -> dict[str, Any]:
    """Per-step means (us) of elapse, transit, wait and idle, and per-op rows (memoised)."""
    if "comm.tool_split" in ctx.memo:
        return dict(ctx.memo["comm.tool_split"])
    trace = ctx.trace
    table = None if trace is None else trace.tables.get("communication")
    if trace is None or table is None or not len(table["op"]):
        raise Unavailable(f"needs {_NEEDS}")
    ops = trace.strings.lookup(table["op"])
    keep = np.array([o != _TOTAL for o in ops], dtype=bool)
    if not keep.any():
        raise Unavailable(f"needs {_NEEDS}: it lists no operators")
    steps = max(len(np.unique(table["step"][keep])), 1)
    out: dict[str, Any] = {"steps": steps}
    for key in ("elapse", "transit", "wait", "idle"):
        out[f"{key}_us"] = float(table[f"{key}_ns"][keep].sum()) / 1000.0 / steps
    rows = np.flatnonzero(keep)
    out["ops"] = [
        {
            "name": ops[i].split("@")[0],
            "start_ns": int(table["start_ns"][i]),
            "elapse_ns": int(table["elapse_ns"][i]),
            "transit_ns": int(table["transit_ns"][i]),
            "waiting_ns": int(table["wait_ns"][i] + table["idle_ns"][i]),
        }
        for i in rows.tolist()
    ]
    ctx.memo["comm.tool_split"] = out
    return dict(out)


def notify_split(ctx: Context) -> dict[str, Any]:
    """Without the profiler's split: per-step means (us) of the collectives' elapsed time and
    of the Notify Wait tasks inside them (as `wait_us`; idle 0), per op rows (memoised)."""
    if "comm.notify_split" in ctx.memo:
        return dict(ctx.memo["comm.notify_split"])
    trace = ctx.trace
    if trace is None or ctx.report.get("device_type") != "npu":
        raise Unavailable(f"needs {_NEEDS}")
    ev = trace.events
    device = np.array([t.is_device for t in trace.tracks], dtype=bool)[ev["track"]]
    notify = device & trace.names_matching(lambda s: s in _NOTIFY_WAIT)
    comm = comm_kernel_mask(trace) & (ev["kind"] == Kind.KERNEL)
    if not notify.any() or not comm.any():
        raise Unavailable(f"needs {_NEEDS}")
    names, start, end = step_windows(ctx)
    s, e = ev["start_ns"], ev["end_ns"]
    in_steps = iv.union(start, end)
    comm_r = iv.intersect(iv.union(s[comm], e[comm]), in_steps)
    waiting = iv.intersect(iv.union(s[notify], e[notify]), comm_r)
    steps = len(names)
    out: dict[str, Any] = {
        "steps": steps,
        "elapse_us": comm_r.total() / 1000.0 / steps,
        "wait_us": waiting.total() / 1000.0 / steps,
        "idle_us": 0.0,
    }
    out["transit_us"] = out["elapse_us"] - out["wait_us"]
    ops = []
    for i in np.flatnonzero(comm).tolist():
        mine = iv.intersect(waiting, iv.union(s[i : i + 1], e[i : i + 1])).total()
        ops.append(
            {
                "name": trace.strings[int(ev["name"][i])],
                "start_ns": int(s[i]),
                "elapse_ns": int(e[i] - s[i]),
                "transit_ns": int(e[i] - s[i] - mine),
                "waiting_ns": int(mine),
            }
        )
    out["ops"] = ops
    ctx.memo["comm.notify_split"] = out
    return dict(out)


def hccl_split(ctx: Context) -> dict[str, Any]:
    """The profiler's split where the export has it, else the Notify Wait tasks'."""
    try:
        return tool_split(ctx)
    except Unavailable:
        return notify_split(ctx)


def _op_evidence(split: dict[str, Any], limit: int = 8) -> tuple[Evidence, ...]:
    ops = sorted(split["ops"], key=lambda o: -o["waiting_ns"])[:limit]
    return tuple(
        Evidence(
            kind="operator",
            **label(
                "comm_op_waiting",
                op=o["name"],
                wait_ms=o["waiting_ns"] / 1e6,
                elapse_ms=o["elapse_ns"] / 1e6,
                transit_ms=o["transit_ns"] / 1e6,
            ),
            # one call at its time: the timeline shows it (the communication page's
            # collectives are per kind, with no row for a call)
            page="timeline",
            name=o["name"],
            value=o["waiting_ns"] / 1000.0,
            unit="us",
            start_ns=o["start_ns"],
            end_ns=o["start_ns"] + o["elapse_ns"],
        )
        for o in ops
        if o["waiting_ns"] > 0
    )


@fact(
    "comm.hccl_waiting_us",
    "us",
    "Time per step this rank's collectives spend not transferring, by the profiler's own "
    "split: Wait + Idle of every HCCL op (Elapse - Transit); without it (Level0) the time the "
    "HCCL Notify Wait tasks cover inside the collectives, microseconds. Evidence: the ops "
    "that wait longest, as timeline ranges.",
    _NEEDS,
)
def hccl_waiting_us(ctx: Context) -> Observed:
    split = hccl_split(ctx)
    return Observed(split["wait_us"] + split["idle_us"], _op_evidence(split))


@fact(
    "comm.waiting_ratio",
    "ratio",
    "Share (0..1) of this rank's HCCL elapsed time that is Wait or Idle rather than Transit, "
    "by the profiler's own split (msprof-analyze's wait-ratio family), else by the Notify Wait "
    "tasks (comm.hccl_waiting_us).",
    _NEEDS,
)
def waiting_ratio(ctx: Context) -> float:
    split = hccl_split(ctx)
    if split["elapse_us"] <= 0:
        raise Unavailable("the communication split has no elapsed time")
    return min(1.0, (split["wait_us"] + split["idle_us"]) / split["elapse_us"])


step_share(
    "comm.exposed_transfer_share",
    "comm.exposed_transfer_us",
    "collective kernels on a device timeline",
)
