"""Table searches: plain text is a part of a name in any case; "quoted" text one name."""

from __future__ import annotations

from mindinsight_profiler.analysis.text_match import name_matcher

NAMES = ["aten::add", "aten::add_", "aten::addmm", "Aten::Add", '"odd"']


def _hits(search: str | None) -> list[str]:
    matches = name_matcher(search)
    return NAMES if matches is None else [n for n in NAMES if matches(n)]


def test_plain_text_is_a_part_in_any_case() -> None:
    assert _hits("ADD") == ["aten::add", "aten::add_", "aten::addmm", "Aten::Add"]
    assert _hits("") == NAMES and _hits(None) == NAMES


def test_quoted_text_is_one_exact_name() -> None:
    assert _hits('"aten::add"') == ["aten::add"]
    assert _hits('"Aten::Add"') == ["Aten::Add"]
    assert _hits('""odd""') == ['"odd"']  # a name with quotes of its own, quoted
    # too short to be quoted: plain text, a part of a name
    assert _hits('"') == ['"odd"'] and _hits('""') == []
