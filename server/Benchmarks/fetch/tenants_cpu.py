#!/usr/bin/env python3
"""CPU across tenants: the same new-device traffic sent to one project and spread over 1,000.

One server (default log level, embedded PostgreSQL) holds 1,000 projects, each with the realistic template
(see fetch_bench.py) and its own client key. Two rows alternate in each pass (every other pass reversed):

  1 project         every request a device never seen before (see new_devices.py), all to one project
  1,000 projects    the same requests, each to a project picked at random among the 1,000

Requests accept gzip, as URLSession and OkHttp do. Each row's CPU per request (the server's user + system
time over the requests answered) is read against the one-project row of the same pass. The projects share
nothing but the server: each has its own compiled template and its own remembered answers. With
`--reference-binary PATH` a second server (the build before a change) answers both rows too, in the same
passes. The target (#55, point 2): spread over 1,000 projects, a fetch costs at most 1.3× the CPU of the
same traffic on one.

    python3 server/Benchmarks/fetch/tenants_cpu.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_bench import alternating_passes, exit_if_invalid, log, publish_project, realistic_template  # noqa: E402
from new_devices import Server, write_new_devices_script  # noqa: E402

TARGET = 1.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--reference-binary", metavar="PATH", help="another build, measured in the same run")
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=8, help="seconds per wrk run (default 8)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")

    work = tempfile.mkdtemp(prefix="rc-tenants-cpu-")
    os.chmod(work, 0o755)
    servers = {"ours": Server(args.binary, work, "ours")}
    if args.reference_binary:
        servers["reference"] = Server(args.reference_binary, work, "reference")
    try:
        template = realistic_template(random.Random(20261124))
        rows: list[tuple[str, str, str]] = []  # (row, server, script)
        for server_name, server in servers.items():
            server.wait_listening()
            started = time.monotonic()
            targets = []
            for index in range(args.projects):
                project = f"tenant-{index:04d}"
                key = publish_project(server.base, project, template)
                targets.append((f"/v1/projects/{project}/remoteConfig:fetch",
                                {"X-API-Key": key, "Accept-Encoding": "gzip"}))
            log(f"{server_name}: {args.projects} projects published in {time.monotonic() - started:.0f} s")
            suffix = "" if server_name == "ours" else ", reference"
            for name, chosen in (("1 project", targets[:1]), (f"{args.projects:,} projects", targets)):
                script = os.path.join(work, f"{server_name}-{len(chosen)}.lua")
                write_new_devices_script(script, chosen)
                rows.append((name + suffix, server_name, script))
        results = alternating_passes([(row, servers[name], script) for row, name, script in rows], args, warm_up=3)
        report(results, args)
        exit_if_invalid(results)
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def report(results: dict[str, list[dict]], args: argparse.Namespace) -> None:
    print(f"\ntenants CPU, new devices accepting gzip: {args.connections} connections, {args.passes} alternating "
          f"passes of {args.duration} s; {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, "
          f"{os.cpu_count()} cores")
    print(f"{'':29} {'req/s (each pass)':>30} {'p99 ms':>8} {'CPU µs/req':>11}")
    for row, runs in results.items():
        rates = " / ".join(f"{r['rps']:.0f}" for r in runs)
        print(f"{row:29} {rates:>30} {max(runs, key=lambda r: r['rps'])['p99_ms']:8.2f} "
              f"{statistics.median(r['cpu_us'] for r in runs):11.1f}")
    many = f"{args.projects:,} projects"
    pairs = [(many, "1 project", TARGET)]
    if f"{many}, reference" in results:
        pairs += [(f"{many}, reference", "1 project, reference", None), ("1 project", "1 project, reference", None),
                  (many, f"{many}, reference", None)]
    ratios = {}
    print(f"\n{'CPU per request':45} {'median of passes':>17}  target")
    for a, b, target in pairs:
        per_pass = [x["cpu_us"] / y["cpu_us"] for x, y in zip(results[a], results[b])]
        median = statistics.median(per_pass)
        verdict = ""
        if target:
            verdict = f"<= {target}: " + ("holds" if max(per_pass) <= target else
                                          "DOES NOT HOLD" if min(per_pass) > target else "undecided")
        ratios[f"{a} / {b}"] = {"median": median, "passes": per_pass}
        print(f"{a + ' / ' + b:45} {median:17.2f}  {verdict}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"results": results, "ratios": ratios}, file, indent=2)


if __name__ == "__main__":
    main()
