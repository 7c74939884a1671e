#!/usr/bin/env bash
# Makes sure RE2 (the linear-time regular expression engine behind `.matches([...])`) and pkg-config,
# which the build uses to find it, are installed: apt-get on Debian/Ubuntu, Homebrew on macOS.
# Sourced by scripts/serve and scripts/test.
set -euo pipefail

if ! pkg-config --exists re2 2>/dev/null; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "RE2 not found: installing libre2-dev and pkg-config with apt-get" >&2
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libre2-dev pkg-config >/dev/null
    elif command -v brew >/dev/null 2>&1; then
        echo "RE2 not found: installing re2 and pkg-config with Homebrew" >&2
        brew install re2 pkg-config
    else
        echo "RE2 not found: install RE2's development files (libre2-dev, re2) and pkg-config" >&2
        exit 1
    fi
    pkg-config --exists re2 || { echo "RE2 still not found after installing" >&2; exit 1; }
fi
