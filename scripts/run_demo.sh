#!/usr/bin/env bash
# Install mindinsight_profiler into .venv with its dashboard, analyse and advise on one real
# sample, then serve every sample run in ../shared/data (Kineto GPU and CPU, Ascend, MindSpore)
# at http://127.0.0.1:8080 (Ctrl-C stops it). Runs not analysed yet are analysed in the
# background; the run list shows their progress.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
bash scripts/build_ui.sh
SAMPLE="${1:-../shared/data/kineto/resnet50_num_workers_0}"
if [ ! -e "$SAMPLE" ]; then
  echo "no sample data at $SAMPLE: pass a trace file or run folder as the first argument" >&2
  exit 2
fi
.venv/bin/mindinsight analyse "$SAMPLE" --top 15
echo
.venv/bin/mindinsight advise "$SAMPLE"
echo
if [ -n "${2:-}" ]; then BASE="$2"
elif [ -z "${1:-}" ] && [ -d ../shared/data ]; then BASE=../shared/data
else BASE="$(dirname "$SAMPLE")"; fi
BASE="$(cd "$BASE" && pwd)"
PORT="${MINDINSIGHT_PORT:-8080}"
echo "dashboard of $BASE: open http://127.0.0.1:$PORT/ (Ctrl-C to stop)"
exec .venv/bin/mindinsight start --summary-base-dir "$BASE" --port "$PORT" --foreground
