"""A source install builds the dashboard when npm is there, and says how when it is not.

Issue 19: `pip install -e .` then `mindinsight start` served "the dashboard is not built".
setup.py's build_py now runs scripts/build_ui.sh when the bundle is missing. Tested on a
small tree holding the real setup.py and stand-ins for the build script and npm (the real
build is what scripts/build_ui.sh and the wheel test exercise).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

FAKE_BUILD = """#!/usr/bin/env bash
set -e
cd "$(dirname "$0")/.."
mkdir -p mindinsight_profiler/_ui/assets
echo '<html>built</html>' > mindinsight_profiler/_ui/index.html
echo 'x' > mindinsight_profiler/_ui/assets/app.js
"""


def _tree(tmp: Path, npm: bool) -> tuple[Path, dict[str, str]]:
    src = tmp / "src"
    (src / "mindinsight_profiler").mkdir(parents=True)
    shutil.copy(ROOT / "setup.py", src / "setup.py")
    shutil.copy(ROOT / "README.md", src / "README.md")
    shutil.copy(ROOT / "mindinsight_profiler" / "_version.py", src / "mindinsight_profiler")
    (src / "mindinsight_profiler" / "__init__.py").write_text("")
    (src / "rules").mkdir()
    (src / "rules" / "a.toml").write_text("")
    (src / "scripts").mkdir()
    (src / "scripts" / "build_ui.sh").write_text(FAKE_BUILD)
    (src / "ui").mkdir()
    (src / "ui" / "package.json").write_text("{}")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "mkdir", "dirname", "env"):
        (bin_dir / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    if npm:
        (bin_dir / "npm").write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / "npm").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "MI_SKIP_UI_BUILD"}
    env["PATH"] = str(bin_dir)
    return src, env


def _build(src: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", "out"],
        cwd=src, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_source_build_builds_the_dashboard_when_npm_is_there(tmp_path: Path) -> None:
    src, env = _tree(tmp_path, npm=True)
    done = _build(src, env)
    assert done.returncode == 0, done.stderr
    assert "building the dashboard" in done.stderr
    assert (src / "out" / "mindinsight_profiler" / "_ui" / "index.html").read_text().strip() == (
        "<html>built</html>"
    )
    assert (src / "out" / "mindinsight_profiler" / "_ui" / "assets" / "app.js").is_file()
    assert (src / "out" / "mindinsight_profiler" / "_rules" / "a.toml").is_file()


def test_without_npm_the_build_goes_on_and_says_how(tmp_path: Path) -> None:
    src, env = _tree(tmp_path, npm=False)
    done = _build(src, env)
    assert done.returncode == 0, done.stderr
    assert "npm not found" in done.stderr and "bash scripts/build_ui.sh" in done.stderr
    assert not (src / "out" / "mindinsight_profiler" / "_ui").exists()
    env["MI_SKIP_UI_BUILD"] = "1"
    src2, env2 = _tree(tmp_path / "again", npm=True)
    env2["MI_SKIP_UI_BUILD"] = "1"
    done = _build(src2, env2)
    assert "MI_SKIP_UI_BUILD=1" in done.stderr and not (src2 / "mindinsight_profiler/_ui").exists()
