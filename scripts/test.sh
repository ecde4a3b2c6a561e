#!/usr/bin/env bash
# Install the project and its test tools into .venv, build the dashboard, install Chromium,
# then run lint, type checks, the UI's unit tests and all Python tests (the browser tests
# included). Tests that need ../shared/data skip with a reason when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# torch (the CPU wheel; `torch==2.13.0` resolves to the copy on this kind of machine's disk)
# for the collection tests; they skip when it cannot be installed.
.venv/bin/python -m pip install -q torch==2.13.0 ||
  echo "note: could not install torch==2.13.0; the Profiler collection tests will skip"
# MindSpore (an ~800 MB download) for the MindSpore collection test; it skips without it.
.venv/bin/python -m pip install -q mindspore ||
  echo "note: could not install mindspore; the MindSpore collection test will skip"
# The PyTorch profiler plugin, in its own venv, is the oracle for traces without golden files.
if [ ! -x bench/.venvs/tb/bin/python ]; then
  (python3 -m venv bench/.venvs/tb &&
    bench/.venvs/tb/bin/python -m pip install -q torch-tb-profiler==0.4.3) ||
    echo "note: could not install torch-tb-profiler; the plugin-oracle tests will skip"
fi
# The dashboard: built into the package (the server and the browser tests serve it), its
# type check and unit tests; Chromium for the browser tests (they skip without it).
bash scripts/build_ui.sh
bash scripts/install_browser.sh ||
  echo "note: could not install chromium; the browser tests will skip"
(cd ui && npm run --silent typecheck && npm run --silent test)
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache  # the one-way layers (pyproject.toml, docs/architecture.md)
.venv/bin/python -m pytest -q "$@"
