#!/usr/bin/env python3
"""Single sign-on end to end: the built server against a real OpenID Connect provider (nanoidp from PyPI, behind
the recording and tampering proxy of provider.py), checked against the contract's "People" section.

    "$OIDC_PYTHON" server/Tests/OIDC/sso_test.py [--binary PATH] [-k NAME]

One provider for the run (reset between tests); each test starts its own `remote-config serve` (default:
server/.build/debug/remote-config) on a loopback port chosen first, so that `--public-url
http://127.0.0.1:<port>` is known at start, with an embedded PostgreSQL, the admin token of common.py
(RC_ADMIN_TOKEN) and

    --oidc-issuer <proxy> --oidc-client-id remote-config --oidc-client-secret-file <file>
    --public-url http://127.0.0.1:<port> --oidc-admins alice@example.com

The people are provider.py's: alice (groups mobile-release, bootstrap admin), bob (platform), carol (email not
verified), dave (another domain). "The browser" is played by plain HTTP calls that never follow redirects:
GET /console/auth/login, the provider's login form (provider.login), then the callback. Every wait is bounded.
Ends with "N passed, M failed" (exit 1 on any failure). scripts/ensure-oidc-provider.sh installs the provider.
"""
import argparse, base64, collections, hashlib, http.client, json, os, re, shutil, signal, stat, subprocess, sys
import tempfile, threading, time, traceback, urllib.parse
import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN  # noqa: E402
from provider import CLIENT_ID, Provider, _die_with_parent, free_port  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}
CALLBACK = "/console/auth/callback"
TEMPLATE = {"conditions": [], "parameters": {"greeting": {"defaultValue": {"value": "hello"}, "valueType": "STRING"}}}


# HTTP, without following redirects.

class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        values = self.all(name)
        return values[0] if values else None

    def all(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    @property
    def location(self):
        return self.header("Location")

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)

    def set_cookies(self):
        """[(name, value, {attribute: value})] of every Set-Cookie."""
        cookies = []
        for header in self.all("Set-Cookie"):
            parts = [p.strip() for p in header.split(";")]
            name, _, value = parts[0].partition("=")
            attributes = {}
            for part in parts[1:]:
                key, _, val = part.partition("=")
                attributes[key.strip().lower()] = val.strip()
            cookies.append((name.strip(), value.strip(), attributes))
        return cookies

    def cookie(self, name):
        """The (value, attributes) of the Set-Cookie for `name`, or None."""
        found = [(v, a) for n, v, a in self.set_cookies() if n == name]
        return found[-1] if found else None

    def reasons(self):
        try:
            return [d.get("reason") for d in self.json()["error"].get("details", [])]
        except Exception:
            return []

    def __str__(self):
        return f"{self.status} {self.text[:600]}"


def request(method, url, body=None, headers=None, timeout=10):
    split = urllib.parse.urlsplit(url)
    headers = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    try:
        connection = http.client.HTTPConnection(split.hostname, split.port, timeout=timeout)
        connection.request(method, (split.path or "/") + (f"?{split.query}" if split.query else ""), body=data,
                           headers=headers)
        answer = connection.getresponse()
        result = Answer(answer.status, answer.getheaders(), answer.read())
        connection.close()
        return result
    except (OSError, http.client.HTTPException) as error:
        return Answer(0, [], f"no answer: {error}".encode())


def cleared(cookie):
    """A Set-Cookie that ends the cookie: an empty value, Max-Age 0 or less, or an Expires in the past."""
    value, attributes = cookie
    if value in ("", '""'):
        return True
    if re.fullmatch(r"-?\d+", attributes.get("max-age", "")) and int(attributes["max-age"]) <= 0:
        return True
    expires = attributes.get("expires")
    if expires:
        try:
            from email.utils import parsedate_to_datetime
            return parsedate_to_datetime(expires).timestamp() < time.time()
        except Exception:
            return False
    return False


class Browser:
    """One person's browser at one server: keeps the cookies that server sets."""

    def __init__(self):
        self.jar = {}

    def get(self, url, headers=None):
        headers = dict(headers or {})
        if self.jar:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        answer = request("GET", url, headers=headers)
        for name, value, attributes in answer.set_cookies():
            if cleared((value, attributes)):
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        return answer


# The server.

class Server:
    def __init__(self, binary, provider, database_url=None, secrets_key_file=None, extra_args=(), issuer=None,
                 public_scheme="http"):
        self.binary, self.provider, self.public_scheme = binary, provider, public_scheme
        self.data_dir = tempfile.mkdtemp(prefix="rc-sso-")
        os.chmod(self.data_dir, 0o755)  # the postgres user must reach the cluster inside it
        self.secret_dir = tempfile.mkdtemp(prefix="rc-sso-secret-")
        self.secret_file = provider.write_secret_file(self.secret_dir)
        self.database_url, self.secrets_key_file = database_url, secrets_key_file
        self.extra_args, self.issuer = list(extra_args), issuer or provider.issuer
        self.output = collections.deque(maxlen=300)
        self.process = None

    def arguments(self, port):
        base = f"{self.public_scheme}://127.0.0.1:{port}"
        arguments = [self.binary, "serve", "--port", str(port), "--data-dir", self.data_dir, "--public-url", base,
                     "--oidc-issuer", self.issuer, "--oidc-client-id", CLIENT_ID,
                     "--oidc-client-secret-file", self.secret_file, "--oidc-admins", "alice@example.com"]
        if self.database_url:
            arguments += ["--database-url", self.database_url]
        if self.secrets_key_file:
            arguments += ["--secrets-key-file", self.secrets_key_file]
        return arguments + self.extra_args

    def start(self, timeout=120, port=None):
        for attempt in range(1 if port else 3):  # the chosen port may be taken before the server binds it
            port = port or free_port()
            self.process = subprocess.Popen(self.arguments(port), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, env=server_environment(), text=True,
                                            preexec_fn=_die_with_parent)
            lines = queue_lines(self.process.stdout, self.output)
            deadline = time.time() + timeout
            while time.time() < deadline:
                line = lines.get(max(0.1, deadline - time.time()))
                if line is None:
                    break
                if "listening on http://" in line:
                    self.port, self.base = port, f"http://127.0.0.1:{port}"
                    return self
            self.stop_process()
            if not any("address" in l.lower() and "use" in l.lower() for l in self.output):
                break
        raise AssertionError("the server did not start:\n" + "".join(self.output))

    def stop_process(self):
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def stop(self):
        self.stop_process()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        shutil.rmtree(self.secret_dir, ignore_errors=True)

    def url(self, path):
        return self.base + path

    def call(self, method, path, body=None, headers=None, timeout=10):
        return request(method, self.base + path, body, headers, timeout)

    def admin(self, method, path, body=None, headers=None):
        return self.call(method, path, body, dict(ADMIN, **(headers or {})))

    def log(self):
        return "".join(self.output)


