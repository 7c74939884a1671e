#!/usr/bin/env python3
"""The fetch path against nginx with repeating contexts, in one alternating run.

These rows cycle through 200 fixed contexts (and their ETags) with both access logs off, as the figures before
2026-11-26 were measured: they show the cost of a caller the server has answered before, and of the rows'
variants (304, OFREP, gzip, large answers). Production traffic (every fetch a new device, logs on) is measured
by new_devices.py, which run.sh runs first.

Starts `remote-config serve` (embedded PostgreSQL, temporary data dir) and nginx (one worker, `etag on`) on
127.0.0.1, publishes a realistic template (50 parameters, 20 conditions on platform, version, build, country
and percent), makes 200 varied fetch contexts, and writes each context's answer to a file nginx serves, so
nginx sends the very bytes we send. Then, for each pass, wrk (64 connections) measures:

  fetch 200    POST remoteConfig:fetch, cycling through the 200 contexts
  fetch 304    the same with each context's ETag in If-None-Match
  fetch new    the fetch 200 bodies, each with a new random appInstanceId: callers never seen before, whose
               answer no body-keyed memory can serve (the cost of a first fetch)
  ofrep 200    POST /ofrep/v1/evaluate/flags (OpenFeature bulk evaluation) with the same 200 contexts
               (`targetingKey` for `appInstanceId`), the client key as a bearer token
  ofrep 304    the same with each context's ETag in If-None-Match
  nginx ofrep  GET of files holding those OFREP answers: the floor for bytes three times the size of a fetch's
  nginx 200    GET of the 200 answer files
  nginx 304    the same with nginx's ETags
  nginx mem 200, nginx mem 304   nginx answering the same bytes from memory (`return 200 '…'` in its
               configuration, and `return 304` when If-None-Match names the answer): no file is opened, so
               these are the yardstick for a 304 against a 200 when both are remembered bytes, as ours are
  fetch large 200, fetch large 304   a second project (its own seed) whose answers are about 30 KB (16 JSON
               parameters of 1.6 KB, an iOS variant for half of them), the same 200 contexts, with URLSession's
               Accept-Encoding as apps send it: a 200 sends 5 KB gzipped, a 304 no body, so a 304 that touched
               the body would show here
  healthz      GET /healthz: the floor of our HTTP stack

and, as apps and OpenFeature providers really call (every stock HTTP client sends `Accept-Encoding: gzip`):

  fetch gzip   fetch 200 with `Accept-Encoding: gzip, deflate, br` (what URLSession sends)
  ofrep gzip   ofrep 200 with `Accept-Encoding: gzip` (what OkHttp, requests, fetch and Go's net/http send)
  nginx gzip, nginx ofrep gzip   the nginx rows with the same header, `gzip_static` serving the very gzip
               bytes we send (fetched from us into `N.json.gz`), so nginx compresses nothing either

and prints req/s, p50 and p99 for each, then the ratios (best of the passes). Loopback only; every run is
bounded by its duration; the server and nginx are stopped and the temporary files removed.

    python3 server/Benchmarks/fetch/fetch_bench.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "drills"))
from common import TOKEN, call, start_server  # noqa: E402

HOST = "127.0.0.1"  # loopback only: never configurable
GZIP = {"Accept-Encoding": "gzip"}
URLSESSION_ACCEPT = "gzip, deflate, br"  # what Apple's URLSession sends

LUA_LIBRARY = r"""
-- Cycles through requests[1..n] (set up by the generated part) and prints a JSON summary.
local counter = 0
request = function()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
done = function(summary, latency, requests_)
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.3f, "p99_ms": %.3f, "errors": %d, ' ..
    '"non2xx3xx": %d}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
