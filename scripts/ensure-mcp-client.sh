#!/usr/bin/env bash
# Makes sure the MCP client test can run: the official Model Context Protocol Python SDK (`mcp`) from PyPI, in a
# venv under ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config. Sourced by scripts/test; sets MCP_PYTHON.
set -euo pipefail

MCP_SDK_VERSION=2.3.0

mcp_venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/mcp-venv"
if ! "$mcp_venv/bin/python" - <<PYTHON 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(version("mcp") != "$MCP_SDK_VERSION")
PYTHON
    echo "The MCP Python SDK $MCP_SDK_VERSION not found: installing it into $mcp_venv" >&2
    python3 -m venv "$mcp_venv"
    "$mcp_venv/bin/pip" install -q "mcp==$MCP_SDK_VERSION"
fi
MCP_PYTHON="$mcp_venv/bin/python"
export MCP_PYTHON
