#!/usr/bin/env bash
# Install Debian's Chromium and ChromeDriver for the dashboard's browser tests (with CJK fonts,
# so the Chinese screenshots are readable); the tests drive /usr/bin/chromium with Playwright
# and skip with a reason when it is missing.
set -euo pipefail
if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi "noto sans cjk"; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "install_browser: not root and no sudo: install chromium yourself (apt-get install chromium)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null
/usr/bin/chromium --version
