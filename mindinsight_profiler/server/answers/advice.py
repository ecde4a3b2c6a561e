"""The advisor's findings as the API serves them (`/runs/<run>/advice`).

The advice is the advisor's own document (`advisor.model.Advice`, also what
`mindinsight advise --format json` prints, `docs/advice.schema.json`), reused here; the
server adds one thing, so only that is declared again: each time-range evidence gets
`window_ns`, the range relative to the timeline's origin (the API's times are relative,
the CLI's absolute). The findings are cut to `min_severity`.
"""

from __future__ import annotations

from mindinsight_profiler.advisor.model import Advice, Evidence, Finding
from mindinsight_profiler.server.answers.base import Where


class ServedEvidence(Evidence, forbid_unknown_fields=True):
    """Evidence, and for a time range its window on the timeline (ns from the origin)."""

    window_ns: tuple[int, int] | None = None


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
