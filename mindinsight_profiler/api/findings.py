"""The advisor's answer in a notebook: ranked findings, one DataFrame row each, with their
evidence one call away (the same `Advice` that `mindinsight advise --format json` prints)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pandas as pd

from mindinsight_profiler.advisor.model import Advice, Finding


class Findings:
    """Ranked findings (most costly first). `frame()` has one row per finding;
    `evidence(id)` the steps, operators and time ranges behind one; `advice` is the whole
    answer (what was checked and fine, what could not be evaluated and why)."""

    def __init__(self, advice: Advice) -> None:
        self.advice = advice

    def __len__(self) -> int:
        return len(self.advice.findings)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.advice.findings)

    def __getitem__(self, finding_id: str) -> Finding:
        for f in self.advice.findings:
            if f.id == finding_id:
                return f
        ids = ", ".join(f.id for f in self.advice.findings) or "none"
        raise KeyError(f"no finding {finding_id!r}; findings: {ids}")

    @property
    def combined_saving_us(self) -> float | None:
        """What the findings together could save per step (each ledger part counted once)."""
        return self.advice.combined_saving_us

    def frame(self, language: str = "en") -> pd.DataFrame:
        """One row per finding, in rank order: id, severity, category, title, the saving per
        step (us and share of the step), the first action and how much evidence it has."""
        rows = [
            {
                "id": f.id,
                "severity": f.severity,
                "category": f.category,
                "title": _text(f.title, language),
                "saving_us": f.estimated_saving_us,
                "saving_share": f.saving_share,
                "action": _text(f.actions[0], language) if f.actions else None,
                "evidence": len(f.evidence),
            }
            for f in self.advice.findings
        ]
        columns = ["id", "severity", "category", "title", "saving_us", "saving_share",
                   "action", "evidence"]  # fmt: skip
        return pd.DataFrame.from_records(rows, columns=columns)

    def evidence(self, finding_id: str) -> pd.DataFrame:
        """The evidence of one finding: what it is (step, operator, time range...), its
        value and unit, and where the dashboard shows it."""
        rows = [msgspec.to_builtins(e) for e in self[finding_id].evidence]
        columns = ["kind", "label", "value", "unit", "page", "step", "name", "rank",
                   "start_ns", "end_ns"]  # fmt: skip
        return pd.DataFrame.from_records(
            [{c: r.get(c) for c in columns} for r in rows], columns=columns
        )

    def to_dict(self) -> dict[str, Any]:
        """The whole answer as plain data (as `mindinsight advise --format json`)."""
        out: dict[str, Any] = msgspec.to_builtins(self.advice)
        return out

    def __repr__(self) -> str:
        return f"<Findings: {len(self)} of {self.advice.rules} rules fired>"

    def _repr_html_(self) -> str:
        html: str = self.frame().to_html(index=False, float_format=lambda v: f"{v:,.3g}")
        return f"<p>{len(self)} finding(s) of {self.advice.rules} rules</p>{html}"


def _text(text: Any, language: str) -> str:
    return str(getattr(text, language, None) or getattr(text, "en", text))
