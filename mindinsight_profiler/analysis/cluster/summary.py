"""Cluster summary over the ranks of one run: who is slow, and how much collectives wait.

Input: one communication section per rank (`communication_section`), or one report dict per
rank holding it under `"communication"`. A collective cannot finish before its slowest
participant arrives, so the fastest rank's duration of a call is the transfer itself and
anything longer on another rank is waiting for peers (the PyTorch profiler plugin's
definition). Calls are matched across ranks by collective type and order: the k-th
AllReduce of every rank is the same call; only the first `min(calls)` are matched.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_profiler.analysis.communication.section import STAGES


def _sections(reports: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """(rank, section) per input; the list position stands in for a missing rank."""
    out = []
    for i, r in enumerate(reports):
        section = r.get("communication", r) if isinstance(r, dict) else None
        if not section or "steps" not in section:
            continue
        rank = section.get("rank")
        if rank is None:
            rank = (r.get("distributed") or {}).get("rank")
        out.append((rank if isinstance(rank, int) else i, section))
    return sorted(out, key=lambda x: x[0])


#: A rank is slow when its own time per step (the step minus its communication, which
#: includes waiting for peers) is this much above the others' mean: below it, differences
#: are run-to-run noise (the outlier test's 5 %).
SLOW_SHARE = 0.05


def _rank_row(rank: int, section: dict[str, Any]) -> dict[str, Any]:
    avg = section.get("average") or {}
    row = {"rank": rank, "steps": len(section["steps"]), "step_us": avg.get("step_us")}
    for key in (*STAGES, "communication_us", "tool_wait_us"):
        row[key] = avg.get(key)
    return row


def _common_steps(
    ranked: list[tuple[int, dict[str, Any]]],
) -> tuple[list[str], dict[int, tuple[float, float | None]]]:
    """(the steps every timed rank averages, per rank its mean step and mean communication
    over them, or None): ranks timed on different steps (one from its hccl rows, the others
    from five step-trace steps) are not compared. Empty when they share no step."""
    per_rank: dict[int, dict[str, dict[str, Any]]] = {}
    for rank, section in ranked:
        counted = set(section.get("average_steps") or [r["step"] for r in section["steps"]])
        rows = {r["step"]: r for r in section["steps"] if r.get("step_us") is not None}
        per_rank[rank] = {k: v for k, v in rows.items() if k in counted}
    timed = {r: rows for r, rows in per_rank.items() if rows}
    if not timed:  # no per-step rows anywhere: each rank's own average is all there is
        averages = {rank: s.get("average") or {} for rank, s in ranked}
        return [], {
            rank: (float(a["step_us"]), a.get("communication_us"))
            for rank, a in averages.items()
            if a.get("step_us") is not None
        } if len(averages) > 1 else {}  # fmt: skip
    common = sorted(set.intersection(*(set(rows) for rows in timed.values())))
    if len(timed) < 2 or not common:
        return [], {}
    out: dict[int, tuple[float, float | None]] = {}
    for rank, rows in timed.items():
        picked = [rows[k] for k in common]
        comm = [float(c) for r in picked if (c := r.get("communication_us")) is not None]
        out[rank] = (
            float(np.mean([r["step_us"] for r in picked])),
            float(np.mean(comm)) if len(comm) == len(picked) else None,
        )
    return common, out


def _slowest(ranked: list[tuple[int, dict[str, Any]]]) -> dict[str, Any] | None:
    """The rank with the longest mean step over the steps all ranks have, its lead, and
    whether it is slow: a longer step that is all communication is a rank that arrived
    early and waited for the others, not a straggler."""
    common, times = _common_steps(ranked)
    if len(times) < 2:
        return None
    ranks = list(times)
    steps = np.array([times[r][0] for r in ranks])
    k = int(np.argmax(steps))
    ref = float(np.delete(steps, k).mean())
    comm = [times[r][1] for r in ranks]
    if all(c is not None for c in comm):
        own = steps - np.array(comm, dtype=np.float64)
        mine: float | None = float(own[k])
        others = float(np.delete(own, k).mean())
        rest: float | None = others
        slow = others > 0 and float(own[k]) > (1 + SLOW_SHARE) * others
    else:  # no communication figures: the step itself is all there is to judge by
        mine, rest, slow = None, None, ref > 0 and steps[k] > (1 + SLOW_SHARE) * ref
    return {
        "rank": ranks[k],
        "step_us": float(steps[k]),
        "over_others_us": float(steps[k]) - ref,
        "over_others_pct": 100.0 * (float(steps[k]) - ref) / ref if ref > 0 else None,
        "fastest_rank": ranks[int(np.argmin(steps))],
        "over_fastest_us": float(steps[k] - steps.min()),
        "steps_compared": common,
        "own_us": mine,
        "others_own_us": rest,
        "slow": bool(slow),
    }


def _collectives(ranked: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Transfer (min across ranks per matched call) and waiting (the rest) per collective."""
    names = sorted({c["name"] for _, s in ranked for c in s.get("collectives") or []})
    out = []
    for name in names:
        per_rank = {
            rank: np.asarray(c["durations_us"], dtype=np.float64)
            for rank, s in ranked
            for c in s.get("collectives") or []
            if c["name"] == name
        }
        matched = min(len(d) for d in per_rank.values()) if len(per_rank) > 1 else 0
        row: dict[str, Any] = {
            "name": name,
            "ranks": list(per_rank),  # lists below are aligned with this one
            "calls": [len(d) for d in per_rank.values()],
            "matched_calls": matched,
            "transfer_us": None,
            "waiting_us": None,
        }
        if matched:
            grid = np.stack([d[:matched] for d in per_rank.values()])  # ranks x calls
            transfer = grid.min(axis=0)
            waiting = (grid - transfer).sum(axis=1)
            row["transfer_us"] = float(transfer.sum())
            row["waiting_us"] = waiting.tolist()
        out.append(row)
    return out


def cluster_summary(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-rank step time and stages, the slowest rank, and per-collective transfer/waiting."""
    ranked = _sections(reports)
    rows = [_rank_row(rank, s) for rank, s in ranked]
    return {
        "ranks": rows,
        "slowest": _slowest(ranked),
        "collectives": _collectives(ranked),
    }
