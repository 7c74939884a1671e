#!/usr/bin/env python3
"""Fetches as production sends them: every request a device the server has never seen, against nginx.

In production every app instance sends its own `appInstanceId` and fetches about twice a day, so nearly
every fetch a server answers is the first it sees from that caller. This script measures that path:

  new device                 ours at its default log level (an access log line per request, written to a file
                             as a service manager would), insights on: the server as it runs in production
  new device, log off        the same server flags with `RC_LOG_LEVEL=warning` (no access log line)
  new device, insights off   the same with `--insights off` (no counting, no impact sample), log on
  nginx new device           nginx answering a fetch answer of the same template from memory
                             (`return 200 '…'`), with a buffered access log (`access_log … buffer=64k`)
  nginx new device, log off  the same nginx without its access log
  new device, reference      with `--reference-binary PATH`: another build (the one before a change) with the
                             default flags, so that a change is measured against its reference in the same run

With `--floor PATH` (the `floor/` package's `nio-floor`, a bare SwiftNIO server answering nginx's very bytes
from memory; `run.sh --floor` builds it), four rows more, the least any SwiftNIO server costs here:

  swift-nio floor, raw         a handler finding each request's end in the bytes itself, no HTTP codec
  swift-nio floor, codec       behind NIO's HTTP/1.1 codec (`configureHTTPServerPipeline`), as Hummingbird is
  swift-nio floor, raw, log    / codec, log: with an access line per request, written every 64 KB by another
                               thread, as nginx's buffered access log

All are driven by the very same wrk script (64 connections, 2 threads): each request a fresh random
`appInstanceId`, platform, version, build, country and language, so no answer remembered by request body can
serve it. The three servers run side by side (each its own embedded PostgreSQL) and the rows alternate in
each pass, every other pass in reverse order (give an even `--passes`), so the ratios compare moments seconds
apart and no row always goes first. It prints req/s, p50, p99 and CPU per request (the
measured processes' user + system time over the requests answered), then the ratios: of the best passes, the
median of each pass's own ratio, and over all passes with a 95% interval (passes resampled). A target holds,
or fails, only when that whole interval is on its side; on a shared machine a best pass reads either way.

    python3 server/Benchmarks/fetch/new_devices.py --binary server/.build/release/remote-config

By default every server starts empty (a fresh start: each event loop's impact sample first takes the
sample size of new devices, then ever fewer). `--after-deploy SECONDS` models a deploy instead: each
measured server first answers SECONDS of new devices (the fleet it has been serving), is stopped gracefully
(its last flush stores its counts and sample) and started again on its database, then measured; its samples
begin where the stored one stands, as a production server's do after each deploy. `--new-device-flags`
adds flags to the *new device* server only: `--insights off` makes a control run (both rows off, so their
ratio should read 1.00), `--insights-sample-size 0` counts without the impact sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_bench import (HOST, LUA_LIBRARY, children, free_port, launch_nginx, log, lua_string,  # noqa: E402
                         publish_project, realistic_template, run_wrk)
from common import TOKEN, call  # noqa: E402  (fetch_bench put the drills folder on the path)

NEW_DEVICES_LIBRARY = r"""
-- Every request a device never seen before: a random appInstanceId and a varied context, sent to one of
-- `targets` (a path and its headers) chosen at random.
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end
local platforms = {"IOS", "ANDROID"}
local countries = {"US", "GB", "JP", "DE", "FR", "BR", "IN", "KR", "CA", "AU"}
local languages = {"en-US", "ja-JP", "de-DE", "fr-FR", "pt-BR"}
local counter = 0
request = function()
  counter = counter + 1
  local target = targets[math.random(#targets)]
  local body = string.format('{"appInstanceId":"%08x%08x%08x%08x","appId":"com.example.shop",' ..
    '"platform":"%s","appVersion":"%d.%d.%d","appBuild":"%d","countryCode":"%s","languageCode":"%s",' ..
    '"sdkVersion":"remote-config-swift/1.0"}',
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), counter,
    platforms[math.random(2)], math.random(1, 3), math.random(0, 9), math.random(0, 5), math.random(90, 400),
    countries[math.random(10)], languages[math.random(5)])
  return wrk.format("POST", target.path, target.headers, body)
end
"""


def write_new_devices_script(path: str, targets: list[tuple[str, dict]]) -> None:
    """A wrk script sending new devices' fetches to `targets` ((path, headers) pairs, one picked per request)."""
    lines = ["targets = {}"]
    for url, headers in targets:
        headers = {"Host": HOST, "Content-Type": "application/json", **headers}
        table = "{" + ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()) + "}"
        lines.append(f"targets[#targets + 1] = {{path = {lua_string(url)}, headers = {table}}}")
    done = LUA_LIBRARY[LUA_LIBRARY.index("done = function"):]
    with open(path, "w") as script:
        script.write("\n".join(lines) + "\n" + NEW_DEVICES_LIBRARY + done)


