#!/usr/bin/env python3
"""Google Play version sync against a stand-in that behaves as Google documents it (google_play_standin.py):
the built server's JWT checked with Google's own library, answers built from the androidpublisher v3 discovery
document, calls counted.

    server/Tests/GooglePlay/google_play_test.py [--binary PATH] [-k NAME]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with an
embedded PostgreSQL and `--play-token-url` / `--play-api-url` at the stand-in, makes a service account's RSA key
(cryptography), links `shop-app` to it and runs syncs, checking what Android and iOS apps fetch, the link's
status and the stand-in's counts. Ends with "N passed, M failed" (exit 1 on any failure). scripts/test runs it
after installing the packages (scripts/ensure-google-play-standin.sh).
"""
import argparse, json, os, shutil, sys, traceback, uuid
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402
from google_play_standin import GooglePlayStandIn  # noqa: E402

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}
PACKAGE = "com.example.shop"

TEMPLATE = {
    "conditions": [{"name": "android", "expression": "device.os == 'android'"}],
    "parameters": {
        "current_version_android": {"defaultValue": {"value": "1.0.0"}, "valueType": "STRING"},
        "current_build_android": {"defaultValue": {"value": "1"}, "valueType": "NUMBER"},
        "android_update_priority": {"defaultValue": {"value": "0"}, "valueType": "NUMBER"},
        "android_rollout": {"defaultValue": {"value": "0"}, "valueType": "NUMBER"},
        "whats_new": {"defaultValue": {"value": ""}, "valueType": "STRING"},
    },
}


