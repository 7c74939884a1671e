#!/usr/bin/env bash
# The fetch path against nginx. By default two scripts in turn, each alternating its rows in one run:
#   new_devices.py   production traffic: every request a device never seen before, access logs on (and off),
#                    insights on (and off), nginx answering the same bytes from memory; the targets' ratios
#   fetch_bench.py   repeating contexts (200 contexts cycled, their ETags): fetch 200/304, OFREP, gzip, large
#                    answers, nginx from files and memory, /healthz
# and on request:
#   tenants_memory.py  200 projects, a minute of new devices across them: RSS before and after
#   tenants_cpu.py     new devices to one project and spread over 1,000: CPU per fetch
#   impact_beside.py   new devices' fetch p99 alone and beside four concurrent impact estimates
#   insights_year.py   the insights reads (minimumVersion, versions, timeline) on a year of imported history
#   big_templates.py   new devices against templates at Firebase's limits (2,000 conditions, 3,000 parameters)
#   publish_history.py publish latency in a project with 10,000 versions against projects with 10
# Installs wrk and nginx with apt-get when missing.
#
#   server/Benchmarks/fetch/run.sh                          # release build (swift build -c release), both scripts
#   server/Benchmarks/fetch/run.sh --binary PATH            # any remote-config executable (e.g. a reference build)
#   server/Benchmarks/fetch/run.sh --new-devices            # only new_devices.py (--repeating: only fetch_bench.py)
#   server/Benchmarks/fetch/run.sh --tenants                # only tenants_memory.py
#   server/Benchmarks/fetch/run.sh --tenants-cpu            # only tenants_cpu.py
#   server/Benchmarks/fetch/run.sh --impact                 # only impact_beside.py
#   server/Benchmarks/fetch/run.sh --insights-year          # only insights_year.py
#   server/Benchmarks/fetch/run.sh --big-templates          # only big_templates.py
#   server/Benchmarks/fetch/run.sh --publish-history        # only publish_history.py
#   server/Benchmarks/fetch/run.sh --new-devices --floor    # also the swift-nio floor rows (builds floor/ in release;
#                                                           # --floor-event-loops N: its loops, default 2)
#   server/Benchmarks/fetch/run.sh --new-devices --reference-binary OLD  # also OLD's row, the build before a change
#                                                           # (tenants, tenants-cpu, insights-year and big-templates take it too)
#   server/Benchmarks/fetch/run.sh --duration 5 --passes 3  # other arguments go to the scripts (--help)
#
# Loopback only; the servers and nginx get temporary directories that are removed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary=""
scripts=(new_devices.py fetch_bench.py)
pass=()
floor=()  # new_devices.py's arguments only
reference=""  # --reference-binary, for every script that takes one
while [[ $# -gt 0 ]]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --binary=*) binary="${1#--binary=}"; shift ;;
        --new-devices) scripts=(new_devices.py); shift ;;
        --repeating) scripts=(fetch_bench.py); shift ;;
        --tenants) scripts=(tenants_memory.py); shift ;;
        --tenants-cpu) scripts=(tenants_cpu.py); shift ;;
        --impact) scripts=(impact_beside.py); shift ;;
        --insights-year) scripts=(insights_year.py); shift ;;
        --big-templates) scripts=(big_templates.py); shift ;;
        --publish-history) scripts=(publish_history.py); shift ;;
        --floor) floor+=(--floor "$here/floor/.build/release/nio-floor"); shift ;;
        --floor-event-loops) floor+=(--floor-event-loops "$2"); shift 2 ;;
        --reference-binary) floor+=(--reference-binary "$2"); reference="$2"; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
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
if [[ " ${floor[*]-} " == *" --floor "* ]]; then
    echo "building the swift-nio floor: swift build -c release in $here/floor" >&2
    (cd "$here/floor" && swift build -c release >&2)
fi
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
for script in "${scripts[@]}"; do
    extra=()
    [[ "$script" == new_devices.py ]] && extra=(${floor[@]+"${floor[@]}"})
    if [[ -n "$reference" && "$script" != new_devices.py ]] && grep -q -- --reference-binary "$here/$script"; then
        extra=(--reference-binary "$reference")
    fi
    python3 "$here/$script" --binary "$binary" ${extra[@]+"${extra[@]}"} ${pass[@]+"${pass[@]}"}
done