def listening_base(process: subprocess.Popen, output_path: str, timeout: float, failure: str) -> str:
    """The base URL a process prints in `output_path` ("listening on http://127.0.0.1:PORT") once it listens;
    raises with `failure` when it exits or `timeout` passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(output_path, "rb") as output:
            match = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", output.read())
        if match:
            return f"http://{HOST}:{int(match.group(1))}"
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"{failure}; see {output_path}")


def stop_process(process: subprocess.Popen, timeout: float) -> None:
    """Stops a process gracefully (SIGTERM), killing it after `timeout` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Server:
    """`remote-config serve` on loopback with an embedded PostgreSQL; its output (the access log at the default
    level) goes to a file, as under a service manager, never to a pipe this script would have to drain."""

    def __init__(self, binary: str, work: str, name: str, env: dict | None = None, args: tuple = ()) -> None:
        self.name = name
        self.data_dir = tempfile.mkdtemp(prefix="rc-new-devices-")
        os.chmod(self.data_dir, 0o755)  # the postgres user must reach the cluster inside it
        self.log_path = os.path.join(work, name.replace(" ", "-") + ".log")
        environment = dict(os.environ, RC_ADMIN_TOKEN=TOKEN)
        for variable in ("RC_LOG_LEVEL", "RC_DATABASE_URL", "DATABASE_URL"):  # the default level, its own cluster
            environment.pop(variable, None)
        environment.update(env or {})
        self.command = [binary, "serve", "--host", HOST, "--port", "0", "--data-dir", self.data_dir, *args]
        self.environment = environment
        self.starts = 0
        self.start()

    def start(self) -> None:
        self.starts += 1
        if self.starts > 1:
            self.log_path = self.log_path.removesuffix(".log") + f"-start{self.starts}.log"
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.command, stdout=self.log_file, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, env=self.environment)
        self.base = ""

    def restart(self) -> str:
        """Stops the server gracefully (its last flush writes what it counted) and starts it again on the same
        database, as a deploy does."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log_file.close()
        self.start()
        return self.wait_listening()

    def wait_listening(self, timeout: float = 120) -> str:
        self.base = listening_base(self.process, self.log_path, timeout, f"{self.name}: the server did not start")
        return self.base

    def stop(self) -> None:
        stop_process(self.process, 30)
        self.log_file.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def start_nginx(work: str, answer: str, etag: str) -> tuple[subprocess.Popen, int, int]:
    """nginx (one worker) answering `answer` from memory to any request, on one port with a buffered access
    log and on another without one."""
    logged, quiet = free_port(), free_port()
    # In nginx's configuration a `$` starts a variable and a quoted value is read in 4 KiB at most.
    assert "$" not in answer and len(answer) < 3500, "an answer nginx cannot return from its configuration"
    quoted = "'" + answer.replace("\\", "\\\\").replace("'", "\\'") + "'"
    location = f"location / {{ add_header ETag '{etag}'; return 200 {quoted}; }}"
    process = launch_nginx(work, f"""
    keepalive_requests 1000000;
    default_type application/json;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    server {{
        listen {HOST}:{logged};
        access_log {work}/nginx-access.log combined buffer=64k;
        {location}
    }}
    server {{
        listen {HOST}:{quiet};
        access_log off;
        {location}
    }}
