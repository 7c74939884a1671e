#!/usr/bin/env python3
"""New devices against templates at Firebase's documented limits: what a big template costs per fetch.

Every request is a device the server has never seen (a fresh `appInstanceId`, a varied context with custom
signals), accepting gzip as the SDKs and URLSession do, against four projects of one server:

  realistic          the fetch benchmark's template: 20 conditions, 50 parameters
  2,000 conditions   2,000 conditions of mixed kinds (platform and version, percent, country lists, custom
                     signals), 50 parameters using them
  3,000 parameters   the realistic template's 20 conditions, 3,000 parameters using them
  Firebase limits    2,000 conditions and 3,000 parameters: both limits at once

The rows alternate in each pass (every other pass reversed), and each row's CPU per request (the server's
user + system time over the requests answered) is read against the realistic row of the same pass. With
`--reference-binary PATH` a second server (the build before a change) answers the realistic and Firebase
limits rows too, so a change is measured against its reference in the same run. The target (#55, point 1):
a new-device fetch at Firebase's limits costs at most 12× the realistic template's CPU.

    python3 server/Benchmarks/fetch/big_templates.py --binary server/.build/release/remote-config
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_bench import (HOST, LUA_LIBRARY, alternating_passes, exit_if_invalid, log, lua_string,  # noqa: E402
                         publish_project, realistic_template)
from new_devices import Server  # noqa: E402

COUNTRIES = ["us", "gb", "jp", "de", "fr", "br", "in", "kr", "ca", "au", "mx", "es", "it", "nl", "se"]
PLANS = ["free", "pro", "team", "trial"]

NEW_DEVICES = r"""
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end
local platforms = {"IOS", "ANDROID"}
local countries = {"US", "GB", "JP", "DE", "FR", "BR", "IN", "KR", "CA", "AU", "MX", "ES", "IT", "NL", "SE"}
local languages = {"en-US", "ja-JP", "de-DE", "fr-FR", "pt-BR"}
local plans = {"free", "pro", "team", "trial"}
local counter = 0
request = function()
  counter = counter + 1
  local target = targets[math.random(#targets)]
  local body = string.format('{"appInstanceId":"%08x%08x%08x%08x","appId":"com.example.shop",' ..
    '"platform":"%s","appVersion":"%d.%d.%d","appBuild":"%d","countryCode":"%s","languageCode":"%s",' ..
    '"sdkVersion":"remote-config-swift/1.0","customSignals":{"plan":"%s","cart_items":%d}}',
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), counter,
    platforms[math.random(2)], math.random(1, 3), math.random(0, 9), math.random(0, 5), math.random(90, 400),
    countries[math.random(15)], languages[math.random(5)], plans[math.random(4)], math.random(0, 12))
  return wrk.format("POST", target.path, target.headers, body)
end
"""


def mixed_conditions(rng: random.Random, count: int) -> list[dict]:
    """`count` conditions, a quarter of each kind: platform and version, percent, country lists, custom signals."""
    conditions = []
    for index in range(count):
        kind = index % 4
        if kind == 0:
            expression = (f"device.os == '{rng.choice(['ios', 'android'])}' && "
                          f"app.version.>=(['{rng.randint(1, 3)}.{rng.randint(0, 9)}.0'])")
        elif kind == 1:
            low = rng.randint(0, 80)
            expression = f"percent('exp{index}') between {low} and {low + rng.randint(5, 20)}"
        elif kind == 2:
            expression = "device.country in [" + ", ".join(f"'{c}'" for c in rng.sample(COUNTRIES, 4)) + "]"
        else:
            expression = (f"app.customSignal['plan'] == '{rng.choice(PLANS)}' && "
                          f"app.customSignal['cart_items'] >= {rng.randint(0, 10)}")
        conditions.append({"name": f"c{index:04d}", "expression": expression})
    return conditions


def short_value(kind: int, rng: random.Random) -> str:
    if kind == 0:
        return rng.choice(["https://apps.apple.com/app/id123456789", "Welcome back!", "blue", "2.3.0", "summer-sale",
                           f"banner-{rng.getrandbits(20):05x}"])
    if kind == 1:
        return rng.choice(["true", "false"])
    if kind == 2:
        return str(rng.choice([0, 1, 3, 10, 25, 99.5, 1000, rng.randint(0, 5000)]))
    return json.dumps({"n": rng.randint(1, 9), "layout": rng.choice(["grid", "list"])}, separators=(",", ":"))


def parameters_over(conditions: list[dict], count: int, rng: random.Random) -> dict:
    """`count` parameters of the four types, each with up to two conditional values on `conditions`."""
    parameters = {}
    for index in range(count):
        kind = index % 4
        conditional = {c["name"]: {"value": short_value(kind, rng)} for c in rng.sample(conditions, rng.randint(0, 2))}
        parameters[f"p{index:04d}"] = {"defaultValue": {"value": short_value(kind, rng)},
                                       "conditionalValues": conditional,
                                       "valueType": ["STRING", "BOOLEAN", "NUMBER", "JSON"][kind]}
    return parameters


def templates() -> dict[str, dict]:
    realistic = realistic_template(random.Random(20261124))
    rng = random.Random(20261204)
    many = mixed_conditions(rng, 2000)
    return {
        "realistic": realistic,
        "2,000 conditions": {"conditions": many, "parameters": parameters_over(many, 50, rng)},
        "3,000 parameters": {"conditions": realistic["conditions"],
                             "parameters": parameters_over(realistic["conditions"], 3000, rng)},
        "Firebase limits": {"conditions": many, "parameters": parameters_over(many, 3000, rng)},
    }


def write_script(path: str, url: str, key: str) -> None:
    headers = {"Host": HOST, "Content-Type": "application/json", "Accept-Encoding": "gzip", "X-API-Key": key}
    table = "{" + ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()) + "}"
    done = LUA_LIBRARY[LUA_LIBRARY.index("done = function"):]
    with open(path, "w") as script:
        script.write(f"targets = {{{{path = {lua_string(url)}, headers = {table}}}}}\n" + NEW_DEVICES + done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable (a release build)")
    parser.add_argument("--reference-binary", metavar="PATH", help="another build, measured in the same run")
    parser.add_argument("--duration", type=int, default=8, help="seconds per wrk run (default 8)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk); run.sh installs it")

    work = tempfile.mkdtemp(prefix="rc-big-templates-")
    os.chmod(work, 0o755)
    servers = {"ours": Server(args.binary, work, "ours")}
    if args.reference_binary:
        servers["reference"] = Server(args.reference_binary, work, "reference")
    try:
        bodies = templates()
        rows: list[tuple[str, str, str]] = []  # (row, server, script)
        for server_name, server in servers.items():
            server.wait_listening()
            for index, (name, template) in enumerate(bodies.items()):
                if server_name == "reference" and name not in ("realistic", "Firebase limits"):
                    continue
                project = f"big{index}"
                key = publish_project(server.base, project, template)
                script = os.path.join(work, f"{server_name}-{index}.lua")
                write_script(script, f"/v1/projects/{project}/remoteConfig:fetch", key)
                rows.append((name if server_name == "ours" else f"{name}, reference", server_name, script))
        sizes = {name: len(json.dumps(t)) for name, t in bodies.items()}
        log("templates (JSON bytes): " + ", ".join(f"{n} {s}" for n, s in sizes.items()))
        results = alternating_passes([(row, servers[name], script) for row, name, script in rows], args)
        report(results, args)
        exit_if_invalid(results)
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def report(results: dict[str, list[dict]], args: argparse.Namespace) -> None:
    print(f"\nbig templates, new devices accepting gzip: {args.connections} connections, {args.passes} alternating "
          f"passes of {args.duration} s; {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
    print(f"{'':31} {'req/s (each pass)':>30} {'p99 ms':>8} {'CPU µs/req':>11}")
    for row, runs in results.items():
        rates = " / ".join(f"{r['rps']:.0f}" for r in runs)
        best = max(runs, key=lambda r: r["rps"])
        print(f"{row:31} {rates:>30} {best['p99_ms']:8.2f} {min(r['cpu_us'] for r in runs):11.1f}")
    pairs = [(row, "realistic", 12.0 if row == "Firebase limits" else None) for row in results if row != "realistic"]
    if "Firebase limits, reference" in results:
        pairs += [("Firebase limits, reference", "realistic, reference", None),
                  ("realistic", "realistic, reference", None), ("Firebase limits", "Firebase limits, reference", None)]
    ratios = {}
    print(f"\n{'CPU per request':45} {'median of passes':>17} {'over all passes':>16}  target")
    for a, b, target in pairs:
        per_pass = [x["cpu_us"] / y["cpu_us"] for x, y in zip(results[a], results[b])]
        whole = (sum(r["cpu_us"] * r["requests"] for r in results[a]) / sum(r["requests"] for r in results[a])) / \
            (sum(r["cpu_us"] * r["requests"] for r in results[b]) / sum(r["requests"] for r in results[b]))
        median = statistics.median(per_pass)
        verdict = f"<= {target}: {'holds' if max(per_pass) <= target else 'DOES NOT HOLD' if min(per_pass) > target else 'undecided'}" \
            if target else ""
        ratios[f"{a} / {b}"] = {"median": median, "all": whole, "passes": per_pass}
        print(f"{a + ' / ' + b:45} {median:17.2f} {whole:16.2f}  {verdict}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"results": results, "ratios": ratios}, file, indent=2)


if __name__ == "__main__":
    main()
