"""Advice on real inputs through the real pipeline, and assertions on single rules."""

from __future__ import annotations

from pathlib import Path

from mindinsight_profiler.advisor.model import Advice, Finding
from mindinsight_profiler.formats.discovery import discover, pick_run
from mindinsight_profiler.pipeline.advice import advise_file
from mindinsight_profiler.store.cache import Workspace


def advise_path(
    path: Path, workspace: Path, worker: str | None = None, rules_dirs: tuple = ()
) -> Advice:
    """The advice for `path` (the run of `worker`, or the first run and its first worker) as
    `mindinsight advise` gives it."""
    run = pick_run(discover(path), worker)
    return advise_file(run.select(worker), run, Workspace(workspace), rules_dirs)


def fires(advice: Advice, rule_id: str) -> Finding:
    """The rule's finding; fails with what happened to the rule instead."""
    for f in advice.findings:
        if f.id == rule_id:
            return f
    raise AssertionError(f"{rule_id} did not fire: {_fate(advice, rule_id)}")


def does_not_fire(advice: Advice, rule_id: str) -> None:
    """The rule was evaluated and found nothing (not merely unevaluated)."""
    if not any(c.id == rule_id for c in advice.checked):
        raise AssertionError(f"{rule_id} is not in the checked list: {_fate(advice, rule_id)}")


def _fate(advice: Advice, rule_id: str) -> str:
    for f in advice.findings:
        if f.id == rule_id:
            return f"fired ({f.severity}): {f.message.en} facts={f.facts}"
    for c in advice.checked:
        if c.id == rule_id:
            return f"checked and fine, facts={c.facts}"
    for n in advice.not_evaluated:
        if n.id == rule_id:
            return f"not evaluated: missing {n.missing} ({n.reason})"
    for s in advice.suppressed:
        if s.id == rule_id:
            return f"suppressed by {s.by}"
    return "unknown rule"


def judging_any_window(folder: Path, *rule_ids: str) -> tuple[Path]:
    """A rules dir whose copies of `rule_ids` drop `steady_state`, for `rules_dirs`: the
    tests that check a rule's facts and evidence on a sampled trace, a fixture or a toy (which
    the built-in rule does not judge: analysis/steps/window_limits.py)."""
    root = Path(__file__).resolve().parents[2] / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    for rid in rule_ids:
        text = (root / f"{rid}.toml").read_text(encoding="utf-8")
        (folder / f"{rid}.toml").write_text(text.replace("steady_state = true\n", ""))
    return (folder,)


#: What each window limit's reason says (analysis/steps/window_limits.py).
LIMIT_WORDS = {
    "sampled": "sampled or filtered",
    "fragment": "events besides the step markers",
    "toy": "test-sized workload",
}


def window_limited(advice: Advice, rule_id: str, kind: str) -> None:
    """The built-in rule was not evaluated because the window is `kind` (sampled...), and
    the advice's notice says so."""
    reasons = {n.id: n.reason for n in advice.not_evaluated}
    assert rule_id in reasons, _fate(advice, rule_id)
    assert "steady-state rules are not evaluated" in reasons[rule_id], reasons[rule_id]
    assert LIMIT_WORDS[kind] in reasons[rule_id], reasons[rule_id]
    assert advice.window_limit is not None and LIMIT_WORDS[kind] in advice.window_limit.en
