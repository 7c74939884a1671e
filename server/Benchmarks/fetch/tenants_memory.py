#!/usr/bin/env python3
"""Memory across tenants: 200 projects, a minute of new devices across all of them, RSS before and after.

Starts `remote-config serve` (default log level, its output to a file; embedded PostgreSQL), publishes the
realistic template (see fetch_bench.py) to 200 projects, each with its own client key, fetches once from each
(so every project's template is loaded), reads the server's RSS (*before*), then runs wrk for a minute with
every request a device never seen before (see new_devices.py) sent to a project picked at random, reading the
RSS every 10 s, and once more 5 s after the load (*after*). Target (issue 37): RSS grows by less than 256 MB.

    python3 server/Benchmarks/fetch/tenants_memory.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from new_devices import Server, write_new_devices_script  # noqa: E402
from fetch_bench import log, publish_project, realistic_template  # noqa: E402
from common import call  # noqa: E402

TARGET_MB = 256


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--duration", type=int, default=60, help="seconds of new devices (default 60)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")

    work = tempfile.mkdtemp(prefix="rc-tenants-")
    os.chmod(work, 0o755)
    server = Server(args.binary, work, "tenants")
    try:
        base = server.wait_listening()
        template = realistic_template(random.Random(20261124))
        targets = []
        started = time.monotonic()
        for index in range(args.projects):
            project = f"tenant-{index:03d}"
            key = publish_project(base, project, template)
            path = f"/v1/projects/{project}/remoteConfig:fetch"
            status, _, body = call("POST", base + path, {"appInstanceId": "warm", "platform": "IOS"},
                                   {"X-API-Key": key})
            assert status == 200, (status, body)
            targets.append((path, {"X-API-Key": key}))
        pid = server.process.pid
        log(f"{args.projects} projects published and fetched in {time.monotonic() - started:.0f} s; server PID {pid}")
        script = os.path.join(work, "tenants.lua")
        write_new_devices_script(script, targets)
        time.sleep(2)
        before = rss_mb(pid)
        log(f"RSS before: {before:.1f} MB")
        wrk = subprocess.Popen(["wrk", "-t", "2", "-c", str(args.connections), "-d", f"{args.duration}s",
                                "--timeout", "5s", "-s", script, base], stdout=subprocess.PIPE, text=True)
        samples = []
        began = time.monotonic()
        while time.monotonic() - began < args.duration + 30:  # wrk stops itself after its duration
            try:
                wrk.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                samples.append((round(time.monotonic() - began), rss_mb(pid)))
                log(f"  {samples[-1][0]:3d} s: RSS {samples[-1][1]:.1f} MB")
        output, _ = wrk.communicate(timeout=30)
        summary = json.loads(next(line for line in output.splitlines() if line.startswith("{")))
        at_end = rss_mb(pid)
        time.sleep(5)
        after = rss_mb(pid)
        growth = after - before
        print(f"\ntenants memory: {args.projects} projects, {summary['requests']} new devices in "
              f"{summary['seconds']:.0f} s ({summary['rps']:.0f} req/s, {summary['errors']} errors, "
              f"{summary['non2xx3xx']} non-2xx/3xx); {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
        print(f"RSS before {before:.1f} MB, at the end of the load {at_end:.1f} MB, 5 s later {after:.1f} MB")
        print(f"RSS growth {growth:.1f} MB: target < {TARGET_MB} MB: {'holds' if growth < TARGET_MB else 'DOES NOT HOLD'}")
        print("RSS during the load: " + ", ".join(f"{t} s {mb:.0f} MB" for t, mb in samples))
        if args.json:
            with open(args.json, "w") as file:
                json.dump({"before_mb": before, "after_mb": after, "at_end_mb": at_end, "samples": samples,
                           "wrk": summary, "projects": args.projects}, file, indent=2)
        if summary["errors"] or summary["non2xx3xx"]:
            sys.exit("errors or 4xx/5xx answers: these figures are not valid")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
