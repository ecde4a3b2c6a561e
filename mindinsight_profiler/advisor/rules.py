"""Read and check rule files: `rules/*.toml` (built in) plus any `--rules-dir` folders.

Every problem is an error naming the file: a TOML syntax error, an unknown or mistyped
field, an expression outside the rule language, a fact that does not exist, a placeholder
that names neither a fact nor a parameter, a `requires`/`suppresses` id with no rule, or a
`requires` cycle. A user folder may add rules or replace a built-in rule by using its id.

Rule files are untrusted data: what reading one may cost is capped in `rule_files`, and a
rule's expressions and texts are bounded here, when it is loaded (`expr`, `text`), so that
evaluating it on any input stays small. The limits are listed in docs/advisor.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

import msgspec

from mindinsight_profiler.advisor.expr import ExpressionError, check_constants, parse
from mindinsight_profiler.advisor.facts import FACTS
from mindinsight_profiler.advisor.ledger import CLAIMS
from mindinsight_profiler.advisor.model import Graded, Rule
from mindinsight_profiler.advisor.rule_files import read_toml, rule_paths
from mindinsight_profiler.advisor.text import TemplateError, placeholders
from mindinsight_profiler.errors import InputError

#: Names every expression and text may use besides facts and parameters.
ENGINE_NAMES = frozenset({"saving_us", "saving_share"})

#: Most entries of a rule's lists and parameters (each list item costs work per input).
MAX_ENTRIES = {"facts": 64, "actions": 16, "evidence": 32, "requires": 32, "suppresses": 32,
               "sources": 16, "params": 64}  # fmt: skip
#: Longest string parameter, in characters.
MAX_PARAM_STRING = 200


def builtin_rules_dir() -> Path:
    """The packaged rules (`mindinsight_profiler/_rules` in a wheel) or the checkout's."""
    packaged = Path(__file__).resolve().parents[1] / "_rules"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "rules"


def _expression_names(
    path: Path, field: str, text: str, params: Mapping[str, object]
) -> frozenset[str]:
    try:
        names = parse(text)[1]
        check_constants(text, params)
    except ExpressionError as exc:
        raise InputError(path, f"{field}: {exc}") from None
    return names


def _text_names(path: Path, where: str, template: str) -> set[str]:
    try:
        return placeholders(template)
    except TemplateError as exc:
        raise InputError(path, f"{where}: {exc}") from None


def _check_sizes(rule: Rule, path: Path) -> None:
    for field, most in MAX_ENTRIES.items():
        if len(getattr(rule, field)) > most:
            raise InputError(path, f"{field}: more than {most} entries")
    for name, value in rule.params.items():
        if isinstance(value, str) and len(value) > MAX_PARAM_STRING:
            raise InputError(path, f"params.{name[:40]!r}: a string parameter of {len(value)} "
                             f"characters (at most {MAX_PARAM_STRING})")  # fmt: skip


def check_rule(rule: Rule, path: Path) -> None:
    """Raise InputError when the rule reads a name it does not declare or that does not exist,
    or is bigger than the limits allow."""
    _check_sizes(rule, path)
    unknown = [f for f in [*rule.facts, *rule.saving_facts] if f not in FACTS]
    if unknown:
        shown = ", ".join(repr(f[:80]) for f in unknown[:5])
        raise InputError(path, f"unknown fact(s) {shown} (see docs/advisor.md)")
    known = set(rule.facts) | set(rule.params)
    if rule.saving_facts and rule.saving_us is None:
        raise InputError(path, "saving_facts without saving_us: nothing reads them")
    only_saving = set(rule.saving_facts) - set(rule.facts)
    expressions = [("when", rule.when)]
    if rule.saving_us:
        expressions.append(("saving_us", rule.saving_us))
    if isinstance(rule.severity, Graded) and rule.severity.by != "saving_share":
        expressions.append(("severity.by", rule.severity.by))
    used = {
        (field, n)
        for field, text in expressions
        for n in _expression_names(path, field, text, rule.params)
    }
    for where, text in [("title", rule.title), ("message", rule.message)] + [
        (f"actions[{i}]", a) for i, a in enumerate(rule.actions)
    ]:
        for lang in ("en", "zh"):
            used |= {(f"{where}.{lang}", n) for n in _text_names(path, f"{where}.{lang}",
                                                                  getattr(text, lang))}  # fmt: skip
    for where, name in sorted(used):
        if name in only_saving and where != "saving_us":
            raise InputError(path, f"{where} reads {name!r}, which only saving_us may read")
        if name not in known | only_saving and name not in ENGINE_NAMES:
            raise InputError(path, f"{where} reads {name!r}, which is not in facts or params")
    if (
        rule.saving_us is None
        and isinstance(rule.severity, Graded)
        and rule.severity.by == "saving_share"
    ):
        raise InputError(path, "severity graded by saving_share needs saving_us")
    wrong = [c for c in rule.claims if c not in CLAIMS]
    if wrong:
        raise InputError(
            path, f"claims names {wrong[0][:80]!r}, not a ledger part ({', '.join(sorted(CLAIMS))})"
        )
    if rule.claims and rule.saving_us is None:
        raise InputError(path, "claims without saving_us: there is no saving to place")
    bad = [e for e in rule.evidence if e not in FACTS]
    if bad:
        shown = ", ".join(repr(f[:80]) for f in bad[:5])
        raise InputError(path, f"evidence names unknown fact(s) {shown}")


def read_rule(path: Path) -> Rule:
    """One rule file, validated; the error's problem is one line whatever the file holds
    (a key or fact name may contain a newline, and msgspec quotes field names as written)."""
    try:
        return _read_rule(path)
    except InputError as exc:
        raise InputError(path, exc.problem.translate(_ONE_LINE)) from None


#: Control characters shown escaped, so that an error stays one line.
_ONE_LINE = {c: f"\\x{c:02x}" for c in range(32)}


def _read_rule(path: Path) -> Rule:
    data = read_toml(path)
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
        for path in rule_paths(folder):
            rule = read_rule(path)
            rules[rule.id], paths[rule.id] = rule, path
    for rule in rules.values():
        for ref in (*rule.requires, *rule.suppresses):
            if ref not in rules:
                raise InputError(paths[rule.id], f"refers to unknown rule {ref!r}")
    for rid in sorted(rules):
        cycle = _requires_cycle(rid, rules)
        if cycle:
            raise InputError(paths[rid], f"requires forms a cycle: {' -> '.join(cycle)}")
    return list(rules.values())


def _requires_cycle(start: str, rules: Mapping[str, Rule]) -> list[str] | None:
    """A `requires` path from `start` back to itself, if any (iterative: no deep recursion).

    Such rules could never count (each waits for the other), so the cycle is an error.
    """
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        rid, path = stack.pop()
        for ref in rules[rid].requires:
            if ref == start:
                return [*path, ref]
            if ref not in seen:
                seen.add(ref)
                stack.append((ref, [*path, ref]))
    return None


def rules_fingerprint(extra_dirs: Iterable[str | Path] = ()) -> str:
    """A hash of every rule file's path, size and mtime: stored advice is reused only when
    equal. (Stat, not content: the server computes it on every advice request.)"""
    h = hashlib.sha256()
    for folder in [builtin_rules_dir(), *map(Path, extra_dirs)]:
        for path in sorted(Path(folder).glob("*.toml")):
            st = path.stat()
            h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]
