#!/usr/bin/env python3
"""A publish reaching 10,000 apps that hold streams: from the publish's answer until the last has its new answer.

Starts one `remote-config serve` on 127.0.0.1 (default log level, its output to a file; embedded PostgreSQL),
publishes the realistic template of the fetch benchmark (50 parameters, 20 conditions), and has N apps (default
10,000) each hold a `remoteConfig:stream` and know its own context (a random instance id, platform, version,
build, country). Then it publishes a new version and every app, on its stream's `version` event, fetches its new
answer: over one of the load process's keep-alive connections (`--pool`, as behind a load balancer's connection
pool: 10,000 more sockets would not fit this machine's open-files limit of 20,000 next to the streams), one fetch
at a time per connection. It reports the time from the publish's answer (the `PUT`'s acknowledgement) until the
last app has a 200 whose `templateVersion` is the new one (target, issue 37: under 1.5 s), until the last stream
event was received (the kernel's stamp: the server's fan-out) and read, and the CPU time the server and the load
process used from the PUT until the last answer.

The apps run in one load process (`publish_fetch_apps.py`: one epoll loop, each app's fetch request built
before the publish), on the same two cores as the server, and its time (reading 10,000 events and answers in
Python) is part of what is measured: the figure is an upper bound of the server's.

    python3 server/Benchmarks/streams/publish_fetch.py --binary server/.build/release/remote-config

Loopback only, bounded in time (`--timeout`); every connection is closed, the server stopped with SIGTERM and
its data dir removed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "fetch"))
from stream_load import HOST, KeepAliveConnection, Server, admin, log, percentile, raise_fd_limit  # noqa: E402
from publish_fetch_apps import FetchConnection, open_streams, run  # noqa: E402
from fetch_bench import realistic_template  # noqa: E402

TARGET_SECONDS = 1.5


def app_context(rng: random.Random) -> bytes:
    return json.dumps({
        "appInstanceId": f"{rng.getrandbits(128):032x}", "appId": "com.example.shop",
        "platform": rng.choice(["IOS", "ANDROID"]),
        "appVersion": f"{rng.randint(1, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 5)}",
        "appBuild": str(rng.randint(90, 400)), "countryCode": rng.choice(["US", "GB", "JP", "DE", "FR", "BR"]),
        "languageCode": "en-US", "sdkVersion": "remote-config-swift/1.0"}, separators=(",", ":")).encode()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (from /proc: the server's, read by another process)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker(args: argparse.Namespace) -> None:
    """One load process: opens its streams and pool, says `ready`, then fetches for each app whose stream
    announces the new version, and prints the arrival times (time.perf_counter, the system's monotonic clock,
    the same in every process) and the CPU time the server and this process used until the last answer."""
    rng = random.Random(args.seed)
    stream_request = (f"GET /v1/projects/{args.project}/remoteConfig:stream HTTP/1.1\r\nHost: {HOST}:{args.port}\r\n"
                      f"X-API-Key: {args.key}\r\nAccept: text/event-stream\r\n\r\n").encode()
    streams, failed = open_streams(args.port, stream_request, args.streams, args.version - 1)
    warm_up = f"GET /healthz HTTP/1.1\r\nHost: {HOST}:{args.port}\r\n\r\n".encode()
    pool = [FetchConnection(args.port, warm_up) for _ in range(args.pool)]
    # Each app's fetch, its own context, as bytes ready to send: an app knows its context before the event.
    head = (f"POST /v1/projects/{args.project}/remoteConfig:fetch HTTP/1.1\r\nHost: {HOST}:{args.port}\r\n"
            f"X-API-Key: {args.key}\r\nContent-Type: application/json\r\n")
    fetches = []
    for _ in streams:
        body = app_context(rng)
        fetches.append(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
    marker = f'"templateVersion":"{args.version}"'.encode()  # as the server writes it, without spaces
    print(json.dumps({"ready": len(streams), "failed": failed}), flush=True)
    own = os.times()
    result = run(args.port, streams, pool, fetches, args.version, marker, args.notify_timeout)
    server_cpu = cpu_seconds(args.server_pid)
    after = os.times()
    result.update(server_cpu=server_cpu, own_cpu=after.user + after.system - own.user - own.system)
    print(json.dumps(result), flush=True)
    for stream in streams:
        stream.sock.close()
    for connection in pool:
        connection.sock.close()


async def benchmark(args: argparse.Namespace, server: Server) -> dict:
    port, token, project = server.port, server.admin_token, args.project
    await admin(port, token, "POST", "/v1/projects", {"projectId": project, "displayName": "publish fetch"})
    key = (await admin(port, token, "POST", "/v1/apiKeys",
                       {"displayName": "publish fetch", "role": "client", "project": project}))["key"]
    template = realistic_template(random.Random(20261124))
    published = await admin(port, token, "PUT", f"/v1/projects/{project}/remoteConfig", template,
                            headers={"If-Match": "*"})
    version = int(published["version"]["versionNumber"]) + 1
    shares = [args.streams // args.workers + (1 if i < args.streams % args.workers else 0) for i in range(args.workers)]
    workers = [await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "--worker", "--binary", args.binary, "--port", str(port),
        "--key", key, "--project", project, "--streams", str(share), "--pool", str(args.pool),
        "--version", str(version), "--seed", str(index), "--notify-timeout", str(args.notify_timeout),
        "--server-pid", str(server.pid),
        stdout=asyncio.subprocess.PIPE, limit=1 << 24) for index, share in enumerate(shares)]  # long result lines
    results: dict = {"workers": args.workers, "pool": args.pool}
    try:
        ready = [json.loads(await worker_process.stdout.readline()) for worker_process in workers]
        results["streams"] = sum(r["ready"] for r in ready)
        results["failed"] = sum(r["failed"] for r in ready)
        log(f"{results['streams']} streams open ({results['failed']} failed), {args.workers} x {args.pool} "
            "keep-alive connections for the fetches; publishing")
        await asyncio.sleep(args.settle)
        template["parameters"]["parameter_04"]["defaultValue"] = {"value": "published-" + secrets.token_hex(4)}
        connection = KeepAliveConnection(port)
        await connection.open()
        sent: list[float] = []
        server_cpu = cpu_seconds(server.pid)
        status, payload = await connection.request(
            "PUT", f"/v1/projects/{project}/remoteConfig", {"Authorization": f"Bearer {token}", "If-Match": "*"},
            json.dumps(template).encode(), on_sent=lambda: sent.append(time.perf_counter()))
        acknowledged = time.perf_counter()
        connection.close()
        if status != 200:
            raise RuntimeError(f"publish: {status} {payload[:300]!r}")
        finals = [json.loads(await worker_process.stdout.readline()) for worker_process in workers]
        answered = [t - acknowledged for f in finals for t in f["answered"]]
        events = [t - acknowledged for f in finals for t in f["events"]]
        stamped = [t - acknowledged for f in finals for t in f["stamped"]]
        results.update(put_ms=(acknowledged - sent[0]) * 1000, answered=len(answered),
                       wrong=sum(f["wrong"] for f in finals),
                       wrong_examples=[e for f in finals for e in f["wrong_examples"]][:3],
                       server_cpu_s=max(f["server_cpu"] for f in finals) - server_cpu,
                       load_cpu_s=sum(f["own_cpu"] for f in finals))
        if answered:
            results.update(last_answer_s=max(answered), p50_answer_s=percentile(answered, 50),
                           p99_answer_s=percentile(answered, 99))
        if events:
            results.update(last_event_s=max(events), p50_event_s=percentile(events, 50))
        if stamped:
            results.update(last_stamped_s=max(stamped), p50_stamped_s=percentile(stamped, 50))
    finally:
        for worker_process in workers:
            try:
                await asyncio.wait_for(worker_process.wait(), 10 if "answered" in results else 0.1)
            except asyncio.TimeoutError:
                worker_process.kill()
                await worker_process.wait()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--streams", "-n", type=int, default=10_000, help="apps holding a stream (default 10000)")
    parser.add_argument("--workers", type=int, default=1, help="load processes (default 1)")
    parser.add_argument("--pool", type=int, default=128, help="keep-alive fetch connections per load process "
                                                              "(default 128)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds between the streams open and the publish")
    parser.add_argument("--notify-timeout", type=float, default=30.0)
    parser.add_argument("--timeout", type=float, default=180.0, help="overall limit in seconds (default 180)")
    parser.add_argument("--project", default="publish-fetch")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    parser.add_argument("--version", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_fd_limit(65536)
    if args.worker:
        worker(args)
        return 0
    args.binary = os.path.abspath(args.binary)
    server = Server(args.binary, "rc_admin_" + secrets.token_hex(16), keep_data=False, log_level="info")
    results: dict = {}
    failure = None
    try:
        server.start(90)
        log(f"server PID {server.pid} on port {server.port} (log {server.log_path})")
        results = asyncio.run(asyncio.wait_for(benchmark(args, server), args.timeout))
    except Exception as error:  # report whatever happened, then clean up
        failure = f"{type(error).__name__}: {error}"
    finally:
        server.stop()
        server.cleanup()
        if failure is None:
            os.remove(server.log_path)  # a line per request: kept only when something went wrong
    print(f"\npublish then fetch, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores: "
          f"{results.get('streams', 0)} apps holding streams ({results.get('failed', 0)} failed to open), "
          f"{args.workers} load processes x {args.pool} keep-alive fetch connections")
    if "answered" in results:
        print(f"  publish PUT round trip                   {results['put_ms']:.0f} ms")
        print(f"  apps with the new answer / wrong answers {results['answered']} / {results['wrong']} "
              f"{results['wrong_examples'] or ''}")
    if "last_answer_s" in results:
        holds = results["last_answer_s"] < TARGET_SECONDS and results["answered"] == results["streams"]
        if "last_stamped_s" in results:
            print(f"  stream event received (kernel stamp)     p50 {results['p50_stamped_s'] * 1000:.0f} ms, "
                  f"last {results['last_stamped_s'] * 1000:.0f} ms")
        print(f"  stream event read by the apps            p50 {results['p50_event_s'] * 1000:.0f} ms, "
              f"last {results['last_event_s'] * 1000:.0f} ms")
        print(f"  new answer after the PUT's answer        p50 {results['p50_answer_s'] * 1000:.0f} ms, "
              f"p99 {results['p99_answer_s'] * 1000:.0f} ms, last {results['last_answer_s'] * 1000:.0f} ms "
              f"(target < {TARGET_SECONDS * 1000:.0f} ms: {'holds' if holds else 'DOES NOT HOLD'})")
        print(f"  CPU from the PUT to the last answer      server {results['server_cpu_s'] * 1000:.0f} ms, "
              f"load processes {results['load_cpu_s'] * 1000:.0f} ms")
    print(f"  server exit status (SIGTERM)             {server.exit_status}")
    if failure:
        print(f"  FAILED: {failure}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(dict(results, failure=failure), out, indent=2)
    return 0 if failure is None and results.get("answered") == results.get("streams") else 1


if __name__ == "__main__":
    sys.exit(main())
