#!/usr/bin/env bash
# Install the project and its test tools into .venv, then run lint, type checks and all tests.
# Tests that need ../shared/data skip with a reason when it is absent.
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
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
