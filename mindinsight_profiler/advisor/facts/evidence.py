"""Evidence builders shared by the event-level facts: totals per caller, longest events."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

from mindinsight_profiler.advisor.labels import Label, label
from mindinsight_profiler.advisor.model import Evidence
from mindinsight_profiler.model.trace import Trace

K = TypeVar("K", bound=Hashable)


def totals_by(
    keys: Sequence[K],
    durations_ns: Sequence[int],
    text: Callable[[K, int, int], Label],
    name: Callable[[K], str],
    top: int = 5,
) -> list[Evidence]:
    """One `operator` item per key, the largest total first, labelled `text(key, ns, count)`."""
    totals: dict[K, list[int]] = defaultdict(lambda: [0, 0])
    for key, ns in zip(keys, durations_ns, strict=True):
        totals[key][0] += ns
        totals[key][1] += 1
    ranked = sorted(totals.items(), key=lambda kv: -kv[1][0])[:top]
    return [
        Evidence(
            kind="operator",
            **text(key, ns, count),
            page="operators",
            value=round(ns / 1000.0, 3),
            unit="us",
            name=name(key),
        )
        for key, (ns, count) in ranked
    ]


def longest_events(
    trace: Trace,
    rows: np.ndarray,
    step_names: Sequence[str],
    step_of_row: np.ndarray,
    op_names: Sequence[str | None],
    top: int = 5,
) -> list[Evidence]:
    """The `top` longest events of `rows` as timeline ranges, with their step and operator."""
    ev = trace.events
    dur = ev["end_ns"][rows] - ev["start_ns"][rows]
    out = []
    for i in np.argsort(-dur, kind="stable")[:top].tolist():
        row = int(rows[i])
        out.append(
            Evidence(
                kind="time_range",
                **label("event", name=trace.strings[int(ev["name"][row])], us=dur[i] / 1000),
                page="timeline",
                value=round(float(dur[i]) / 1000.0, 3),
                unit="us",
                step=step_names[int(step_of_row[i])],
                name=op_names[i],
                start_ns=int(ev["start_ns"][row]),
                end_ns=int(ev["end_ns"][row]),
            )
        )
    return out
