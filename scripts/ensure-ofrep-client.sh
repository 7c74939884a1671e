#!/usr/bin/env bash
# Makes sure the OpenFeature client test can run: the stock OpenFeature Python SDK and its OFREP provider from
# PyPI, in a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by scripts/test; sets OFREP_PYTHON.
set -euo pipefail

OPENFEATURE_SDK_VERSION=0.10.0
OFREP_PROVIDER_VERSION=0.3.0

ofrep_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/ofrep-venv"
if ! "$ofrep_venv/bin/python" - <<PYTHON 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(version("openfeature-sdk") != "$OPENFEATURE_SDK_VERSION"
         or version("openfeature-provider-ofrep") != "$OFREP_PROVIDER_VERSION")
PYTHON
    echo "OpenFeature SDK $OPENFEATURE_SDK_VERSION with OFREP provider $OFREP_PROVIDER_VERSION not found: installing them into $ofrep_venv" >&2
    python3 -m venv "$ofrep_venv"
    "$ofrep_venv/bin/pip" install -q "openfeature-sdk==$OPENFEATURE_SDK_VERSION" \
        "openfeature-provider-ofrep==$OFREP_PROVIDER_VERSION"
fi
OFREP_PYTHON="$ofrep_venv/bin/python"
export OFREP_PYTHON
