"""Findings' savings as shares of one ledger, so that a run's savings add up.

Every rule that estimates a saving says which parts of the step's ledger
(`analysis.steps.ledger`: device compute, copies, communication, data wait, sync wait,
launch, host compute, untracked) the time it would save comes from (`claims`; "step": any
part). A finding's saving is capped at the time of its parts, and the run's combined saving
takes each part once: every finding spreads its saving over its parts in proportion to
their size, and a part gives at most its own time, however many findings claim it. So the
combined saving never exceeds the step, and a finding's share never exceeds 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from mindinsight_profiler.analysis.steps.ledger import PARTS

#: A claim on the whole step (any part): rank-level findings (a slow rank, an outlier step).
WHOLE_STEP = "step"
CLAIMS = frozenset({*PARTS, WHOLE_STEP})


def parts_of(claims: Iterable[str]) -> list[str]:
    """The ledger parts a rule's claims name (WHOLE_STEP: all of them)."""
    named = set(claims)
    return list(PARTS) if WHOLE_STEP in named or not named else [p for p in PARTS if p in named]


def cap(saving: float, claims: Sequence[str], ledger: Mapping[str, float] | None,
        step_us: float | None) -> float:  # fmt: skip
    """The saving, no more than the time of the parts it claims (and the step)."""
    limit = step_us if step_us and step_us > 0 else None
    if ledger:
        parts = sum(float(ledger.get(p) or 0.0) for p in parts_of(claims))
        limit = parts if limit is None else min(limit, parts)
    return saving if limit is None else min(saving, limit)


def combined(
    savings: Iterable[tuple[float, Sequence[str]]],
    ledger: Mapping[str, float] | None,
    step_us: float | None,
) -> float:
    """The union of several findings' savings (see module doc)."""
    items = [(s, c) for s, c in savings if s > 0]
    if not ledger:
        total = sum(s for s, _ in items)
        return min(total, step_us) if step_us and step_us > 0 else total
    claimed = dict.fromkeys(PARTS, 0.0)
    for saving, claims in items:
        parts = parts_of(claims)
        size = sum(float(ledger.get(p) or 0.0) for p in parts)
        if size <= 0:
            continue
        for p in parts:
            claimed[p] += saving * float(ledger.get(p) or 0.0) / size
    return sum(min(claimed[p], float(ledger.get(p) or 0.0)) for p in PARTS)
