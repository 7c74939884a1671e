#!/usr/bin/env bash
# Builds server/.build/release/remote-config when it is missing or older than its sources, keeping the compiler's
# output in a log file (named on screen) and showing one progress line instead. Sourced by scripts/serve and
# scripts/remote-config. A release build of the server takes about 15 minutes the first time on a 2-core machine
# (2026-11-26, commit 30459d8); later builds only recompile what changed.
# REMOTE_CONFIG_BINARY=PATH skips the build and uses that binary instead (say, a debug build).

remote_config_binary() {
    if [ -n "${REMOTE_CONFIG_BINARY:-}" ]; then
        echo "$REMOTE_CONFIG_BINARY"
        return
    fi
    local binary=server/.build/release/remote-config
    local log=server/.build/remote-config-build.log
    if [ -x "$binary" ] && [ -z "$(find server/Package.swift server/Sources Sources/RemoteConfigVersions sql \
        -newer "$binary" -print -quit 2>/dev/null)" ]; then
        echo "$binary"
        return
    fi
    source scripts/ensure-libraries.sh
    mkdir -p server/.build
    if [ -x "$binary" ]; then
        echo "Rebuilding remote-config (release): the sources changed since the last build." >&2
    else
        echo "Building remote-config (release) for the first time: about 15 minutes on 2 cores, less on a" \
            "faster machine; later starts reuse it." >&2
    fi
    echo "The compiler's output goes to $PWD/$log." >&2
    # One line that updates in place on a terminal; none in a pipe or a log (the log has them all).
    if ! swift build --package-path server -c release --product remote-config 2>&1 | tee "$log" | _progress; then
        echo "The build failed; its last lines (all of them are in $log):" >&2
        tail -n 30 "$log" >&2
        return 1
    fi
    echo "Built $binary." >&2
    echo "$binary"
}

_progress() {
    local line
    while IFS= read -r line; do
        if [ -t 2 ] && [[ "$line" =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
            printf '\r  building: step %s of %s ' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" >&2
        fi
    done
    if [ -t 2 ]; then printf '\r\033[K' >&2; fi
}
