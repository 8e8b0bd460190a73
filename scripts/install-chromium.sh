#!/usr/bin/env bash
# Install Debian's headless-capable Chromium and its WebDriver (chromedriver)
# for the approval page's browser tests (crates/serve/tests/browser.rs).
# Idempotent: does nothing when both are already installed.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "chromium and chromedriver already installed: $(chromedriver --version | head -n1)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
echo "installed: $(chromedriver --version | head -n1)"
