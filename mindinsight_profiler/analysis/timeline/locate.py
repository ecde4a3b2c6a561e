"""Where a time range of the advisor's evidence lies on the timeline: its event and tracks.

An evidence item names a range (a slow DataLoader call, a device idle gap, a pageable copy,
a step) in absolute trace ns. To land on it, the timeline needs more than the range: which
event it is (so the page can select it) and which tracks hold the work in it (so the page
can scroll them into view, the device's first). The evidence does not say; the trace does.

- The event: one whose range is exactly the evidence's. Several can share it (an operator
  and its only child); the one named like the evidence wins, then device work, then the
  outermost. Failing that, the event named like the evidence whose ends are each within
  `NEAR_NS` of the range's: a side table's times can be a few hundred ns off the trace's
  (torch_npu's communication.json writes epoch microseconds as doubles, which keep about a
  quarter of a microsecond: its HCCL ops land 156 ns before their trace events). No event
  for a gap (nothing ran there) or a step's phase.
- The tracks: the device tracks whose device work (kernels, copies, sets) touches the closed
  range, busiest in it first, at most `MAX_TRACKS`; a gap touches the kernels at its two
  edges. The event's own track joins them: first when it is a device track, else last.

Built once per trace (`EvidenceLocator`): an order of events by start for the exact match,
and per device track its device work sorted by start with the running maximum of ends, so
each question is a few binary searches and a sum over the work inside the range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindinsight_profiler.model.kinds import DEVICE_KINDS, is_kind
from mindinsight_profiler.model.trace import Trace

#: Most tracks named for one range (a range on a machine of eight devices marks the busiest).
MAX_TRACKS = 4
#: How far a named event's ends may be from the range's (a side table's rounding, see above).
NEAR_NS = 1000


@dataclass(frozen=True)
class Place:
    """The event that is the range (index into the trace, None if none) and its tracks."""

    event: int | None
    tracks: list[int]


@dataclass(frozen=True)
class _DeviceTrack:
    track: int
    start: np.ndarray  # sorted
    end: np.ndarray  # in the same order
    reach: np.ndarray  # running maximum of `end`


class EvidenceLocator:
    """Answers `place(start_ns, end_ns, name)` for one trace (build once, ask many times)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        ev = trace.events
        self._by_start = np.argsort(ev["start_ns"], kind="stable")
        self._starts = ev["start_ns"][self._by_start]
        work = is_kind(ev["kind"], DEVICE_KINDS)
        device_ids = [i for i, t in enumerate(trace.tracks) if t.is_device]
        self._device = set(device_ids)
        self._tracks: list[_DeviceTrack] = []
        on_device = work & np.isin(ev["track"], np.asarray(device_ids, dtype=np.int64))
        rows = np.flatnonzero(on_device)
        # by (track, start): each track's work is one slice, found without a scan per track
        rows = rows[np.lexsort((ev["start_ns"][rows], ev["track"][rows]))]
        tracks, first = np.unique(ev["track"][rows], return_index=True)
        ends = np.append(first[1:], len(rows)) if len(rows) else first
        for t, a, b in zip(tracks.tolist(), first.tolist(), ends.tolist(), strict=True):
            start, end = ev["start_ns"][rows[a:b]], ev["end_ns"][rows[a:b]]
            self._tracks.append(_DeviceTrack(int(t), start, end, np.maximum.accumulate(end)))

    def event(self, start_ns: int, end_ns: int, name: str | None = None) -> int | None:
        """The event whose range is exactly [start_ns, end_ns]; see the module docstring."""
        lo, hi = np.searchsorted(self._starts, [start_ns, start_ns + 1])
        rows = self._by_start[lo:hi]
        ev = self.trace.events
        rows = rows[ev["end_ns"][rows] == end_ns]
        if len(rows) == 0:
            return self._near(start_ns, end_ns, name)
        strings = self.trace.strings
        named = np.array([name is not None and strings[int(c)] == name if c >= 0 else False
                          for c in ev["name"][rows].tolist()])  # fmt: skip
        device = is_kind(ev["kind"][rows], DEVICE_KINDS)
        # best first: named like the evidence, device work, outermost (no parent), first row
        score = named * 4 + device * 2 + (ev["parent"][rows] < 0)
        return int(rows[np.argmax(score)])

    def _near(self, start_ns: int, end_ns: int, name: str | None) -> int | None:
        """The event named `name` whose ends are nearest the range's, each within `NEAR_NS`."""
        if name is None:
            return None
        lo, hi = np.searchsorted(self._starts, [start_ns - NEAR_NS, start_ns + NEAR_NS + 1])
        rows = self._by_start[lo:hi]
        ev = self.trace.events
        rows = rows[np.abs(ev["end_ns"][rows] - end_ns) <= NEAR_NS]
        strings = self.trace.strings
        rows = rows[[c >= 0 and strings[int(c)] == name for c in ev["name"][rows].tolist()]]
        if len(rows) == 0:
            return None
        off = np.abs(ev["start_ns"][rows] - start_ns) + np.abs(ev["end_ns"][rows] - end_ns)
        return int(rows[np.argmin(off)])

    def device_tracks(self, start_ns: int, end_ns: int) -> list[int]:
        """Device tracks whose work touches [start_ns, end_ns], busiest in it first."""
        found: list[tuple[int, int]] = []
        for d in self._tracks:
            j = int(np.searchsorted(d.start, end_ns, side="right"))  # work starting by the end
            if j == 0 or d.reach[j - 1] < start_ns:
                continue
            i = int(np.searchsorted(d.reach, start_ns, side="left"))  # first that may reach it
            busy = np.minimum(d.end[i:j], end_ns) - np.maximum(d.start[i:j], start_ns)
            found.append((-int(np.clip(busy, 0, None).sum()), d.track))
        if found:
            return [t for _, t in sorted(found)[:MAX_TRACKS]]
        return self._nearest(start_ns, end_ns)

    def _nearest(self, start_ns: int, end_ns: int) -> list[int]:
        """The device track whose work comes nearest the range (none touches it: a host
        range while the device had not started yet, or had finished)."""
        best: tuple[int, int] | None = None
        for d in self._tracks:
            j = int(np.searchsorted(d.start, end_ns, side="right"))
            after = int(d.start[j]) - end_ns if j < len(d.start) else None
            before = start_ns - int(d.reach[j - 1]) if j > 0 else None
            gaps = [g for g in (after, before) if g is not None]
            if gaps and (best is None or min(gaps) < best[0]):
                best = (min(gaps), d.track)
        return [best[1]] if best else []

    def place(self, start_ns: int, end_ns: int, name: str | None = None) -> Place:
        """The event that is the range and the tracks to show it on."""
        event = self.event(start_ns, end_ns, name)
        tracks = self.device_tracks(start_ns, end_ns)
        if event is not None:
            own = int(self.trace.events["track"][event])
            if own >= 0:
                rest = [t for t in tracks if t != own]
                tracks = [own, *rest][:MAX_TRACKS] if own in self._device else [*rest, own]
        return Place(event, tracks)
