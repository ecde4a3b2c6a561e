"""The engine's mechanics, exercised with user rule folders on a real trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_profiler.advisor.expr import ExpressionError, evaluate, parse
from mindinsight_profiler.advisor.model import ADVICE_VERSION
from mindinsight_profiler.advisor.rules import load_rules
from mindinsight_profiler.errors import InputError
from mindinsight_profiler.pipeline.advice import stored_advice
from mindinsight_profiler.store.cache import Workspace
from tests.advisor.helpers import advise_path, does_not_fire, fires
from tests.conftest import shared

RULE = """
id = "{id}"
category = "data_pipeline"
sources = ["test"]
facts = ["data.wait_share", "step.average_us"]
when = "{when}"
severity = "low"
{extra}
[title]
en = "t"
zh = "标题"
[message]
en = "share {{data.wait_share:.1%}}"
zh = "占比 {{data.wait_share:.1%}}"
"""


def _rules(folder: Path, **rules: tuple[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for rid, (when, extra) in rules.items():
        (folder / f"{rid}.toml").write_text(RULE.format(id=rid, when=when, extra=extra))
    return folder


def test_requires_and_suppresses_on_a_real_trace(tmp_path: Path, advisor_ws: Path) -> None:
    folder = _rules(
        tmp_path / "r",
        refine=("data.wait_share > 0.2", 'requires = ["dataloader_wait"]'),
        orphan=("data.wait_share > 0.2", 'requires = ["never"]'),
        never=("data.wait_share > 2", ""),
        hider=("data.wait_share > 0.3", 'suppresses = ["dataloader_wait"]'),
    )
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws, rules_dirs=(folder,))
    assert fires(advice, "refine").message.en == "share 33.4%"
    fires(advice, "hider")
    does_not_fire(advice, "never")
    does_not_fire(advice, "orphan")  # its condition holds, but what it refines did not fire
    assert ("dataloader_wait", "hider") in [(s.id, s.by) for s in advice.suppressed]
    assert "dataloader_wait" not in {f.id for f in advice.findings}


def test_a_user_rule_replaces_a_builtin_one(tmp_path: Path, advisor_ws: Path) -> None:
    builtin = (Path(__file__).parents[2] / "rules" / "dataloader_wait.toml").read_text()
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "dataloader_wait.toml").write_text(
        builtin.replace("threshold = 0.05", "threshold = 0.5")
    )
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws, rules_dirs=(folder,))
    does_not_fire(advice, "dataloader_wait")


def test_a_failing_condition_is_reported_not_raised(tmp_path: Path, advisor_ws: Path) -> None:
    folder = _rules(tmp_path / "r", broken=("data.wait_share / 0 > 1", ""))
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws, rules_dirs=(folder,))
    (entry,) = [n for n in advice.not_evaluated if n.id == "broken"]
    assert "ZeroDivisionError" in entry.reason
    fires(advice, "dataloader_wait")


def test_every_rule_is_accounted_for_when_facts_are_missing(advisor_ws: Path) -> None:
    """A MindSpore run lacks the PyTorch facts: those rules are listed with what they need."""
    advice = advise_path(shared("mindspore_legacy/run_2/normal_run/profiler"), advisor_ws)
    seen = [f.id for f in advice.findings] + [c.id for c in advice.checked]
    seen += [n.id for n in advice.not_evaluated] + [s.id for s in advice.suppressed]
    assert sorted(seen) == sorted(r.id for r in load_rules())
    (entry,) = [n for n in advice.not_evaluated if n.id == "dataloader_wait"]
    assert entry.missing and "DataLoader" in entry.reason


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("id = ", "not valid TOML"),
        ('id = "bad"\nunknown_field = 1', "invalid rule"),
        (RULE.format(id="other", when="data.wait_share > 1", extra=""), "must match the file"),
    ],
)
def test_malformed_rule_files_name_the_file(tmp_path: Path, body: str, problem: str) -> None:
    (tmp_path / "bad.toml").write_text(body)
    with pytest.raises(InputError, match=problem) as err:
        load_rules([tmp_path])
    assert "bad.toml" in str(err.value)


@pytest.mark.parametrize(
    ("when", "extra", "problem"),
    [
        ("__import__('os').system('true')", "", "may be called"),
        ("data.wait_share[0] > 1", "", "Subscript is not allowed"),
        ("undeclared.fact > 1", "", "not in facts or params"),
        ("data.wait_share > 1", 'requires = ["nope"]', "unknown rule 'nope'"),
    ],
)
def test_rule_checks(tmp_path: Path, when: str, extra: str, problem: str) -> None:
    _rules(tmp_path, bad=(when, extra))
    with pytest.raises(InputError, match=problem):
        load_rules([tmp_path])


def test_unknown_fact_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(
        RULE.format(id="bad", when="x.y > 1", extra="").replace(
            '"step.average_us"]', '"step.average_us", "x.y"]'
        )
    )
    with pytest.raises(InputError, match="unknown fact"):
        load_rules([tmp_path])


def test_expressions() -> None:
    values = {"a.b": 0.3, "t": 0.25, "xs": [1, 2]}
    assert evaluate("a.b > t and len(xs) == 2", values) is True
    assert evaluate("not (a.b > t) or max(a.b, 1) < 1", values) is False
    assert evaluate("0.1 < a.b <= 0.3", values) is True
    for bad in ("(lambda: 1)()", "[x for x in xs]", "a.b.__class__", "open('f')"):
        with pytest.raises(ExpressionError):
            parse(bad)


def test_stored_advice_is_reused_and_a_corrupt_copy_recomputed(tmp_path: Path) -> None:
    path = shared("kineto/resnet50_num_workers_4")
    first = advise_path(path, tmp_path)
    (stored,) = tmp_path.rglob("advice-*.json")
    before = stored.stat().st_mtime_ns
    assert advise_path(path, tmp_path) == first and stored.stat().st_mtime_ns == before
    stored.write_text('{"advice_version": 1, "findings": [')  # a torn write by another tool
    assert advise_path(path, tmp_path) == first
    assert stored_advice(stored) == first  # rewritten, sealed, of this version
    assert f'{{"advice_version":{ADVICE_VERSION},'.encode() in stored.read_bytes()


def test_stored_advice_survives_adding_the_timeline_index(tmp_path: Path) -> None:
    from mindinsight_profiler.pipeline.reports import load_timeline

    path = shared("kineto/resnet50_num_workers_4")
    first = advise_path(path, tmp_path)
    (stored,) = tmp_path.rglob("advice-*.json")
    trace_file = next(path.glob("*.pt.trace.json*"))
    load_timeline(trace_file, Workspace(tmp_path))  # rewrites the cache entry
    assert stored.exists() and advise_path(path, tmp_path) == first


SAVING = (
    'saving_us = "ledger.data_wait_measured_us"\n'
    'saving_facts = ["ledger.data_wait_measured_us"]\nclaims = ["data_wait"]'
)


def test_a_fact_only_the_saving_reads_leaves_the_finding_without_a_saving(
    tmp_path: Path, advisor_ws: Path
) -> None:
    """`saving_facts`: the MindData queue rules' saving is the steps' measured data wait;
    where the steps show none the finding stands without a saving (it showed none at all,
    nor a place in the ledger bar, before; a required fact would have hidden the finding)."""
    folder = _rules(tmp_path / "r", waits=("data.wait_share > 0.2", SAVING))
    advice = advise_path(shared("kineto/resnet50_num_workers_0"), advisor_ws, rules_dirs=(folder,))
    found = fires(advice, "waits")
    assert advice.ledger_us is not None and advice.ledger_us["data_wait"] > 0
    assert found.estimated_saving_us == pytest.approx(advice.ledger_us["data_wait"], abs=1e-3)
    assert found.claims == ["data_wait"]
    # the MindSpore fixtures: a slow pipeline op, steps that never waited at GetNext
    advice = advise_path(shared("mindspore_legacy/profiler_fixtures"), advisor_ws)
    found = fires(advice, "minddata_pipeline_op")
    assert advice.ledger_us is not None and advice.ledger_us["data_wait"] == 0
    assert found.estimated_saving_us is None and found.claims == []


@pytest.mark.parametrize(
    ("when", "extra", "problem"),
    [
        ("ledger.data_wait_measured_us > 1", SAVING, "which only saving_us may read"),
        ("data.wait_share > 1", 'saving_facts = ["step.average_us"]', "without saving_us"),
    ],
)
def test_saving_facts_checks(tmp_path: Path, when: str, extra: str, problem: str) -> None:
    _rules(tmp_path, bad=(when, extra))
    with pytest.raises(InputError, match=problem):
        load_rules([tmp_path])
