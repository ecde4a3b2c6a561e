"""Read and check rule files: `rules/*.toml` (built in) plus any `--rules-dir` folders.

Every problem is an error naming the file: a TOML syntax error, an unknown or mistyped
field, an expression outside the rule language, a fact that does not exist, a placeholder
that names neither a fact nor a parameter, or a `requires`/`suppresses` id with no rule.
A user folder may add rules or replace a built-in rule by using its id.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Iterable
from pathlib import Path

import msgspec

from mindinsight_profiler.advisor.expr import ExpressionError, parse
from mindinsight_profiler.advisor.facts import FACTS
from mindinsight_profiler.advisor.model import Graded, Rule
from mindinsight_profiler.advisor.text import placeholders
from mindinsight_profiler.errors import InputError

#: Names every expression and text may use besides facts and parameters.
ENGINE_NAMES = frozenset({"saving_us", "saving_share"})


def builtin_rules_dir() -> Path:
    """The packaged rules (`mindinsight_profiler/_rules` in a wheel) or the checkout's."""
    packaged = Path(__file__).resolve().parents[1] / "_rules"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "rules"


def _expression_names(path: Path, field: str, text: str) -> frozenset[str]:
    try:
        return parse(text)[1]
    except ExpressionError as exc:
        raise InputError(path, f"{field}: {exc}") from None


def check_rule(rule: Rule, path: Path) -> None:
    """Raise InputError when the rule reads a name it does not declare or that does not exist."""
    unknown = [f for f in rule.facts if f not in FACTS]
    if unknown:
        raise InputError(path, f"unknown fact(s) {', '.join(unknown)} (see docs/advisor.md)")
    known = set(rule.facts) | set(rule.params)
    used = {("when", n) for n in _expression_names(path, "when", rule.when)}
    if rule.saving_us:
        used |= {("saving_us", n) for n in _expression_names(path, "saving_us", rule.saving_us)}
    if isinstance(rule.severity, Graded) and rule.severity.by != "saving_share":
        used |= {
            ("severity.by", n) for n in _expression_names(path, "severity.by", rule.severity.by)
        }
    for where, text in [("title", rule.title), ("message", rule.message)] + [
        (f"actions[{i}]", a) for i, a in enumerate(rule.actions)
    ]:
        for lang in ("en", "zh"):
            used |= {(f"{where}.{lang}", n) for n in placeholders(getattr(text, lang))}
    for where, name in sorted(used):
        if name not in known and name not in ENGINE_NAMES:
            raise InputError(path, f"{where} reads {name!r}, which is not in facts or params")
    if (
        rule.saving_us is None
        and isinstance(rule.severity, Graded)
        and rule.severity.by == "saving_share"
    ):
        raise InputError(path, "severity graded by saving_share needs saving_us")
    bad = [e for e in rule.evidence if e not in FACTS]
    if bad:
        raise InputError(path, f"evidence names unknown fact(s) {', '.join(bad)}")


def read_rule(path: Path) -> Rule:
    """One rule file, validated."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read rule file: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"not valid TOML: {exc}") from None
    try:
        rule = msgspec.convert(data, Rule)
    except msgspec.ValidationError as exc:
        raise InputError(path, f"invalid rule: {exc}") from None
    if rule.id != path.stem:
        raise InputError(path, f"rule id {rule.id!r} must match the file name")
    check_rule(rule, path)
    return rule


def load_rules(extra_dirs: Iterable[str | Path] = ()) -> list[Rule]:
    """The built-in rules, then each extra folder's (a same id replaces the earlier rule)."""
    rules: dict[str, Rule] = {}
    paths: dict[str, Path] = {}
    for folder in [builtin_rules_dir(), *map(Path, extra_dirs)]:
        if not folder.is_dir():
            raise InputError(folder, "rules folder not found")
        for path in sorted(folder.glob("*.toml")):
            rule = read_rule(path)
            rules[rule.id], paths[rule.id] = rule, path
    for rule in rules.values():
        for ref in (*rule.requires, *rule.suppresses):
            if ref not in rules:
                raise InputError(paths[rule.id], f"refers to unknown rule {ref!r}")
    return list(rules.values())


def rules_fingerprint(extra_dirs: Iterable[str | Path] = ()) -> str:
    """A hash of every rule file's path, size and mtime: stored advice is reused only when
    equal. (Stat, not content: the server computes it on every advice request.)"""
    h = hashlib.sha256()
    for folder in [builtin_rules_dir(), *map(Path, extra_dirs)]:
        for path in sorted(Path(folder).glob("*.toml")):
            st = path.stat()
            h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]
