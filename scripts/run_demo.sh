#!/usr/bin/env bash
# Install mindinsight_profiler into .venv and analyse real sample data.
# Until the dashboard lands (issues 6-7) the product is `mindinsight analyse` and `advise`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
SAMPLE="${1:-../shared/data/kineto/resnet50_num_workers_0}"
if [ ! -e "$SAMPLE" ]; then
  echo "no sample data at $SAMPLE: pass a trace file or run folder as the first argument" >&2
  exit 2
fi
.venv/bin/mindinsight analyse "$SAMPLE" --top 15
echo
.venv/bin/mindinsight advise "$SAMPLE"
