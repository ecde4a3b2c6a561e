"""Shared fixtures: where the real data lives, and skipping cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("MI_SHARED_DIR", ROOT.parent / "shared")) / "data"


def shared(relative: str) -> Path:
    """A path under ../shared/data; skips the test (with the reason) when it is missing."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path} (tests read ../shared/data beside the repo)")
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "workspace"


def _sqlite_side_files() -> set[Path]:
    """SQLite journals beside the shared databases: opening a database without
    `immutable=1` can create them, which would modify the user's profiler output."""
    return {
        p
        for pattern in ("*.db-wal", "*.db-shm", "*.db-journal")
        for p in SHARED_DATA.glob(f"ascend_pytorch_db/**/{pattern}")
    }


@pytest.fixture(autouse=True, scope="session")
def shared_data_untouched() -> object:
    """Fail the session when a test left SQLite side files in ../shared/data."""
    before = _sqlite_side_files()
    yield
    created = _sqlite_side_files() - before
    assert not created, f"tests wrote beside the shared databases: {sorted(map(str, created))}"
