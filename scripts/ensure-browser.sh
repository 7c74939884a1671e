#!/usr/bin/env bash
# Makes sure the console's browser tests can run: headless Chromium and its driver (Debian's `chromium` and
# `chromium-driver`, or on macOS Homebrew's `chromium` cask and `chromedriver`), and Selenium from PyPI in a
# venv under ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by scripts/test; sets BROWSER_PYTHON.
set -euo pipefail

SELENIUM_VERSION=4.50.0

if ! command -v chromedriver >/dev/null 2>&1 || ! { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || [ -d "/Applications/Chromium.app" ] || [ -d "/Applications/Google Chrome.app" ]; }; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "Chromium or chromedriver not found: installing them with apt-get" >&2
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    elif command -v brew >/dev/null 2>&1; then
        echo "Chromium or chromedriver not found: installing them with Homebrew" >&2
        brew install --cask chromium chromedriver
    else
        echo "Chromium and chromedriver not found; install them (Debian: apt-get install chromium chromium-driver)" >&2
        exit 1
    fi
fi

browser_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/browser-venv"
if ! "$browser_venv/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$SELENIUM_VERSION')" 2>/dev/null; then
    echo "Selenium $SELENIUM_VERSION not found: installing it into $browser_venv" >&2
    python3 -m venv "$browser_venv"
    "$browser_venv/bin/pip" install -q "selenium==$SELENIUM_VERSION"
fi
BROWSER_PYTHON="$browser_venv/bin/python"
export BROWSER_PYTHON
