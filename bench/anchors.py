"""The tools we compare against, each in its own virtual environment under ``bench/.venvs``.

The anchors pin old releases (and pull in TensorBoard, Jupyter, plotly ...) that must
never leak into the project's own environment, so each gets a private venv. A venv is
reused when its package already imports at the expected version; otherwise it is
(re)built with pip from PyPI. The pip log is kept beside the venv for when that fails.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
VENVS_DIR = BENCH_DIR / ".venvs"
DRIVERS_DIR = BENCH_DIR / "drivers"


@dataclass(frozen=True)
class Anchor:
    """One comparison tool: where it lives, how to install it, how to drive it."""

    key: str
    label: str
    distribution: str
    # Requirements tried in order: the release the targets were set against, then latest.
    requirements: tuple[str, ...]
    driver: Path

    @property
    def venv(self) -> Path:
        return VENVS_DIR / self.key

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def command(self, trace: Path) -> list[str]:
        return [str(self.python), str(self.driver), str(trace)]


TB_PLUGIN = Anchor(
    key="tb",
    label="tb_plugin",
    distribution="torch-tb-profiler",
    requirements=("torch-tb-profiler==0.4.3",),
    driver=DRIVERS_DIR / "tb_plugin_driver.py",
)
HTA = Anchor(
    key="hta",
    label="hta",
    distribution="holistictraceanalysis",
    requirements=("holistictraceanalysis==0.5.0", "holistictraceanalysis"),
    driver=DRIVERS_DIR / "hta_driver.py",
)
ANCHORS = (TB_PLUGIN, HTA)


def installed_version(anchor: Anchor) -> str | None:
    """The anchor's version inside its venv, or None when the venv is missing or broken."""
    if not anchor.python.exists():
        return None
    probe = f"import importlib.metadata as m; print(m.version({anchor.distribution!r}))"
    result = subprocess.run(
        [str(anchor.python), "-c", probe], capture_output=True, text=True, check=False
    )
    return result.stdout.strip() if result.returncode == 0 else None


def _pip_install(anchor: Anchor, requirement: str, log: Path) -> bool:
    with log.open("a") as fh:
        fh.write(f"\n=== pip install {requirement}\n")
        fh.flush()
        result = subprocess.run(
            [str(anchor.python), "-m", "pip", "install", "--quiet", requirement],
            stdout=fh,
            stderr=subprocess.STDOUT,
            check=False,
        )
    return result.returncode == 0


def ensure_anchor(anchor: Anchor) -> str:
    """Make the anchor's venv usable; returns the installed version.

    Raises RuntimeError (naming the pip log) when no requirement could be installed.
    """
    version = installed_version(anchor)
    wanted = anchor.requirements[0].partition("==")[2]
    if version is not None and (not wanted or version == wanted):
        return version
    VENVS_DIR.mkdir(parents=True, exist_ok=True)
    log = VENVS_DIR / f"{anchor.key}.pip.log"
    if not anchor.python.exists():
        print(f"creating venv {anchor.venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(anchor.venv)], check=True)
    for requirement in anchor.requirements:
        print(f"installing {requirement} into {anchor.venv} (log: {log})", flush=True)
        if _pip_install(anchor, requirement, log):
            version = installed_version(anchor)
            if version is not None:
                return version
    if version is not None:
        return version  # an older install that still works beats none
    raise RuntimeError(f"could not install {anchor.distribution}; see {log}")
