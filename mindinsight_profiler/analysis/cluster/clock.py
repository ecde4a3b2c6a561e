"""Clock alignment of ranks for one shared timeline.

Ranks on different hosts stamp events with their own clocks; laid side by side, the same
collective can look hundreds of microseconds apart. The offsets here put every rank on
rank 0's clock (the first trace given).

The rule. A collective's *end* is the point every rank shares: no rank leaves an
all-reduce before the last one has joined, so all of them leave it at about the same
instant, while their starts differ by how long each waited. So:

1. Each rank's collectives are listed with a key: the collective (`AllReduce`, `AllToAll`:
   `communication.naming`) and what the trace says about the call, its message
   (`comm_msg`: element count, dtype, group size) when the trace has one, or for MindSpore's
   step trace the operator (`AllReduce-op4542`: ranks of one group run the same ops, other
   groups other ones). The collectives are the communication kernels when the trace has
   any, else the host's `gloo:` ranges, else the named collectives of a device-less trace
   (MindSpore's step-trace streams).
2. Two ranks' calls of one key are paired in order: the k-th with the k-th (the traces
   must start at the same call: a profiler schedule that starts every rank at one step).
3. A rank's offset onto a reference is the median of the paired ends' differences: robust
   to the few calls paired wrongly (a rank that recorded one call more) or ending late.
   The pairing is trusted only when it agrees with itself: at least half of the
   differences within `AGREE_NS` of their median (calls of one collective leave together;
   differences scattered over milliseconds say the k-th calls are not the same call, as in
   traces sampled at different steps). When the ends do not agree, the bounds every
   blocking call sets are used instead (`pair_offset`): no rank leaves a call before every
   rank has entered it, so the offset lies in [ref start - other end, ref end - other
   start] of each call; the intersection over the calls brackets it (gloo's host ranges:
   their ends are milliseconds apart, yet the side set by the rank that came last is
   within half a millisecond); bounds that do not meet say the calls are not the same,
   and such a pair of ranks is not used.
   Ranks are aligned to rank 0 where they share keys with it, else through a rank already
   aligned (two pipeline stages that share no collective with each other's groups meet
   through a rank that runs both).
4. When no rank pairs any call, or every offset is within `TOLERANCE_NS` (the clocks agree
   already: NTP-synchronised hosts, or one host), the wall clocks are kept as they are
   (method `wall_clock`, zero offsets): a few microseconds of skew between ranks leaving one
   collective is real and must not be "corrected" away. A rank that shares no collective
   with any aligned rank keeps offset 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.analysis.categories import comm_kernel_mask
from mindinsight_profiler.analysis.communication.host import host_collective_mask
from mindinsight_profiler.analysis.communication.naming import (
    collective_type,
    host_collective,
    kernel_collectives,
)
from mindinsight_profiler.model.kinds import Kind
from mindinsight_profiler.model.trace import Trace

#: Offsets this small are clock agreement, not skew: the wall clocks are kept.
TOLERANCE_NS = 20_000
#: Paired ends this close to their median agree (one collective's ends across hosts).
AGREE_NS = 200_000
#: Collectives a device-less trace names (MindSpore's step-trace streams).
KNOWN = frozenset({
    "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "AllToAllV", "Broadcast",
    "Reduce", "Send", "Receive", "Recv", "SendRecv", "Barrier",
})  # fmt: skip
_STREAM_PREFIX = re.compile(r"^(?:.*/)?stream_\d+_\d+_")


@dataclass(frozen=True)
class ClockAlignment:
    """Per rank, ns to add to its timestamps to put them on the reference rank's clock."""

    offsets_ns: list[int]
    method: str  # "wall_clock" (no shift) or "collectives" (the matched collectives)
    matched: int = 0  # collective pairs the offsets were estimated from


def collective_calls(trace: Trace) -> dict[str, np.ndarray]:
    """Per collective key, the (start, end) ns of this rank's calls in call order, an
    (n, 2) array (module doc)."""
    ev = trace.events
    comm = comm_kernel_mask(trace)
    if comm.any():
        idx = np.flatnonzero(comm)
        idx = idx[np.argsort(ev["start_ns"][idx], kind="stable")]
        kinds = kernel_collectives(trace, idx)
    else:
        idx = np.flatnonzero(host_collective_mask(trace))
        if len(idx):
            idx = idx[np.argsort(ev["start_ns"][idx], kind="stable")]
            kinds = [host_collective(n) or "" for n in trace.strings.lookup(ev["name"][idx])]
        else:
            idx, kinds = _named_collectives(trace)
    msgs = trace.strings.lookup(ev["comm_msg"][idx])
    spans = zip(ev["start_ns"][idx].tolist(), ev["end_ns"][idx].tolist(), strict=True)
    out: dict[str, list[tuple[int, int]]] = {}
    for kind, msg, span in zip(kinds, msgs, spans, strict=True):
        out.setdefault(f"{kind}|{msg}", []).append(span)
    return {k: np.asarray(v, dtype=np.int64).reshape(-1, 2) for k, v in out.items()}


