#!/usr/bin/env bash
# Idle realtime streams benchmark: memory per idle stream and publish-to-last-event latency.
#
#   server/Benchmarks/streams/run.sh                         # release build (swift build -c release), 10,000 streams
#   server/Benchmarks/streams/run.sh --debug -n 1000         # the existing debug binary, 1,000 streams
#   server/Benchmarks/streams/run.sh --binary PATH -n 10000  # any remote-config executable
#   server/Benchmarks/streams/run.sh --publish-fetch         # publish_fetch.py: 10,000 apps holding streams each
#                                                            # fetch their new answer after a publish
#
# Every other argument goes to stream_load.py (see `--help` there): -n/--streams, --concurrency,
# --timeout, --json FILE, ... Loopback only; the server gets a temporary data dir that is removed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary=""
mode="release"
script="stream_load.py"
pass=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --debug) mode="debug"; shift ;;
        --publish-fetch) script="publish_fetch.py"; shift ;;
        --release) mode="release"; shift ;;
        --binary) binary="$2"; mode="given"; shift 2 ;;
        --binary=*) binary="${1#--binary=}"; mode="given"; shift ;;
        -h|--help) sed -n '2,10p' "$0"; python3 "$here/$script" --help; exit 0 ;;
        *) pass+=("$1"); shift ;;
    esac
done

case "$mode" in
    release)
        echo "building: swift build -c release --product remote-config (the first time takes 10+ minutes)" >&2
        (cd "$repo" && swift build -c release --product remote-config >&2)
        binary="$repo/.build/release/remote-config" ;;
    debug)
        binary="$repo/.build/debug/remote-config"
        if [[ ! -x "$binary" ]]; then
            (cd "$repo" && swift build --product remote-config >&2)
        fi ;;
esac
[[ -x "$binary" ]] || { echo "not an executable: $binary" >&2; exit 2; }

# 10,000 streams need 10,000+ descriptors in the server and in the load script: raise the limit for both
# (the script raises it again for itself and the server it starts; both stop at the hard limit).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "fd limit: $(ulimit -n) (hard $(ulimit -Hn))" >&2

exec python3 "$here/$script" --binary "$binary" ${pass[@]+"${pass[@]}"}
