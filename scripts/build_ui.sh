#!/usr/bin/env bash
# Build the dashboard (ui/: Vue 3 + Vite) into mindinsight_profiler/_ui, which the server
# serves and the wheel carries. Skips when the bundle is newer than every source file
# (`--force` rebuilds); installs the locked npm packages when they are missing or stale.
set -euo pipefail
cd "$(dirname "$0")/../ui"
out=../mindinsight_profiler/_ui/index.html
if ! command -v npm >/dev/null 2>&1; then
  echo "build_ui: npm not found: install Node.js 20 or newer to build the dashboard" >&2
  exit 2
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ "${1:-}" != "--force" ] && [ -f "$out" ] &&
  [ -z "$(find . -path ./node_modules -prune -o -type f -newer "$out" -print -quit)" ]; then
  echo "build_ui: mindinsight_profiler/_ui is up to date"
  exit 0
fi
npm run --silent build -- --logLevel warn
echo "build_ui: built mindinsight_profiler/_ui"