def collective_ends(trace: Trace) -> dict[str, np.ndarray]:
    """Per collective key, the ends (ns, in call order) of this rank's calls."""
    return {k: v[:, 1] for k, v in collective_calls(trace).items()}


def _named_collectives(trace: Trace) -> tuple[np.ndarray, list[str]]:
    """Non-host ranges named after a collective (`stream_36_0_AllReduce-op4542`), keyed by
    their operator (`AllReduce-op4542`): a trace without kernels or host collectives."""
    ev = trace.events
    names = trace.strings.to_list()
    wanted = [c for c, s in enumerate(names) if collective_type(s) in KNOWN]
    host = np.isin(ev["kind"], [int(Kind.CPU_OP), int(Kind.RUNTIME), int(Kind.PYTHON_FUNCTION)])
    idx = np.flatnonzero(np.isin(ev["name"], wanted) & ~host & (ev["end_ns"] > ev["start_ns"]))
    idx = idx[np.argsort(ev["start_ns"][idx], kind="stable")]
    return idx, [_STREAM_PREFIX.sub("", names[c]) for c in ev["name"][idx].tolist()]


def _as_calls(ends: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Ends alone as (start, end) calls of no length (`align_ends`' input)."""
    return {k: (v if v.ndim == 2 else np.stack([v, v], axis=1)) for k, v in ends.items()}


def _paired(ref: dict[str, np.ndarray], other: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """(ref starts, ref ends, other starts, other ends) of the k-th call of each shared key."""
    parts = []
    for key in sorted(ref.keys() & other.keys()):
        n = min(len(ref[key]), len(other[key]))
        parts.append(np.concatenate([ref[key][:n], other[key][:n]], axis=1))
    both = np.concatenate(parts) if parts else np.zeros((0, 4), dtype=np.int64)
    return tuple(both[:, c] for c in range(4))


def pair_offset(ref: dict[str, np.ndarray], other: dict[str, np.ndarray]) -> tuple[int | None, int]:
    """(ns to add to `other` to put it on `ref`'s clock, or None when the calls do not pair;
    the calls paired). The median of the ends' differences when they agree (rule 3);
    otherwise the bound every blocking collective sets: no rank leaves a call before every
    rank has entered it, so the offset lies in [ref start - other end, ref end - other
    start] of each call. Host ranges (gloo's) end when the call's work is done on that
    rank, milliseconds apart: their ends do not agree, but the intersection of the calls'
    bounds still brackets the offset. The wall clock is kept when the bounds allow it (zero
    inside), else the bound nearer the ends' median: the side set by the rank that arrived
    last, whose entry is the collective's true start (within its shortest call, about half
    a millisecond for gloo on one host); no intersection: not the same calls."""
    s0, e0, s1, e1 = _paired(ref, other)
    if not len(e0):
        return None, 0
    diffs = e0 - e1
    median = int(np.median(diffs))
    if 2 * (np.abs(diffs - median) <= AGREE_NS).sum() >= len(diffs):
        return median, len(diffs)
    lo, hi = int((s0 - e1).max()), int((e0 - s1).min())
    if lo > hi:
        return None, 0
    if lo <= 0 <= hi:
        return 0, len(diffs)
    # one side is tight: the rank that came last to every call entered it just before all
    # left; the noisy ends' median says which side that is
    return (lo if abs(median - lo) < abs(median - hi) else hi), len(diffs)


def align_ranks(traces: Sequence[Trace]) -> ClockAlignment:
    """The offsets of each trace onto the first one's clock (the module doc's rule)."""
    return align_calls([collective_calls(t) for t in traces])


def align_ends(ends: Sequence[dict[str, np.ndarray]]) -> ClockAlignment:
    """`align_ranks` from each rank's `collective_ends` alone (pure; what the tests plant)."""
    return align_calls([_as_calls(e) for e in ends])


def align_calls(calls: Sequence[dict[str, np.ndarray]]) -> ClockAlignment:
    """`align_ranks` on each rank's `collective_calls`."""
    n = len(calls)
    offsets: list[int | None] = [0] + [None] * (n - 1) if n else []
    matched = 0
    progress = True
    while progress and any(o is None for o in offsets):
        progress = False
        for r in range(n):
            if offsets[r] is not None:
                continue
            for a in range(n):
                base = offsets[a]
                if base is None:
                    continue
                offset, paired = pair_offset(calls[a], calls[r])
                if offset is not None:
                    offsets[r] = base + offset
                    matched += paired
                    progress = True
                    break
    found = [o or 0 for o in offsets]
    if matched == 0 or all(abs(o) <= TOLERANCE_NS for o in found):
        return ClockAlignment([0] * n, "wall_clock", matched)
    return ClockAlignment(found, "collectives", matched)
