#!/usr/bin/env python3
"""Publish latency as history grows: a project with 10,000 versions against projects with 10.

A project that publishes from CI, store sync and rollouts reaches thousands of versions; a publish should
not slow down with them. This script fills one project with `--history` versions through the admin API (the
way production makes them: each publish audited, its webhooks and rollouts checked), then times publishes in
alternating rounds: `--round` publishes on the long project, then as many on a fresh project that has just
10 versions, every other round in the other order. It prints p50, p90, p99 and the slowest publish of each,
and their ratios (#55, point 5: p99 at 10,000 versions at most 2× that at 10).

    python3 server/Benchmarks/fetch/publish_history.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_bench import log, realistic_template  # noqa: E402
from common import TOKEN, call, start_server  # noqa: E402  (fetch_bench put the drills folder on the path)


class Publisher:
    """Publishes a changing template to one project over a kept-alive connection, timing each publish."""

    def __init__(self, base: str, project: str, template: dict) -> None:
        admin = {"Authorization": f"Bearer {TOKEN}"}
        status, _, body = call("POST", f"{base}/v1/projects", {"projectId": project, "displayName": project}, admin)
        assert status == 201, (status, body)
        url = urllib.parse.urlparse(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        self.path = f"/v1/projects/{project}/remoteConfig"
        self.template = json.loads(json.dumps(template))
        self.count = 0

    def publish(self) -> float:
        """One publish (a parameter's default changes each time); its latency in milliseconds."""
        self.count += 1
        self.template["parameters"]["parameter_04"]["defaultValue"] = {"value": f"build-{self.count}"}
        body = json.dumps(self.template)
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json", "If-Match": "*"}
        started = time.perf_counter()
        self.connection.request("PUT", self.path, body, headers)
        response = self.connection.getresponse()
        answer = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise RuntimeError(f"publish {self.count} of {self.path}: {response.status} {answer[:300]!r}")
        return elapsed


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--history", type=int, default=10_000, help="versions of the long project (default 10000)")
    parser.add_argument("--round", type=int, default=50, help="publishes per round and project (default 50)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds (default 6)")
    args = parser.parse_args()

    server, base, data_dir = start_server(args.binary, "rc-publish-history-")
    try:
        template = realistic_template(random.Random(20261124))
        long = Publisher(base, "long", template)
        started = time.monotonic()
        fill = [long.publish() for _ in range(args.history)]
        log(f"{args.history} versions in {time.monotonic() - started:.0f} s; the filling publishes: "
            f"first 100 p50 {statistics.median(fill[:100]):.1f} ms, last 100 p50 {statistics.median(fill[-100:]):.1f} ms")
        long_name, short_name = f"{args.history:,} versions", "10 versions"
        times: dict[str, list[float]] = {long_name: [], short_name: []}
        for number in range(args.rounds):
            short = Publisher(base, f"short{number}", template)
            for _ in range(10):
                short.publish()
            order = [(long_name, long), (short_name, short)]
            for name, publisher in (order if number % 2 == 0 else order[::-1]):
                times[name] += [publisher.publish() for _ in range(args.round)]
        print(f"\npublish latency, {args.rounds} alternating rounds of {args.round} publishes each; "
              f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
        print(f"{'':18} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        figures = {}
        for name, values in times.items():
            figures[name] = {share: percentile(values, share) for share in (0.5, 0.9, 0.99)}
            print(f"{name:18} {figures[name][0.5]:8.1f} {figures[name][0.9]:8.1f} {figures[name][0.99]:8.1f} "
                  f"{max(values):8.1f}")
        ratio = figures[long_name][0.99] / figures[short_name][0.99]
        verdict = "holds" if ratio <= 2 else "DOES NOT HOLD"
        print(f"p99 at {long_name} / at 10: {ratio:.2f}  (target <= 2: {verdict})")
        print(f"p50 at {long_name} / at 10: {figures[long_name][0.5] / figures[short_name][0.5]:.2f}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
