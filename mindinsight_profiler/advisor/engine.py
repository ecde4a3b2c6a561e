"""Evaluate rules against a run's facts: findings, checked-and-fine, not evaluated.

The engine knows nothing about any particular rule: it reads the facts a rule declares,
evaluates its `when` condition, estimates the saving, grades the severity, attaches the
evidence of the facts the rule names, then applies `requires` (a rule only counts when
another fired) and `suppresses` (a more specific finding hides a general one), and ranks
what is left by estimated saving, then severity.
"""

from __future__ import annotations

import math
from typing import Any

from mindinsight_profiler.advisor.damaged import blocked, damaged_files
from mindinsight_profiler.advisor.expr import ExpressionError, evaluate
from mindinsight_profiler.advisor.facts import Context
from mindinsight_profiler.advisor.ledger import WHOLE_STEP, cap, combined
from mindinsight_profiler.advisor.model import (
    ADVICE_VERSION,
    SEVERITY_RANK,
    Advice,
    Checked,
    Evidence,
    Finding,
    NotEvaluated,
    Rule,
    Suppressed,
    Text,
)
from mindinsight_profiler.advisor.text import render

#: At most this many evidence items per fact on one finding.
EVIDENCE_PER_FACT = 10
#: A window with more one-off work than this (compilation, initialisation, capture, warm-up:
#: analysis/steps/window.py) is not judged by steady-state rules: it would say what the
#: set-up costs, not what training does.
MAX_ONE_OFF_SHARE = 0.5


def _one_off(rule: Rule, ctx: Context) -> NotEvaluated | None:
    """Steady-state rules are not evaluated on a window that cannot support them: one made
    mostly of one-off work, or one that is sampled, a fragment or a toy (window.limit)."""
    if not rule.steady_state:
        return None
    why = _window_limit(ctx)
    got = ctx.get("window.share")
    if why is None and got is not None and got.value > MAX_ONE_OFF_SHARE:
        why = (
            f"the profiled window is {got.value:.0%} one-off work (compilation, initialisation, "
            "graph capture, warm-up): steady-state rules are not evaluated; profile after warm-up"
        )
    return None if why is None else NotEvaluated(rule.id, rule.category, rule.title, [], why)


def _window_limit(ctx: Context) -> str | None:
    """Why no steady-state judgement can be made on this window (None: it can)."""
    kind, reason = ctx.get("window.limit"), ctx.get("window.limit_reason")
    if kind is None or kind.value == "none" or reason is None:
        return None
    return f"{reason.value}: steady-state rules are not evaluated; {LIMIT_ADVICE[kind.value]}"


#: What to do about each window limit (analysis/steps/window_limits.py).
LIMIT_ADVICE = {
    "sampled": "profile a complete trace (no sampling or event filter)",
    "fragment": "profile complete training steps",
    "toy": "profile the real workload: a test-sized model has no steady state worth tuning",
}
_LIMIT_ADVICE_ZH = {
    "sampled": "空闲、间隙与未覆盖时间都是被删事件所致；请采集完整的 trace（不采样、不过滤事件）",
    "fragment": "无法归因迭代时间；请采集完整的训练迭代",
    "toy": "没有值得调优的稳态；请采集真实负载",
}


def _limit_text(ctx: Context) -> Text | None:
    """The advice's notice that the window cannot be judged (None when it can)."""
    why, kind = _window_limit(ctx), ctx.get("window.limit")
    if why is None or kind is None:
        return None
    en = f"The profiled window cannot be judged in steady state: {why}."
    reason_zh = ctx.get("window.limit_reason_zh")
    zh_why = reason_zh.value if reason_zh is not None and reason_zh.value else ""
    zh = (
        f"无法按稳态评判该采集窗口：{zh_why + '；' if zh_why else ''}"
        f"{_LIMIT_ADVICE_ZH[kind.value]}（稳态规则未评估）。"
    )
    return Text(en=en, zh=zh)


