"""The report's judgement sections: the analysed window (one-off work, steps left out of
the averages, input warnings) and the advisor's findings, in the advice's own words."""

from __future__ import annotations

from typing import Any

from mindinsight_profiler.advisor.model import Advice
from mindinsight_profiler.export.html import fmt
from mindinsight_profiler.export.html.texts import CATEGORY, covered_text, lang_key, pick


def window(report: dict[str, Any], advice: Advice, w: dict[str, str], lang: str) -> dict[str, Any]:
    """One-off work per kind (compile, initialisation, ...), the steps the averages leave
    out, why the window cannot be judged in steady state, and the reader's warnings."""
    win = report.get("window") or {}
    kinds = [(w.get(k, k), fmt.share(v)) for k, v in (win.get("share") or {}).items() if v > 0]
    covered = (report.get("steps") or {}).get("covered") or {}
    left_out = covered.get("left_out") or []
    warnings = [(str(x.get("file") or ""), str(x.get("message") or ""))
                for x in report.get("warnings") or []]  # fmt: skip
    return {
        "one_off": fmt.share(win.get("window_share")) if kinds else None,
        "kinds": kinds,
        "left_out": covered_text(covered, lang) if left_out else w["none"],
        "limit": pick(advice.window_limit, lang) if advice.window_limit else None,
        "warnings": warnings,
    }


def findings(advice: Advice, w: dict[str, str], lang: str) -> dict[str, Any]:
    """Each finding as the advisor's card shows it: severity, category, title, saving,
    message, actions and evidence labels (Chinese labels where the advice has them)."""
    zh = lang_key(lang) == "zh"
    cards = []
    for f in advice.findings:
        saving = None
        if f.estimated_saving_us is not None:
            saving = w["saving"].format(time=fmt.us(f.estimated_saving_us),
                                        share=fmt.share(f.saving_share))  # fmt: skip
        category = CATEGORY[lang_key(lang)].get(f.category, f.category)
        cards.append({
            "id": f.id, "severity": f.severity, "severity_text": w[f.severity],
            "category": category, "title": pick(f.title, lang), "saving": saving,
            "message": pick(f.message, lang), "actions": [pick(a, lang) for a in f.actions],
            "evidence": [(e.label_zh if zh and e.label_zh else e.label) for e in f.evidence],
        })  # fmt: skip
    return {
        "cards": cards,
        "checked": w["checked"].format(
            checked=len(advice.checked), missing=len(advice.not_evaluated)
        ),
    }
