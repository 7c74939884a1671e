#!/usr/bin/env bash
# Makes sure the Google Play stand-in test can run: Google's own auth library (google-auth, which checks the
# server's JWT signature), the Google API client (whose bundled androidpublisher v3 discovery document the
# stand-in builds its answers from) and cryptography (the test key) from PyPI, in a venv under
# ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by scripts/test; sets GOOGLE_PLAY_PYTHON.
set -euo pipefail

GOOGLE_AUTH_VERSION=2.62.2
GOOGLE_API_CLIENT_VERSION=2.202.0
CRYPTOGRAPHY_VERSION=50.0.2

google_play_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/google-play-venv"
if ! "$google_play_venv/bin/python" - <<PYTHON 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(version("google-auth") != "$GOOGLE_AUTH_VERSION"
         or version("google-api-python-client") != "$GOOGLE_API_CLIENT_VERSION"
         or version("cryptography") != "$CRYPTOGRAPHY_VERSION")
PYTHON
    echo "google-auth $GOOGLE_AUTH_VERSION, google-api-python-client $GOOGLE_API_CLIENT_VERSION and cryptography" \
        "$CRYPTOGRAPHY_VERSION not found: installing them into $google_play_venv" >&2
    python3 -m venv "$google_play_venv"
    "$google_play_venv/bin/pip" install -q "google-auth==$GOOGLE_AUTH_VERSION" \
        "google-api-python-client==$GOOGLE_API_CLIENT_VERSION" "cryptography==$CRYPTOGRAPHY_VERSION"
fi
GOOGLE_PLAY_PYTHON="$google_play_venv/bin/python"
export GOOGLE_PLAY_PYTHON
