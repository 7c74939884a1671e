#!/usr/bin/env python3
"""Soak: mixed load on one server for a bounded time, loopback only.

Fetches with varied contexts from several workers, a publish every second, and many open realtime
streams. Fails (exit 1) on any error, or when the server's resident memory at the end is more than 10%
above the sample taken after the first sixth of the run (after the first minute for a 10-minute run).

    server/Benchmarks/drills/soak.py --duration 60 --streams 200      # the CI version (scripts/test runs it)
    server/Benchmarks/drills/soak.py --duration 600 --streams 1000    # the full soak
"""
import argparse, json, os, random, resource, selectors, shutil, signal, socket, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(__file__))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3)
    options = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, options.streams * 2 + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    streams_wanted = min(options.streams, wanted // 2 - 128)

    # Insights count every fetch, and their flush runs every 5 s so the soak drives it under load many times.
    # Each project's impact sample is a bounded warm-up (up to --insights-sample-size contexts per thread until
    # the first flush); a smaller one fills within the run's first sixth, so growth after it means a leak.
    server, base, data_dir = start_server(
        options.binary, "rc-soak-", ["--insights-flush-interval", "5", "--insights-sample-size", "1000"])
    port = int(base.rsplit(":", 1)[1])
    admin = {"Authorization": f"Bearer {TOKEN}"}
    publish_headers = dict(admin, **{"If-Match": "*"})
    call("POST", base + "/v1/projects", {"projectId": "soak-app"}, admin)
    key = json.loads(call("POST", base + "/v1/apiKeys", {"role": "client", "project": "soak-app"}, admin)[2])["key"]

    def template(n):
        return {"conditions": [{"name": "ios_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"},
                               {"name": "jp", "expression": "device.country in ['jp']"},
                               {"name": "tenth", "expression": "percent('soak') <= 10"}],
                "parameters": {"require_force_update": {"defaultValue": {"value": "false"}, "valueType": "BOOLEAN",
                                                        "conditionalValues": {"ios_old": {"value": "true"}}},
                               "greeting": {"defaultValue": {"value": f"hello {n}"},
                                            "conditionalValues": {"jp": {"value": "konnichiwa"}}},
                               "beta": {"defaultValue": {"useInAppDefault": True},
                                        "conditionalValues": {"tenth": {"value": "on"}}}}}

    errors = []
    counts = {"fetch": 0, "publish": 0, "events": 0}
    stop = threading.Event()
    assert call("PUT", base + "/v1/projects/soak-app/remoteConfig", template(0), publish_headers)[0] == 200

    # Streams: raw sockets read by one selector thread.
    selector = selectors.DefaultSelector()
    sockets = []
    for _ in range(streams_wanted):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /v1/projects/soak-app/remoteConfig:stream HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n".encode())
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ)
        sockets.append(s)

    def read_streams():
        while not stop.is_set():
            for selected, _ in selector.select(timeout=0.2):
                try:
                    data = selected.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    errors.append("a stream closed")
                    selector.unregister(selected.fileobj)
                    continue
                counts["events"] += data.count(b"event: version")

    def fetch_worker(seed):
        rng = random.Random(seed)
        while not stop.is_set():
            body = {"appInstanceId": f"i{rng.randrange(10**9)}", "platform": rng.choice(["IOS", "ANDROID", "WEB"]),
                    "appVersion": rng.choice(["1.0.0", "1.9.9", "2.0.0", "2.1", "3"]),
                    "countryCode": rng.choice(["JP", "US", "GB"]), "languageCode": rng.choice(["ja-JP", "en_GB"]),
                    "customSignals": {"plan": rng.choice(["pro", "free"]), "cart": rng.randrange(10)}}
            status, _, _ = call("POST", base + "/v1/projects/soak-app/remoteConfig:fetch", body, {"X-API-Key": key})
            counts["fetch"] += 1
            if status != 200:
                errors.append(f"fetch {status}")

    def publisher():
        n = 0
        while not stop.is_set():
            n += 1
            status = call("PUT", base + "/v1/projects/soak-app/remoteConfig", template(n), publish_headers)[0]
            counts["publish"] += 1
            if status != 200:
                errors.append(f"publish {status}")
            stop.wait(1)

    threads = [threading.Thread(target=read_streams), threading.Thread(target=publisher)]
    threads += [threading.Thread(target=fetch_worker, args=(i,)) for i in range(options.workers)]
    for thread in threads:
        thread.start()
    start = time.time()
    time.sleep(options.duration / 6)
    rss_early = rss_kib(server.pid)
    time.sleep(max(0, options.duration - (time.time() - start)))
    rss_end = rss_kib(server.pid)
    stop.set()
    for thread in threads:
        thread.join()
    for s in sockets:
        s.close()
    server.send_signal(signal.SIGTERM)
    exit_status = server.wait(timeout=30)
    shutil.rmtree(data_dir, ignore_errors=True)

    growth = (rss_end - rss_early) / max(1, rss_early)
    expected_events = counts["publish"] * streams_wanted
    print(f"soak: {options.duration:.0f} s, {streams_wanted} streams, {options.workers} fetch workers, a publish a second")
    print(f"fetches {counts['fetch']}, publishes {counts['publish']}, stream events {counts['events']} of ~{expected_events}")
    print(f"errors {len(errors)} {sorted(set(errors))[:5]}")
    print(f"RSS after {options.duration / 6:.0f} s {rss_early / 1024:.1f} MiB, at the end {rss_end / 1024:.1f} MiB ({growth * 100:+.1f}%)")
    print(f"server exit status {exit_status}")
    failed = errors or growth > 0.10 or exit_status != 0 or counts["events"] < expected_events * 0.9
    print("soak: FAILED" if failed else "soak: passed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