def server_environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("RC_")}
    return dict(env, RC_ADMIN_TOKEN=TOKEN, RC_LOG_LEVEL="error")


class queue_lines:
    """The lines of a pipe, drained by a thread (kept in `keep` too), read with a timeout."""

    def __init__(self, pipe, keep):
        self.lines = collections.deque()
        self.condition = threading.Condition()
        self.done = False

        def drain():
            for line in pipe:
                keep.append(line)
                with self.condition:
                    self.lines.append(line)
                    self.condition.notify_all()
            with self.condition:
                self.done = True
                self.condition.notify_all()

        threading.Thread(target=drain, daemon=True).start()

    def get(self, timeout):
        with self.condition:
            self.condition.wait_for(lambda: self.lines or self.done, timeout=timeout)
            return self.lines.popleft() if self.lines else None


# A person signed in at a server.

class Person:
    def __init__(self, server, cookie, landing):
        self.server, self.cookie, self.landing = server, cookie, landing
        me = self.me()
        self.user = me["user"]
        self.email = me["user"]["email"]
        self.user_name = me["user"]["name"]
        self.user_id = self.user_name.split("/", 1)[1]
        self.csrf = me["csrfToken"]

    def headers(self, write, csrf=True, origin=True):
        headers = {"Cookie": f"rc_session={self.cookie}"}
        if write and csrf:
            headers["X-RC-CSRF"] = self.csrf if csrf is True else csrf
        if write and origin:
            headers["Origin"] = self.server.base if origin is True else origin
        return headers

    def call(self, method, path, body=None, headers=None, csrf=True, origin=True):
        """A call as the browser makes it: the cookie, and for a change the CSRF token and the Origin."""
        merged = self.headers(method not in ("GET", "HEAD", "OPTIONS"), csrf, origin)
        merged.update(headers or {})
        return self.server.call(method, path, body, merged)

    def me(self):
        answer = self.call("GET", "/v1/me")
        assert answer.status == 200, f"GET /v1/me with the session cookie: {answer}"
        return answer.json()

    def roles(self):
        return self.me()["roles"]


def begin(server, next_path=None):
    """GET /console/auth/login in a new browser: (browser, the answer, the authorization request's parameters)."""
    browser = Browser()
    path = "/console/auth/login" + (f"?next={urllib.parse.quote(next_path, safe='')}" if next_path else "")
    answer = browser.get(server.url(path))
    assert answer.status == 302 and answer.location, f"GET {path}: {answer}"
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.location).query))
    return browser, answer, params


def sign_in(server, provider, user, next_path=None):
    """The whole browser sign-in; returns the signed-in Person."""
    browser, answer, params = begin(server, next_path)
    callback = provider.login(answer.location, user)
    assert callback.startswith(server.url(CALLBACK) + "?"), f"the provider sent the browser to {callback}"
    landed = browser.get(callback)
    assert landed.status == 302, f"the callback answered {landed}\n{server.log()[-2000:]}"
    cookie = landed.cookie("rc_session")
    assert cookie and cookie[0], f"no rc_session cookie: {landed.headers}"
    return Person(server, cookie[0], landed.location)


def login_to_callback(server, provider, user, next_path=None):
    """Up to the provider's redirect back: (browser, callback URL, authorization request parameters)."""
    browser, answer, params = begin(server, next_path)
    return browser, provider.login(answer.location, user), params


def landing_path(server, location):
    split = urllib.parse.urlsplit(location)
    assert (split.scheme, split.netloc) in (("", ""), ("http", urllib.parse.urlsplit(server.base).netloc)), location
    return split.path + (f"?{split.query}" if split.query else "")


def s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def create_project(server, project_id):
    answer = server.admin("POST", "/v1/projects", {"projectId": project_id, "displayName": project_id.title()})
    assert answer.status == 201, f"create {project_id}: {answer}"


def bind(person, member, role, project=None):
    body = {"member": member, "role": role}
    if project:
        body["project"] = project
    answer = person.call("POST", "/v1/roleBindings", body)
    assert answer.status == 201, f"POST /v1/roleBindings {body}: {answer}"
    binding = answer.json()
    assert binding["name"].startswith("roleBindings/") and binding["member"] == member, binding
    assert binding["role"] == role and binding.get("project") == project, binding
    return binding["name"]


def publish(caller, project, template=TEMPLATE):
    """PUT the template as `caller` (a Person, or headers of a key)."""
    path = f"/v1/projects/{project}/remoteConfig"
    if isinstance(caller, Person):
        return caller.call("PUT", path, template, {"If-Match": "*"})
    return request("PUT", caller["base"] + path, template, {"Authorization": f"Bearer {caller['key']}",
                                                              "If-Match": "*"})


def key_caller(server, key):
    return {"base": server.base, "key": key}


def bearer(server, method, path, key, body=None):
    return server.call(method, path, body, {"Authorization": f"Bearer {key}"})


