"""Chrome-trace phases: duration events (`B` ... `E`) made into complete ranges, and events
of no known phase counted.

The trace-event format allows a range as a pair: `B` at its start and `E` at its end, on the
same thread, nested like brackets. Every reader models ranges as complete (`X`) events, so
pairs are matched here and each becomes one range; ignoring them would silently lose those
ranges. Matching follows the format: per (pid, tid), in time order (file order among equal
times), an `E` closes the latest open `B`. A `B` never closed or an `E` with nothing open
is left out, and the reader warns with the count.

Phases that carry no range (counters, async and object events, samples, marks) are ignored,
as they mean nothing to these analyses; an event whose `ph` is none of the format's (absent,
empty, a typo, damage) is no event at all, and is counted in a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindinsight_profiler.formats.event_times import OK, number_text, times_from_text

PHASES = ("B", "E")
#: Every phase of the trace-event format.
KNOWN = frozenset(["B", "E", "X", "i", "I", "C", "b", "n", "e", "S", "T", "p", "F", "s", "t",
                   "f", "P", "O", "N", "D", "M", "V", "v", "R", "c", "(", ")"])  # fmt: skip


def paired(events: Sequence[Any]) -> tuple[list[tuple[Any, int]], int]:
    """([(the `B` event, duration ns)] of matched pairs, how many events were left unmatched).

    `events` are structs with `ph`, `pid`, `tid` and a raw `ts` (JSON number or string of
    microseconds); one whose `ts` is unusable counts as unmatched.
    """
    if not events:
        return [], 0
    ts, problem = times_from_text([number_text(e.ts) for e in events], quoted=True)
    usable = np.flatnonzero(problem == OK)
    tracks: dict[tuple[str, str], int] = {}
    keys = [(str(events[i].pid), str(events[i].tid)) for i in usable.tolist()]
    track = np.array([tracks.setdefault(k, len(tracks)) for k in keys], dtype=np.int64)
    order = usable[np.lexsort((usable, ts[usable], track))] if len(usable) else usable
    open_: dict[tuple[str, str], list[int]] = {}
    pairs: list[tuple[Any, int]] = []
    for i in order.tolist():
        e = events[i]
        stack = open_.setdefault((str(e.pid), str(e.tid)), [])
        if e.ph == "B":
            stack.append(i)
        elif stack:
            b = stack.pop()
            pairs.append((events[b], int(ts[i] - ts[b])))
    return pairs, len(events) - 2 * len(pairs)


def us_text(ns: int) -> bytes:
    """`ns` as an exact microsecond JSON number (`1234.567`)."""
    return f"{ns // 1000}.{ns % 1000:03d}".encode()


def unknown(phases: Sequence[str]) -> int:
    """How many of `phases` are no phase of the format."""
    return sum(1 for ph in phases if ph not in KNOWN)


def unknown_warning(count: int) -> str:
    return f"{count} event(s) of no known phase ('ph') left out"


def unmatched_warning(count: int) -> str:
    return f"{count} B/E duration event(s) without their other half left out"
