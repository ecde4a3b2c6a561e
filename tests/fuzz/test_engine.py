"""The fuzzer itself: mutations are deterministic and change what they say, and the oracle
catches what it is meant to catch (each check shown failing on a planted report)."""

from __future__ import annotations

import json
import random

import pytest

from tests.fuzz import json_mutations, mutate, oracle, targets

_EVENT = (
    '{"ph": "X", "cat": "cpu_op", "name": "op%d", "pid": 1, "tid": 1, '
    '"ts": 1712195495505%d.988, "dur": 5, "args": {"External id": %d}}'
)
_TRACE = (
    '{"schemaVersion": 1, "traceEvents": ['
    + ", ".join(_EVENT % (i, 100 + i, i) for i in range(40))
    + ', {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "p"}}]}'
).encode()
_CSV = b"Name,Start Time(us),Duration(us)\r\na,1736405443881410.320\t,5.5\r\nb,2,3\r\n"
_TEXT = b"0 1 2 3.5 100\n1 64 2 10 200\n"


@pytest.mark.parametrize("cls", mutate.CLASSES)
@pytest.mark.parametrize(("name", "data"), [("t.json", _TRACE), ("k.csv", _CSV), ("q.txt", _TEXT)])
def test_each_class_changes_the_file_the_same_way_every_time(
    cls: str, name: str, data: bytes
) -> None:
    if cls in mutate.EVENT_ONLY and name != "t.json":
        with pytest.raises(ValueError, match="need a file of events"):
            mutate.mutate(data, name, cls, random.Random(1))
        return
    changed = 0
    for seed in range(12):
        a = mutate.mutate(data, name, cls, random.Random(seed))
        b = mutate.mutate(data, name, cls, random.Random(seed))
        assert a == b and a.cls == cls and a.detail
        changed += a.data != data
    assert changed >= 10, f"{cls} left {name} unchanged in {12 - changed} of 12 seeds"


def test_json_numbers_survive_the_round_trip_exactly() -> None:
    """Re-encoding keeps every other value as written (ns decimals included), so a mutant
    differs from the real file only where the mutation says."""
    doc = json_mutations.Doc(_TRACE)
    assert b"1712195495505139.988" in doc.encode()
    assert json.loads(doc.encode()) == json.loads(_TRACE)


def test_raw_values_are_spliced_where_json_values_go() -> None:
    doc = json_mutations.Doc(b'{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2}]}')
    events = doc.events()
    assert events is not None
    events[0]["dur"] = doc.raw("NaN")
    events[0]["args"] = doc.raw(b"[" * 3 + b"]" * 3)
    assert doc.encode() == b'{"traceEvents":[{"ph":"X","ts":1,"dur":NaN,"args":[[[]]]}]}'


def test_begin_end_pairs_are_in_an_order_a_trace_may_have() -> None:
    """Converted X events come back as B/E records sorted by time per track (outer ranges
    opening first): the mutant is a valid Chrome trace, not a shuffled one."""
    for seed in range(30):
        rng = random.Random(seed)
        doc = json_mutations.Doc(_TRACE)
        detail = json_mutations.MUTATIONS["phase"](doc, rng)
        if "B/E pairs (lost: none)" not in detail:
            continue
        events = doc.events() or []
        records = [e for e in events if e.get("ph") in ("B", "E")]
        times = [float(e["ts"]) for e in records]
        assert times == sorted(times) and len(records) % 2 == 0
        return
    pytest.fail("no balanced B/E mutant in 30 seeds")


def test_cases_are_planned_deterministically_and_cover_every_class() -> None:
    planned = targets.cases(120)
    assert [c.id for c in planned] == [c.id for c in targets.cases(120)]
    for t in targets.TARGETS:
        classes = {mutate.CLASSES[c.index % len(mutate.CLASSES)] for c in planned if c.target is t}
        assert classes == set(mutate.CLASSES), t.name


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        ({"steps": {"durations_us": [1.0, -2.0]}}, "negative"),
        ({"operators": [{"host_self_us": -3676.0}]}, "negative"),
        ({"gpu": {"utilization": 101.0}}, "percentage above 100"),
        ({"data_pipeline": {"share": 1.5}}, "fraction above 1"),
        ({"kernels": [{"pmu": {"aic_mac_ratio": 2.0}}]}, "fraction above 1"),
        ({"x": {"per_op_pct": {"3": 250.0}}}, ""),  # not a declared percentage: passes
        ({"gpu": {"occupancy": float("nan")}}, "not finite"),
        ({"meta": {"warnings": ["ok", 5]}}, "not (file, message) records"),
        ({"warnings": [{"file": None, "message": 3}]}, "not (file, message) records"),
    ],
)
def test_the_oracle_catches_planted_problems(report: dict, expected: str) -> None:
    problems = list(oracle.report_problems(report))
    if expected:
        assert problems and expected in problems[0], problems
    else:
        assert problems == []


def test_signed_figures_are_allowed_where_they_mean_something() -> None:
    ok = {
        "memory": {"devices": [{"operators": [{"increase_bytes": -20}]}]},
        "step_trace": {"steps": [{"start_us": 0.0, "collectives": [{"start_us": -26.0}]}]},
    }
    assert list(oracle.report_problems(ok)) == []
    bad = {"step_trace": {"steps": [{"start_us": -1.0, "collectives": []}]}}
    assert list(oracle.report_problems(bad))
