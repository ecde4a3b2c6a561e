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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.advisor.facts.registry import Context, Observed, Unavailable, fact
from mindinsight_profiler.advisor.labels import label
from mindinsight_profiler.advisor.model import Evidence

_NEEDS = "the profiler's communication split (torch_npu communication.json or analysis.db)"
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
            page="communication",
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
    "comm.tool_waiting_us",
    "us",
    "Time per step this rank's collectives spend not transferring, by the profiler's own "
    "split: Wait + Idle of every HCCL op (Elapse - Transit), microseconds. Evidence: the "
    "ops that wait longest, as timeline ranges.",
    _NEEDS,
)
def tool_waiting_us(ctx: Context) -> Observed:
    split = tool_split(ctx)
    return Observed(split["wait_us"] + split["idle_us"], _op_evidence(split))


@fact(
    "comm.waiting_ratio",
    "ratio",
    "Share (0..1) of this rank's HCCL elapsed time that is Wait or Idle rather than Transit, "
    "by the profiler's own split (msprof-analyze's wait-ratio family).",
    _NEEDS,
)
def waiting_ratio(ctx: Context) -> float:
    split = tool_split(ctx)
    if split["elapse_us"] <= 0:
        raise Unavailable("the communication split has no elapsed time")
    return min(1.0, (split["wait_us"] + split["idle_us"]) / split["elapse_us"])


@fact(
    "comm.exposed_transfer_us",
    "us",
    "The exposed communication (comm.exposed_us) that is transfer rather than waiting for a "
    "peer: scaled by Transit / Elapse where the profiler splits HCCL time (communication.json, "
    "analysis.db), else comm.exposed_us itself, microseconds per step.",
    "collective kernels on a device timeline",
)
def exposed_transfer_us(ctx: Context) -> float | None:
    exposed = ctx.value("comm.exposed_us")
    if exposed is None:
        return None
    ratio = ctx.value("comm.waiting_ratio")
    return float(exposed) * (1.0 - ratio) if ratio is not None else float(exposed)


@fact(
    "comm.exposed_transfer_share",
    "ratio",
    "comm.exposed_transfer_us divided by the mean step time (0..1).",
    "collective kernels on a device timeline",
)
def exposed_transfer_share(ctx: Context) -> float | None:
    got, average = ctx.value("comm.exposed_transfer_us"), ctx.value("step.average_us")
    return None if got is None or not average else got / average
