#!/usr/bin/env bash
# Makes sure the C libraries the server links are installed, with pkg-config, which the build finds them with:
# RE2 (the linear-time regular expression engine behind `.matches([...])`) and zlib (the gzip form of client
# answers). apt-get on Debian/Ubuntu, Homebrew on macOS (whose SDK has zlib already).
# Sourced by scripts/serve and scripts/test.
set -euo pipefail

missing=()
pkg-config --exists re2 2>/dev/null || missing+=(re2)
if [ "$(uname)" != Darwin ]; then pkg-config --exists zlib 2>/dev/null || missing+=(zlib); fi
if [ "${#missing[@]}" -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "${missing[*]} not found: installing libre2-dev, zlib1g-dev and pkg-config with apt-get" >&2
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libre2-dev zlib1g-dev pkg-config >/dev/null
    elif command -v brew >/dev/null 2>&1; then
        echo "${missing[*]} not found: installing re2 and pkg-config with Homebrew" >&2
        brew install re2 pkg-config
    else
        echo "${missing[*]} not found: install the development files of RE2 (libre2-dev, re2) and zlib" \
            "(zlib1g-dev), and pkg-config" >&2
        exit 1
    fi
    for library in "${missing[@]}"; do
        pkg-config --exists "$library" || { echo "$library still not found after installing" >&2; exit 1; }
    done
fi
