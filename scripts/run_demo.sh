#!/usr/bin/env bash
# Install mindinsight_profiler into .venv, analyse and advise on real sample data, then serve
# the sample's folder with the REST service (Ctrl-C stops it). The dashboard (issue 7) will
# be served by the same command.
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
echo
BASE="$(cd "$(dirname "$SAMPLE")" && pwd)"
PORT="${MINDINSIGHT_PORT:-8080}"
echo "serving $BASE: try http://127.0.0.1:$PORT/api/v1/runs (Ctrl-C to stop)"
exec .venv/bin/mindinsight start --summary-base-dir "$BASE" --port "$PORT" --foreground
