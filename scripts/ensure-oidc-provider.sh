#!/usr/bin/env bash
# Makes sure the single sign-on tests can run: a real OpenID Connect provider from PyPI (nanoidp, run behind
# the tampering proxy of server/Tests/OIDC/provider.py), requests, and Selenium for the console's single sign-on
# browser test (server/Tests/Browser/console_sso_test.py, which needs Chromium and chromedriver from
# scripts/ensure-browser.sh too), in a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by
# scripts/test; sets OIDC_PYTHON.
set -euo pipefail

NANOIDP_VERSION=3.4.0
REQUESTS_VERSION=2.32.3
SELENIUM_VERSION=4.50.0  # the pin of scripts/ensure-browser.sh

oidc_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/oidc-venv"
if ! "$oidc_venv/bin/python" - <<PYTHON 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(version("nanoidp") != "$NANOIDP_VERSION" or version("requests") != "$REQUESTS_VERSION"
         or version("selenium") != "$SELENIUM_VERSION")
PYTHON
    echo "nanoidp $NANOIDP_VERSION with requests $REQUESTS_VERSION and selenium $SELENIUM_VERSION not found: installing them into $oidc_venv" >&2
    python3 -m venv "$oidc_venv"
    "$oidc_venv/bin/pip" install -q "nanoidp==$NANOIDP_VERSION" "requests==$REQUESTS_VERSION" "selenium==$SELENIUM_VERSION"
fi
OIDC_PYTHON="$oidc_venv/bin/python"
export OIDC_PYTHON
