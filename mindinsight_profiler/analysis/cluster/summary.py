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


def _rank_row(rank: int, section: dict[str, Any]) -> dict[str, Any]:
    avg = section.get("average") or {}
    row = {"rank": rank, "steps": len(section["steps"]), "step_us": avg.get("step_us")}
    for key in (*STAGES, "communication_us", "tool_wait_us"):
        row[key] = avg.get(key)
    return row


def _slowest(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The rank with the longest mean step, and its lead over the others' mean and the fastest."""
    timed = [r for r in rows if r["step_us"] is not None]
    if not timed:
        return None
    times = np.array([r["step_us"] for r in timed], dtype=np.float64)
    k = int(np.argmax(times))
    others = np.delete(times, k)
    ref = float(others.mean()) if len(others) else float(times[k])
    return {
        "rank": timed[k]["rank"],
        "step_us": float(times[k]),
        "over_others_us": float(times[k]) - ref,
        "over_others_pct": 100.0 * (float(times[k]) - ref) / ref if ref > 0 else None,
        "fastest_rank": timed[int(np.argmin(times))]["rank"],
        "over_fastest_us": float(times[k] - times.min()),
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
        "slowest": _slowest(rows),
        "collectives": _collectives(ranked),
    }
