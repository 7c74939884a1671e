#!/usr/bin/env bash
# Makes sure the PostgreSQL server binaries (initdb, pg_ctl, postgres) are installed; installs them with
# apt-get on Debian/Ubuntu when missing. Sourced by scripts/serve and scripts/test.
set -euo pipefail

have_postgres() {
    local dir
    for dir in ${RC_POSTGRES_BIN_DIR:-} $(printf '%s\n' /usr/lib/postgresql/*/bin 2>/dev/null | sort -Vr) \
        /opt/homebrew/opt/postgresql@*/bin /usr/local/opt/postgresql@*/bin $(echo "$PATH" | tr ':' ' '); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
            return 0
        fi
    done
    return 1
}

if ! have_postgres; then
    if command -v apt-get >/dev/null 2>&1; then
        echo "PostgreSQL server binaries not found: installing them with apt-get" >&2
        sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        # We run our own private clusters: don't let the package create and start a system-wide one.
        $sudo mkdir -p /etc/postgresql-common
        if [ ! -f /etc/postgresql-common/createcluster.conf ]; then
            echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.conf >/dev/null
        fi
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    elif command -v brew >/dev/null 2>&1; then
        echo "PostgreSQL server binaries not found: installing them with Homebrew" >&2
        brew install postgresql@16
    else
        echo "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found; install PostgreSQL 14 or newer" >&2
        exit 1
    fi
    have_postgres || { echo "PostgreSQL server binaries still not found after installing" >&2; exit 1; }
fi
