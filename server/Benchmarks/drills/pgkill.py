#!/usr/bin/env python3
"""PostgreSQL SIGKILL drill: the database is killed in the middle of a publish storm.

Starts `remote-config serve` with an embedded PostgreSQL in a temporary data dir, publishes v1, and lets
8 clients publish (forced, `If-Match: *`) a bounded storm (500 publishes, loopback only), each with its own
content. After 60 acknowledged publishes it SIGKILLs PostgreSQL (the postmaster's process group: the
postmaster and every backend at once) while the clients keep going, waits, starts the cluster again with
pg_ctl (crash recovery) and lets the storm finish. It proves, without restarting the server:
  - every publish is answered 200, or 503 with Retry-After: never another status, never a hang or dropped
    connection (the client waits 15 s; the server's own deadline is 5 s);
  - the server is ready and accepts a publish within 30 s of PostgreSQL's return, and from the first accepted
    publish on (the recovery) every publish sent is accepted;
  - every acknowledged (200) publish is in history with exactly its content; version numbers are 1..max,
    contiguous, with no duplicate and no version whose content no client sent (partial);
  - the server exits 0 on SIGTERM.
Unacknowledged publishes may or may not have committed (COMMIT sent, answer lost); the drill lists those that did.
Exit status 1 on any violation, each printed with its timing relative to the kill. Run from the repository root:

    server/Benchmarks/drills/pgkill.py [--binary server/.build/debug/remote-config] [--publishes 500] [--clients 8]
                                [--kill-after 60] [--down 3] [--postmaster-only]
"""
import argparse, json, os, shutil, signal, subprocess, sys, threading, time
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402
from outage import pg_ctl  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--publishes", type=int, default=500, help="total publishes of the storm")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--kill-after", type=int, default=60, help="acknowledged publishes before the kill")
    parser.add_argument("--down", type=float, default=3, help="seconds PostgreSQL stays dead")
    parser.add_argument("--backoff", type=float, default=0.1, help="a client's pause after a failed publish")
    parser.add_argument("--timeout", type=float, default=180, help="bound of the whole drill")
    parser.add_argument("--postmaster-only", action="store_true", help="kill the postmaster alone, not its backends")
    options = parser.parse_args()
    began = time.time()
    deadline = began + options.timeout - 30  # keep 30 s for verification and shutdown

    server, base, data_dir = start_server(options.binary, "rc-pgkill-")

    def give_up(*_):  # the overall bound: leave nothing running behind
        print(f"pgkill: FAILED: not finished within {options.timeout:.0f} s", flush=True)
        server.kill()
        try:
            with open(os.path.join(data_dir, "postgres", "data", "postmaster.pid")) as pidfile:
                os.killpg(int(pidfile.readline()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
        shutil.rmtree(data_dir, ignore_errors=True)
        os._exit(1)
    signal.signal(signal.SIGALRM, give_up)
    signal.alarm(int(options.timeout))
    admin = {"Authorization": f"Bearer {TOKEN}"}
    publish_headers = dict(admin, **{"If-Match": "*"})
    remote_config = base + "/v1/projects/drill-app/remoteConfig"
    violations = []

    def template(value):
        return {"parameters": {"marker": {"defaultValue": {"value": value}}}}

    def publish(value, timeout=15):
        started = time.time()
        status, headers, body = call("PUT", remote_config, template(value), publish_headers, timeout=timeout)
        number = json.loads(body)["version"]["versionNumber"] if status == 200 else None
        return {"value": value, "status": status, "version": number, "retry_after": headers.get("Retry-After"),
                "error": body[:160].decode(errors="replace") if status != 200 else "",
                "start": started, "end": time.time()}

    assert call("POST", base + "/v1/projects", {"projectId": "drill-app"}, admin)[0] in (200, 201)
    first = publish("v1")
    assert first["status"] == 200 and first["version"] == "1", first
    outcomes = [first]  # every publish attempt, appended under lock
    lock = threading.Lock()
    budget = {"left": options.publishes}
    acked = threading.Event()
    times = {"kill": None, "back": None, "recovered": None}

    def publisher(client):
        sequence = 0
        while time.time() < deadline:
            with lock:
                if budget["left"] == 0:
                    return
                budget["left"] -= 1
            sequence += 1
            outcome = publish(f"c{client}-s{sequence}")
            with lock:
                outcomes.append(outcome)
                if sum(o["status"] == 200 for o in outcomes) > options.kill_after:
                    acked.set()
            if outcome["status"] != 200:
                time.sleep(options.backoff)

    clients = [threading.Thread(target=publisher, args=(i,)) for i in range(options.clients)]
    for client in clients:
        client.start()
    acked.wait(timeout=max(1, deadline - time.time()))

    # The kill: postmaster.pid's first line is the postmaster's pid; pg_ctl made it a process group leader.
    pgdata = os.path.join(data_dir, "postgres", "data")
    with open(os.path.join(pgdata, "postmaster.pid")) as pidfile:
        postmaster = int(pidfile.readline())
    times["kill"] = time.time()
    if options.postmaster_only or os.getpgid(postmaster) != postmaster:
        os.kill(postmaster, signal.SIGKILL)
    else:
        os.killpg(postmaster, signal.SIGKILL)
    acked_at_kill = sum(o["status"] == 200 for o in outcomes)
    if acked_at_kill < options.kill_after:
        violations.append(f"only {acked_at_kill} publishes acknowledged before the kill")
    time.sleep(options.down / 2)
    ready_during = call("GET", base + "/readyz", timeout=15)[0]
    time.sleep(max(0, times["kill"] + options.down - time.time()))

    pg_ctl(data_dir, "start")  # crash recovery, then accepting connections (-w)
    times["back"] = time.time()
    ready_after = publish_after = None
    probes = 0
    while time.time() - times["back"] < 30 and (ready_after is None or publish_after is None):
        if ready_after is None and call("GET", base + "/readyz")[0] == 200:
            ready_after = time.time() - times["back"]
        if publish_after is None:
            probes += 1
            probe = publish(f"probe-{probes}")
            with lock:
                outcomes.append(probe)
            if probe["status"] == 200:
                publish_after = time.time() - times["back"]
                times["recovered"] = time.time()
        time.sleep(0.05)
    if ready_after is None or publish_after is None:
        violations.append("the server did not recover within 30 s of PostgreSQL's return")
    for client in clients:
        client.join(timeout=max(1, deadline + 20 - time.time()))
    if any(client.is_alive() for client in clients):
        violations.append("a client was still waiting at the time bound")
    with lock:
        outcomes = list(outcomes)

    # Every response: 200, or 503 with Retry-After. A status 0 is a connection error or a hang.
    def phase(o):
        if o["start"] < times["kill"]:
            return "before"
        if times["recovered"] is None or o["start"] < times["recovered"]:
            return "outage"
        return "after"

    def when(o):  # times relative to the kill, for the report
        return (f"(sent {o['start'] - times['kill']:+.2f} s, answered {o['end'] - times['kill']:+.2f} s after the "
                f"kill; PostgreSQL back at {times['back'] - times['kill']:+.2f} s): {o['error']}")

    by_phase = {name: Counter() for name in ("before", "outage", "after")}
    for o in outcomes:
        by_phase[phase(o)][o["status"] if o["status"] else ("hang" if "timed out" in o["error"] else "conn-error")] += 1
        if o["status"] not in (200, 503, 0):
            violations.append(f"publish {o['value']} answered {o['status']} {when(o)}")
        if o["status"] == 503 and not o["retry_after"]:
            violations.append(f"publish {o['value']}: 503 without Retry-After")
        if o["status"] == 0:  # the server never stops in this drill: a dropped connection or a hang is a fault
            violations.append(f"publish {o['value']} got no answer {when(o)}")
        if phase(o) == "after" and o["status"] != 200:
            violations.append(f"publish {o['value']} answered {o['status']} after the recovery {when(o)}")

    # History: page through listVersions, then read every version's content.
    numbers, token = [], None
    while True:
        page_url = remote_config + ":listVersions?pageSize=300" + (f"&pageToken={token}" if token else "")
        status, _, body = call("GET", page_url, headers=admin, timeout=15)
        if status != 200:
            violations.append(f"listVersions answered {status}")
            break
        page = json.loads(body)
        numbers += [int(v["versionNumber"]) for v in page.get("versions", [])]
        token = page.get("nextPageToken")
        if not token:
            break
    if numbers != list(range(len(numbers), 0, -1)):
        duplicates = [n for n, c in Counter(numbers).items() if c > 1]
        missing = sorted(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
        violations.append(f"history not 1..max contiguous: duplicates {duplicates[:10]}, missing {missing[:10]}")
    content = {}
    for number in sorted(set(numbers)):
        status, _, body = call("GET", remote_config + f"?versionNumber={number}", headers=admin, timeout=15)
        parameters = json.loads(body).get("parameters", {}) if status == 200 else {}
        content[number] = parameters.get("marker", {}).get("defaultValue", {}).get("value")
    sent = {o["value"]: o for o in outcomes}
    acknowledged = [o for o in outcomes if o["status"] == 200]
    for number, count in Counter(o["version"] for o in acknowledged).items():
        if count > 1:
            violations.append(f"version {number} acknowledged {count} times")
    for o in acknowledged:
        if content.get(int(o["version"])) != o["value"]:
            violations.append(f"{o['value']} acknowledged as version {o['version']}; history has "
                              f"{content.get(int(o['version']))!r}")
    for value, count in Counter(content.values()).items():
        if count > 1:
            violations.append(f"content {value!r} stored {count} times")
    for number, value in content.items():
        if value not in sent:
            violations.append(f"version {number} holds {value!r}, which no client sent (partial or corrupt)")
    stored = set(content.values())
    unacked = [o for o in outcomes if o["status"] != 200]
    unacked_present = [o for o in unacked if o["value"] in stored]
    # How long publishes kept failing: the last failure's answer, after PostgreSQL returned.
    settled = max((o["end"] - times["back"] for o in unacked), default=0)

    server.send_signal(signal.SIGTERM)
    try:
        exit_status = server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        exit_status = "none (killed after 30 s)"
    if exit_status != 0:
        violations.append(f"server exit status {exit_status}")
        try:
            pg_ctl(data_dir, "stop")
        except subprocess.CalledProcessError:
            pass
    shutil.rmtree(data_dir, ignore_errors=True)

    def show(counter):
        return ", ".join(f"{k}: {v}" for k, v in sorted(counter.items(), key=str)) or "none"

    for name in ("before", "outage", "after"):
        print(f"publishes {name:6} (by start time): {show(by_phase[name])}")
    print(f"/readyz {options.down / 2:.1f} s after the kill: {ready_during}; PostgreSQL down "
          f"{times['back'] - times['kill']:.2f} s (pg_ctl start with crash recovery included)")
    for o in unacked_present:
        print(f"not acknowledged but committed: {o['value']} answered {o['status'] or o['error']} {when(o)[:70]})")
    for v in sorted(set(violations))[:20]:
        print("VIOLATION:", v)
    fmt = lambda s: "never" if s is None else f"{s:.2f} s"  # noqa: E731
    print(f"pgkill: {'FAILED' if violations else 'passed'}: {len(acknowledged)} acknowledged ({acked_at_kill} before "
          f"the SIGKILL{' of the postmaster alone' if options.postmaster_only else ''}); sent during the outage: "
          f"{show(by_phase['outage'])}; ready {fmt(ready_after)}, publish accepted {fmt(publish_after)} after "
          f"PostgreSQL returned, last failure answered {settled:+.2f} s after it; history {len(numbers)} versions, "
          f"1..{max(numbers, default=0)}; "
          f"unacknowledged but committed {len(unacked_present)} of {len(unacked)}; exit {exit_status}; "
          f"{time.time() - began:.0f} s")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
