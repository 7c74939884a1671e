#!/usr/bin/env python3
"""Fetch latency beside impact estimates: new devices' fetches alone, then beside four concurrent `:impact`s.

Starts `remote-config serve` (embedded PostgreSQL, a 2-s insights flush), publishes the realistic template (see
fetch_bench.py), fills the project's impact sample with `--sample` new devices, then alternates, `--passes`
times, two rows of `--duration` seconds of new devices' fetches (see new_devices.py):

    alone     nothing else runs
    beside    four viewers (a key each, so none waits on another's per-caller bound) each send
              `remoteConfig:impact` of a candidate that flips the force update, one after another, all the time
    control   the same four viewers' impacts sent to a second server (another process, the same binary,
              template and sample) while the first answers the fetches: the same work at the same priority on
              the same cores, outside the process (`--no-control` leaves it out)

and prints each row's p50, p99 and req/s, the ratios beside / alone per pass and their median, and how many
impacts were answered. Impacts run on a thread of their own (docs/api.md, "Impact"), so the target is that a
fetch's p99 beside them stays within noise of its p99 alone (issue 56, point 7). The control row tells what
of the difference is the process's doing: what a fetch's p99 loses beside the control is what any such work on
the machine's other core costs it (the caches and memory bandwidth the cores share), which no arrangement
inside the server removes. Rows alternate their order pass by pass.

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


def prepare(base: str, work: str, template: dict, wanted: int) -> tuple[str, list[str], int]:
    """Publishes `template`, makes the viewers' keys and fills the impact sample; returns the client key, the
    viewers' keys and the sample's size."""
    key = publish_project(base, PROJECT, template)
    admin = {"Authorization": f"Bearer {TOKEN}"}
    viewers = []
    for index in range(IMPACTS):
        status, _, body = call("POST", f"{base}/v1/apiKeys",
                               {"displayName": f"viewer {index}", "role": "viewer", "project": PROJECT}, admin)
        assert status == 201, (status, body)
        viewers.append(json.loads(body)["key"])
    return key, viewers, fill_sample(base, key, work, wanted)


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
    parser.add_argument("--no-control", action="store_true", help="leave out the control row (a second server)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")
    work = tempfile.mkdtemp(prefix="rc-impact-beside-")
    os.chmod(work, 0o755)
    server = Server(args.binary, work, "impact", args=("--insights-flush-interval", "2"))
    control = None if args.no_control else Server(args.binary, work, "control",
                                                  args=("--insights-flush-interval", "2"))
    try:
        base = server.wait_listening()
        template = realistic_template(random.Random(20261203))
        key, viewers, held = prepare(base, work, template, args.sample)
        log(f"impact sample: {held} instances")
        control_viewers: list[str] = []
        if control is not None:
            control_base = control.wait_listening()
            _, control_viewers, control_held = prepare(control_base, work, template, args.sample)
            log(f"the control server's impact sample: {control_held} instances")
        candidate = copy.deepcopy(template)
        for parameter in candidate["parameters"].values():
            if parameter.get("valueType") == "BOOLEAN":
                parameter["defaultValue"] = {"value": "true"}
        script = os.path.join(work, "fetch.lua")
        write_new_devices_script(script, [(f"/v1/projects/{PROJECT}/remoteConfig:fetch", {"X-API-Key": key})])
        names = ["alone", "beside"] + ([] if control is None else ["control"])
        rows: dict[str, list[dict]] = {name: [] for name in names}
        impacts_answered = {name: 0 for name in names[1:]}
        impacts_other: dict[int, int] = {}
        for number in range(args.passes):
            for name in (names if number % 2 == 0 else names[::-1]):
                if name == "alone":
                    rows[name].append(run_wrk(base, script, args.duration, args.connections, 2))
                    continue
                target, keys = (base, viewers) if name == "beside" else (control_base, control_viewers)
                with Impacts(target, keys, candidate) as impacts:
                    rows[name].append(run_wrk(base, script, args.duration, args.connections, 2))
                impacts_answered[name] += impacts.answered
                for status, count in impacts.other.items():
                    impacts_other[status] = impacts_other.get(status, 0) + count
            log(f"pass {number + 1}: " + "; ".join(
                f"{name} p99 {rows[name][-1]['p99_ms']:.2f} ms, {rows[name][-1]['rps']:.0f} req/s" for name in names))
    finally:
        server.stop()
        if control is not None:
            control.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nfetch beside {IMPACTS} concurrent impacts ({args.binary}): a sample of {held} instances, "
          f"{args.passes} passes of {args.duration} s, {args.connections} connections; "
          f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()} cores")
    for name, results in rows.items():
        print(f"{name:8} p50 {statistics.median(r['p50_ms'] for r in results):7.2f} ms  "
              f"p99 {statistics.median(r['p99_ms'] for r in results):7.2f} ms  "
              f"req/s {statistics.median(r['rps'] for r in results):8.0f}  "
              "(p99 per pass: " + ", ".join(f"{r['p99_ms']:.2f}" for r in results) + ")")
    pairs = [("beside", "alone")] + ([("control", "alone"), ("beside", "control")] if "control" in rows else [])
    for top, bottom in pairs:
        ratios = [b["p99_ms"] / a["p99_ms"] for a, b in zip(rows[bottom], rows[top])]
        rates = [b["rps"] / a["rps"] for a, b in zip(rows[bottom], rows[top])]
        print(f"p99 {top} / {bottom}: median {statistics.median(ratios):.2f} "
              f"(per pass {', '.join(f'{r:.2f}' for r in ratios)}); req/s {top} / {bottom}: median "
              f"{statistics.median(rates):.2f}")
    print("impacts answered: " + ", ".join(f"{name} {count}" for name, count in impacts_answered.items())
          + (f"; other answers {impacts_other}" if impacts_other else ""))
    errors = sum(r["errors"] + r["non2xx3xx"] for results in rows.values() for r in results)
    if errors:
        sys.exit(f"{errors} fetch errors or 4xx/5xx answers: these figures are not valid")


if __name__ == "__main__":
    main()
