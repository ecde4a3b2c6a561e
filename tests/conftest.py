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