def service_account(email="remote-config@shop-123.iam.gserviceaccount.com"):
    """A key file as Google Cloud gives it, and the public half (PEM) the stand-in checks with."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    key_id = uuid.uuid4().hex
    file = {"type": "service_account", "project_id": "shop-123", "private_key_id": key_id,
            "private_key": private_pem, "client_email": email, "client_id": "104223412341234123412",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
            "universe_domain": "googleapis.com"}
    return file, public_pem


class Shop:
    """A running server with `shop-app` published, linked to the stand-in."""

    def __init__(self, base, standin):
        self.base, self.standin = base, standin
        self.path = f"{base}/v1/projects/shop-app/storeSync/googlePlay"

    def json(self, method, url, body=None, headers=None, expect=(200, 201)):
        status, _, data = call(method, url, body, {**ADMIN, **(headers or {})}, timeout=30)
        if status not in expect:
            raise AssertionError(f"{method} {url}: {status} {data[:400]!r}")
        return json.loads(data) if data else None

    def link(self, key_file, **settings):
        body = {"enabled": False, "packageName": PACKAGE, "track": "production",
                "parameters": {"current_version_android": "versionName", "current_build_android": "versionCode",
                               "android_update_priority": "inAppUpdatePriority"},
                "condition": "android", "serviceAccountKey": key_file, **settings}
        return self.json("PUT", self.path, body)

    def run(self):
        return self.json("POST", self.path + ":run")

    def fetch(self, platform):
        status, _, data = call("POST", f"{self.base}/v1/projects/shop-app/remoteConfig:fetch",
                               {"appInstanceId": f"{platform}-1", "platform": platform, "appVersion": "1.0.0"},
                               {"X-API-Key": self.client_key})
        assert status == 200, (status, data)
        return json.loads(data)["entries"]

    def versions(self):
        return self.json("GET", f"{self.base}/v1/projects/shop-app/remoteConfig:listVersions")["versions"]


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def releases(standin, *items):
    standin.set_track(PACKAGE, "production", [standin.shapes.release(*item[:3], **item[3]) for item in items])


def test_a_completed_release_is_published_for_android_only(shop, standin):
    key_file, public = service_account()
    standin.allow(key_file["client_email"], key_file["private_key_id"], public)
    releases(standin, ("2.5.0", [251], "draft", {}),
             ("2.4.0", [240, 241], "inProgress", {"fraction": 0.2, "priority": 4}),
             ("2.3.9", [239], "halted", {"fraction": 0.05}),
             ("2.3.0", [229, 230], "completed", {"priority": 2, "notes": [("en-US", "Wish lists.")]}))
    saved = shop.link(key_file)
    check("serviceAccountKey" not in saved and "PRIVATE KEY" not in json.dumps(saved), f"the key came back: {saved}")
    check(saved["serviceAccount"] == {"clientEmail": key_file["client_email"],
                                      "privateKeyId": key_file["private_key_id"]}, saved)
    before = standin.counts()
    run = shop.run()
    check(run["result"] == "PUBLISHED" and run["lastError"] is None, run)
    check(run["liveRelease"] == {"name": "2.3.0", "versionCode": "230", "status": "completed", "userFraction": None},
          run)
    android = shop.fetch("ANDROID")
    check((android["current_version_android"], android["current_build_android"],
           android["android_update_priority"]) == ("2.3.0", "230", "2"), android)
    ios = shop.fetch("IOS")
    check((ios["current_version_android"], ios["current_build_android"]) == ("1.0.0", "1"), ios)
    check(shop.versions()[0]["updateOrigin"] == "STORE_SYNC", shop.versions()[0])
    # More syncs: one token for all of them, every edit deleted, nothing new published.
    for _ in range(3):
        check(shop.run()["result"] == "UNCHANGED", "a sync with nothing new changed something")
    after = standin.counts()
    check(after["tokens"] - before["tokens"] == 1, f"tokens: {after['tokens'] - before['tokens']}")
    opened = after["opened"][len(before["opened"]):]
    check(len(opened) == 4 and after["deleted"][len(before["deleted"]):] == opened, after)
    check(not after["refused"], after["refused"])


def test_staged_rollouts_count_only_with_any_live(shop, standin):
    key_file, public = service_account()
    standin.allow(key_file["client_email"], key_file["private_key_id"], public)
    releases(standin, ("2.4.0", [241], "inProgress", {"fraction": 0.25, "notes": [("ja-JP", "修正"), ("en-US", "Lists")]}),
             ("2.3.0", [230], "completed", {}))
    shop.link(key_file, stagedRollouts="ANY_LIVE",
              parameters={"current_build_android": "versionCode", "android_rollout": "userFraction",
                          "whats_new": "releaseNotes"})
    check(shop.run()["result"] == "PUBLISHED", "the staged release was not published")
    android = shop.fetch("ANDROID")
    check((android["current_build_android"], android["android_rollout"], android["whats_new"]) == ("241", "0.25", "Lists"),
          android)
    # Halted: the completed release is the live one again.
    releases(standin, ("2.4.0", [241], "halted", {"fraction": 0.25}), ("2.3.0", [230], "completed", {}))
    check(shop.run()["result"] == "PUBLISHED", "the halt was not followed")
    check(shop.fetch("ANDROID")["current_build_android"] == "230", "a halted release counted")
    # Nothing live at all: nothing changes, and the link says so.
    releases(standin, ("2.5.0", [251], "draft", {}), ("2.4.0", [241], "halted", {"fraction": 0.25}))
    run = shop.run()
    check(run["result"] == "NOT_LIVE" and "no completed or in-progress release" in run["lastError"], run)
    check(shop.fetch("ANDROID")["current_build_android"] == "230", "a draft counted")


def test_google_refusing_or_failing_changes_nothing_and_says_so(shop, standin):
    key_file, public = service_account()
    standin.allow(key_file["client_email"], key_file["private_key_id"], public)
    releases(standin, ("3.0.0", [300], "completed", {}))
    shop.link(key_file)
    published = len(shop.versions())
    # The token endpoint first: once a token is cached, syncs do not ask for another.
    cases = [
        ("token", ("status", 500), "the token endpoint answered HTTP 500"),
        ("tracks.get", ("status", 403), f"the service account {key_file['client_email']} has no access to the app {PACKAGE}"),
        ("insert", ("status", 401), "has no access to the app"),
        ("tracks.get", ("status", 429), "HTTP 429 (too many requests); the sync backs off"),
        ("insert", ("status", 500), "HTTP 500 (a server error); the sync backs off"),
        ("tracks.get", ("oversized",), "answered more than 2097152 bytes"),
        ("tracks.get", ("slow", 12), "did not answer within"),
    ]
    for failures, (where, failure, words) in enumerate(cases, start=1):
        standin.fail(where, failure)
        before = standin.counts()
        run = shop.run()
        standin.fail(where, None)
        check(run["result"] == "FAILED" and words in (run["lastError"] or ""), f"{where} {failure}: {run}")
        check(run["consecutiveFailures"] == failures, run)
        after = standin.counts()
        opened = after["opened"][len(before["opened"]):]
        check(after["deleted"][len(before["deleted"]):] == opened, f"an edit was left open after {failure}")
    check(len(shop.versions()) == published, "a failed sync published")
    check(shop.fetch("ANDROID")["current_build_android"] == "1", "a failed sync changed a value")
    metrics = call("GET", f"{shop.base}/metrics")[2].decode()
    line = next(l for l in metrics.splitlines() if l.startswith('rc_store_sync_failures_total{store="google_play"}'))
    check(float(line.split()[-1]) >= len(cases), line)
    check(shop.run()["result"] == "PUBLISHED", "the sync did not recover")


def test_a_key_google_does_not_know_is_refused_in_words(shop, standin):
    key_file, _ = service_account(email="stranger@other.iam.gserviceaccount.com")
    releases(standin, ("3.0.0", [300], "completed", {}))
    shop.link(key_file)
    run = shop.run()
    check(run["result"] == "FAILED" and "Google refused the service account's key" in run["lastError"], run)
    check(standin.counts()["refused"][-1] == "unknown kid", standin.counts()["refused"])
    # Known kid and account, another key's public half: google-auth finds the signature wrong.
    _, other_public = service_account()
    standin.allow(key_file["client_email"], key_file["private_key_id"], other_public)
    run = shop.run()
    check(run["result"] == "FAILED" and "Google refused the service account's key" in run["lastError"], run)
    check("signature" in standin.counts()["refused"][-1].lower(), standin.counts()["refused"])
    # A key file that is not a service account's is refused at PUT, naming the member.
    bad = dict(key_file)
    del bad["client_email"]
    status, _, data = call("PUT", shop.path, {"packageName": PACKAGE, "serviceAccountKey": bad}, ADMIN)
    answer = json.loads(data)
    check(status == 400 and answer["error"]["details"][0]["field"] == "serviceAccountKey.client_email", answer)
    check("PRIVATE KEY" not in data.decode(), "the key was quoted in an error")


TESTS = [test_a_completed_release_is_published_for_android_only, test_staged_rollouts_count_only_with_any_live,
         test_google_refusing_or_failing_changes_nothing_and_says_so, test_a_key_google_does_not_know_is_refused_in_words]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("-k", default="")
    args = parser.parse_args()
    passed = failed = 0
    for test in TESTS:
        if args.k not in test.__name__:
            continue
        standin = GooglePlayStandIn()
        server, base, data_dir = start_server(
            args.binary, "rc-google-play-", ["--play-token-url", standin.token_url, "--play-api-url", standin.base])
        try:
            shop = Shop(base, standin)
            shop.json("POST", f"{base}/v1/projects", {"projectId": "shop-app", "displayName": "Shop"})
            shop.json("PUT", f"{base}/v1/projects/shop-app/remoteConfig", TEMPLATE, {"If-Match": "*"})
            shop.client_key = shop.json("POST", f"{base}/v1/apiKeys",
                                        {"displayName": "app", "role": "client", "project": "shop-app"})["key"]
            test(shop, standin)
            passed += 1
            print(f"ok   {test.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc()
        finally:
            server.terminate()
            server.wait(timeout=60)
            standin.stop()
            shutil.rmtree(data_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
