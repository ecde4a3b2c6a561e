"""The evaluation set's labels and how advice is scored against them (README.md).

Pure: reading the label files and the vocabulary, and scoring a list of finding rule ids
against one label. The test module runs the advisor; this module never does.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_EXPECT = 4


@dataclass(frozen=True)
class Label:
    id: str
    path: str  # under ../shared/data, or "planted:<plant>"
    expect: tuple[str, ...]
    allow: tuple[str, ...]
    forbid: tuple[str, ...]
    why: str
    worker: str | None = None
    span: str | None = None
    source: str = ""  # the label file


@dataclass
class Score:
    """One input's findings judged: true ones, false ones, expected classes found/missed."""

    label: Label
    true: list[str] = field(default_factory=list)  # "rule (class)"
    false: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def classes(path: Path = HERE / "classes.toml") -> dict[str, dict]:
    with path.open("rb") as f:
        return dict(tomllib.load(f)["classes"])


def class_of_rule(vocabulary: dict[str, dict]) -> dict[str, str]:
    """Rule id -> the class it reports (a rule no class names is its own class)."""
    out: dict[str, str] = {}
    for name, spec in vocabulary.items():
        for rule in spec.get("rules", []):
            if rule in out:
                raise ValueError(f"rule {rule} is in two classes: {out[rule]}, {name}")
            out[rule] = name
    return out


def labels(folder: Path = HERE / "labels") -> list[Label]:
    out = []
    for file in sorted(folder.glob("*.toml")):
        with file.open("rb") as f:
            doc = tomllib.load(f)
        for raw in doc.get("input", []):
            out.append(Label(
                id=raw["id"], path=raw["path"], expect=tuple(raw.get("expect", [])),
                allow=tuple(raw.get("allow", [])), forbid=tuple(raw.get("forbid", [])),
                why=raw.get("why", ""), worker=raw.get("worker"), span=raw.get("span"),
                source=file.name,
            ))  # fmt: skip
    return out


def problems(label: Label, vocabulary: dict[str, dict]) -> list[str]:
    """What is wrong with a label (empty when it is well formed)."""
    out = []
    named = [*label.expect, *label.allow, *label.forbid]
    out += [f"{label.id}: unknown class {c}" for c in named if c not in vocabulary]
    if len(set(named)) != len(named):
        out.append(f"{label.id}: a class is listed twice among expect/allow/forbid")
    if len(label.expect) > MAX_EXPECT:
        out.append(f"{label.id}: more than {MAX_EXPECT} expected classes")
    if len(label.why.strip()) < 40:
        out.append(f"{label.id}: `why` must give the figures behind the label")
    return out


def score(label: Label, rule_ids: list[str], rule_class: dict[str, str]) -> Score:
    result = Score(label)
    claimed = set()
    for rule in rule_ids:
        cls = rule_class.get(rule, rule)
        claimed.add(cls)
        judged = result.true if cls in label.expect or cls in label.allow else result.false
        judged.append(f"{rule} ({cls})")
    for cls in label.expect:
        (result.found if cls in claimed else result.missed).append(cls)
    return result


def totals(scores: list[Score]) -> tuple[float | None, float | None]:
    """(precision, recall) over the whole set (None when there is nothing to divide)."""
    findings = sum(len(s.true) + len(s.false) for s in scores)
    expected = sum(len(s.label.expect) for s in scores)
    precision = sum(len(s.true) for s in scores) / findings if findings else None
    recall = sum(len(s.found) for s in scores) / expected if expected else None
    return precision, recall
