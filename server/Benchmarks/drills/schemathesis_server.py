#!/usr/bin/env python3
"""The server side of server/Benchmarks/drills/schemathesis.sh: a seeded server for the schemathesis drill.

Starts `remote-config serve` on a free loopback port with an embedded PostgreSQL in a new temporary data dir,
gives it data so every route has something to answer (project `shop-app`, a client key for it, two published
versions, a draft, a spare key that revokeApiKey may delete), writes the connection details as shell
assignments to --env-file, and then waits. On SIGTERM or SIGINT, or when its standard input ends, it stops the
server (SIGTERM: the server stops its PostgreSQL) and removes the data dir.

    server/Benchmarks/drills/schemathesis_server.py --binary server/.build/debug/remote-config --env-file FILE
"""
import argparse, json, os, shlex, shutil, signal, subprocess, sys, threading

sys.path.insert(0, os.path.dirname(__file__))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402

PROJECT = "shop-app"

# Version 1: every value kind, a condition, a group. Version 2 changes a value and adds a condition, so
# `diff` and `rollback` have something to compare and restore.
TEMPLATE_V1 = {
    "conditions": [
        {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])", "tagColor": "ORANGE"},
    ],
    "parameters": {
        "require_force_update": {
            "defaultValue": {"value": "false"},
            "conditionalValues": {"ios_too_old": {"value": "true"}},
            "valueType": "BOOLEAN",
            "description": "Block the app until it is updated",
        },
        "app_store_url": {"defaultValue": {"useInAppDefault": True}, "valueType": "STRING"},
        "max_items": {"defaultValue": {"value": "20"}, "valueType": "NUMBER"},
        "theme": {"defaultValue": {"value": "{\"color\": \"blue\"}"}, "valueType": "JSON"},
    },
    "parameterGroups": {
        "force_update": {
            "description": "Force update",
            "parameters": {"current_version": {"defaultValue": {"value": "2.3.0"}, "valueType": "STRING"}},
        },
    },
}
TEMPLATE_V2 = json.loads(json.dumps(TEMPLATE_V1))
TEMPLATE_V2["conditions"].append({"name": "ten_percent", "expression": "percent <= 10"})
TEMPLATE_V2["parameters"]["max_items"] = {
    "defaultValue": {"value": "25"}, "conditionalValues": {"ten_percent": {"value": "50"}}, "valueType": "NUMBER"}


def seed(base):
    """Creates the project, keys, two versions and a draft; returns the client key and the spare key's id."""
    admin = {"Authorization": f"Bearer {TOKEN}"}

    def must(status, expected, what, body):
        if status != expected:
            sys.exit(f"seeding failed: {what} answered {status}: {body[:300]!r}")

    status, _, body = call("POST", base + "/v1/projects", {"projectId": PROJECT, "displayName": "Shop"}, admin)
    must(status, 201, "create project", body)
    status, _, body = call("POST", base + "/v1/apiKeys",
                           {"displayName": "drill client", "role": "client", "project": PROJECT}, admin)
    must(status, 201, "create client key", body)
    client_key = json.loads(body)["key"]
    status, _, body = call("POST", base + "/v1/apiKeys",
                           {"displayName": "drill spare", "role": "viewer", "project": PROJECT}, admin)
    must(status, 201, "create spare key", body)
    spare_id = json.loads(body)["name"].split("/", 1)[1]
    for template in (TEMPLATE_V1, TEMPLATE_V2):
        status, _, body = call("PUT", base + f"/v1/projects/{PROJECT}/remoteConfig", template,
                               dict(admin, **{"If-Match": "*"}))
        must(status, 200, "publish", body)
    status, _, body = call("GET", base + f"/v1/projects/{PROJECT}/remoteConfig/draft", None, admin)
    must(status, 200, "create draft", body)
    return client_key, spare_id


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--env-file", required=True)
    options = parser.parse_args()

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    server, base, data_dir = start_server(options.binary, "rc-schemathesis-")
    try:
        client_key, spare_id = seed(base)
        port = base.rsplit(":", 1)[1]
        values = {"RC_BASE_URL": base, "RC_PORT": port, "RC_ADMIN_TOKEN": TOKEN,
                  "RC_CLIENT_KEY": client_key, "RC_SPARE_KEY_ID": spare_id, "RC_DATA_DIR": data_dir}
        with open(options.env_file + ".tmp", "w") as out:
            out.writelines(f"{name}={shlex.quote(value)}\n" for name, value in values.items())
        os.replace(options.env_file + ".tmp", options.env_file)

        # Stop when told to, or when the script that started us goes away (its pipe to our stdin closes).
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
        while not stop.wait(1):
            if server.poll() is not None:
                sys.exit(f"the server exited with status {server.returncode} during the drill")
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
                print("the server did not stop within 60 s of SIGTERM; killed it", file=sys.stderr)
                try:  # its embedded PostgreSQL outlives it
                    from outage import pg_ctl
                    pg_ctl(data_dir, "stop")
                except Exception as error:
                    print(f"stopping its PostgreSQL failed too: {error}", file=sys.stderr)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
