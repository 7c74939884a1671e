#!/usr/bin/env python3
"""Database outage drill: PostgreSQL stopped for 30 s under fetch load.

Starts `remote-config serve` with an embedded PostgreSQL in a temporary data dir, publishes a template,
runs a bounded fetch load (loopback only), stops PostgreSQL for --outage seconds, starts it again and
reports: fetch success rate during the outage, what admin writes and /readyz answered, and how long
after PostgreSQL returned the server was ready and accepted a publish again.

    server/Benchmarks/drills/outage.py [--binary server/.build/debug/remote-config] [--outage 30] [--workers 4]
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, threading, time, urllib.request, urllib.error

sys.path.insert(0, os.path.dirname(__file__))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402


def pg_ctl(data_dir, action):
    cluster = os.path.join(data_dir, "postgres")
    # The binaries the server started the cluster with (postmaster.opts names them), else the newest.
    try:
        with open(os.path.join(cluster, "data", "postmaster.opts")) as opts:
            postgres = opts.read().split()[0].strip('"')
        pg_ctl = os.path.join(os.path.dirname(postgres), "pg_ctl")
    except (OSError, IndexError):
        pg_ctl = ""
    if not os.path.exists(pg_ctl):
        bindir = next(d for d in sorted(os.listdir("/usr/lib/postgresql"), reverse=True))
        pg_ctl = f"/usr/lib/postgresql/{bindir}/bin/pg_ctl"
    args = [pg_ctl, "-D", os.path.join(cluster, "data"), "-w", "-t", "60"]
    if action == "start":
        args += ["-l", os.path.join(cluster, "server.log"), "-o",
                 f"-k {os.path.join(cluster, 'socket')} -c listen_addresses='' -c unix_socket_permissions=0700", "start"]
    else:
        args += ["-m", "fast", "stop"]
    if os.geteuid() == 0:
        args = ["runuser", "-u", "postgres", "--"] + args
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--outage", type=float, default=30)
    parser.add_argument("--workers", type=int, default=4)
    options = parser.parse_args()

    server, base, data_dir = start_server(options.binary, "rc-outage-")
    admin = {"Authorization": f"Bearer {TOKEN}"}
    call("POST", base + "/v1/projects", {"projectId": "drill-app"}, admin)
    _, _, body = call("POST", base + "/v1/apiKeys", {"role": "client", "project": "drill-app"}, admin)
    key = json.loads(body)["key"]
    publish_headers = dict(admin, **{"If-Match": "*"})
    template = {"parameters": {"min_supported_version": {"defaultValue": {"value": "2.0.0"}}}}
    assert call("PUT", base + "/v1/projects/drill-app/remoteConfig", template, publish_headers)[0] == 200

    results = {"before": [0, 0], "outage": [0, 0], "after": [0, 0]}
    phase = {"name": "before"}
    stop = threading.Event()

    def load():
        n = 0
        while not stop.is_set():
            n += 1
            status, _, body = call("POST", base + "/v1/projects/drill-app/remoteConfig:fetch",
                                   {"appInstanceId": f"i{n}", "platform": "IOS", "appVersion": "1.0.0"},
                                   {"X-API-Key": key})
            ok = status == 200 and b"2.0.0" in body
            counts = results[phase["name"]]
            counts[0] += 1
            counts[1] += ok

    workers = [threading.Thread(target=load) for _ in range(options.workers)]
    for worker in workers:
        worker.start()
    time.sleep(3)

    phase["name"] = "outage"
    pg_ctl(data_dir, "stop")
    time.sleep(min(5, options.outage / 2))
    write = call("PUT", base + "/v1/projects/drill-app/remoteConfig", template, publish_headers, timeout=15)
    ready = call("GET", base + "/readyz", timeout=15)
    time.sleep(max(0, options.outage - min(5, options.outage / 2)))
    phase["name"] = "after"
    started = time.time()
    pg_ctl(data_dir, "start")
    returned = time.time()
    ready_after = publish_after = None
    while time.time() - returned < 30:
        if ready_after is None and call("GET", base + "/readyz")[0] == 200:
            ready_after = time.time() - returned
        if publish_after is None and call("PUT", base + "/v1/projects/drill-app/remoteConfig", template, publish_headers)[0] == 200:
            publish_after = time.time() - returned
        if ready_after is not None and publish_after is not None:
            break
        time.sleep(0.05)
    time.sleep(2)
    stop.set()
    for worker in workers:
        worker.join()
    server.send_signal(signal.SIGTERM)
    exit_status = server.wait(timeout=30)
    shutil.rmtree(data_dir, ignore_errors=True)

    def rate(counts):
        return f"{counts[1]}/{counts[0]} ({100.0 * counts[1] / max(1, counts[0]):.2f}%)"

    print(f"outage: PostgreSQL stopped {options.outage:.0f} s, {options.workers} fetch workers (loopback)")
    print(f"fetch success before outage : {rate(results['before'])}")
    print(f"fetch success during outage : {rate(results['outage'])}")
    print(f"fetch success after         : {rate(results['after'])}")
    print(f"admin write during outage   : {write[0]} Retry-After={write[1].get('Retry-After')}")
    print(f"/readyz during outage       : {ready[0]}")
    print(f"PostgreSQL start took       : {returned - started:.2f} s")
    print(f"ready again after           : {ready_after if ready_after is None else f'{ready_after:.2f} s'} (after PostgreSQL accepted connections)")
    print(f"publish accepted again after: {publish_after if publish_after is None else f'{publish_after:.2f} s'}")
    print(f"server exit status          : {exit_status}")


if __name__ == "__main__":
    main()
