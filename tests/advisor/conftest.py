"""One workspace for all advisor tests, so each real input is analysed once per session."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.advisor.planted import PLANTS  # torch is imported only inside its functions
from tests.conftest import ROOT


@pytest.fixture(scope="session")
def advisor_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("advisor-workspace")


@pytest.fixture(scope="session")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with one real torch CPU trace per plant (`planted / "leak"`, ...).

    Generated once per session by tests/advisor/planted.py with the current Python.
    """
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: planted-problem traces need a real torch run")
    out = tmp_path_factory.mktemp("planted")
    cmd = [sys.executable, "-m", "tests.advisor.planted", "--out", str(out), "--plant", *PLANTS]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"planted traces failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return out


@pytest.fixture(scope="session")
def planted_ranks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a real two-rank DDP (gloo, CPU) run whose rank 1 is slow on purpose
    (tests/advisor/planted_ranks.py): `rank0.*.pt.trace.json`, `rank1.*.pt.trace.json`.

    Rank 1 sleeps 30 ms per step: with 15 ms, a CI run on the 2-core machine (another test
    process beside it) once descheduled rank 0 long enough that rank 0 waited only 4.6 ms
    and rank 1 itself 3.4 ms; twice the lead keeps the planted order whatever runs beside."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: planted-problem traces need a real torch run")
    out = tmp_path_factory.mktemp("planted-ranks")
    cmd = [sys.executable, "-m", "tests.advisor.planted_ranks", "--out", str(out)]
    cmd += ["--delay", "0.03"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"planted ranks failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return out


def _planted_ranks_run(out: Path, *args: str) -> Path:
    """One two-rank gloo run of tests/advisor/planted_ranks.py into `out`, with `args`."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: planted-problem traces need a real torch run")
    cmd = [sys.executable, "-m", "tests.advisor.planted_ranks", "--out", str(out), *args]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"planted ranks failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return out


@pytest.fixture(scope="session")
def planted_ranks_small_buckets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two-rank DDP over gloo with 10 KB gradient buckets (`--bucket-cap-mb 0.01`): every
    step all-reduces its 397 KB of gradients as 9 small messages; no rank is slowed."""
    out = tmp_path_factory.mktemp("planted-ranks-small-buckets")
    return _planted_ranks_run(out, "--slow-rank", "-1", "--bucket-cap-mb", "0.01")


@pytest.fixture(scope="session")
def planted_ranks_uneven(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two-rank DDP over gloo where rank 1's batches hold 8x the samples (`--uneven 8`, no
    sleep): rank 1 computes longer every step and rank 0 waits for it in the all-reduce."""
    out = tmp_path_factory.mktemp("planted-ranks-uneven")
    return _planted_ranks_run(out, "--delay", "0", "--uneven", "8")


@pytest.fixture(scope="session")
def planted_ranks_accum(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two two-rank DDP runs over gloo accumulating 2 micro-batches per optimizer step:
    `sync/` all-reduces after each micro-batch (no no_sync()), `no_sync/` once per step."""
    out = tmp_path_factory.mktemp("planted-ranks-accum")
    _planted_ranks_run(out / "sync", "--slow-rank", "-1", "--accum", "2")
    _planted_ranks_run(out / "no_sync", "--slow-rank", "-1", "--accum", "2", "--no-sync")
    return out