"""


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------------------
# The realistic template and contexts


def realistic_template(rng: random.Random) -> dict:
    """50 parameters (STRING, BOOLEAN, NUMBER, JSON), 20 conditions on platform, version, build, country, percent."""
    conditions = []
    countries = ["us", "gb", "jp", "de", "fr", "br", "in", "kr", "ca", "au"]
    for index in range(20):
        kind = index % 5
        if kind == 0:
            expression = f"device.os == '{'ios' if index % 2 == 0 else 'android'}' && app.version.<(['{1 + index % 3}.{index % 10}.0'])"
        elif kind == 1:
            expression = f"app.version.>=(['{2 + index % 2}.{index % 7}.0']) && app.build.>(['{100 + index * 10}'])"
        elif kind == 2:
            picked = rng.sample(countries, 3)
            expression = "device.country in [" + ", ".join(f"'{c}'" for c in picked) + "]"
        elif kind == 3:
            expression = f"percent <= {5 + index * 4}"
        else:
            expression = (f"device.os == 'ios' && app.version.==(['1.1.{index % 5}']) || "
                          f"percent('seed{index}') between 10 and {20 + index}")
        conditions.append({"name": f"condition_{index:02d}", "expression": expression})
    parameters = {}
    for index in range(50):
        kind = index % 4
        conditional = {}
        for condition in rng.sample(conditions, rng.randint(0, 3)):
            conditional[condition["name"]] = {"value": value_of(kind, rng)}
        parameters[f"parameter_{index:02d}"] = {
            "defaultValue": {"value": value_of(kind, rng)},
            "conditionalValues": conditional,
            "valueType": ["STRING", "BOOLEAN", "NUMBER", "JSON"][kind],
            "description": f"parameter {index}",
        }
    parameters["require_force_update"] = parameters.pop("parameter_00")
    parameters["require_force_update"]["valueType"] = "BOOLEAN"
    parameters["require_force_update"]["defaultValue"] = {"value": "false"}
    parameters["require_force_update"]["conditionalValues"] = {"condition_00": {"value": "true"}}
    return {"conditions": conditions, "parameters": parameters}


def value_of(kind: int, rng: random.Random) -> str:
    if kind == 0:
        return rng.choice(["https://apps.apple.com/app/id123456789", "Welcome back!", "blue", "2.3.0", "summer-sale"])
    if kind == 1:
        return rng.choice(["true", "false"])
    if kind == 2:
        return str(rng.choice([0, 1, 3, 10, 25, 99.5, 1000]))
    return json.dumps({"items": rng.randint(1, 9), "layout": rng.choice(["grid", "list"]), "tags": ["a", "b"]})


def large_template(rng: random.Random) -> dict:
    """Answers of about 30 KB: 16 JSON parameters of about 1.6 KB (catalogue-like lists), iOS getting its own
    variant of half of them, so that a 200's bytes weigh and a 304's absence of them shows."""
    words = ["summer", "sale", "onboarding", "premium", "trial", "banner", "grid", "list", "hero", "promo",
             "checkout", "cart", "wishlist", "coupon", "gift", "bundle", "express", "pickup", "loyalty", "tier"]

    def screens() -> str:
        return json.dumps([{"id": f"{rng.choice(words)}-{rng.getrandbits(24):06x}", "title": " ".join(
            rng.choice(words) for _ in range(4)), "layout": rng.choice(["grid", "list", "hero"]),
            "weight": rng.randint(1, 100)} for _ in range(18)], separators=(",", ":"))

    parameters = {}
    for index in range(16):
        conditional = {"is_ios": {"value": screens()}} if index % 2 == 0 else {}
        parameters[f"catalogue_{index:02d}"] = {"defaultValue": {"value": screens()},
                                                "conditionalValues": conditional, "valueType": "JSON"}
    return {"conditions": [{"name": "is_ios", "expression": "device.os == 'ios'"}], "parameters": parameters}


def publish_project(base: str, project: str, template: dict) -> str:
    """Creates `project`, publishes `template` to it, and returns a new client key of it."""
    admin = {"Authorization": f"Bearer {TOKEN}"}
    status, _, body = call("POST", f"{base}/v1/projects", {"projectId": project, "displayName": project}, admin)
    assert status == 201, (status, body)
    status, _, body = call("POST", f"{base}/v1/apiKeys",
                           {"displayName": f"{project} client", "role": "client", "project": project}, admin)
    assert status == 201, (status, body)
    key = json.loads(body)["key"]
    status, _, body = call("PUT", f"{base}/v1/projects/{project}/remoteConfig", template,
                           dict(admin, **{"If-Match": "*"}))
    assert status == 200, (status, body)
    return key


def contexts(rng: random.Random, count: int) -> list[dict]:
    result = []
    for index in range(count):
        result.append({
            "appInstanceId": f"{rng.getrandbits(128):032x}",
            "appId": "com.example.shop",
            "platform": rng.choice(["IOS", "ANDROID"]),
            "appVersion": f"{rng.randint(1, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 5)}",
            "appBuild": str(rng.randint(90, 400)),
            "countryCode": rng.choice(["US", "GB", "JP", "DE", "FR", "BR", "IN", "KR", "CA", "AU"]),
            "languageCode": rng.choice(["en-US", "ja-JP", "de-DE", "fr-FR", "pt-BR"]),
            "sdkVersion": "remote-config-swift/1.0",
        })
    return result


# ----------------------------------------------------------------------------------------------------------
# wrk


def lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_wrk_script(path: str, requests: list[tuple[str, str, dict, str | None]]) -> None:
    """requests: (method, path, headers, body)."""
    lines = ["requests = {}"]
    for method, url, headers, body in requests:
        # wrk.format only adds Host once wrk has connected, after this table is built: name it here, or nginx
        # answers 400 to every request (HTTP/1.1 requires Host).
        headers = {"Host": HOST, **headers}
        header_table = "{" + ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()) + "}"
        body_text = lua_string(body) if body is not None else "nil"
        lines.append(f"requests[#requests + 1] = wrk.format({lua_string(method)}, {lua_string(url)}, "
                     f"{header_table}, {body_text})")
    with open(path, "w") as script:
        script.write("\n".join(lines) + "\n" + LUA_LIBRARY)


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of these processes (all their threads), from /proc."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return total / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (nginx's worker under its master)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    if int(file.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                pass
    return found


FRESH_CALLERS_LIBRARY = r"""
-- Every request a caller never seen before: the body of context i with a random appInstanceId, so no
-- answer remembered by body can serve it (the path of a first fetch).
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end
local counter = 0
request = function()
  counter = counter + 1
  local c = fresh[(counter % #fresh) + 1]
  local id = string.format("%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), counter)
  return wrk.format("POST", c.path, c.headers, '{"appInstanceId":"' .. id .. '",' .. c.rest)
end
"""


def write_fresh_script(path: str, requests: list[tuple[str, str, dict, str | None]]) -> None:
    """The fetch 200 requests, each sent with a new random appInstanceId (see FRESH_CALLERS_LIBRARY)."""
    lines = ["fresh = {}"]
    for _, url, headers, body in requests:
        headers = {"Host": HOST, **headers}
        context = json.loads(body)
        context.pop("appInstanceId")
        rest = json.dumps(context, separators=(",", ":"))[1:]
        header_table = "{" + ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()) + "}"
        lines.append(f"fresh[#fresh + 1] = {{path = {lua_string(url)}, headers = {header_table}, "
                     f"rest = {lua_string(rest)}}}")
    done = LUA_LIBRARY[LUA_LIBRARY.index("done = function"):]
    with open(path, "w") as script:
        script.write("\n".join(lines) + "\n" + FRESH_CALLERS_LIBRARY + done)


def run_wrk(url: str, script: str, duration: int, connections: int, threads: int,
            measured: list[int] | None = None) -> dict:
    """Runs wrk; with `measured`, also the CPU those processes used per request (µs), which machine noise
    (other processes on the cores) disturbs far less than req/s."""
    before = cpu_seconds(measured) if measured else 0.0
    output = subprocess.run(
        ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{duration}s", "--timeout", "5s",
         "-s", script, url],
        capture_output=True, text=True, timeout=duration + 60,
    )
    for line in output.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            if measured:
                result["cpu_us"] = (cpu_seconds(measured) - before) * 1e6 / max(result["requests"], 1)
            return result
    raise RuntimeError(f"wrk printed no summary:\n{output.stdout}\n{output.stderr}")


# ----------------------------------------------------------------------------------------------------------
# nginx



def alternating_passes(rows: list[tuple[str, object, str]], args, warm_up: int = 2) -> dict[str, list[dict]]:
    """Runs each row (name, server with `base` and `process`, wrk script) `args.passes` times, the rows in order
    in odd passes and reversed in even ones, after a warm-up run each; logs each run and returns the runs by
    row. Exits when a run had errors or 4xx/5xx answers, after `report` (called with the runs) has printed."""
    for _, server, script in rows:
        run_wrk(server.base, script, warm_up, args.connections, args.threads)
    results: dict[str, list[dict]] = {row: [] for row, _, _ in rows}
    width = max(len(row) for row, _, _ in rows)
    for number in range(1, args.passes + 1):
        for row, server, script in (rows if number % 2 == 1 else rows[::-1]):
            result = run_wrk(server.base, script, args.duration, args.connections, args.threads,
                             [server.process.pid])
            results[row].append(result)
            bad = f", {result['errors']} errors, {result['non2xx3xx']} non-2xx/3xx" \
                if result["errors"] or result["non2xx3xx"] else ""
            log(f"pass {number} {row:{width}}: {result['rps']:8.0f} req/s  p50 {result['p50_ms']:7.2f} ms  "
                f"p99 {result['p99_ms']:7.2f} ms  CPU {result['cpu_us']:7.1f} µs/req{bad}")
    return results


def exit_if_invalid(results: dict[str, list[dict]]) -> None:
    """Exits when some run had errors or 4xx/5xx answers: then no figure of the run is valid."""
    failed = [row for row, runs in results.items() if any(r["errors"] or r["non2xx3xx"] for r in runs)]
    if failed:
        sys.exit(f"errors or 4xx/5xx answers in: {', '.join(failed)}; these figures are not valid")

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def memory_locations(answers: list[str]) -> str:
    """nginx locations answering answer i from memory at /mem/i: 200 with the bytes, or 304 when If-None-Match
    is its ETag ("m<i>"), each with that ETag."""
    blocks = []
    for index, answer in enumerate(answers):
        # In nginx's configuration a `$` starts a variable and a quoted value is read in 4 KiB at most.
        assert "$" not in answer and len(answer) < 3500, "an answer nginx cannot return from its configuration"
        quoted = "'" + answer.replace("\\", "\\\\").replace("'", "\\'") + "'"
        etag = f"'\"m{index}\"'"
        blocks.append(f"        location = /mem/{index} {{ if ($http_if_none_match = {etag}) {{ add_header ETag {etag}; "
                      f"return 304; }} add_header ETag {etag}; return 200 {quoted}; }}")
    return "\n".join(blocks)


def launch_nginx(work: str, http: str, ready: list[str]) -> subprocess.Popen:
    """Start nginx (one worker, in the foreground, state in `work`) with the `http` block body `http`, and wait
    up to 10 s until every URL in `ready` answers 200; kill it and raise if it does not."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    config = os.path.join(work, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{{http}}}
""")
    process = subprocess.Popen([nginx, "-c", config, "-p", work], stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT)
    deadline = time.time() + 10
    while time.time() < deadline:
        if all(call("GET", url, timeout=1)[0] == 200 for url in ready):
            return process
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("nginx did not start; see " + os.path.join(work, "nginx-error.log"))


def start_nginx(root: str, work: str, answers: list[str]) -> tuple[subprocess.Popen, int, int]:
    """nginx serving `root`'s files on one port and `answers` from memory (`memory_locations`) on another."""
    port = free_port()
    memory_port = free_port()
    process = launch_nginx(work, f"""
    access_log off;
    keepalive_requests 1000000;
    server {{
        listen {HOST}:{port};
        root {root};
        etag on;
        gzip_static on;
        gzip_vary on;
        default_type application/json;
        client_body_temp_path {work}/body;
        proxy_temp_path {work}/proxy;
        fastcgi_temp_path {work}/fastcgi;
        uwsgi_temp_path {work}/uwsgi;
        scgi_temp_path {work}/scgi;
    }}
    server {{
        listen {HOST}:{memory_port};
        default_type application/json;
{memory_locations(answers)}
    }}
""", [f"http://{HOST}:{port}/0.json", f"http://{HOST}:{memory_port}/mem/0"])
    return process, port, memory_port


# ----------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--contexts", type=int, default=200)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", help="run just these scenarios, comma-separated (e.g. 'fetch 304' while "
                                       "`perf record -g -p PID` profiles the server whose PID is logged)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")

    rng = random.Random(20261124)
    work = tempfile.mkdtemp(prefix="rc-fetch-bench-")
    os.chmod(work, 0o755)
    root = os.path.join(work, "www")
    os.makedirs(root)
    os.chmod(root, 0o755)
    server = nginx = None
    data_dir = None
    try:
        server, base, data_dir = start_server(args.binary, "rc-fetch-bench-data-")
        client_key = publish_project(base, "bench", realistic_template(rng))
        # The large answers' project (see large_template): its own seed, so `rng` draws the contexts as before.
        large_key = publish_project(base, "bench-large", large_template(random.Random(20261126)))
        large_path = "/v1/projects/bench-large/remoteConfig:fetch"
        large_200, large_304, large_sizes = [], [], []

        fetch_path = "/v1/projects/bench/remoteConfig:fetch"
        ofrep_path = "/ofrep/v1/evaluate/flags"
        fetch_200, fetch_304, nginx_200, nginx_304, ofrep_200, ofrep_304 = [], [], [], [], [], []
        gzip_sizes = []
        ofrep_sizes = []
        answers = []
        states = {}
        for index, context in enumerate(contexts(rng, args.contexts)):
            body_text = json.dumps(context, separators=(",", ":"))
            headers = {"X-API-Key": client_key, "Content-Type": "application/json"}
            status, response_headers, answer = call("POST", base + fetch_path, context, headers)
            assert status == 200, (status, answer)
            states[json.loads(answer)["state"]] = states.get(json.loads(answer)["state"], 0) + 1
            answers.append(answer.decode())
            etag = response_headers["ETag"]
            fetch_200.append(("POST", fetch_path, headers, body_text))
            fetch_304.append(("POST", fetch_path, dict(headers, **{"If-None-Match": etag}), body_text))
            # The same caller through OpenFeature: targetingKey is the instance id, the rest as it is.
            ofrep_context = {"targetingKey": context["appInstanceId"],
                             **{k: v for k, v in context.items() if k != "appInstanceId"}}
            ofrep_body = json.dumps({"context": ofrep_context}, separators=(",", ":"))
            ofrep_headers = {"Authorization": f"Bearer {client_key}", "Content-Type": "application/json"}
            status, response_headers, ofrep_answer = call("POST", base + ofrep_path, {"context": ofrep_context},
                                                          ofrep_headers)
            assert status == 200, (status, ofrep_answer)
            ofrep_200.append(("POST", ofrep_path, ofrep_headers, ofrep_body))
            ofrep_304.append(("POST", ofrep_path, dict(ofrep_headers, **{"If-None-Match": response_headers["ETag"]}),
                              ofrep_body))
            ofrep_sizes.append(len(ofrep_answer))
            # The gzip forms as we send them, for nginx's gzip_static (urllib does not decode them).
            status, response_headers, fetch_gzip = call("POST", base + fetch_path, context, dict(headers, **GZIP))
            assert status == 200 and response_headers.get("Content-Encoding") == "gzip", (status, response_headers)
            status, response_headers, ofrep_gzip = call("POST", base + ofrep_path, {"context": ofrep_context},
                                                        dict(ofrep_headers, **GZIP))
            assert status == 200 and response_headers.get("Content-Encoding") == "gzip", (status, response_headers)
            gzip_sizes.append((len(fetch_gzip), len(ofrep_gzip)))
            # The same caller of the large project, as an app calls (gzip accepted), and its 304.
            large_headers = {"X-API-Key": large_key, "Content-Type": "application/json",
                             "Accept-Encoding": URLSESSION_ACCEPT}
            status, response_headers, large = call("POST", base + large_path, context, large_headers)
            assert status == 200 and response_headers.get("Content-Encoding") == "gzip", (status, response_headers)
            large_sizes.append(len(large))
            large_200.append(("POST", large_path, large_headers, body_text))
            large_304.append(("POST", large_path, dict(large_headers, **{"If-None-Match": response_headers["ETag"]}),
                              body_text))
            for name, content in [(f"ofrep-{index}.json", ofrep_answer), (f"{index}.json", answer),
                                  (f"ofrep-{index}.json.gz", ofrep_gzip), (f"{index}.json.gz", fetch_gzip)]:
                with open(os.path.join(root, name), "wb") as file:
                    file.write(content)
                os.chmod(os.path.join(root, name), 0o644)
        sizes = [os.path.getsize(os.path.join(root, name)) for name in os.listdir(root)
                 if name[0].isdigit() and name.endswith(".json")]
        log(f"{args.contexts} contexts, answers by state: {states}; answer size {min(sizes)}–{max(sizes)} bytes; "
            f"OFREP bulk answer {min(ofrep_sizes)}–{max(ofrep_sizes)} bytes; gzipped: fetch "
            f"{min(f for f, _ in gzip_sizes)}–{max(f for f, _ in gzip_sizes)}, OFREP "
            f"{min(o for _, o in gzip_sizes)}–{max(o for _, o in gzip_sizes)} bytes; large answers gzipped "
            f"{min(large_sizes)}–{max(large_sizes)} bytes")

        nginx, nginx_port, memory_port = start_nginx(root, work, answers)
        measured = {"ours": [server.pid], "nginx": [nginx.pid] + children(nginx.pid)}
        for index in range(args.contexts):
            _, response_headers, _ = call("GET", f"http://{HOST}:{nginx_port}/{index}.json")
            nginx_200.append(("GET", f"/{index}.json", {}, None))
            nginx_304.append(("GET", f"/{index}.json", {"If-None-Match": response_headers["ETag"]}, None))
        nginx_ofrep = [("GET", f"/ofrep-{index}.json", {}, None) for index in range(args.contexts)]
        nginx_mem_200 = [("GET", f"/mem/{index}", {}, None) for index in range(args.contexts)]
        nginx_mem_304 = [("GET", f"/mem/{index}", {"If-None-Match": f'"m{index}"'}, None)
                         for index in range(args.contexts)]

        def gzipped(requests: list[tuple[str, str, dict, str | None]], accept: str) -> list:
            return [(method, url, dict(headers, **{"Accept-Encoding": accept}), body)
                    for method, url, headers, body in requests]

        scripts = {}
        for name, requests in [("fetch 200", fetch_200), ("fetch 304", fetch_304), ("nginx 200", nginx_200),
                               ("nginx 304", nginx_304), ("ofrep 200", ofrep_200), ("ofrep 304", ofrep_304),
                               ("nginx mem 200", nginx_mem_200), ("nginx mem 304", nginx_mem_304),
                               ("fetch large 200", large_200), ("fetch large 304", large_304),
                               ("nginx ofrep", nginx_ofrep),
                               ("fetch gzip", gzipped(fetch_200, URLSESSION_ACCEPT)),
                               ("ofrep gzip", gzipped(ofrep_200, "gzip")),
                               ("nginx gzip", gzipped(nginx_200, URLSESSION_ACCEPT)),
                               ("nginx ofrep gzip", gzipped(nginx_ofrep, "gzip")),
                               ("healthz", [("GET", "/healthz", {}, None)])]:
            scripts[name] = os.path.join(work, name.replace(" ", "_") + ".lua")
            write_wrk_script(scripts[name], requests)
        scripts["fetch new"] = os.path.join(work, "fetch_new.lua")
        write_fresh_script(scripts["fetch new"], fetch_200)
        targets = {"fetch 200": base, "fetch 304": base, "fetch new": base, "healthz": base, "ofrep 200": base,
                   "fetch large 200": base, "fetch large 304": base,
                   "ofrep 304": base, "nginx ofrep": f"http://{HOST}:{nginx_port}",
                   "nginx 200": f"http://{HOST}:{nginx_port}", "nginx 304": f"http://{HOST}:{nginx_port}",
                   "fetch gzip": base, "ofrep gzip": base, "nginx gzip": f"http://{HOST}:{nginx_port}",
                   "nginx ofrep gzip": f"http://{HOST}:{nginx_port}",
                   "nginx mem 200": f"http://{HOST}:{memory_port}", "nginx mem 304": f"http://{HOST}:{memory_port}"}

        # Warm both up (JIT-free, but caches, connection pools and the allocator settle).
        run_wrk(base, scripts["fetch 200"], 2, args.connections, args.threads)
        run_wrk(targets["nginx 200"], scripts["nginx 200"], 2, args.connections, args.threads)

        order = ["fetch 200", "ofrep 200", "nginx 200", "nginx ofrep", "fetch gzip", "ofrep gzip", "nginx gzip",
                 "nginx ofrep gzip", "fetch 304", "ofrep 304", "nginx 304", "nginx mem 200", "nginx mem 304",
                 "fetch large 200", "fetch large 304", "fetch new", "healthz"]
        if args.only:
            order = [name.strip() for name in args.only.split(",")]
            log(f"server PID {server.pid}; running only {order}")
        results: dict[str, list[dict]] = {name: [] for name in order}
        for number in range(1, args.passes + 1):
            for name in order:
                result = run_wrk(targets[name], scripts[name], args.duration, args.connections, args.threads,
                                 measured["nginx" if name.startswith("nginx") else "ours"])
                results[name].append(result)
                bad = f", {result['errors']} errors, {result['non2xx3xx']} non-2xx/3xx" \
                    if result["errors"] or result["non2xx3xx"] else ""
                log(f"pass {number} {name:16}: {result['rps']:9.0f} req/s  p50 {result['p50_ms']:6.2f} ms  "
                    f"p99 {result['p99_ms']:6.2f} ms  CPU {result['cpu_us']:5.1f} µs/req{bad}")
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
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)
        if data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)