def has_role(roles, role, project):
    return {"role": role, "project": project} in [{"role": r["role"], "project": r.get("project")} for r in roles]


# The tests.

def test_happy_path(ctx):
    server, provider = ctx.server(), ctx.provider
    browser, answer, params = begin(server)
    assert answer.location.startswith(provider.authorization_endpoint + "?"), answer.location
    assert params["response_type"] == "code" and params["client_id"] == CLIENT_ID, params
    assert params["redirect_uri"] == server.url(CALLBACK), params
    scopes = params["scope"].split()
    assert {"openid", "email", "profile"} <= set(scopes), scopes
    assert "groups" in scopes, f"the provider advertises groups, so the scope asks for it: {scopes}"
    assert params.get("state") and params.get("nonce") and params.get("code_challenge"), params
    assert params["code_challenge_method"] == "S256" and len(params["code_challenge"]) == 43, params

    callback = provider.login(answer.location, "alice")
    assert callback.startswith(server.url(CALLBACK) + "?"), callback
    landed = browser.get(callback)
    assert landed.status == 302, f"{landed}\n{server.log()[-2000:]}"
    assert landing_path(server, landed.location) == "/console", landed.location
    cookie = landed.cookie("rc_session")
    assert cookie and cookie[0], landed.headers
    value, attributes = cookie
    assert "httponly" in attributes and attributes.get("samesite", "").lower() == "lax", landed.all("Set-Cookie")
    assert attributes.get("path") == "/" and "secure" not in attributes, landed.all("Set-Cookie")

    alice = Person(server, value, landed.location)
    me = alice.me()
    assert me["user"]["email"] == "alice@example.com" and me["user"]["name"].startswith("users/"), me
    assert me["user"]["displayName"] == "Alice Example", me
    assert "mobile-release" in me["user"]["groups"], me
    assert me["key"] is None, me
    assert has_role(me["roles"], "admin", None), me["roles"]
    assert me["csrfToken"] and me.get("sessionExpireTime"), me

    tokens = provider.proxy.token_requests()
    assert len(tokens) == 1, tokens
    token = tokens[0]
    assert token.form.get("grant_type") == "authorization_code", token.form
    assert token.client_auth == "client_secret_basic", f"the provider advertises basic: {token.headers}"
    assert token.basic_credentials() == (CLIENT_ID, provider.client_secret)
    assert "client_secret" not in token.form, token.form
    assert token.form.get("code_verifier"), f"no code_verifier: {token.form}"
    assert s256(token.form["code_verifier"]) == params["code_challenge"], "the verifier does not match the challenge"
    assert token.form.get("code") == dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))["code"]
    assert token.form.get("redirect_uri") == server.url(CALLBACK), token.form


def test_next_kept_only_under_console(ctx):
    server, provider = ctx.server(), ctx.provider
    for next_path, lands in [("/console/projects/x", "/console/projects/x"), ("https://evil.example/", "/console"),
                             ("//evil.example", "/console"), ("/v1/me", "/console")]:
        person = sign_in(server, provider, "alice", next_path)
        assert landing_path(server, person.landing) == lands, (next_path, person.landing)


def assert_refused(server, answer, person=None):
    """The callback refused the sign-in: 400, a page with words, no session cookie, nothing created."""
    assert answer.status == 400, f"the callback answered {answer}\n{server.log()[-2000:]}"
    assert "text/html" in (answer.header("Content-Type") or ""), answer.headers
    words = re.sub(r"<[^>]+>", " ", answer.text)
    assert len(re.findall(r"[A-Za-z]{2,}", words)) >= 3, f"no words on the page: {answer.text[:300]}"
    cookie = answer.cookie("rc_session")
    assert cookie is None or cleared(cookie), f"a session cookie on a refused sign-in: {answer.all('Set-Cookie')}"
    me = server.call("GET", "/v1/me")
    assert me.status == 401, f"GET /v1/me without a cookie: {me}"
    if person:
        users = server.admin("GET", "/v1/users")
        assert users.status == 200, f"GET /v1/users: {users}"
        emails = [u.get("email") for u in users.json().get("users", [])]
        assert person not in emails, f"a refused sign-in created {person}: {emails}"


def test_callback_unknown_state(ctx):
    server, provider = ctx.server(), ctx.provider
    browser, callback, params = login_to_callback(server, provider, "alice")
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))["code"]
    forged = server.url(CALLBACK) + "?" + urllib.parse.urlencode({"code": code, "state": "never-issued-" + "x" * 20})
    assert_refused(server, browser.get(forged), "alice@example.com")


def test_callback_reused_state(ctx):
    server, provider = ctx.server(), ctx.provider
    browser, callback, params = login_to_callback(server, provider, "alice")
    first = browser.get(callback)
    assert first.status == 302 and first.cookie("rc_session"), f"first use: {first}"
    assert_refused(server, browser.get(callback))  # the same browser, back on the same URL


def test_callback_replayed_code(ctx):
    server, provider = ctx.server(), ctx.provider
    browser, used, params = login_to_callback(server, provider, "alice")
    assert browser.get(used).status == 302
    used_code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(used).query))["code"]
    browser, fresh, params = login_to_callback(server, provider, "alice")
    state = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(fresh).query))["state"]
    replay = server.url(CALLBACK) + "?" + urllib.parse.urlencode({"code": used_code, "state": state})
    assert_refused(server, browser.get(replay))


def refused_token(ctx, mode, user="alice"):
    """A sign-in whose ID token the proxy rewrites with `mode`: the callback must refuse it."""
    server, provider = ctx.server(), ctx.provider
    if mode == "replay_other":
        sign_in(server, provider, user)  # the earlier login whose id_token is replayed
    browser, callback, params = login_to_callback(server, provider, user)
    provider.proxy.tamper = mode
    answer = browser.get(callback)
    assert provider.proxy.tamper is None, f"the server did not ask the token endpoint: {answer}"
    assert provider.proxy.token_requests()[-1].tampered == mode, provider.proxy.errors
    assert_refused(server, answer, None if mode == "replay_other" else provider.person(user).email)


