#!/usr/bin/env python3
"""Memory across tenants: 200 projects, five minutes of new devices across all of them, then an idle minute.

Starts `remote-config serve` (default log level, its output to a file; embedded PostgreSQL), publishes the
realistic template (see fetch_bench.py) to 200 projects, each with its own client key, fetches once from each
(so every project's template is loaded), reads the server's RSS (*before*), then runs wrk for five minutes with
every request a device never seen before (see new_devices.py) sent to a project picked at random, reading the
RSS every 10 s, then leaves the server idle for a minute and reads it every 10 s again. With
`--reference-binary` the same run follows on another build (the one before a change), so both are measured
minutes apart on the same machine.

Targets (issue 55, point 3): RSS grows by at most 128 MB over the load; by at most 5% of that growth over the
load's last two minutes (a plateau, not a slope); and what the budgets let go is back with the system after
an idle minute: the RSS then is at most the *before* RSS plus what the server still holds by its own count
(`rc_memory_held_bytes` in /metrics) plus 16 MB.

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

TARGET_MB = 128
PLATEAU_SHARE = 0.05
IDLE_SLACK_MB = 16


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def held_mb(base: str) -> dict[str, float]:
    """What the server says it holds within its budgets (`rc_memory_held_bytes{kind}`), in MB; empty for a build
    without the gauge."""
    status, _, body = call("GET", base + "/metrics")
    held = {}
    if status != 200:
        return held
    for line in body.decode().splitlines():
        if line.startswith("rc_memory_held_bytes{"):
            kind = line.split('kind="', 1)[1].split('"', 1)[0]
            held[kind] = float(line.rsplit(" ", 1)[1]) / 1e6
    return held


def measure(binary: str, args: argparse.Namespace, label: str) -> dict:
    """One run on `binary`: publish, load, idle; prints and returns the figures."""
    work = tempfile.mkdtemp(prefix="rc-tenants-")
    os.chmod(work, 0o755)
    server = Server(binary, work, "tenants")
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
        log(f"{label}: {args.projects} projects published and fetched in {time.monotonic() - started:.0f} s; "
            f"server PID {pid}")
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
        held_at_end = held_mb(base)
        idle = []
        idled = time.monotonic()
        for _ in range(args.idle // 10):
            time.sleep(max(0.0, idled + 10 * (len(idle) + 1) - time.monotonic()))
            idle.append((round(time.monotonic() - idled), rss_mb(pid)))
            log(f"  idle {idle[-1][0]:3d} s: RSS {idle[-1][1]:.1f} MB")
        after_idle = rss_mb(pid)
        held_after_idle = held_mb(base)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    growth = at_end - before
    # The load's last two minutes: from the sample nearest to two minutes before its end.
    two_before = min(samples, key=lambda sample: abs(sample[0] - (args.duration - 120)))[1] if samples else before
    late = at_end - two_before
    held_total = sum(held_after_idle.values())
    idle_bound = before + held_total + IDLE_SLACK_MB
    print(f"\ntenants memory, {label} ({binary}): {args.projects} projects, {summary['requests']} new devices in "
          f"{summary['seconds']:.0f} s ({summary['rps']:.0f} req/s, {summary['errors']} errors, "
          f"{summary['non2xx3xx']} non-2xx/3xx); {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, "
          f"{os.cpu_count()} cores")
    print(f"RSS before {before:.1f} MB, at the end of the load {at_end:.1f} MB, after {args.idle} s idle "
          f"{after_idle:.1f} MB")
    print(f"growth over the load {growth:.1f} MB: target <= {TARGET_MB} MB: "
          f"{'holds' if growth <= TARGET_MB else 'DOES NOT HOLD'}")
    print(f"growth over its last two minutes {late:.1f} MB ({late / growth * 100 if growth > 0 else 0:.1f}% of it): "
          f"target <= {PLATEAU_SHARE * 100:.0f}%: {'holds' if late <= PLATEAU_SHARE * max(growth, 0) else 'DOES NOT HOLD'}")
    held_text = ", ".join(f"{kind} {mb:.1f} MB" for kind, mb in sorted(held_after_idle.items())) or "not reported"
    print(f"held by the budgets at the end {sum(held_at_end.values()):.1f} MB, after the idle minute {held_text}; "
          f"RSS after it {after_idle:.1f} MB against before + held + {IDLE_SLACK_MB} MB = {idle_bound:.1f} MB: "
          f"{'holds' if held_after_idle and after_idle <= idle_bound else 'DOES NOT HOLD'}")
    print("RSS during the load: " + ", ".join(f"{t} s {mb:.0f} MB" for t, mb in samples))
    print("RSS idle: " + ", ".join(f"{t} s {mb:.0f} MB" for t, mb in idle))
    if summary["errors"] or summary["non2xx3xx"]:
        sys.exit("errors or 4xx/5xx answers: these figures are not valid")
    return {"binary": binary, "before_mb": before, "at_end_mb": at_end, "after_idle_mb": after_idle,
            "samples": samples, "idle": idle, "held_at_end_mb": held_at_end, "held_after_idle_mb": held_after_idle,
            "wrk": summary, "projects": args.projects}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--reference-binary", help="another build, measured the same way after --binary")
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--duration", type=int, default=300, help="seconds of new devices (default 300)")
    parser.add_argument("--idle", type=int, default=60, help="seconds idle after the load (default 60)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")
    runs = [measure(args.binary, args, "ours")]
    if args.reference_binary:
        runs.append(measure(args.reference_binary, args, "reference"))
        ours, reference = runs
        print(f"\nours / reference: growth {ours['at_end_mb'] - ours['before_mb']:.1f} / "
              f"{reference['at_end_mb'] - reference['before_mb']:.1f} MB, "
              f"req/s {ours['wrk']['rps'] / reference['wrk']['rps']:.2f}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(runs, file, indent=2)


if __name__ == "__main__":
    main()
