"""The import layering of docs/architecture.md is a checked contract (import-linter).

The contract lives in pyproject.toml; these tests run it on the package, and once on a copy
with an upward import planted, to show that the check can fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip(
    "importlinter", reason="import-linter is a dev dependency: pip install -e .[dev]"
)


def _lint(package_parent: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(package_parent))
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True, text=True, env=env, cwd=package_parent, check=False,
    )  # fmt: skip


def test_layers_are_kept() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "upward"),
    [
        ("formats/numbers.py", "mindinsight_profiler.store.cache"),
        ("analysis/intervals.py", "mindinsight_profiler.server.errors"),
        ("model/strings.py", "flask"),
    ],
)
def test_a_planted_upward_import_breaks_the_contract(
    tmp_path: Path, module: str, upward: str
) -> None:
    copy = tmp_path / "mindinsight_profiler"
    shutil.copytree(ROOT / "mindinsight_profiler", copy, ignore=shutil.ignore_patterns("_ui"))
    with (copy / module).open("a") as f:
        f.write(f"\nimport {upward}  # planted by the test\n")
    result = _lint(tmp_path)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout or "broken" in result.stdout