def _scalar(value: Any) -> Any:
    """A fact value as shown with a finding: lists become their length."""
    if isinstance(value, (list, tuple, dict)):
        return len(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _severity(rule: Rule, values: dict[str, Any]) -> str:
    if isinstance(rule.severity, str):
        return rule.severity
    by = values.get("saving_share") if rule.severity.by == "saving_share" else None
    if rule.severity.by != "saving_share":
        by = evaluate(rule.severity.by, values)
    if by is None:
        return "low"
    if by >= rule.severity.high:
        return "high"
    return "medium" if by >= rule.severity.medium else "low"


def _saving(rule: Rule, values: dict[str, Any], ctx: Context) -> float | None:
    """The rule's saving expression; None without one, or when a fact only it reads is
    unavailable (the finding stands without a saving)."""
    if rule.saving_us is None:
        return None
    for name in rule.saving_facts:
        if name not in values:
            got = ctx.get(name)
            if got is None:
                return None
            values[name] = got.value
    saving: float = evaluate(rule.saving_us, values)
    return saving


def _evaluate(rule: Rule, ctx: Context) -> Finding | Checked | NotEvaluated:
    stopped = blocked(rule.facts, damaged_files(ctx.report))
    if stopped is not None:
        return NotEvaluated(rule.id, rule.category, rule.title, *stopped)
    observed = {name: ctx.get(name) for name in rule.facts}
    missing = [name for name, got in observed.items() if got is None]
    if missing:  # what the input lacks comes first: it holds on any window
        reasons = sorted({ctx.reason(name) for name in missing} - {""})
        return NotEvaluated(rule.id, rule.category, rule.title, missing, "; ".join(reasons))
    skipped = _one_off(rule, ctx)
    if skipped is not None:
        return skipped
    values: dict[str, Any] = dict(rule.params)
    values.update({name: got.value for name, got in observed.items() if got is not None})
    facts = {name: _scalar(values[name]) for name in rule.facts}
    try:
        fired = bool(evaluate(rule.when, values))
        if not fired:
            return Checked(rule.id, rule.category, rule.title, facts)
        saving = _saving(rule, values, ctx)
        average = ctx.value("step.average_us")
        if saving is not None:  # no more than the ledger parts the saving comes from
            saving = cap(max(0.0, float(saving)), rule.claims, _ledger(ctx), average)
        share = saving / average if saving is not None and average else None
        values["saving_us"], values["saving_share"] = saving, share
        severity = _severity(rule, values)
        message = _text(rule.message, values)
        device, framework = ctx.report.get("device_type"), ctx.report.get("framework")
        actions = [_text(a, values) for a in rule.actions if a.fits(device, framework)]
    except (ArithmeticError, TypeError, ValueError, KeyError) as exc:
        why = f": {exc}" if isinstance(exc, ExpressionError) else ""  # a size limit: say which
        return NotEvaluated(
            rule.id, rule.category, rule.title, [], f"condition failed: {type(exc).__name__}{why}"
        )
    evidence: list[Evidence] = []
    for name in rule.evidence:
        got = observed.get(name) or ctx.get(name)
        if got is not None:
            evidence.extend(got.evidence[:EVIDENCE_PER_FACT])
    return Finding(
        id=rule.id,
        category=rule.category,
        severity=severity,  # type: ignore[arg-type]
        title=_text(rule.title, values),
        message=message,
        actions=actions,
        estimated_saving_us=None if saving is None else round(saving, 3),
        saving_share=None if share is None else round(share, 6),
        evidence=evidence,
        facts=facts,
        docs=rule.docs,
        claims=(list(rule.claims) or [WHOLE_STEP]) if saving is not None else [],
    )


def _ledger(ctx: Context) -> dict[str, float] | None:
    """The average step's ledger (None for reports that have none)."""
    ledger = ctx.report.get("ledger")
    return dict(ledger["average_us"]) if ledger else None


def _text(text: Text, values: dict[str, Any]) -> Text:
    return Text(en=render(text.en, values), zh=render(text.zh, values))


def _rank_key(f: Finding) -> tuple[float, int, str]:
    return (-(f.estimated_saving_us or 0.0), SEVERITY_RANK[f.severity], f.id)


def advise(
    rules: list[Rule], ctx: Context, source: str | None = None, worker: str | None = None
) -> Advice:
    """Evaluate every rule on `ctx` and rank the findings."""
    results = {rule.id: _evaluate(rule, ctx) for rule in rules}
    by_id = {rule.id: rule for rule in rules}
    fired = {rid for rid, r in results.items() if isinstance(r, Finding)}
    # requires: a refinement counts only when what it refines fired (repeat to a fixpoint)
    changed = True
    while changed:
        changed = False
        for rid in sorted(fired):
            if any(req not in fired for req in by_id[rid].requires):
                fired.discard(rid)
                changed = True
    hiders = {rid: [o for o in sorted(fired) if rid in by_id[o].suppresses] for rid in fired}
    suppressed = [Suppressed(rid, by=hiders[rid][0]) for rid in sorted(fired) if hiders[rid]]
    hidden = {s.id for s in suppressed}
    findings = sorted(
        (
            r
            for rid, r in results.items()
            if rid in fired and rid not in hidden and isinstance(r, Finding)
        ),
        key=_rank_key,
    )
    checked = [r for r in results.values() if isinstance(r, Checked)]
    checked += [
        Checked(r.id, r.category, by_id[r.id].title, r.facts)
        for rid, r in results.items()
        if isinstance(r, Finding) and rid not in fired
    ]
    not_evaluated = [r for r in results.values() if isinstance(r, NotEvaluated)]
    ledger, step = _ledger(ctx), ctx.get("step.average_us")
    step_us = float(step.value) if step is not None and step.value else None
    union = combined(
        ((f.estimated_saving_us or 0.0, f.claims) for f in findings if f.claims), ledger, step_us
    )
    return Advice(
        advice_version=ADVICE_VERSION,
        source=source,
        worker=worker,
        rules=len(rules),
        findings=findings,
        checked=sorted(checked, key=lambda c: c.id),
        not_evaluated=sorted(not_evaluated, key=lambda n: n.id),
        suppressed=suppressed,
        combined_saving_us=round(union, 3) if step_us else None,
        combined_saving_share=round(union / step_us, 6) if step_us else None,
        ledger_us={k: round(v, 3) for k, v in ledger.items()} if ledger else None,
        window_limit=_limit_text(ctx),
    )