def test_token_wrong_audience(ctx):
    refused_token(ctx, "wrong_audience")


def test_token_expired(ctx):
    refused_token(ctx, "expired")


def test_token_wrong_nonce(ctx):
    refused_token(ctx, "wrong_nonce")


def test_token_wrong_issuer(ctx):
    refused_token(ctx, "wrong_issuer")


def test_token_wrong_azp(ctx):
    refused_token(ctx, "wrong_azp")


def test_token_unknown_kid(ctx):
    refused_token(ctx, "unknown_kid")


def test_token_alg_none(ctx):
    refused_token(ctx, "alg_none")


def test_token_hmac_signed_with_public_key(ctx):
    refused_token(ctx, "hmac_public_key")


def test_token_replayed_from_another_login(ctx):
    refused_token(ctx, "replay_other")


def test_provider_error(ctx):
    server = ctx.server()
    browser, answer, params = begin(server)
    error = server.url(CALLBACK) + "?" + urllib.parse.urlencode(
        {"error": "access_denied", "error_description": "The person said no", "state": params["state"]})
    assert_refused(server, browser.get(error), "alice@example.com")


def test_claims_from_userinfo(ctx):
    """A provider that puts only `sub` (and the protocol claims) in the ID token: the rest comes from userinfo."""
    server, provider = ctx.server(), ctx.provider
    provider.proxy.profile_claims = "userinfo"
    alice = sign_in(server, provider, "alice")
    assert provider.proxy.find("/userinfo"), "the server did not ask userinfo for what the ID token lacks"
    user = alice.me()["user"]
    assert (user["email"], user["displayName"]) == ("alice@example.com", "Alice Example"), user
    assert "mobile-release" in user["groups"], user
    assert has_role(alice.roles(), "admin", None)


def test_userinfo_of_another_subject(ctx):
    server, provider = ctx.server(), ctx.provider
    provider.proxy.profile_claims = "userinfo"
    browser, callback, params = login_to_callback(server, provider, "alice")
    provider.proxy.tamper = "userinfo_other_sub"
    answer = browser.get(callback)
    assert provider.proxy.last("/userinfo") is not None, f"the server did not ask userinfo: {answer}"
    assert provider.proxy.last("/userinfo").tampered == "userinfo_other_sub"
    assert_refused(server, answer)


def test_client_secret_post_when_only_that_is_advertised(ctx):
    with Provider(token_auth_method="client_secret_post") as post_only:
        server = ctx.server(provider=post_only)
        sign_in(server, post_only, "alice")
        token = post_only.proxy.token_requests()[-1]
        assert token.client_auth == "client_secret_post", token.headers
        assert token.form.get("client_secret") == post_only.client_secret and token.form.get("client_id") == CLIENT_ID


def test_bootstrap_admin_binding(ctx):
    server = ctx.server()
    answer = server.admin("GET", "/v1/roleBindings")
    assert answer.status == 200, answer
    bindings = [b for b in answer.json()["roleBindings"] if b["member"] == "user:alice@example.com"]
    assert len(bindings) == 1, answer.json()
    assert bindings[0]["role"] == "admin" and bindings[0].get("project") is None, bindings
    assert bindings[0]["createdBy"].get("bootstrap") is True, bindings


def test_users_listed_after_sign_in(ctx):
    server, provider = ctx.server(), ctx.provider
    alice = sign_in(server, provider, "alice")
    answer = server.admin("GET", "/v1/users")
    assert answer.status == 200, answer
    users = [u for u in answer.json()["users"] if u["name"] == alice.user_name]
    assert len(users) == 1, answer.json()
    user = users[0]
    assert user["email"] == "alice@example.com" and user["displayName"] == "Alice Example", user
    assert "mobile-release" in user["groups"] and user.get("firstSignInTime") and user.get("lastSignInTime"), user
    assert has_role(user["roles"], "admin", None), user
    sessions = server.admin("GET", f"/v1/users/{alice.user_id}/sessions")
    assert sessions.status == 200, sessions


def test_csrf(ctx):
    server, provider = ctx.server(), ctx.provider
    alice = sign_in(server, provider, "alice")
    missing = alice.call("POST", "/v1/projects", {"projectId": "csrf-one"}, csrf=False, origin=False)
    assert missing.status == 403 and "CSRF" in missing.reasons(), missing
    wrong = alice.call("POST", "/v1/projects", {"projectId": "csrf-one"}, csrf="not-the-token")
    assert wrong.status == 403 and "CSRF" in wrong.reasons(), wrong
    evil = alice.call("POST", "/v1/projects", {"projectId": "csrf-one"}, origin="https://evil.example")
    assert evil.status == 403 and "CSRF" in evil.reasons(), evil
    assert server.admin("GET", "/v1/projects/csrf-one").status == 404, "a refused call created the project"
    same_origin = alice.call("POST", "/v1/projects", {"projectId": "csrf-one"})
    assert same_origin.status == 201, same_origin
    no_origin = alice.call("POST", "/v1/projects", {"projectId": "csrf-two"}, origin=False)
    assert no_origin.status == 201, no_origin


def test_sign_out(ctx):
    server, provider = ctx.server(), ctx.provider
    alice = sign_in(server, provider, "alice")
    answer = alice.call("POST", "/console/auth/logout")
    assert 200 <= answer.status < 400, answer
    cookie = answer.cookie("rc_session")
    assert cookie is not None and cleared(cookie), f"the cookie was not cleared: {answer.all('Set-Cookie')}"
    again = server.call("GET", "/v1/me", headers={"Cookie": f"rc_session={alice.cookie}"})
    assert again.status == 401, f"the old cookie after sign-out: {again}"