def report(results: dict[str, list[dict]], args: argparse.Namespace) -> None:
    best = {name: max(runs, key=lambda r: r["rps"]) for name, runs in results.items()}
    print(f"\nfetch benchmark: {args.contexts} contexts, {args.connections} connections, {args.threads} wrk "
          f"threads, {args.passes} alternating passes of {args.duration} s; {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} cores")
    cpu = {name: min(r["cpu_us"] for r in runs) for name, runs in results.items()}
    print(f"{'':16} {'req/s (each pass)':>28} {'p50 ms':>8} {'p99 ms':>8} {'CPU µs/req':>11}")
    for name, runs in results.items():
        rates = " / ".join(f"{r['rps']:.0f}" for r in runs)
        print(f"{name:16} {rates:>28} {best[name]['p50_ms']:8.2f} {best[name]['p99_ms']:8.2f} {cpu[name]:11.1f}")
    # (label, row a, row b, measure): req/s and p99 of the best passes, CPU per request of the cheapest.
    wanted = [
        ("fetch 200 / nginx 200 (target >= 0.45)", "fetch 200", "nginx 200", "rps"),
        ("fetch 304 / nginx 304 (target >= 0.6)", "fetch 304", "nginx 304", "rps"),
        ("fetch 304 / fetch 200 (a 304 is cheaper)", "fetch 304", "fetch 200", "rps"),
        ("fetch p99 / nginx p99 (target <= 3)", "fetch 200", "nginx 200", "p99"),
        ("fetch new / nginx 200 (first-time callers)", "fetch new", "nginx 200", "rps"),
        ("healthz / nginx 200", "healthz", "nginx 200", "rps"),
        ("CPU per request: fetch 304 / fetch 200", "fetch 304", "fetch 200", "cpu"),
        ("CPU per request: nginx 304 / nginx 200 (from files)", "nginx 304", "nginx 200", "cpu"),
        ("CPU per request: nginx mem 304 / nginx mem 200 (from memory)", "nginx mem 304", "nginx mem 200", "cpu"),
        ("CPU per request: fetch large 304 / fetch large 200 (30 KB answers)", "fetch large 304", "fetch large 200",
         "cpu"),
        ("CPU per request: fetch 200 / nginx 200", "fetch 200", "nginx 200", "cpu"),
        ("CPU per request: fetch 304 / nginx 304", "fetch 304", "nginx 304", "cpu"),
        ("CPU per request: fetch 200 / nginx mem 200", "fetch 200", "nginx mem 200", "cpu"),
        ("CPU per request: fetch 304 / nginx mem 304", "fetch 304", "nginx mem 304", "cpu"),
        ("ofrep 200 / fetch 200 (req/s)", "ofrep 200", "fetch 200", "rps"),
        ("CPU per request: ofrep 200 / fetch 200 (<= 1.1)", "ofrep 200", "fetch 200", "cpu"),
        ("CPU per request: ofrep 304 / fetch 304 (<= 1.1)", "ofrep 304", "fetch 304", "cpu"),
        ("CPU per request: nginx ofrep / nginx 200", "nginx ofrep", "nginx 200", "cpu"),
        ("CPU per request: ofrep 200 / nginx ofrep", "ofrep 200", "nginx ofrep", "cpu"),
        ("gzip: ofrep / fetch (req/s)", "ofrep gzip", "fetch gzip", "rps"),
        ("CPU per request, gzip: ofrep / fetch (<= 1.1)", "ofrep gzip", "fetch gzip", "cpu"),
        ("gzip: fetch / nginx (req/s)", "fetch gzip", "nginx gzip", "rps"),
        ("CPU per request, gzip: fetch / nginx", "fetch gzip", "nginx gzip", "cpu"),
        ("CPU per request, gzip: nginx ofrep / nginx", "nginx ofrep gzip", "nginx gzip", "cpu"),
    ]
    measures = {"rps": lambda name: best[name]["rps"], "p99": lambda name: best[name]["p99_ms"],
                "cpu": lambda name: cpu[name]}
    ratios = {label: measures[kind](a) / measures[kind](b)
              for label, a, b, kind in wanted if a in results and b in results}
    # The best passes of two rows may come from different moments of a noisy machine; the ratio within each
    # pass (the rows run within seconds of each other), then the median over the passes, is steadier.
    for a, b in [("ofrep 200", "fetch 200"), ("ofrep 304", "fetch 304"), ("fetch 304", "fetch 200"),
                 ("nginx 304", "nginx 200"), ("nginx mem 304", "nginx mem 200"),
                 ("fetch large 304", "fetch large 200"), ("nginx ofrep", "nginx 200"),
                 ("ofrep gzip", "fetch gzip"), ("fetch 304", "fetch gzip")]:
        if a in results and b in results:
            ratios[f"CPU, median of same-pass ratios: {a} / {b}"] = statistics.median(
                x["cpu_us"] / y["cpu_us"] for x, y in zip(results[a], results[b]))
    print()
    for name, value in ratios.items():
        print(f"{name:66} {value:6.2f}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"results": results, "ratios": ratios}, file, indent=2)


if __name__ == "__main__":
    main()
