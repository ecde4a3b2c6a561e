"""Mutated real inputs, read and analysed in this process: each gives an `InputError` that
names a file of the case in one line, or a sound report (see `oracle`). A few hundred cases
by default; `MI_FUZZ_CASES=5000` for a long run, `MI_FUZZ_SEED` for other cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz import oracle, targets
from tests.fuzz.conftest import Bases


@pytest.mark.parametrize("case", targets.cases(targets.CASES), ids=lambda c: c.id)
def test_mutant(case: targets.Case, bases: Bases, fuzz_root: Path) -> None:
    base, base_warnings = bases(case.target)
    made = targets.make_case(case, base, fuzz_root / "cases" / case.id)
    outcome = "FAIL"
    try:
        result = oracle.analyse(
            made.entry, case.target.fmt, case.target.worker, made.folder, base_warnings
        )
        outcome = result.kind
    except BaseException as exc:
        exc.add_note(f"fuzz case {case.id}: {made.file}: {made.mutant.cls}: {made.mutant.detail}")
        raise
    finally:
        oracle.TALLY[(case.target.name, made.mutant.cls, outcome)] += 1
        targets.remove_case(made)
