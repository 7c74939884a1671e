"""A stand-in for Google's OAuth 2.0 token endpoint and the Google Play Developer API (androidpublisher v3) on
loopback, behaving as Google documents them, for server/Tests/GooglePlay/google_play_test.py.

- The token endpoint takes `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT` and checks the
  JWT as Google does ("Using OAuth 2.0 for Server to Server Applications"): its RS256 signature with the public
  half of the service account's key, found by the header's `kid`, through google-auth (`google.auth.jwt.decode`
  with certs), and every claim: `iss` the account, `scope` androidpublisher, `aud` this URL, `iat` now, `exp` at
  most an hour later, nothing else. A refused assertion gets Google's `{"error": "invalid_grant", ...}` with 400.
- The API's routes, methods and answers come from the androidpublisher v3 discovery document that
  google-api-python-client ships: the paths of `edits.insert`, `edits.tracks.get` and `edits.delete`, and every
  answer is built against its schema (`AppEdit`, `Track`, `TrackRelease`, `LocalizedText`): a member the schema
  does not have, or a value of another type (int64 is a string there), stops the test, so the stand-in cannot
  drift from Google's shapes.
- It counts what it is asked (tokens, edits opened and deleted, track reads), and can answer 401/403/429/500,
  slowly, or with more than 2 MiB.
"""
import json
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import googleapiclient
from google.auth import jwt as google_jwt

SCOPE = "https://www.googleapis.com/auth/androidpublisher"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def discovery_document():
    """The androidpublisher v3 discovery document google-api-python-client ships."""
    path = os.path.join(os.path.dirname(googleapiclient.__file__), "discovery_cache", "documents",
                        "androidpublisher.v3.json")
    with open(path, encoding="utf-8") as file:
        return json.load(file)


class SchemaError(Exception):
    """An answer the discovery document's schema does not allow."""


class Shapes:
    """Answers built against the discovery document's schemas."""

    def __init__(self, document):
        self.document = document
        self.schemas = document["schemas"]
        edits = document["resources"]["edits"]
        self.methods = {
            "insert": edits["methods"]["insert"],
            "delete": edits["methods"]["delete"],
            "tracks.get": edits["resources"]["tracks"]["methods"]["get"],
        }
        for name, method in self.methods.items():
            if name == "tracks.get" and method["response"]["$ref"] != "Track":
                raise SchemaError("tracks.get no longer answers a Track")
        if self.methods["insert"]["httpMethod"] != "POST" or self.methods["delete"]["httpMethod"] != "DELETE":
            raise SchemaError("edits.insert / edits.delete changed their HTTP methods")

    def path(self, method):
        """`androidpublisher/v3/applications/{packageName}/edits…` as the document writes it."""
        return self.methods[method].get("flatPath") or self.methods[method]["path"]

    def check(self, value, schema, where):
        """Raises SchemaError unless `value` fits `schema` (a discovery schema or a $ref)."""
        if "$ref" in schema:
            return self.check(value, self.schemas[schema["$ref"]], where)
        kind = schema.get("type")
        if kind == "object":
            if not isinstance(value, dict):
                raise SchemaError(f"{where} is not an object")
            properties = schema.get("properties", {})
            for key, member in value.items():
                if key not in properties:
                    raise SchemaError(f"{where}.{key} is not in the schema")
                self.check(member, properties[key], f"{where}.{key}")
        elif kind == "array":
            if not isinstance(value, list):
                raise SchemaError(f"{where} is not an array")
            for index, item in enumerate(value):
                self.check(item, schema["items"], f"{where}[{index}]")
        elif kind == "string":
            if not isinstance(value, str):
                raise SchemaError(f"{where} is not a string (int64 is written as one)")
            if "enum" in schema and value not in schema["enum"]:
                raise SchemaError(f"{where} is {value!r}, not one of {schema['enum']}")
        elif kind == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                raise SchemaError(f"{where} is not an integer")
        elif kind == "number":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise SchemaError(f"{where} is not a number")
        elif kind == "boolean":
            if not isinstance(value, bool):
                raise SchemaError(f"{where} is not a boolean")
        return value

    def build(self, name, value):
        """`value` as schema `name`, checked."""
        return self.check(value, {"$ref": name}, name)

    def release(self, name, codes, status, fraction=None, priority=None, notes=()):
        """A `TrackRelease`, its notes `LocalizedText`s."""
        release = {"versionCodes": [str(code) for code in codes], "status": status}
        if name is not None:
            release["name"] = name
        if fraction is not None:
            release["userFraction"] = fraction
        if priority is not None:
            release["inAppUpdatePriority"] = priority
        if notes:
            release["releaseNotes"] = [self.build("LocalizedText", {"language": language, "text": text})
                                       for language, text in notes]
        return self.build("TrackRelease", release)

    def track(self, name, releases):
        return self.build("Track", {"track": name, "releases": list(releases)})