def test_secure_cookies_under_an_https_public_url(ctx):
    """Behind a proxy that ends TLS the public URL is https://, while the server itself listens on plain HTTP:
    the session cookie, and the one that clears it at sign-out, are `Secure` then."""
    port = free_port()
    public = f"https://127.0.0.1:{port}"
    provider = Provider(redirect_uris=[public + CALLBACK]).start()
    server = Server(ctx.binary, provider, public_scheme="https")
    ctx.servers.append(server)
    try:
        server.start(port=port)
        browser, answer, params = begin(server)
        assert params["redirect_uri"] == public + CALLBACK, params
        callback = provider.login(answer.location, "alice")
        assert callback.startswith(public + CALLBACK + "?"), callback
        # The proxy would have ended TLS: the request reaches the server as plain HTTP.
        landed = browser.get(server.base + callback[len(public):])
        assert landed.status == 302, f"{landed}\n{server.log()[-2000:]}"
        value, attributes = landed.cookie("rc_session")
        assert value and "secure" in attributes and "httponly" in attributes, landed.all("Set-Cookie")
        assert attributes.get("samesite", "").lower() == "lax", landed.all("Set-Cookie")
        me = server.call("GET", "/v1/me", headers={"Cookie": f"rc_session={value}"})
        assert me.status == 200, me
        # A write made with the cookie must come from the public origin, https:// included.
        headers = {"Cookie": f"rc_session={value}", "X-RC-CSRF": me.json()["csrfToken"]}
        refused = server.call("POST", "/console/auth/logout", headers=dict(headers, Origin=server.base))
        assert refused.status == 403 and "CSRF" in refused.reasons(), refused
        ended = server.call("POST", "/console/auth/logout", headers=dict(headers, Origin=public))
        assert 200 <= ended.status < 400, ended
        cleared_cookie = ended.cookie("rc_session")
        assert cleared_cookie and cleared(cleared_cookie) and "secure" in cleared_cookie[1], ended.all("Set-Cookie")
    finally:
        server.stop_process()
        provider.stop()


