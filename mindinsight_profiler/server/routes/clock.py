"""Where each rank's timeline sits on one shared time axis (`/runs/<run>/clock`).

The dashboard's timeline can stack several ranks of a run; each rank's window answer is in
ns from that rank's own first event, and each rank stamped its events with its own clock.
`analysis.cluster.clock.align_ranks` estimates how far each clock is off the first rank's;
this route adds each rank's timeline zero, so the client only adds `shift_ns[k]` to rank
k's times. Estimating reads every rank's trace, so an answer is computed once per process
and version of the run's cache entries, then kept (`access.run_memo`, as the cluster view).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from mindinsight_profiler.analysis.cluster.clock import align_ranks
from mindinsight_profiler.server import access, schemas
from mindinsight_profiler.server.routes.common import endpoint

bp = Blueprint("clock", __name__)


def shifts(origins_ns: list[int], offsets_ns: list[int]) -> list[int]:
    """Each timeline zero on the first rank's clock, in ns after the earliest of them."""
    placed = [o + d for o, d in zip(origins_ns, offsets_ns, strict=True)]
    base = min(placed, default=0)
    return [p - base for p in placed]


def _clock(entry: Any, targets: list[access.Target]) -> dict[str, Any]:
    traces, origins = [], []
    for t in targets:  # 409 until every rank is analysed
        traces.append(access.trace(t))
        origins.append(access.origin_ns(t))  # while its trace is still held
    aligned = align_ranks(traces)
    offsets = [int(o) for o in aligned.offsets_ns]
    return {
        "run": entry.id,
        "workers": [t.file.worker for t in targets],
        "offsets_ns": offsets,
        "shift_ns": shifts(origins, offsets),
        "method": aligned.method,
        "matched": int(aligned.matched),
    }


@endpoint(bp, "/runs/<run>/clock", schemas.ClusterQuery, schemas.Clock)
def clock(run: str, p: dict[str, Any]) -> dict[str, Any]:
    """Each worker's clock offset onto the first worker's, and where its timeline starts on
    the shared axis (ns after the earliest worker's first event)."""
    found: dict[str, Any] = access.run_memo(run, p.get("span"), "clock", _clock)
    return found
