#!/usr/bin/env bash
# schemathesis drill: every route of openapi.yaml, generated and mutated requests, all checks.
#
#   server/Benchmarks/drills/schemathesis.sh [--binary PATH] [--max-examples N] [--seed N] [--served] [-- SCHEMATHESIS-ARGS]
#
# Starts the server (default: server/.build/debug/remote-config) on a free loopback port with an embedded
# PostgreSQL in a temporary data dir, seeds it (schemathesis_server.py: project shop-app, a client key,
# two versions, a draft, a spare key), runs schemathesis with schemathesis.toml, then stops the server
# and removes the temporary files. Exits non-zero on any failure.
#
# The spec tested is the repository's openapi.yaml on disk (its edits count without a rebuild); the
# server serves the copy bundled at build time, and the drill says so when the two differ. --served
# tests the served document instead.
#
# schemathesis: the one on PATH, else a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/remote-config with
# the pinned version below.
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
binary=$repo/.build/debug/remote-config
max_examples=50
seed=20261122
served=0
extra=()
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=$2; shift 2 ;;
        --max-examples) max_examples=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --served) served=1; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "schemathesis.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
case $binary in /*) ;; *) binary=$PWD/$binary ;; esac
if [ ! -x "$binary" ]; then
    echo "schemathesis.sh: no server binary at $binary (build it, or pass --binary)" >&2
    exit 2
fi

# 1. schemathesis
if command -v schemathesis >/dev/null 2>&1 && schemathesis --version >/dev/null 2>&1; then
    st=(schemathesis)
else
    venv=${XDG_CACHE_HOME:-$HOME/.cache}/remote-config/schemathesis-venv
    if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "version $SCHEMATHESIS_VERSION\$"; then
        echo "schemathesis is not on PATH; installing schemathesis==$SCHEMATHESIS_VERSION into $venv"
        if ! mkdir -p "$(dirname "$venv")" || ! python3 -m venv --clear "$venv"; then
            echo "schemathesis.sh: could not create a venv at $venv with 'python3 -m venv'" \
                "(on Debian/Ubuntu: apt-get install python3-venv); install schemathesis==$SCHEMATHESIS_VERSION" \
                "on PATH instead" >&2
            exit 2
        fi
        if ! "$venv/bin/python" -m pip install --quiet "schemathesis==$SCHEMATHESIS_VERSION"; then
            echo "schemathesis.sh: 'pip install schemathesis==$SCHEMATHESIS_VERSION' into $venv failed" >&2
            exit 2
        fi
    fi
    st=("$venv/bin/schemathesis")
fi
version=$("${st[@]}" --version)
echo "using ${st[*]} ($version)"
case $version in
    *" $SCHEMATHESIS_VERSION") ;;
    *) echo "note: the drill was written for schemathesis $SCHEMATHESIS_VERSION; results may differ" ;;
esac

# 2. the server
tmp=$(mktemp -d -t rc-schemathesis-drill.XXXXXX)
helper=
runner=
cleanup() {
    status=$?
    if [ -n "$runner" ]; then
        kill -TERM "$runner" 2>/dev/null || true
        wait "$runner" 2>/dev/null || true
    fi
    if [ -n "$helper" ]; then
        exec 3>&- 2>/dev/null || true     # its standard input ends: the helper stops the server
        kill -TERM "$helper" 2>/dev/null || true
        wait "$helper" 2>/dev/null || true
    fi
    rm -rf "$tmp"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

started=$(date +%s)
mkfifo "$tmp/hold"
python3 "$here/schemathesis_server.py" --binary "$binary" --env-file "$tmp/env" <"$tmp/hold" &
helper=$!
exec 3>"$tmp/hold"   # held until this script ends, however it ends
for _ in $(seq 180); do
    [ -f "$tmp/env" ] && break
    if ! kill -0 "$helper" 2>/dev/null; then
        echo "schemathesis.sh: the server did not start" >&2
        exit 1
    fi
    sleep 1
done
if [ ! -f "$tmp/env" ]; then
    echo "schemathesis.sh: the server was not ready within 180 s" >&2
    exit 1
fi
set -a
. "$tmp/env"
set +a
export RC_DRILL_DIR=$here
echo "server: $RC_BASE_URL (data dir $RC_DATA_DIR), seeded in $(($(date +%s) - started)) s"

spec=$repo/openapi.yaml
if [ "$served" = 1 ]; then
    spec=$RC_BASE_URL/openapi.yaml
elif ! curl -fsS --max-time 10 "$RC_BASE_URL/openapi.yaml" | cmp -s - "$spec"; then
    echo "note: the binary serves an older openapi.yaml than $spec (rebuild to serve it); testing the file"
fi

# 3. schemathesis, from the temporary dir so that nothing it writes lands in the repository; at most
# 10 minutes (the default run takes about 1.5)
# (In the background, so that a signal to this script is handled at once.)
(
    cd "$tmp"
    exec timeout --kill-after=30 600 "${st[@]}" --config-file "$here/schemathesis.toml" run "$spec" \
        --url "$RC_BASE_URL" --max-examples "$max_examples" --seed "$seed" --workers 1 ${extra[@]+"${extra[@]}"}
) &
runner=$!
st_status=0
wait "$runner" || st_status=$?
runner=

# 4. the server must still be up and healthy
server_status=0
if ! kill -0 "$helper" 2>/dev/null || ! curl -fsS --max-time 10 "$RC_BASE_URL/healthz" >/dev/null; then
    echo "schemathesis.sh: the server is not healthy after the run" >&2
    server_status=1
fi
[ "$st_status" = 124 ] && echo "schemathesis.sh: schemathesis did not finish within 10 minutes" >&2
echo "schemathesis exit status $st_status; run took $(($(date +%s) - started)) s in all (seed $seed, max examples $max_examples)"
[ "$st_status" = 0 ] && [ "$server_status" = 0 ]
