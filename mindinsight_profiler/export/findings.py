"""The advisor's findings as table rows: one per finding (ranked as the advisor ranks them),
and one per piece of evidence, numbered by the finding it supports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mindinsight_profiler.advisor.model import Advice, Finding, Text


def text(value: Text | None, lang: str) -> str | None:
    """A bilingual text in `lang` (None stays None)."""
    return None if value is None else (value.zh if lang == "zh" else value.en)


def first_action(f: Finding, lang: str) -> str | None:
    return text(f.actions[0], lang) if f.actions else None


def finding_rows(advice: Advice, lang: str) -> list[dict[str, Any]]:
    """One row per finding: rule, severity, title, saving per step (ms) and its share of the
    step (0-1; None when the rule estimates none), message, actions one per line, docs."""
    return [
        {
            "rank": i, "id": f.id, "severity": f.severity, "category": f.category,
            "title": text(f.title, lang),
            "saving_ms": f.estimated_saving_us / 1000 if f.estimated_saving_us is not None
            else None,
            "saving_share": f.saving_share,
            "message": text(f.message, lang),
            "actions": "\n".join(f"- {text(a, lang)}" for a in f.actions) or None,
            "docs": f.docs,
        }
        for i, f in enumerate(advice.findings, 1)
    ]  # fmt: skip


def evidence_rows(advice: Advice, zero_ns: int, lang: str) -> Iterator[dict[str, Any]]:
    """Each finding's evidence; a time range counts from `zero_ns` (us)."""
    for i, f in enumerate(advice.findings, 1):
        for e in f.evidence:
            yield {
                "finding": i, "id": f.id, "kind": e.kind,
                "label": (e.label_zh if lang == "zh" else None) or e.label,
                "value": e.value, "unit": e.unit, "page": e.page, "step": e.step,
                "name": e.name, "evidence_rank": e.rank,
                "start_us": (e.start_ns - zero_ns) / 1000 if e.start_ns is not None else None,
                "end_us": (e.end_ns - zero_ns) / 1000 if e.end_ns is not None else None,
            }  # fmt: skip
