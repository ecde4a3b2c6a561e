"""The advisor's findings as the API serves them (`/runs/<run>/advice`).

The advice is the advisor's own document (`advisor.model.Advice`, also what
`mindinsight advise --format json` prints, `docs/advice.schema.json`), reused here; the
server adds where each evidence item lands, so only that is declared again: a time range
gets `window_ns` (relative to the timeline's origin: the API's times are relative, the
CLI's absolute), the timeline `event` that is the range and the `tracks` holding its work
(`analysis/timeline/locate.py`, added by `server/routes/places.py`); a rank gets the
`worker` holding it. All optional: a client that knows none of them still gets the
advisor's fields. The findings are cut to `min_severity`.
"""

from __future__ import annotations

from mindinsight_profiler.advisor.model import Advice, Evidence, Finding
from mindinsight_profiler.server.answers.base import Where


class ServedEvidence(Evidence, forbid_unknown_fields=True):
    """Evidence, with where it lands on the dashboard (each field only when known)."""

    window_ns: tuple[int, int] | None = None  # the range in ns from the timeline's origin
    event: int | None = None  # the timeline event (`timeline/event?index=`) that is the range
    # timeline track ids holding the range's work: device tracks (busiest first), and the
    # event's own track (first when on the device); the page scrolls to the first
    tracks: list[int] | None = None
    worker: str | None = None  # the worker holding `rank` (its communication and timeline)


class ServedFinding(Finding, forbid_unknown_fields=True):
    """A finding whose evidence carries timeline windows."""

    # Narrows the advisor's field (msgspec reads the subclass's annotation); the served
    # document is only ever decoded into these structs, never assigned advisor objects.
    evidence: list[ServedEvidence]  # type: ignore[assignment]


class ServedAdvice(Advice, forbid_unknown_fields=True):
    """The advice document with the served findings."""

    findings: list[ServedFinding]  # type: ignore[assignment]  # narrowed, as above


class AdviceAnswer(Where, frozen=True, kw_only=True):
    """`/runs/<run>/advice`."""

    advice: ServedAdvice
