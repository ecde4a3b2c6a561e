"""Fuzz fixtures: the seeded global generators, the real inputs copied once per session
(and checked sound unmutated), and the summary table printed at the end of the run."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import shared
from tests.fuzz import oracle, targets

Bases = Callable[[targets.Target], tuple[Path, set[str]]]


@pytest.fixture(autouse=True)
def _seeded() -> None:
    """Anything that draws from the global generators draws the same on every run."""
    random.seed(targets.SEED)
    np.random.seed(int.from_bytes(hashlib.sha256(targets.SEED.encode()).digest()[:4], "big"))


@pytest.fixture(scope="session")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="session")
def bases(fuzz_root: Path) -> Bases:
    """(base folder, warnings the unmutated input already gives) of a target, made once."""
    made: dict[str, tuple[Path, set[str]]] = {}

    def get(target: targets.Target) -> tuple[Path, set[str]]:
        if target.name not in made:
            shared(target.source)  # skips when the real data is absent
            base = targets.prepare_base(target, fuzz_root / "bases")
            entry = base / target.entry
            outcome = oracle.analyse(entry, target.fmt, target.worker, base, set())
            assert outcome.kind != "input error", outcome.message
            made[target.name] = (base, set(outcome.warnings))
        return made[target.name]

    return get


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = oracle.summary_lines()
    if lines:
        terminalreporter.section(f"fuzz outcomes (seed {targets.SEED!r})")
        for line in lines:
            terminalreporter.write_line(line)
