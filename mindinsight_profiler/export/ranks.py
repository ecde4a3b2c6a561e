"""Several ranks of a run, ready for one timeline: which ranks, their clocks, the window.

The CLI gathers the ranks through the pipeline (analysed when not cached, `gather_ranks`),
the server from its cache; both hand the writers (`perfetto.py`, `timeline_json.py`) the
same `RankInput`s and `MergedTimeline`, so the two files and the two entry points agree.

Times. Each rank's events are shifted by its clock offset (`analysis.cluster.clock`) onto
the reference rank's clock: the first selected rank, rank 0 when it is selected. The
merged timeline's origin is the earliest aligned start of the selected ranks, and a window
is given relative to it: ns in the API, ms in the CLI (`parse_window`). An event is kept
when it overlaps the window (whole, as the one-rank Chrome export keeps it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.analysis.cluster.clock import ClockAlignment, align_ranks
from mindinsight_profiler.model.trace import Trace

#: Version of the merged timeline files (bumped when tracks, names or annotations change).
TIMELINE_EXPORT_VERSION = 1


@dataclass(frozen=True)
class Annotation:
    """An advisor evidence range of a rank, on that rank's own clock."""

    name: str  # "<rule id>: <evidence label>"
    start_ns: int
    end_ns: int


@dataclass(frozen=True)
class RankInput:
    """One rank's model and its advisor annotations."""

    rank: int
    worker: str
    trace: Trace
    annotations: tuple[Annotation, ...] = ()

    @property
    def label(self) -> str:
        return f"rank {self.rank} ({self.worker})"


@dataclass(frozen=True)
class MergedTimeline:
    """The selected ranks (by rank number), their offsets and the window, in aligned ns."""

    ranks: tuple[RankInput, ...]
    alignment: ClockAlignment
    origin_ns: int  # earliest aligned start of the selected ranks
    start_ns: int  # window, absolute aligned ns: [start_ns, end_ns)
    end_ns: int

    def rows(self, i: int) -> np.ndarray:
        """Indices of rank i's events overlapping the window (zero-length ones inside it)."""
        ev = self.ranks[i].trace.events
        off = self.alignment.offsets_ns[i]
        lo, hi = self.start_ns - off, self.end_ns - off
        start, end = ev["start_ns"], ev["end_ns"]
        keep = (start < hi) & ((end > lo) | ((end == start) & (start >= lo)))
        return np.flatnonzero(keep)

    def annotations(self, i: int) -> list[Annotation]:
        """Rank i's annotations overlapping the window, shifted onto the aligned clock."""
        off = self.alignment.offsets_ns[i]
        return [
            Annotation(a.name, a.start_ns + off, a.end_ns + off)
            for a in self.ranks[i].annotations
            if a.start_ns + off < self.end_ns and a.end_ns + off >= self.start_ns
        ]


def rank_number(trace: Trace, position: int) -> int:
    """The rank the trace's own files state (distributedInfo, profiler_info, file names),
    else its position in the run."""
    info = trace.meta.get("distributed_info") or {}
    rank = info.get("rank", trace.meta.get("rank"))
    return rank if isinstance(rank, int) and not isinstance(rank, bool) else position


def distinct_ranks(ranks: Sequence[RankInput]) -> list[RankInput]:
    """The ranks with distinct numbers: a worker claiming a number taken before it (copies
    of one trace in a run) gets the next free one, so that no worker disappears."""
    seen: set[int] = set()
    out = []
    for r in ranks:
        number = r.rank
        while number in seen:
            number += 1
        seen.add(number)
        out.append(r if number == r.rank else RankInput(number, r.worker, r.trace, r.annotations))
    return out


def parse_ranks(text: str) -> list[int] | None:
    """`all` -> None, `0,3,5` -> [0, 3, 5]; ValueError naming what is not a rank."""
    text = text.strip()
    if text == "all":
        return None
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise ValueError(f"--ranks: {part!r} is not a rank number (give all or e.g. 0,3,5)")
        out.append(int(part))
    return sorted(set(out))


def pick_ranks(ranks: Sequence[RankInput], wanted: list[int] | None) -> list[RankInput]:
    """The wanted ranks in rank order (all when None); ValueError naming unknown ranks."""
    by_rank = {r.rank: r for r in ranks}
    if wanted is None:
        return [by_rank[k] for k in sorted(by_rank)]
    unknown = [k for k in wanted if k not in by_rank]
    if unknown:
        have = ", ".join(map(str, sorted(by_rank)))
        raise ValueError(f"unknown rank {', '.join(map(str, unknown))} (this run has {have})")
    return [by_rank[k] for k in wanted]


def parse_window(text: str) -> tuple[int, int]:
    """`t0:t1` in ms relative to the merged origin (decimals allowed) -> ns; either side may
    be empty (open). ValueError for anything else or an empty window."""
    head, sep, tail = text.partition(":")
    if not sep:
        raise ValueError(f"--window: {text!r} is not t0:t1 (milliseconds from the start)")
    try:
        t0 = round(float(head) * 1e6) if head.strip() else 0
        t1 = round(float(tail) * 1e6) if tail.strip() else 1 << 62
    except ValueError:
        raise ValueError(
            f"--window: {text!r} is not t0:t1 (milliseconds, e.g. 100:250.5)"
        ) from None
    if t0 < 0 or t1 <= t0:
        raise ValueError(f"--window: {text!r} is empty (t1 must be after t0, both >= 0)")
    return t0, t1


def merge(ranks: Sequence[RankInput], window_ns: tuple[int, int] | None = None) -> MergedTimeline:
    """Align the ranks' clocks, find the origin and the window; ValueError when the window
    holds no event of any selected rank."""
    if not ranks:
        raise ValueError("no rank selected")
    alignment = align_ranks([r.trace for r in ranks])
    starts = [
        int(r.trace.events["start_ns"].min()) + off
        for r, off in zip(ranks, alignment.offsets_ns, strict=True)
        if len(r.trace)
    ]
    if not starts:
        raise ValueError("the selected ranks hold no events")
    origin = min(starts)
    if origin < 0:  # a rank moved before the epoch: all move together (Perfetto's are >= 0)
        alignment = replace(alignment, offsets_ns=[o - origin for o in alignment.offsets_ns])
        origin = 0
    lo, hi = window_ns if window_ns is not None else (0, 1 << 62)
    merged = MergedTimeline(tuple(ranks), alignment, origin, origin + lo, origin + hi)
    if window_ns is not None and not any(len(merged.rows(i)) for i in range(len(ranks))):
        raise ValueError(
            f"the window {lo / 1e6:g}:{hi / 1e6:g} ms holds no events of the selected ranks"
        )
    return merged


def annotations_of(advice: Advice) -> tuple[Annotation, ...]:
    """The advisor's evidence with a time range, one annotation each (on the trace's clock)."""
    out = []
    for finding in advice.findings:
        for ev in finding.evidence:
            if ev.start_ns is not None and ev.end_ns is not None and ev.end_ns >= ev.start_ns:
                out.append(Annotation(f"{finding.id}: {ev.label}", ev.start_ns, ev.end_ns))
    return tuple(out)
