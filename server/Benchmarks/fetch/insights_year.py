#!/usr/bin/env python3
"""The insights reads on a year of history: `insights/minimumVersion` (over the year and over its default
week), `insights/versions` and `insights/timeline` over the year, on one project whose iOS fleet was imported
day by day for 365 days (300 versions in all, the 200 newest of each day, each day's count falling off with its
distance from that day's newest: a fleet that keeps updating).

Starts `remote-config serve` (embedded PostgreSQL, a 400-day insights retention), imports the year through
`insights:import` and times `--calls` answers of each read after two warm-up calls; with `--reference-binary`,
the same on that build in the same run, then the ratios. Issue 52, point 6: the minimum-version computation
stays fast on a year of daily rows and hundreds of versions.

    python3 server/Benchmarks/fetch/insights_year.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from new_devices import Server  # noqa: E402
from fetch_bench import log  # noqa: E402
from common import TOKEN, call  # noqa: E402

PROJECT = "year-app"
DAYS = 365
VERSIONS = 300
PER_DAY = 200
ADMIN = {"Authorization": f"Bearer {TOKEN}"}


def year_csv(today: datetime.date) -> list[str]:
    """The year's rows as CSV bodies of at most 50,000 rows (the import takes 100,000 a call)."""
    rows = []
    for back in range(DAYS - 1, -1, -1):
        day = today - datetime.timedelta(days=back)
        newest = min(VERSIONS - 1, PER_DAY - 1 + (DAYS - 1 - back) * (VERSIONS - PER_DAY) // (DAYS - 1))
        for index in range(newest - PER_DAY + 1, newest + 1):
            count = max(1, int(20000 * 0.97 ** (newest - index)))
            rows.append(f"{day.isoformat()},IOS,{1 + index // 100}.{index % 100}.0,{count}")
    header = "date,platform,version,activeInstances"
    return ["\n".join([header, *rows[start:start + 50000]]) + "\n" for start in range(0, len(rows), 50000)]


def post_csv(base: str, body: str) -> int:
    request = urllib.request.Request(
        f"{base}/v1/projects/{PROJECT}/insights:import", data=body.encode(), method="POST",
        headers={**ADMIN, "Content-Type": "text/csv"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status


def measure(binary: str, work: str, name: str, calls: int) -> dict[str, float]:
    server = Server(binary, work, name, args=("--insights-retention-days", "400"))
    try:
        base = server.wait_listening()
        assert call("POST", f"{base}/v1/projects", {"projectId": PROJECT}, ADMIN)[0] == 201
        template = {"parameters": {"min_supported_version": {"defaultValue": {"value": "1.0.0"},
                                                             "valueType": "STRING"}}}
        status, _, body = call("PUT", f"{base}/v1/projects/{PROJECT}/remoteConfig", template,
                               {**ADMIN, "If-Match": "*"})
        assert status == 200, body
        for chunk in year_csv(datetime.datetime.now(datetime.timezone.utc).date()):
            assert post_csv(base, chunk) == 200
        since = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=DAYS)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        reads = {
            "minimumVersion, a year": f"insights/minimumVersion?platform=IOS&since={since}",
            "minimumVersion, a week": "insights/minimumVersion?platform=IOS",
            "versions, a year": f"insights/versions?platform=IOS&since={since}",
            "timeline by day, a year": f"insights/timeline?platform=IOS&since={since}",
        }
        medians = {}
        for label, path in reads.items():
            times, failed, size = [], {}, 0
            for attempt in range(calls + 2):
                started = time.perf_counter()
                status, _, body = call("GET", f"{base}/v1/projects/{PROJECT}/{path}", None, ADMIN, timeout=60)
                elapsed = (time.perf_counter() - started) * 1000
                if attempt < 2:
                    continue
                times.append(elapsed)
                if status == 200:
                    size = len(body)
                else:  # a 504 (the database deadline) is a result too: said, not hidden
                    failed[status] = failed.get(status, 0) + 1
            medians[label] = statistics.median(times)
            refused = "".join(f"  {count} × {status}" for status, count in sorted(failed.items()))
            log(f"{name:10s} {label:24s} median {medians[label]:7.1f} ms  max {max(times):7.1f} ms  "
                f"{size:,} bytes{refused}")
        return medians
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--reference-binary")
    parser.add_argument("--calls", type=int, default=9)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="rc-insights-year-")
    log(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {DAYS} days × {PER_DAY} of "
        f"{VERSIONS} versions imported, {arguments.calls} calls each; logs in {work}")
    after = measure(arguments.binary, work, "binary", arguments.calls)
    if arguments.reference_binary:
        before = measure(arguments.reference_binary, work, "reference", arguments.calls)
        for label in after:
            log(f"{label:24s} binary / reference: {after[label] / before[label]:.2f}")


if __name__ == "__main__":
    main()