def test_role_bindings(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    create_project(server, "other")
    alice = sign_in(server, provider, "alice")
    binding = bind(alice, "group:platform", "editor", "shop")
    created = server.admin("GET", "/v1/roleBindings?project=shop").json()["roleBindings"]
    mine = [b for b in created if b["name"] == binding]
    assert mine and mine[0]["createdBy"].get("email") == "alice@example.com", created

    bob = sign_in(server, provider, "bob")
    assert has_role(bob.roles(), "editor", "shop"), bob.roles()
    assert publish(bob, "shop").status == 200
    refused = publish(bob, "other")
    assert refused.status == 403, refused
    deleted = alice.call("DELETE", f"/v1/{binding}")
    assert 200 <= deleted.status < 300, deleted
    after = publish(bob, "shop")
    assert after.status == 403, f"bob's role outlived its binding: {after}"


def test_domain_binding(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    create_project(server, "other")
    alice = sign_in(server, provider, "alice")
    bind(alice, "group:platform", "editor", "shop")
    bind(alice, "domain:example.com", "viewer")

    carol = sign_in(server, provider, "carol")  # example.com, but her email is not verified
    assert carol.roles() == [], carol.roles()
    assert carol.call("GET", "/v1/projects").status == 403
    dave = sign_in(server, provider, "dave")  # another domain
    assert dave.roles() == [], dave.roles()
    assert dave.call("GET", "/v1/projects").status == 403

    bob = sign_in(server, provider, "bob")
    roles = bob.roles()
    assert has_role(roles, "editor", "shop") and has_role(roles, "viewer", None), roles
    assert bob.call("GET", "/v1/projects/other").status == 200
    assert publish(bob, "other").status == 403
    assert publish(bob, "shop").status == 200


def test_group_leaving_the_id_token(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    alice = sign_in(server, provider, "alice")
    bind(alice, "group:platform", "editor", "shop")
    first = sign_in(server, provider, "bob")
    assert publish(first, "shop").status == 200
    provider.set_groups("bob", [])
    second = sign_in(server, provider, "bob")
    assert second.roles() == [], second.roles()
    assert publish(second, "shop").status == 403
    assert publish(first, "shop").status == 403, "the older session kept the group's role"


def test_person_with_no_role(ctx):
    server, provider = ctx.server(), ctx.provider
    dave = sign_in(server, provider, "dave")
    me = dave.me()
    assert me["user"]["email"] == "dave@other.example" and me["roles"] == [], me
    page = dave.call("GET", "/console")
    assert page.status == 200 and "text/html" in (page.header("Content-Type") or ""), page
    assert "alice@example.com" not in page.text, "the console shows the admins' emails"


def test_keys_belong_to_people(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    alice = sign_in(server, provider, "alice")
    binding = bind(alice, "group:platform", "editor", "shop")
    bob = sign_in(server, provider, "bob")
    made = bob.call("POST", "/v1/apiKeys", {"displayName": "bob's laptop", "role": "editor", "project": "shop"})
    assert made.status == 201, made
    key, name = made.json()["key"], made.json()["name"]
    mine = bob.call("GET", "/v1/apiKeys?owner=me")
    assert mine.status == 200, mine
    listed = [k for k in mine.json()["apiKeys"] if k["name"] == name]
    assert listed and listed[0]["owner"] == bob.user_name, mine.json()
    too_high = bob.call("POST", "/v1/apiKeys", {"displayName": "bob admin", "role": "admin", "project": "shop"})
    assert too_high.status == 403, too_high
    assert publish(key_caller(server, key), "shop").status == 200, "bob's key does not work"
    assert 200 <= alice.call("DELETE", f"/v1/{binding}").status < 300
    refused = publish(key_caller(server, key), "shop")
    assert refused.status == 403, f"bob's key kept the role he lost: {refused}"
    every = server.admin("GET", "/v1/apiKeys")
    assert every.status == 200, every
    entry = [k for k in every.json()["apiKeys"] if k["name"] == name]
    assert entry and entry[0]["owner"] == bob.user_name and entry[0].get("lastUsedTime"), every.json()


def test_four_eyes_means_two_people(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    patched = server.admin("PATCH", "/v1/projects/shop", {"requireApproval": True})
    assert patched.status == 200, patched
    alice = sign_in(server, provider, "alice")
    bind(alice, "group:platform", "editor", "shop")
    bob = sign_in(server, provider, "bob")
    changes = "/v1/projects/shop/remoteConfig/changeRequests"
    opened = bob.call("POST", changes, {"description": "bob's change", "template": TEMPLATE})
    assert opened.status == 201, opened
    approve = f"/v1/projects/shop/remoteConfig/{opened.json()['name']}:approve"
    own = bob.call("POST", approve, {"comment": "looks good to me"})
    assert own.status == 403 and "SELF_APPROVAL" in own.reasons(), own
    made = bob.call("POST", "/v1/apiKeys", {"displayName": "bob's CI", "role": "editor", "project": "shop"})
    assert made.status == 201, made
    own_key = bearer(server, "POST", approve, made.json()["key"], {"comment": "my key says yes"})
    assert own_key.status == 403 and "SELF_APPROVAL" in own_key.reasons(), own_key
    approved = alice.call("POST", approve, {"comment": "ok"})
    assert approved.status == 200, approved
    state = server.admin("GET", f"/v1/projects/shop/remoteConfig/{opened.json()['name']}").json()["state"]
    assert state == "APPROVED", state

    # Keys only: the admin token (no owner) makes K1, K1 makes K2, and the admin token makes K3. K1 counts as the
    # admin token's identity and K2 as K1's, so a change request K1 opens can be approved by neither K2 (minted
    # by its author) nor the admin token (which minted its author); K3, a sibling, is another key.
    k1 = server.admin("POST", "/v1/apiKeys", {"displayName": "K1", "role": "admin"})
    assert k1.status == 201, k1
    k1 = k1.json()["key"]
    k2 = bearer(server, "POST", "/v1/apiKeys", k1, {"displayName": "K2", "role": "editor", "project": "shop"})
    assert k2.status == 201, k2
    k2 = k2.json()["key"]
    opened = bearer(server, "POST", changes, k1, {"description": "K1's change", "template": TEMPLATE})
    assert opened.status == 201, opened
    approve = f"/v1/projects/shop/remoteConfig/{opened.json()['name']}:approve"
    by_k2 = bearer(server, "POST", approve, k2, {"comment": "K2 says yes"})
    assert by_k2.status == 403 and "SELF_APPROVAL" in by_k2.reasons(), f"a key K1 made approved K1's change: {by_k2}"
    by_maker = server.admin("POST", approve, {"comment": "the admin token says yes"})
    assert by_maker.status == 403 and "SELF_APPROVAL" in by_maker.reasons(), \
        f"the key that made K1 approved K1's change: {by_maker}"
    k3 = server.admin("POST", "/v1/apiKeys", {"displayName": "K3", "role": "editor", "project": "shop"})
    assert k3.status == 201, k3
    by_sibling = bearer(server, "POST", approve, k3.json()["key"], {"comment": "K3 says yes"})
    assert by_sibling.status == 200, f"a sibling key was refused: {by_sibling}"
    assert alice.call("POST", approve, {"comment": "a person says yes"}).status == 200


def test_who_did_what(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    alice = sign_in(server, provider, "alice")
    bind(alice, "group:platform", "editor", "shop")
    bob = sign_in(server, provider, "bob")
    published = publish(bob, "shop")
    assert published.status == 200, published
    template = server.admin("GET", "/v1/projects/shop/remoteConfig").json()
    assert template["version"]["updateUser"]["email"] == "bob@example.com", template["version"]
    audit = server.admin("GET", "/v1/projects/shop/auditLog")
    assert audit.status == 200, audit
    newest = audit.json()["events"][0]
    assert isinstance(newest["actor"], dict), f"actor should name the person: {newest}"
    assert newest["actor"]["user"] == bob.user_name and newest["actor"]["email"] == "bob@example.com", newest


def test_sessions_revoked_everywhere(ctx):
    provider = ctx.provider
    first = ctx.server()
    with open(os.path.join(first.data_dir, "database-url")) as f:
        database_url = f.read().strip()
    key_file = os.path.join(first.data_dir, "secrets-key")  # replicas sharing a database share the key
    second = ctx.server(database_url=database_url, secrets_key_file=key_file if os.path.exists(key_file) else None)
    alice = sign_in(first, provider, "alice")
    cookie = {"Cookie": f"rc_session={alice.cookie}"}
    there = second.call("GET", "/v1/me", headers=cookie)
    assert there.status == 200 and there.json()["user"]["email"] == "alice@example.com", there
    ended = first.admin("DELETE", f"/v1/users/{alice.user_id}/sessions")
    assert 200 <= ended.status < 300, ended
    since = time.time()
    while True:
        answer = second.call("GET", "/v1/me", headers=cookie)
        if answer.status == 401:
            break
        assert answer.status == 200, answer
        assert time.time() - since < 1.5, "the ended session still works on the other server after a second"
        time.sleep(0.05)
    assert first.call("GET", "/v1/me", headers=cookie).status == 401


def test_key_rotation(ctx):
    server, provider = ctx.server(), ctx.provider
    sign_in(server, provider, "alice")
    # The contract lets the server fetch the JWKS again for an unknown key id at most once a minute: rotate a
    # minute after its last fetch, so that the test does not depend on when the server first fetched it.
    fetches = provider.proxy.find("/.well-known/jwks.json")
    if fetches:
        time.sleep(max(0.0, fetches[-1].time + 61 - time.time()))
    new_kid = provider.rotate_keys()
    again = sign_in(server, provider, "alice")
    delivered = provider.proxy.token_requests()[-1].json()["id_token"]
    header = json.loads(base64.urlsafe_b64decode(delivered.split(".")[0] + "=="))
    assert header["kid"] == new_kid, header
    assert again.email == "alice@example.com"


def poll_device(server, device_code):
    return server.call("POST", "/v1/auth/device:token", {"deviceCode": device_code})


def start_device(server):
    answer = server.call("POST", "/v1/auth/device", {})
    assert 200 <= answer.status < 300, answer
    grant = answer.json()
    for field in ("deviceCode", "userCode", "verificationUri", "verificationUriComplete", "expiresIn", "interval"):
        assert grant.get(field) not in (None, ""), (field, grant)
    return grant


def test_device_flow(ctx):
    server, provider = ctx.server(), ctx.provider
    grant = start_device(server)
    authorization = provider.proxy.last("/device_authorization", "POST")
    assert authorization is not None and authorization.client_auth == "client_secret_basic", authorization
    interval = float(grant["interval"])
    time.sleep(interval)
    pending = poll_device(server, grant["deviceCode"])
    assert pending.status == 428 and "AUTHORIZATION_PENDING" in pending.reasons(), pending
    provider.approve_device(grant["verificationUriComplete"], "alice")
    time.sleep(interval)
    done = poll_device(server, grant["deviceCode"])
    assert done.status == 200, done
    token = done.json()["token"]
    assert token.startswith("rc_user_") and done.json().get("expireTime"), done
    assert done.json()["user"]["email"] == "alice@example.com", done
    me = bearer(server, "GET", "/v1/me", token)
    assert me.status == 200 and me.json()["user"]["email"] == "alice@example.com", me
    time.sleep(interval)
    again = poll_device(server, grant["deviceCode"])
    assert again.status == 400, f"a second poll after success: {again}"


def test_device_flow_slow_down(ctx):
    server = ctx.server()
    grant = start_device(server)
    time.sleep(float(grant["interval"]))
    assert poll_device(server, grant["deviceCode"]).status == 428
    fast = poll_device(server, grant["deviceCode"])
    assert fast.status == 429 and "SLOW_DOWN" in fast.reasons(), fast


def test_device_flow_denied(ctx):
    server, provider = ctx.server(), ctx.provider
    grant = start_device(server)
    provider.approve_device(grant["userCode"], "alice", deny=True)
    time.sleep(float(grant["interval"]))
    denied = poll_device(server, grant["deviceCode"])
    assert denied.status == 400 and "ACCESS_DENIED" in denied.reasons(), denied


def cli_environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RC_") and k not in ("XDG_CONFIG_HOME", "DISPLAY",
                                                                                         "WAYLAND_DISPLAY")}
    return dict(env, HOME=home, BROWSER="true")


def run_cli(binary, arguments, home, timeout=30):
    return subprocess.run([binary, *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          env=cli_environment(home), timeout=timeout)


def test_cli_login(ctx):
    server, provider = ctx.server(), ctx.provider
    home = ctx.temp_dir("rc-sso-home-")
    login = subprocess.Popen([ctx.binary, "login", "--server", server.base], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=cli_environment(home),
                             preexec_fn=_die_with_parent)
    ctx.processes.append(login)
    printed = collections.deque(maxlen=200)
    queue_lines(login.stdout, printed)
    deadline = time.time() + 30
    while provider.proxy.last("/device_authorization", "POST") is None:
        assert login.poll() is None, f"login exited {login.returncode} before asking for a code: {''.join(printed)}"
        assert time.time() < deadline, f"login did not start a device authorization: {''.join(printed)}"
        time.sleep(0.1)
    issued = provider.proxy.last("/device_authorization", "POST").json()
    provider.approve_device(issued["verification_uri_complete"], "alice")
    try:
        status = login.wait(timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"login did not finish after the approval: {''.join(printed)}")
    time.sleep(0.2)  # the drain thread reads what is left
    output = "".join(printed)
    assert status == 0, f"login exited {status}: {output}"
    code = issued["user_code"]
    assert code in output.replace("-", "").upper() or code in output, f"login did not print the code {code}: {output}"
    assert "http" in output, f"login did not print a URL: {output}"
    credentials = os.path.join(home, ".config", "remote-config", "credentials")
    assert os.path.exists(credentials), f"no {credentials}"
    assert stat.S_IMODE(os.stat(credentials).st_mode) == 0o600, oct(os.stat(credentials).st_mode)
    whoami = run_cli(ctx.binary, ["whoami", "--server", server.base], home)
    assert whoami.returncode == 0 and "alice@example.com" in whoami.stdout, whoami
    projects = run_cli(ctx.binary, ["projects", "list", "--server", server.base], home)
    assert projects.returncode == 0, projects
    logout = run_cli(ctx.binary, ["logout", "--server", server.base], home)
    assert logout.returncode == 0, logout
    after = run_cli(ctx.binary, ["whoami", "--server", server.base], home)
    assert after.returncode == 4, f"whoami after logout: {after}"


def test_cli_login_through_a_loopback_redirect(ctx):
    """A provider without a device endpoint: `login` sends the browser to the provider, which redirects to the
    command line's own listener on 127.0.0.1 (RFC 8252); the server exchanges the code with the verifier only
    the command line knows."""
    provider = ctx.provider
    provider.proxy.discovery_overrides["device_authorization_endpoint"] = None
    try:
        server = ctx.server()
    finally:
        del provider.proxy.discovery_overrides["device_authorization_endpoint"]
    assert server.call("POST", "/v1/auth/device", {}).status == 404
    home = ctx.temp_dir("rc-sso-home-")
    login, printed, url = start_loopback_login(ctx, server, home)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    assert query["redirect_uri"][0].startswith("http://127.0.0.1:"), url
    assert query["code_challenge_method"] == ["S256"] and query.get("nonce") and query.get("state"), url
    back = provider.login(url, "alice")
    assert back.startswith(query["redirect_uri"][0]), back
    # The code alone is worth nothing to whoever sees it: the server needs the command line's verifier.
    answer = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)
    stolen = server.call("POST", "/v1/auth/loopback:token",
                         {"code": answer["code"][0], "state": answer["state"][0], "codeVerifier": "x" * 43})
    assert stolen.status == 400, f"a code redeemed without the verifier: {stolen}"
    # That attempt used the state up, so this sign-in cannot finish any more: start a fresh one.
    login.terminate()
    login.wait(timeout=10)
    login, printed, url = start_loopback_login(ctx, server, home)
    page = requests.get(provider.login(url, "alice"), timeout=10)
    assert page.status_code == 200 and "Signed in" in page.text, page.text
    try:
        status = login.wait(timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"login did not finish after the redirect: {''.join(printed)}")
    time.sleep(0.2)
    assert status == 0, f"login exited {status}: {''.join(printed)}"
    whoami = run_cli(ctx.binary, ["whoami", "--server", server.base], home)
    assert whoami.returncode == 0 and "alice@example.com" in whoami.stdout, whoami


def start_loopback_login(ctx, server, home):
    """Runs `login` against a server whose provider has no device endpoint; answers the process, what it has
    printed so far, and the authorization URL it printed."""
    login = subprocess.Popen([ctx.binary, "login", "--server", server.base, "--timeout", "60"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=cli_environment(home), preexec_fn=_die_with_parent)
    ctx.processes.append(login)
    printed = collections.deque(maxlen=200)
    queue_lines(login.stdout, printed)
    deadline = time.time() + 30
    while True:
        for line in list(printed):
            if line.startswith("To sign in, open "):
                return login, printed, line[len("To sign in, open "):].strip()
        assert login.poll() is None, f"login exited {login.returncode}: {''.join(printed)}"
        assert time.time() < deadline, f"login printed no URL: {''.join(printed)}"
        time.sleep(0.1)


def test_start_up_refuses_a_wrong_issuer(ctx):
    provider = ctx.provider
    server = Server(ctx.binary, provider, issuer="http://127.0.0.1:1")
    ctx.unstarted.append(server)
    port = free_port()
    started = time.time()
    process = subprocess.Popen(server.arguments(port), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=server_environment(), text=True,
                               preexec_fn=_die_with_parent)
    ctx.processes.append(process)
    try:
        stdout, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.terminate()
        stdout, stderr = process.communicate(timeout=30)
        raise AssertionError(f"serve with an unreachable issuer still runs after 20 s: {stdout}{stderr}")
    elapsed = time.time() - started
    assert process.returncode != 0, f"serve exited 0: {stdout}{stderr}"
    assert elapsed < 16, f"it took {elapsed:.1f} s to give up"
    naming = [line for line in stderr.splitlines() if "--oidc-issuer" in line]
    assert len(naming) == 1, f"no one line on stderr names --oidc-issuer: {stderr!r}"


TESTS = [test_happy_path, test_next_kept_only_under_console, test_callback_unknown_state, test_callback_reused_state,
         test_callback_replayed_code, test_token_wrong_audience, test_token_expired, test_token_wrong_nonce,
         test_token_wrong_issuer, test_token_wrong_azp, test_token_unknown_kid, test_token_alg_none,
         test_token_hmac_signed_with_public_key, test_token_replayed_from_another_login, test_provider_error,
         test_claims_from_userinfo, test_userinfo_of_another_subject,
         test_client_secret_post_when_only_that_is_advertised, test_bootstrap_admin_binding,
         test_users_listed_after_sign_in, test_csrf, test_sign_out, test_role_bindings, test_domain_binding,
         test_group_leaving_the_id_token, test_person_with_no_role, test_keys_belong_to_people,
         test_four_eyes_means_two_people, test_who_did_what, test_sessions_revoked_everywhere, test_key_rotation,
         test_secure_cookies_under_an_https_public_url,
         test_device_flow, test_device_flow_slow_down, test_device_flow_denied, test_cli_login,
         test_cli_login_through_a_loopback_redirect, test_start_up_refuses_a_wrong_issuer]


class Context:
    """What one test uses; everything it started is stopped after it."""

    def __init__(self, binary, provider):
        self.binary, self.provider = binary, provider
        self.servers, self.unstarted, self.processes, self.folders = [], [], [], []

    def server(self, provider=None, **options):
        server = Server(self.binary, provider or self.provider, **options)
        self.servers.append(server)
        return server.start()

    def temp_dir(self, prefix):
        folder = tempfile.mkdtemp(prefix=prefix)
        self.folders.append(folder)
        return folder

    def logs(self):
        return "\n".join(f"--- server {getattr(s, 'base', '(not started)')}\n{s.log()[-3000:]}" for s in self.servers)

    def cleanup(self):
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        for server in reversed(self.servers):  # a server sharing another's database stops first
            server.stop()
        for server in self.unstarted:
            server.stop()
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("-k", dest="name", help="run only the tests whose name contains this")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    tests = [t for t in TESTS if not arguments.name or arguments.name in t.__name__]
    if not os.access(binary, os.X_OK):
        print(f"no server binary at {binary}", file=sys.stderr)
        print(f"single sign-on: 0 passed, {len(tests)} failed")
        sys.exit(1)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that everything started is stopped
    passed = failed = 0
    provider = Provider().start()
    try:
        for test in tests:
            provider.reset()
            context = Context(binary, provider)
            try:
                test(context)
                assert not provider.proxy.errors, f"the provider harness failed: {provider.proxy.errors}"
                passed += 1
                print(f"✔ {test.__name__}", flush=True)
            except Exception:
                failed += 1
                print(f"✘ {test.__name__}", flush=True)
                traceback.print_exc()
                if context.servers:
                    print(context.logs(), file=sys.stderr)
            finally:
                context.cleanup()
    finally:
        provider.stop()
    print(f"single sign-on: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
