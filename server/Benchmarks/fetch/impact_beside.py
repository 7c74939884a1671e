#!/usr/bin/env python3
"""Fetch latency beside impact estimates: new devices' fetches alone, then beside four concurrent `:impact`s.

Starts `remote-config serve` (embedded PostgreSQL, a 2-s insights flush), publishes the realistic template (see
fetch_bench.py), fills the project's impact sample with `--sample` new devices, then alternates, `--passes`
times, two rows of `--duration` seconds of new devices' fetches (see new_devices.py):

    alone     nothing else runs
    beside    four viewers (a key each, so none waits on another's per-caller bound) each send
              `remoteConfig:impact` of a candidate that flips the force update, one after another, all the time

and prints each row's p50, p99 and req/s, the ratios beside / alone per pass and their median, and how many
impacts were answered. Impacts run on a thread of their own (docs/api.md, "Impact"), so the target is that a
fetch's p99 beside them stays within noise of its p99 alone (issue 56, point 7).

    python3 server/Benchmarks/fetch/impact_beside.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from new_devices import Server, write_new_devices_script  # noqa: E402
from fetch_bench import log, publish_project, realistic_template, run_wrk  # noqa: E402
from common import TOKEN, call  # noqa: E402

PROJECT = "shop-app"
IMPACTS = 4


def fill_sample(base: str, key: str, work: str, wanted: int) -> int:
    """Fetches as new devices until the stored sample holds `wanted` instances (at most two minutes); returns
    how many it holds."""
    script = os.path.join(work, "fill.lua")
    write_new_devices_script(script, [(f"/v1/projects/{PROJECT}/remoteConfig:fetch", {"X-API-Key": key})])
    held = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run_wrk(base, script, 3, 16, 2)
        time.sleep(3)  # two flushes
        held = sampled(base)
        if held >= wanted:
            break
    return held


def sampled(base: str) -> int:
    status, _, body = call("POST", f"{base}/v1/projects/{PROJECT}/remoteConfig:impact", {"draft": True},
                           {"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    assert status == 200, (status, body)
    return json.loads(body)["sample"]["instances"]


class Impacts:
    """Four viewers sending `:impact` of `candidate` one after another each, until stopped."""

    def __init__(self, base: str, keys: list[str], candidate: dict) -> None:
        self.base, self.keys, self.candidate = base, keys, candidate
        self.stopping = threading.Event()
        self.answered = 0
        self.other: dict[int, int] = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.loop, args=(key,), daemon=True) for key in keys]

    def loop(self, key: str) -> None:
        while not self.stopping.is_set():
            status, _, _ = call("POST", f"{self.base}/v1/projects/{PROJECT}/remoteConfig:impact",
                                {"template": self.candidate}, {"Authorization": f"Bearer {key}"}, timeout=120)
            with self.lock:
                if status == 200:
                    self.answered += 1
                else:
                    self.other[status] = self.other.get(status, 0) + 1

    def __enter__(self) -> "Impacts":
        for thread in self.threads:
            thread.start()
        time.sleep(1)  # every viewer's first estimate under way
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=180)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per row (default 10)")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sample", type=int, default=10_000, help="instances in the impact sample (default 10,000)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")
    work = tempfile.mkdtemp(prefix="rc-impact-beside-")
    os.chmod(work, 0o755)
    server = Server(args.binary, work, "impact", args=("--insights-flush-interval", "2"))
    try:
        base = server.wait_listening()
        template = realistic_template(random.Random(20261203))
        key = publish_project(base, PROJECT, template)
        admin = {"Authorization": f"Bearer {TOKEN}"}
        viewers = []
        for index in range(IMPACTS):
            status, _, body = call("POST", f"{base}/v1/apiKeys",
                                   {"displayName": f"viewer {index}", "role": "viewer", "project": PROJECT}, admin)
            assert status == 201, (status, body)
            viewers.append(json.loads(body)["key"])
        held = fill_sample(base, key, work, args.sample)
        log(f"impact sample: {held} instances")
        candidate = copy.deepcopy(template)
        for parameter in candidate["parameters"].values():
            if parameter.get("valueType") == "BOOLEAN":
                parameter["defaultValue"] = {"value": "true"}
        script = os.path.join(work, "fetch.lua")
        write_new_devices_script(script, [(f"/v1/projects/{PROJECT}/remoteConfig:fetch", {"X-API-Key": key})])
        rows: dict[str, list[dict]] = {"alone": [], "beside": []}
        impacts_answered = 0
        impacts_other: dict[int, int] = {}
        for number in range(args.passes):
            rows["alone"].append(run_wrk(base, script, args.duration, args.connections, 2))
            with Impacts(base, viewers, candidate) as impacts:
                rows["beside"].append(run_wrk(base, script, args.duration, args.connections, 2))
            impacts_answered += impacts.answered
            for status, count in impacts.other.items():
                impacts_other[status] = impacts_other.get(status, 0) + count
            alone, beside = rows["alone"][-1], rows["beside"][-1]
            log(f"pass {number + 1}: p99 alone {alone['p99_ms']:.2f} ms, beside {beside['p99_ms']:.2f} ms; "
                f"req/s {alone['rps']:.0f} / {beside['rps']:.0f}; {impacts.answered} impacts answered")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nfetch beside {IMPACTS} concurrent impacts ({args.binary}): a sample of {held} instances, "
          f"{args.passes} passes of {args.duration} s, {args.connections} connections; "
          f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()} cores")
    for name, results in rows.items():
        print(f"{name:8} p50 {statistics.median(r['p50_ms'] for r in results):7.2f} ms  "
              f"p99 {statistics.median(r['p99_ms'] for r in results):7.2f} ms  "
              f"req/s {statistics.median(r['rps'] for r in results):8.0f}  "
              "(p99 per pass: " + ", ".join(f"{r['p99_ms']:.2f}" for r in results) + ")")
    ratios = [b["p99_ms"] / a["p99_ms"] for a, b in zip(rows["alone"], rows["beside"])]
    rates = [b["rps"] / a["rps"] for a, b in zip(rows["alone"], rows["beside"])]
    print(f"p99 beside / alone: median {statistics.median(ratios):.2f} "
          f"(per pass {', '.join(f'{r:.2f}' for r in ratios)}); req/s beside / alone: median "
          f"{statistics.median(rates):.2f}")
    print(f"impacts answered: {impacts_answered}" + (f"; other answers {impacts_other}" if impacts_other else ""))
    errors = sum(r["errors"] + r["non2xx3xx"] for results in rows.values() for r in results)
    if errors:
        sys.exit(f"{errors} fetch errors or 4xx/5xx answers: these figures are not valid")


if __name__ == "__main__":
    main()
