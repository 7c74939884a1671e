#!/usr/bin/env bash
# Fetch hot path against nginx, alternating in one run: req/s, p50 and p99 for fetch 200, fetch 304,
# nginx 200, nginx 304 and /healthz, then the ratios. Installs wrk and nginx with apt-get when missing.
#
#   server/Benchmarks/fetch/run.sh                          # release build (swift build -c release), 2 passes of 10 s
#   server/Benchmarks/fetch/run.sh --binary PATH            # any remote-config executable (e.g. a reference build)
#   server/Benchmarks/fetch/run.sh --duration 5 --passes 3  # other arguments go to fetch_bench.py (--help)
#
# Loopback only; the server and nginx get temporary directories that are removed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary=""
pass=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --binary=*) binary="${1#--binary=}"; shift ;;
        -h|--help) sed -n '2,8p' "$0"; python3 "$here/fetch_bench.py" --help; exit 0 ;;
        *) pass+=("$1"); shift ;;
    esac
done

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [[ ${#missing[@]} -gt 0 ]]; then
    sudo=""
    [[ "$(id -u)" == 0 ]] || sudo="sudo"
    echo "installing ${missing[*]} with apt-get" >&2
    $sudo apt-get update -qq >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ -z "$binary" ]]; then
    echo "building: swift build -c release --product remote-config (the first time takes 10+ minutes)" >&2
    (cd "$repo" && swift build -c release --product remote-config >&2)
    binary="$repo/.build/release/remote-config"
fi
[[ -x "$binary" ]] || { echo "not an executable: $binary" >&2; exit 2; }
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec python3 "$here/fetch_bench.py" --binary "$binary" ${pass[@]+"${pass[@]}"}
