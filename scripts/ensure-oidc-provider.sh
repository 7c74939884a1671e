#!/usr/bin/env bash
# Makes sure the single sign-on tests can run: a real OpenID Connect provider from PyPI (nanoidp, run behind
# the tampering proxy of server/Tests/OIDC/provider.py) and requests, in a venv under
# ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by scripts/test; sets OIDC_PYTHON.
set -euo pipefail

NANOIDP_VERSION=3.4.0
REQUESTS_VERSION=2.32.3

oidc_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/oidc-venv"
if ! "$oidc_venv/bin/python" - <<PYTHON 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(version("nanoidp") != "$NANOIDP_VERSION" or version("requests") != "$REQUESTS_VERSION")
PYTHON
    echo "nanoidp $NANOIDP_VERSION with requests $REQUESTS_VERSION not found: installing them into $oidc_venv" >&2
    python3 -m venv "$oidc_venv"
    "$oidc_venv/bin/pip" install -q "nanoidp==$NANOIDP_VERSION" "requests==$REQUESTS_VERSION"
fi
OIDC_PYTHON="$oidc_venv/bin/python"
export OIDC_PYTHON