""", [f"http://{HOST}:{port}/" for port in (logged, quiet)])
    return process, logged, quiet


# The row of `--reference-binary`: the same flags as "new device", another build.
REFERENCE = "new device, reference"

FLOOR_ROWS = {"swift-nio floor, raw": (), "swift-nio floor, codec": ("--codec",),
              "swift-nio floor, raw, log": ("--log",), "swift-nio floor, codec, log": ("--codec", "--log")}


class Floor:
    """`nio-floor` on loopback answering the bytes in `answer_path` to every request; its access log, when
    asked for, goes to a file in `work`."""

    def __init__(self, binary: str, work: str, name: str, answer_path: str, flags: tuple, event_loops: int) -> None:
        self.name = name
        stem = os.path.join(work, name.replace(" ", "-").replace(",", ""))
        self.output_path = stem + ".out"
        arguments = [binary, "--port", "0", "--answer", answer_path, "--event-loops", str(event_loops)]
        arguments += ["--codec"] if "--codec" in flags else []
        self.access_log = stem + "-access.log"
        arguments += ["--log", self.access_log] if "--log" in flags else []
        self.output = open(self.output_path, "wb")
        self.process = subprocess.Popen(arguments, stdout=self.output, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        self.base = ""

    def wait_listening(self, timeout: float = 10) -> str:
        self.base = listening_base(self.process, self.output_path, timeout, f"{self.name}: nio-floor did not start")
        return self.base

    def stop(self) -> None:
        stop_process(self.process, 10)
        self.output.close()


def raw_answer(port: int, path: str, body: bytes) -> bytes:
    """nginx's whole answer (head and body, as sent) to one fetch, for the floor to send byte for byte."""
    request = (f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    with socket.create_connection((HOST, port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:100]
    # As sent on a kept-alive connection: nginx says `Connection: close` here only because this request asked.
    return answer.replace(b"\r\nConnection: close\r\n", b"\r\nConnection: keep-alive\r\n", 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--duration", type=int, default=8, help="seconds per wrk run (default 8)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="run just these rows, separated by a comma without a space (e.g. "
                                       "'new device,new device, insights off'; 'new device' while "
                                       "`perf record -g -p PID` profiles the server whose PID is logged)")
    parser.add_argument("--floor", help="the nio-floor executable (floor/.build/release/nio-floor): adds the "
                                        "swift-nio floor rows")
    parser.add_argument("--floor-event-loops", type=int, default=2, help="the floor's event loops (default 2)")
    parser.add_argument("--after-deploy", type=int, default=0, metavar="SECONDS",
                        help="each measured server first answers SECONDS of new devices, then is restarted on its "
                             "database and measured (default 0: a fresh start)")
    parser.add_argument("--reference-binary", metavar="PATH",
                        help="another remote-config executable (a build before a change) run as the row "
                             "'new device, reference' with the default flags, so that before and after share a run")
    parser.add_argument("--new-device-flags", default="",
                        help="extra flags for the 'new device' server, written with '=' (e.g. "
                             "--new-device-flags='--insights off', a control run)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")

    work = tempfile.mkdtemp(prefix="rc-new-devices-")
    os.chmod(work, 0o755)
    servers: dict[str, Server] = {}
    floors: dict[str, Floor] = {}
    nginx = None
    try:
        for name, env, flags in [("new device", {}, tuple(args.new_device_flags.split())),
                                 ("new device, log off", {"RC_LOG_LEVEL": "warning"}, ()),
                                 ("new device, insights off", {}, ("--insights", "off"))]:
            servers[name] = Server(args.binary, work, name, env, flags)
        if args.reference_binary:
            servers[REFERENCE] = Server(args.reference_binary, work, REFERENCE)
        template = realistic_template(random.Random(20261124))
        path = "/v1/projects/bench/remoteConfig:fetch"
        keys = {}
        for name, server in servers.items():
            server.wait_listening()
            keys[name] = publish_project(server.base, "bench", template)
        # A typical answer for nginx to send: what ours answers a first-time iPhone of a middle version.
        context = {"appInstanceId": "f" * 32, "appId": "com.example.shop", "platform": "IOS", "appVersion": "2.4.1",
                   "appBuild": "210", "countryCode": "US", "languageCode": "en-US",
                   "sdkVersion": "remote-config-swift/1.0"}
        status, headers, answer = call("POST", servers["new device"].base + path, context,
                                       {"X-API-Key": keys["new device"]})
        assert status == 200, (status, answer)
        nginx, nginx_port, nginx_quiet_port = start_nginx(work, answer.decode(), headers["ETag"])
        log(f"answer {len(answer)} bytes; servers: " + ", ".join(f"{n} PID {s.process.pid}" for n, s in servers.items())
            + f"; nginx PID {nginx.pid}")

        # One wrk script per key; nginx runs the first one (it ignores the key), so the same bytes go out.
        scripts = {}
        for name in servers:
            scripts[name] = os.path.join(work, name.replace(" ", "_").replace(",", "") + ".lua")
            write_new_devices_script(scripts[name], [(path, {"X-API-Key": keys[name]})])
        scripts["nginx new device"] = scripts["nginx new device, log off"] = scripts["new device"]
        order = ["new device", "nginx new device", "new device, log off", "nginx new device, log off",
                 "new device, insights off"] + ([REFERENCE] if args.reference_binary else []) \
            + (list(FLOOR_ROWS) if args.floor else [])
        if args.only:
            # Names hold ", " themselves ("new device, insights off"): only a comma without a space separates.
            wanted = [name.strip() for name in re.split(r",(?! )", args.only)]
            unknown = [name for name in wanted if name not in order]
            if unknown:
                raise SystemExit(f"--only: no row {', '.join(map(repr, unknown))}; the rows: {', '.join(order)}")
            order = wanted
        if args.after_deploy:
            for name in order:
                if name in servers:
                    run_wrk(servers[name].base, scripts[name], args.after_deploy, args.connections, args.threads)
                    servers[name].restart()
            log(f"after a deploy: each measured server answered {args.after_deploy} s of new devices, then "
                "restarted on its database; servers: "
                + ", ".join(f"{n} PID {s.process.pid}" for n, s in servers.items()))
        targets = {name: server.base for name, server in servers.items()}
        targets["nginx new device"] = f"http://{HOST}:{nginx_port}"
        targets["nginx new device, log off"] = f"http://{HOST}:{nginx_quiet_port}"
        nginx_pids = [nginx.pid] + children(nginx.pid)
        measured = {name: [server.process.pid] for name, server in servers.items()}
        measured["nginx new device"] = measured["nginx new device, log off"] = nginx_pids
        if any(name in FLOOR_ROWS for name in order):
            if not args.floor:
                raise SystemExit("--only: the swift-nio floor rows need --floor PATH")
            answer_path = os.path.join(work, "nginx-answer.bin")
            with open(answer_path, "wb") as file:
                file.write(raw_answer(nginx_port, path, json.dumps(context).encode()))
            for name in (name for name in order if name in FLOOR_ROWS):
                floors[name] = Floor(args.floor, work, name, answer_path, FLOOR_ROWS[name], args.floor_event_loops)
            for name, floor in floors.items():
                targets[name] = floor.wait_listening()
                scripts[name] = scripts["new device"]
                measured[name] = [floor.process.pid]
            log(f"swift-nio floor ({args.floor_event_loops} event loops): "
                + ", ".join(f"{n} PID {f.process.pid}" for n, f in floors.items()))

        for name in order:  # warm up: allocator, connection state, caches
            run_wrk(targets[name], scripts[name], 2, args.connections, args.threads)
        results: dict[str, list[dict]] = {name: [] for name in order}
        for number in range(1, args.passes + 1):
            # Every other pass runs the rows in reverse (A B, B A, A B, …): a row's place in a pass costs it
            # something of its own (control runs, the same server flags in both rows, put the first row of each
            # pass up to 9% above the second), and reversing cancels that in the median of even passes.
            for name in (order if number % 2 == 1 else order[::-1]):
                result = run_wrk(targets[name], scripts[name], args.duration, args.connections, args.threads,
                                 measured[name])
                results[name].append(result)
                bad = f", {result['errors']} errors, {result['non2xx3xx']} non-2xx/3xx" \
                    if result["errors"] or result["non2xx3xx"] else ""
                log(f"pass {number} {name:26}: {result['rps']:9.0f} req/s  p50 {result['p50_ms']:6.2f} ms  "
                    f"p99 {result['p99_ms']:6.2f} ms  CPU {result['cpu_us']:5.1f} µs/req{bad}")
        lines = sum(1 for _ in open(servers["new device"].log_path, "rb"))
        log(f"our access log: {lines} lines; nginx's: "
            f"{sum(1 for _ in open(os.path.join(work, 'nginx-access.log'), 'rb'))} lines")
        for name, floor in floors.items():
            if os.path.exists(floor.access_log):  # written every 64 KB: up to a batch per loop still in memory
                log(f"{name}: {sum(1 for _ in open(floor.access_log, 'rb'))} access lines written")
        report(results, args)
        failed = [name for name, runs in results.items() if any(r["errors"] or r["non2xx3xx"] for r in runs)]
        if failed:
            sys.exit(f"errors or 4xx/5xx answers in: {', '.join(failed)}; these figures are not valid")
    finally:
        if nginx is not None:
            nginx.send_signal(signal.SIGQUIT)
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                nginx.kill()
        for server in servers.values():
            server.stop()
        for floor in floors.values():
            floor.stop()
        shutil.rmtree(work, ignore_errors=True)


def report(results: dict[str, list[dict]], args: argparse.Namespace) -> None:
    best = {name: max(runs, key=lambda r: r["rps"]) for name, runs in results.items()}
    cpu = {name: min(r["cpu_us"] for r in runs) for name, runs in results.items()}
    start = f"after a deploy ({args.after_deploy} s of new devices before)" if args.after_deploy else "a fresh start"
    extra = f"; new device server flags: {args.new_device_flags}" if args.new_device_flags else ""
    print(f"\nnew devices: {args.connections} connections, {args.threads} wrk threads, {args.passes} alternating "
          f"passes of {args.duration} s, {start}{extra}; {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
    print(f"{'':27} {'req/s (each pass)':>24} {'p50 ms':>8} {'p99 ms':>8} {'CPU µs/req':>11}")
    for name, runs in results.items():
        rates = " / ".join(f"{r['rps']:.0f}" for r in runs)
        print(f"{name:27} {rates:>24} {best[name]['p50_ms']:8.2f} {best[name]['p99_ms']:8.2f} {cpu[name]:11.1f}")
    # (label, row a, row b, measure, target, whether a/b must be at least (True) or at most (False) the target)
    wanted = [
        ("req/s: new device / nginx new device", "new device", "nginx new device", "rps", 0.6, True),
        ("p99: new device / nginx new device", "new device", "nginx new device", "p99", 2.0, False),
        ("CPU per request: new device / nginx new device", "new device", "nginx new device", "cpu", 2.5, False),
        ("CPU per request: insights on / off", "new device", "new device, insights off", "cpu", 1.05, False),
        ("CPU per request: new device / new device, reference", "new device", REFERENCE, "cpu", None, None),
        ("req/s: new device / new device, reference", "new device", REFERENCE, "rps", None, None),
        ("CPU per request: new device, reference / nginx new device", REFERENCE, "nginx new device", "cpu", 2.5,
         False),
        ("CPU per request: our log on / off", "new device", "new device, log off", "cpu", None, None),
        ("CPU per request: nginx log on / off", "nginx new device", "nginx new device, log off", "cpu", None, None),
        ("req/s, logs off: ours / nginx", "new device, log off", "nginx new device, log off", "rps", None, None),
        ("CPU per request, logs off: ours / nginx", "new device, log off", "nginx new device, log off", "cpu",
         None, None),
    ]
    for floor in (name for name in FLOOR_ROWS if name in results):  # the floor against nginx and against ours
        nginx = "nginx new device" if floor.endswith(", log") else "nginx new device, log off"
        ours = "new device" if floor.endswith(", log") else "new device, log off"
        wanted += [(f"req/s: {floor} / {nginx}", floor, nginx, "rps", None, None),
                   (f"p99: {floor} / {nginx}", floor, nginx, "p99", None, None),
                   (f"CPU per request: {floor} / {nginx}", floor, nginx, "cpu", None, None),
                   (f"CPU per request: {ours} / {floor}", ours, floor, "cpu", None, None)]
    measures = {"rps": lambda name: best[name]["rps"], "p99": lambda name: best[name]["p99_ms"],
                "cpu": lambda name: cpu[name]}
    ratios = {}
    width = max(len(label) for label, *_ in wanted)
    print(f"\n{'':{width}} {'best':>6} {'median of passes':>17} {'all passes [95%]':>21}  target")
    for label, a, b, kind, target, at_least in wanted:
        if a not in results or b not in results:
            continue
        value = measures[kind](a) / measures[kind](b)
        # The rows of one pass run seconds apart; the median of each pass's own ratio is steadier on a noisy
        # machine than the ratio of two best passes taken at different moments.
        key = {"rps": "rps", "p99": "p99_ms", "cpu": "cpu_us"}[kind]
        pairs = list(zip(results[a], results[b]))
        median = statistics.median(x[key] / y[key] for x, y in pairs)
        whole = over_passes(kind, pairs)
        low, high = interval(kind, pairs)
        verdict = ""
        if target is not None:
            verdict = f"{'>=' if at_least else '<='} {target}: {judge(low, high, target, at_least)}"
        ratios[label] = {"best": value, "median": median, "all": whole, "low": low, "high": high}
        print(f"{label:{width}} {value:6.2f} {median:17.2f} {whole:7.2f} [{low:.2f}–{high:.2f}]  {verdict}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"results": results, "ratios": ratios}, file, indent=2)


def over_passes(kind: str, pairs: list[tuple[dict, dict]]) -> float:
    """Row a against row b over all `pairs` (one per pass): CPU per request as both rows' CPU time over their
    requests, req/s as their requests, p99 as the median of each pass's ratio (tails do not add up)."""
    if kind == "cpu":
        def per_request(runs): return sum(r["cpu_us"] * r["requests"] for r in runs) / sum(r["requests"] for r in runs)
        return per_request([a for a, _ in pairs]) / per_request([b for _, b in pairs])
    if kind == "rps":
        return sum(a["requests"] for a, _ in pairs) / sum(b["requests"] for _, b in pairs)
    return statistics.median(a["p99_ms"] / b["p99_ms"] for a, b in pairs)


def interval(kind: str, pairs: list[tuple[dict, dict]], rounds: int = 2000) -> tuple[float, float]:
    """A 95% interval of `over_passes`, by resampling whole passes (a pass's two rows stay together, as they
    shared their moment of the machine): how far the figure would move in another run of as many passes."""
    chance = random.Random(len(pairs))
    values = sorted(over_passes(kind, [chance.choice(pairs) for _ in pairs]) for _ in range(rounds))
    return values[int(0.025 * rounds)], values[int(0.975 * rounds) - 1]


def judge(low: float, high: float, target: float, at_least: bool) -> str:
    """A target's verdict from the interval: it holds or fails only when the whole interval says so; a single
    best pass can read either way on a shared machine."""
    inside = low >= target if at_least else high <= target
    outside = high < target if at_least else low > target
    return "holds" if inside else "DOES NOT HOLD" if outside else "undecided (the interval spans it: more passes)"


if __name__ == "__main__":
    main()
