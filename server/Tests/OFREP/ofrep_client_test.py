#!/usr/bin/env python3
"""A real OpenFeature client against the built server: the stock OpenFeature Python SDK with its OFREP provider
(`openfeature-sdk`, `openfeature-provider-ofrep` from PyPI), configured as their documentation says.

    server/Tests/OFREP/ofrep_client_test.py [--binary PATH] [-k NAME]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with an
embedded PostgreSQL, publishes the force-update template with a few more parameters, and checks what the
provider resolves: boolean, string, number and object flags, targeting by platform and version, the app's own
default for in-app-default parameters and unknown flags, and a publish. Ends with "N passed, M failed" (exit 1
on any failure). scripts/test runs it after installing the packages (scripts/ensure-ofrep-client.sh).
"""
import argparse, http.client, json, os, shutil, sys, traceback, urllib.parse
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402

from openfeature import api  # noqa: E402
from openfeature.evaluation_context import EvaluationContext  # noqa: E402
from openfeature.exception import ErrorCode  # noqa: E402
from openfeature.flag_evaluation import Reason  # noqa: E402
from openfeature.contrib.provider.ofrep import OFREPProvider  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}


def template(current_version="2.3.0"):
    """The README's force-update template, plus a number, a fraction and an object."""
    return {
        "conditions": [
            {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"},
            {"name": "broken_release", "expression": "app.version.==(['1.1.4'])"},
            {"name": "pro", "expression": "app.customSignal['plan'] == 'pro'"},
        ],
        "parameters": {
            "require_force_update": {
                "defaultValue": {"value": "false"},
                "conditionalValues": {"ios_too_old": {"value": "true"}, "broken_release": {"value": "true"}},
                "valueType": "BOOLEAN",
            },
            "current_version": {"defaultValue": {"value": current_version}, "valueType": "STRING"},
            "app_store_url": {"defaultValue": {"useInAppDefault": True}, "valueType": "STRING"},
            "max_items": {"defaultValue": {"value": "10"}, "conditionalValues": {"pro": {"value": "50"}},
                          "valueType": "NUMBER"},
            "discount": {"defaultValue": {"value": "0.25"}, "valueType": "NUMBER"},
            "layout": {"defaultValue": {"value": json.dumps({"columns": 2, "tabs": ["home", "cart"]})},
                       "valueType": "JSON"},
        },
    }


def context(instance="install-1", **attributes):
    return EvaluationContext(targeting_key=instance, attributes=attributes)


class Shop:
    """A running server with `shop-app` published and an OpenFeature client on its OFREP endpoint."""

    def __init__(self, base):
        self.base = base
        status, _, body = call("POST", f"{base}/v1/projects", {"projectId": "shop-app"}, ADMIN)
        assert status in (201, 409), body
        self.publish(template())
        status, _, body = call("POST", f"{base}/v1/apiKeys",
                               {"displayName": "ofrep", "role": "client", "project": "shop-app"}, ADMIN)
        assert status == 201, body
        self.key = json.loads(body)["key"]
        # As the provider's README configures it: the server's base URL, and headers for the key.
        api.set_provider(OFREPProvider(self.base, headers_factory=lambda: {"Authorization": f"Bearer {self.key}"}))
        self.client = api.get_client()

    def publish(self, body):
        status, _, reply = call("PUT", f"{self.base}/v1/projects/shop-app/remoteConfig", body,
                                dict(ADMIN, **{"If-Match": "*"}))
        assert status == 200, reply


def test_types(shop):
    ios = context(platform="IOS", appVersion="2.1.0")
    flag = shop.client.get_boolean_details("require_force_update", True, ios)
    assert flag.value is False and flag.error_code is None, flag
    assert flag.reason == Reason.STATIC and flag.variant == "default", flag
    assert flag.flag_metadata.get("valueType") == "BOOLEAN", flag.flag_metadata
    assert shop.client.get_string_value("current_version", "0.0.0", ios) == "2.3.0"
    number = shop.client.get_integer_details("max_items", 1, ios)
    assert number.value == 10 and number.error_code is None, number
    assert shop.client.get_integer_value("max_items", 1, context(plan="pro")) == 50
    fraction = shop.client.get_float_details("discount", 0.0, ios)
    assert fraction.value == 0.25 and fraction.error_code is None, fraction
    layout = shop.client.get_object_details("layout", {}, ios)
    assert layout.value == {"columns": 2, "tabs": ["home", "cart"]} and layout.error_code is None, layout


def test_force_update_targeting(shop):
    cases = [
        (context(platform="IOS", appVersion="1.9.0"), True, "ios_too_old"),
        (context(platform="ios", appVersion="2.0.0"), False, "default"),
        (context(platform="ANDROID", appVersion="1.9.0"), False, "default"),
        (context(platform="ANDROID", appVersion="1.1.4"), True, "broken_release"),
        (context(appVersion="1.9.0"), False, "default"),  # no platform: device.os is unknown, not a match
    ]
    for ctx, expected, variant in cases:
        flag = shop.client.get_boolean_details("require_force_update", not expected, ctx)
        assert flag.value is expected and flag.variant == variant, (ctx.attributes, flag)
        assert flag.reason == (Reason.TARGETING_MATCH if variant != "default" else Reason.STATIC), flag


def test_code_defaults(shop):
    ios = context(platform="IOS", appVersion="1.9.0")
    store = shop.client.get_string_details("app_store_url", "https://apps.apple.com/app/id-of-the-app", ios)
    assert store.value == "https://apps.apple.com/app/id-of-the-app", store
    assert store.error_code is None and store.reason == Reason.STATIC, store
    unknown = shop.client.get_boolean_details("no_such_flag", True, ios)
    assert unknown.value is True and unknown.error_code == ErrorCode.FLAG_NOT_FOUND, unknown
    missing = shop.client.get_boolean_details("require_force_update", True, EvaluationContext(attributes={"a": 1}))
    assert missing.value is True and missing.error_code == ErrorCode.TARGETING_KEY_MISSING, missing
    invalid = shop.client.get_boolean_details("require_force_update", True, context(platform="symbian"))
    assert invalid.value is True and invalid.error_code == ErrorCode.INVALID_CONTEXT, invalid


def test_sees_a_publish(shop):
    ios = context(platform="IOS", appVersion="2.1.0")
    assert shop.client.get_string_value("current_version", "0.0.0", ios) == "2.3.0"
    shop.publish(template(current_version="2.4.0"))
    flag = shop.client.get_string_details("current_version", "0.0.0", ios)
    assert flag.value == "2.4.0", flag
    assert flag.flag_metadata.get("templateVersion") == "2", flag.flag_metadata


def test_refused_key(shop):
    api.set_provider(OFREPProvider(shop.base, headers_factory=lambda: {"Authorization": "Bearer rc_client_nope"}))
    try:
        flag = api.get_client().get_boolean_details("require_force_update", True, context(platform="IOS"))
        assert flag.value is True and flag.error_code == ErrorCode.GENERAL, flag
    finally:
        api.set_provider(OFREPProvider(shop.base, headers_factory=lambda: {"X-API-Key": shop.key}))
    assert api.get_client().get_boolean_value("require_force_update", True, context(platform="IOS")) is False


def test_bulk_event_stream(shop):
    """The bulk evaluation's eventStreams URL, opened as the web provider's EventSource opens it (no headers):
    OFREP events on connect and on a publish."""
    headers = {"Authorization": f"Bearer {shop.key}"}
    status, response_headers, body = call("POST", f"{shop.base}/ofrep/v1/evaluate/flags",
                                          {"context": {"targetingKey": "install-1", "platform": "IOS"}}, headers)
    assert status == 200 and response_headers.get("ETag"), (status, body)
    url = urllib.parse.urlsplit(json.loads(body)["eventStreams"][0]["url"])
    assert f"{url.scheme}://{url.netloc}" == shop.base, url
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    connection.request("GET", f"{url.path}?{url.query}")
    stream = connection.getresponse()
    assert stream.status == 200, stream.status

    def next_event():
        fields = {}
        while True:
            line = stream.readline().decode().rstrip("\n")
            if not line:
                if "data" in fields:
                    return fields
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    first = next_event()
    assert first["event"] == "message" and json.loads(first["data"])["type"] == "refetchEvaluation", first
    shop.publish(template(current_version="2.5.0"))
    second = next_event()
    assert int(second["id"]) == int(first["id"]) + 1, (first, second)
    assert json.loads(second["data"])["type"] == "refetchEvaluation", second
    connection.close()


TESTS = [test_types, test_force_update_targeting, test_code_defaults, test_sees_a_publish, test_refused_key,
         test_bulk_event_stream]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("-k", dest="name", help="run only the tests whose name contains this")
    arguments = parser.parse_args()
    server, base, data_dir = start_server(arguments.binary, "rc-ofrep-")
    passed, failed = 0, 0
    try:
        shop = Shop(base)
        for test in TESTS:
            if arguments.name and arguments.name not in test.__name__:
                continue
            try:
                test(shop)
                passed += 1
                print(f"✔ {test.__name__}")
            except Exception:
                failed += 1
                print(f"✘ {test.__name__}")
                traceback.print_exc()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"OpenFeature client: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
