"""The scoring of the evaluation set on hand-made labels (no advisor run)."""

from __future__ import annotations

import pytest

from tests.advisor.expert.scoring import Label, class_of_rule, problems, score, totals

VOCAB = {
    "data_wait": {"means": "", "rules": ["dataloader_wait", "slow_dataloader_call"]},
    "device_idle": {"means": "", "rules": ["gpu_idle_gaps"]},
    "low_mfu": {"means": "", "rules": []},
}


def _label(**kw: object) -> Label:
    base = {"id": "x", "path": "p", "expect": (), "allow": (), "forbid": (),
            "why": "DataLoader 59 ms of a 178 ms step (33 %), num_workers=0."}  # fmt: skip
    return Label(**{**base, **kw})  # type: ignore[arg-type]


def test_a_finding_is_true_only_when_its_class_is_expected_or_allowed() -> None:
    rule_class = class_of_rule(VOCAB)
    label = _label(expect=("data_wait", "low_mfu"), allow=("device_idle",))
    s = score(
        label, ["dataloader_wait", "slow_dataloader_call", "gpu_idle_gaps", "other"], rule_class
    )
    assert s.true == ["dataloader_wait (data_wait)", "slow_dataloader_call (data_wait)",
                      "gpu_idle_gaps (device_idle)"]  # fmt: skip
    assert s.false == ["other (other)"]  # an unlabelled class counts as false
    assert s.found == ["data_wait"] and s.missed == ["low_mfu"]
    assert totals([s]) == (pytest.approx(3 / 4), pytest.approx(1 / 2))
    empty = score(_label(), [], rule_class)
    assert totals([empty]) == (None, None)


def test_malformed_labels_are_named() -> None:
    bad = _label(expect=("data_wait", "nope"), forbid=("data_wait",), why="short")
    found = problems(bad, VOCAB)
    assert any("unknown class nope" in p for p in found)
    assert any("twice" in p for p in found)
    assert any("why" in p for p in found)
    with pytest.raises(ValueError, match="two classes"):
        class_of_rule({"a": {"rules": ["r"]}, "b": {"rules": ["r"]}})