class GooglePlayStandIn:
    """Google's token endpoint and the edits API on one loopback port; `public_keys` maps key ids to PEMs."""

    def __init__(self):
        self.shapes = Shapes(discovery_document())
        self.lock = threading.Lock()
        self.public_keys = {}
        self.emails = set()
        self.tokens = {}
        self.token_count = 0
        self.refused_assertions = []
        self.edits_opened = []
        self.edits_deleted = []
        self.track_reads = []
        self.open_edits = {}
        self.tracks = {}
        # call ("token", "insert", "tracks.get", "delete") → ("status", code) | ("slow", seconds) | ("oversized",)
        self.failures = {}
        self.expires_in = 3599
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.token_url = self.base + "/token"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()

    def allow(self, email, key_id, public_pem):
        """Makes the service account `email` known, with its key's public half."""
        with self.lock:
            self.public_keys[key_id] = public_pem
            self.emails.add(email)

    def set_track(self, package, name, releases):
        with self.lock:
            self.tracks[(package, name)] = self.shapes.track(name, releases)

    def fail(self, call, failure):
        with self.lock:
            if failure is None:
                self.failures.pop(call, None)
            else:
                self.failures[call] = failure

    def counts(self):
        with self.lock:
            return {"tokens": self.token_count, "opened": list(self.edits_opened),
                    "deleted": list(self.edits_deleted), "reads": list(self.track_reads),
                    "refused": list(self.refused_assertions)}

    def check_assertion(self, assertion):
        """The claims of a JWT Google would take, or raises ValueError saying why not."""
        header = google_jwt.decode_header(assertion)
        if header.get("alg") != "RS256" or header.get("typ") != "JWT":
            raise ValueError(f"header {header} is not RS256 JWT")
        if header.get("kid") not in self.public_keys:
            raise ValueError("unknown kid")
        # google-auth checks the signature with the key the kid names, iat/exp against the clock, and aud.
        claims = google_jwt.decode(assertion, certs=self.public_keys, audience=self.token_url)
        if set(claims) != {"iss", "scope", "aud", "iat", "exp"}:
            raise ValueError(f"claims {sorted(claims)} are not exactly iss, scope, aud, iat, exp")
        if claims["iss"] not in self.emails:
            raise ValueError("iss is not a known service account")
        if claims["scope"] != SCOPE:
            raise ValueError(f"scope {claims['scope']} is not androidpublisher")
        if not isinstance(claims["iat"], int) or not isinstance(claims["exp"], int):
            raise ValueError("iat and exp must be whole seconds")
        if abs(claims["iat"] - time.time()) > 300 or not 0 < claims["exp"] - claims["iat"] <= 3600:
            raise ValueError("iat is not now or exp is more than an hour later")
        return claims

    def _handler(self):
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body=None, raw=None):
                data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server gave up first (a slow answer past its timeout), as it should

            def failed(self, call):
                """Answers the failure set for `call`; True when it did."""
                with standin.lock:
                    failure = standin.failures.get(call)
                if failure is None:
                    return False
                if failure[0] == "status":
                    code = failure[1]
                    status = {401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED"}.get(
                        code, "INTERNAL")
                    self.answer(code, {"error": {"code": code, "message": "The caller does not have permission",
                                                 "status": status}})
                elif failure[0] == "slow":
                    time.sleep(failure[1])
                    self.answer(200, {})
                elif failure[0] == "oversized":
                    self.answer(200, raw=b" " * (3 << 20) + b"{}")
                return True

            def bearer(self):
                """The token's holder, or None (answered 401) when the token is not one handed out and live."""
                header = self.headers.get("Authorization", "")
                with standin.lock:
                    token = standin.tokens.get(header[len("Bearer "):]) if header.startswith("Bearer ") else None
                if token is None or token["until"] < time.time():
                    self.answer(401, {"error": {"code": 401, "message": "Request had invalid authentication "
                                                "credentials.", "status": "UNAUTHENTICATED"}})
                    return None
                return token["email"]

            def route(self, method):
                """(method name, path parameters) of a discovery-document path, or (None, None)."""
                parts = urllib.parse.urlsplit(self.path).path.strip("/").split("/")
                for name in ("insert", "tracks.get", "delete"):
                    if standin.shapes.methods[name]["httpMethod"] != method:
                        continue
                    pattern = standin.shapes.path(name).split("/")
                    if len(pattern) != len(parts):
                        continue
                    values = {}
                    for expected, actual in zip(pattern, parts):
                        if expected.startswith("{") and expected.endswith("}"):
                            values[expected[1:-1]] = urllib.parse.unquote(actual)
                        elif expected != actual:
                            break
                    else:
                        return name, values
                return None, None

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if urllib.parse.urlsplit(self.path).path == "/token":
                    return self.token(body)
                name, values = self.route("POST")
                if name != "insert":
                    return self.answer(404, {"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}})
                if self.failed("insert") or self.bearer() is None:
                    return
                with standin.lock:
                    edit = f"{len(standin.edits_opened) + 1:020d}"
                    standin.edits_opened.append(edit)
                    standin.open_edits[edit] = values["packageName"]
                self.answer(200, standin.shapes.build(
                    "AppEdit", {"id": edit, "expiryTimeSeconds": str(int(time.time()) + 3600)}))

            def token(self, body):
                form = urllib.parse.parse_qs(body.decode())
                if self.failed("token"):
                    return
                if form.get("grant_type") != [GRANT_TYPE] or len(form.get("assertion", [])) != 1:
                    return self.answer(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
                try:
                    claims = standin.check_assertion(form["assertion"][0])
                except ValueError as error:
                    with standin.lock:
                        standin.refused_assertions.append(str(error))
                    return self.answer(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
                with standin.lock:
                    standin.token_count += 1
                    token = f"ya29.standin-{standin.token_count}"
                    standin.tokens[token] = {"email": claims["iss"], "until": time.time() + standin.expires_in}
                    expires = standin.expires_in
                self.answer(200, {"access_token": token, "expires_in": expires, "token_type": "Bearer"})

            def do_GET(self):
                name, values = self.route("GET")
                if name != "tracks.get":
                    return self.answer(404, {"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}})
                if self.failed("tracks.get") or self.bearer() is None:
                    return
                with standin.lock:
                    known = standin.open_edits.get(values["editId"]) == values["packageName"]
                    track = standin.tracks.get((values["packageName"], values["track"]))
                    if known:
                        standin.track_reads.append(values["editId"])
                if not known:
                    return self.answer(400, {"error": {"code": 400, "message": "This Edit has been deleted.",
                                                       "status": "FAILED_PRECONDITION"}})
                if track is None:
                    return self.answer(404, {"error": {"code": 404, "message": "Track not found.",
                                                       "status": "NOT_FOUND"}})
                self.answer(200, track)

            def do_DELETE(self):
                name, values = self.route("DELETE")
                if name != "delete":
                    return self.answer(404, {"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}})
                if self.failed("delete") or self.bearer() is None:
                    return
                with standin.lock:
                    known = standin.open_edits.pop(values["editId"], None) == values["packageName"]
                    if known:
                        standin.edits_deleted.append(values["editId"])
                if not known:
                    return self.answer(404, {"error": {"code": 404, "message": "Edit not found.",
                                                       "status": "NOT_FOUND"}})
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        return Handler
