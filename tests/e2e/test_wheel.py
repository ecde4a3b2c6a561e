"""The built wheel carries the dashboard and the rules: installed in a fresh virtual
environment, outside the checkout, `mindinsight start` serves the UI, its assets and the
advice on a real run, and a browser renders the run list from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, shared
from tests.e2e.browser import UI_INDEX, Tab
from tests.server.service import free_port

RULES = sorted(p.name for p in (ROOT / "rules").glob("*.toml"))


def run(cmd: list[str | Path], cwd: Path, timeout: int = 600) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not UI_INDEX.is_file():
        pytest.skip("the dashboard is not built (bash scripts/build_ui.sh)")
    out = tmp_path_factory.mktemp("wheel")
    # a copy of the tracked and built files, so the build never writes into the checkout
    src = out / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "build", "bench", "tests", "*.egg-info", "__pycache__",
        ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ))  # fmt: skip
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out / "dist", src], out)
    (found,) = (out / "dist").glob("mindinsight_profiler-*.whl")
    return found


def test_wheel_holds_the_ui_and_the_rules(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mindinsight_profiler/_ui/index.html" in names
    built = {p.relative_to(UI_INDEX.parent).as_posix() for p in UI_INDEX.parent.rglob("*")}
    assert {f"mindinsight_profiler/_ui/{p}" for p in built if "." in p} <= names
    assets = [n for n in names if n.startswith("mindinsight_profiler/_ui/assets/")]
    assert any(n.endswith(".js") for n in assets) and any(n.endswith(".css") for n in assets)
    rules = {n.rsplit("/", 1)[1] for n in names if "/_rules/" in n and n.endswith(".toml")}
    assert rules == set(RULES)
    assert "mindinsight_profiler/analysis/perf/device_specs.toml" in names  # the device table
    for name in ("report.html.j2", "report.css"):  # `mindinsight report`'s HTML template
        assert f"mindinsight_profiler/export/html/templates/{name}" in names
    assert not any(n.startswith(("tests/", "ui/", "bench/")) for n in names)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    home = tmp_path_factory.mktemp("venv-home")  # outside the checkout: nothing imports from it
    venv = home / "venv"
    run([sys.executable, "-m", "venv", venv], home)
    run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], home)
    base = home / "runs"
    shutil.copytree(shared("kineto/resnet50_num_workers_0"), base / "resnet50")
    port = free_port()
    cli = venv / "bin" / "mindinsight"
    args = ["--port", str(port), "--workspace", home / "ws"]
    run([cli, "start", "--summary-base-dir", base, "--reload-interval", "0", *args], home)
    try:
        yield f"http://127.0.0.1:{port}", venv
    finally:
        run([cli, "stop", *args], home)


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, dict(r.headers), r.read()


def test_installed_wheel_serves_the_dashboard(installed: tuple[str, Path], tab: Tab) -> None:
    url, venv = installed
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import mindinsight_profiler as m; print(m.__file__)"],
        capture_output=True, text=True, cwd=venv, check=True,
    ).stdout  # fmt: skip
    assert str(venv) in where and str(ROOT) not in where
    status, headers, body = fetch(url + "/")
    assert status == 200 and b'<div id="app">' in body and headers["Cache-Control"] == "no-cache"
    asset = next(p for p in (UI_INDEX.parent / "assets").glob("index-*.js"))
    status, headers, _ = fetch(f"{url}/assets/{asset.name}")
    assert status == 200 and "immutable" in headers["Cache-Control"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        status, _, body = fetch(url + "/api/v1/runs")
        if (b'"ready"' in body and b'"pending"' not in body) or b'"failed"' in body:
            break
        time.sleep(0.5)
    assert b'"ready"' in body, body
    tab.page.goto(url + "/")
    tab.page.locator("[data-test=run-link]", has_text="resnet50").click()
    tab.page.locator("[data-test=finding]").first.wait_for()  # the wheel's rules gave advice
    tab.shot("wheel-overview")
    tab.assert_clean()
