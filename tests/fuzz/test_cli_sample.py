"""A sample of mutants through the real CLI (`mindinsight analyse PATH --format json`), as a
user runs it: exit 2 with exactly one line on stderr that names a file of the case, or exit
0 with a sound report on stdout; never exit 1 ("internal error"), never a traceback, and the
process stays within an address-space limit (`RLIMIT_AS`) the whole time."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.fuzz import oracle, targets
from tests.fuzz.conftest import Bases

#: The CLI's address space: numpy and the decoders need well under this for these inputs.
ADDRESS_SPACE_BYTES = 4 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def run_cli(entry: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MINDINSIGHT_READ_PROCESSES": "1",
        # BLAS thread pools reserve address space per core: keep the limit about our code
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    env.pop("MINDINSIGHT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "mindinsight_profiler", "analyse", str(entry),
         "--format", "json", "--no-cache"],
        capture_output=True, text=True, timeout=300, env=env, preexec_fn=_limit_memory,
    )  # fmt: skip


def check_cli(r: subprocess.CompletedProcess[str], folder: Path) -> str:
    """The outcome of one CLI run (see module doc); AssertionError when it breaks the oracle."""
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    if r.returncode == 2:
        assert len(lines) == 1 and lines[0].startswith("mindinsight: error: "), r.stderr
        assert str(folder) in lines[0], f"the error names no file of the case: {lines[0]}"
        assert r.stdout == ""
        return "input error"
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-2000:]}"
    report = json.loads(r.stdout, parse_constant=_no_constants)
    problems = list(oracle.report_problems(report))
    assert not problems, "unsound report:\n  " + "\n  ".join(problems[:20])
    return "report"


@pytest.mark.parametrize("case", targets.cli_cases(targets.CLI_CASES), ids=lambda c: c.id)
def test_cli_mutant(case: targets.Case, bases: Bases, fuzz_root: Path) -> None:
    base, _ = bases(case.target)
    made = targets.make_case(case, base, fuzz_root / "cli" / case.id)
    outcome = "FAIL"
    try:
        outcome = check_cli(run_cli(made.entry), made.folder)
    except BaseException as exc:
        exc.add_note(f"fuzz case {case.id}: {made.file}: {made.mutant.cls}: {made.mutant.detail}")
        raise
    finally:
        oracle.TALLY[(f"cli:{case.target.name}", made.mutant.cls, outcome)] += 1
        targets.remove_case(made)


def test_the_cli_oracle_can_fail(tmp_path: Path) -> None:
    """The checks bite: an internal error, two lines of error, a negative time."""

    def run(code: int, out: str = "", err: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], code, out, err)

    error = f"mindinsight: error: {tmp_path}/x.json: bad\n"
    assert check_cli(run(2, err=error), tmp_path) == "input error"
    for bad in (
        run(1, err="mindinsight: internal error: IndexError: boom\n"),
        run(2, err=error + "and more\n"),
        run(2, err="mindinsight: error: /elsewhere/x.json: bad\n"),
        run(0, out='{"steps": {"durations_us": [-5.0]}}'),
        run(0, out='{"gpu": {"utilization": NaN}}'),
    ):
        with pytest.raises((AssertionError, ValueError)):
            check_cli(bad, tmp_path)


def test_the_address_space_limit_bites() -> None:
    r = subprocess.run(
        [sys.executable, "-c", f"bytearray({ADDRESS_SPACE_BYTES + (1 << 30)})"],
        capture_output=True, text=True, preexec_fn=_limit_memory, timeout=60,
    )  # fmt: skip
    assert r.returncode != 0 and "MemoryError" in r.stderr
