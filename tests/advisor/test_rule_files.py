"""The rule files themselves: valid against the published schema, loadable, bilingual, tested."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from mindinsight_profiler.advisor.facts import FACTS
from mindinsight_profiler.advisor.rules import builtin_rules_dir, load_rules
from mindinsight_profiler.advisor.schemas import PUBLISHED, ROOT, render

RULE_FILES = sorted(builtin_rules_dir().glob("*.toml"))
TESTS = Path(__file__).parent


@pytest.mark.parametrize("relative", sorted(PUBLISHED))
def test_published_schemas_are_generated_from_the_code(relative: str) -> None:
    assert (ROOT / relative).read_text(encoding="utf-8") == render(PUBLISHED[relative]), (
        f"{relative} is stale: run python -m mindinsight_profiler.advisor.schemas"
    )


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_rule_file_matches_the_schema(path: Path) -> None:
    schema = json.loads((builtin_rules_dir() / "schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(tomllib.loads(path.read_text(encoding="utf-8")), schema)


def test_builtin_rules_load_and_cover_the_categories() -> None:
    rules = load_rules()
    assert len(rules) == len(RULE_FILES)
    for rule in rules:
        for text in (rule.title, rule.message, *rule.actions):
            assert text.en.strip() and text.zh.strip(), rule.id
            assert re.search(r"[\u4e00-\u9fff]", text.zh), f"{rule.id}: zh text is not Chinese"
        assert rule.sources, f"{rule.id}: say where the rule comes from"


def test_every_fact_is_documented() -> None:
    for spec in FACTS.values():
        assert len(spec.doc) > 20 and spec.needs, spec.name


def _rule_ids_called(helper: str) -> set[str]:
    """The rule id (the last string argument) of every `helper(...)` call in the tests."""
    ids = set()
    for path in TESTS.glob("test_*.py"):
        text = path.read_text()
        for m in re.finditer(r"\b" + helper + r"\(", text):
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            strings = re.findall(r'"([a-z0-9_]+)"', text[m.end() : i])
            if strings:
                ids.add(strings[-1])
    return ids


def test_every_rule_has_a_firing_and_a_quiet_test() -> None:
    """Each rule is seen firing and seen evaluated-and-fine somewhere in these tests."""
    ids = {p.stem for p in RULE_FILES}
    assert not ids - _rule_ids_called("fires"), "rules never tested firing"
    quiet = _rule_ids_called("does_not_fire") | _rule_ids_called("_checked")  # its wrapper
    assert not ids - quiet, "rules never tested quiet"


def test_reference_doc_is_current() -> None:
    from mindinsight_profiler.advisor import reference

    assert reference.TARGET.read_text(encoding="utf-8") == reference.render(), (
        "docs/advisor-reference.md is stale: run python -m mindinsight_profiler.advisor.reference"
    )
