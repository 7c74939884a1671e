"""A real OpenID Connect provider for the single sign-on tests: nanoidp (PyPI, pinned by
scripts/ensure-oidc-provider.sh) behind a tampering proxy that is the issuer the server is configured with.

    from provider import Provider
    with Provider() as provider:              # nanoidp on a free loopback port, the proxy on another
        provider.issuer                       # the proxy's URL: give it to --oidc-issuer
        provider.write_secret_file(folder)    # the client secret, for --oidc-client-secret-file
        callback = provider.login(authorize_url, "alice")   # the URL the browser would be sent to
        provider.proxy.tamper = "wrong_audience"            # the next token answer's id_token is rewritten

What is running
---------------
- nanoidp 3.4.0 (`python -m nanoidp --config DIR`), on 127.0.0.1:<free port>, from a config folder this module
  writes into a temporary folder: `settings.yaml`, `users.yaml`, and `keys/` where nanoidp generates its RSA
  signing key (`rsa_private.pem`, `rsa_public.pem`, `kid.txt`; `previous/` after a rotation).
- Its issuer is set explicitly (`oauth.issuer`) to the proxy's URL, `http://127.0.0.1:<proxy port>`, so the
  discovery document, the `iss` of every token and every endpoint it advertises (`/authorize`, `/token`,
  `/userinfo`, `/device_authorization`, `/.well-known/jwks.json`, `/device`) name the proxy. nanoidp does not
  derive the issuer from the request (`issuer_from_request` stays false), so nothing leaks its own port.
- One confidential client, `remote-config`, with a random secret and `token_endpoint_auth_method:
  client_secret_basic` (nanoidp enforces the registered method: a secret in the body is refused), or
  `client_secret_post` with `Provider(token_auth_method="client_secret_post")`, in which case the proxy also
  makes discovery advertise only `client_secret_post`. Its registered redirect URI is
  `http://127.0.0.1/console/auth/callback`: nanoidp compares redirect URIs exactly except for the port of a
  loopback registration (RFC 8252 section 7.3), so `http://127.0.0.1:<any port>/console/auth/callback` is
  accepted and any other path or host is refused (pass `redirect_uris=[...]` to pin exact ones). PKCE is
  required (`oauth.require_pkce`). The device authorization grant (RFC 8628) is on for every confidential
  client in nanoidp; its polling interval is set to 1 s (`device_flow.polling_interval`) to keep tests short.
- `scopes_supported` advertises `openid profile email groups offline_access` (nanoidp's default plus `groups`).

The people (USERS; password `<name>-password`; `sub` is the nanoidp username):

    alice  alice@example.com   email_verified true   name "Alice Example"  groups ["mobile-release"]
    bob    bob@example.com     email_verified true   name "Bob Example"    groups ["platform"]
    carol  carol@example.com   email_verified FALSE  name "Carol Example"  no groups
    dave   dave@other.example  email_verified true   name "Dave Other"     no groups

What nanoidp emits, and what the proxy adds
-------------------------------------------
Read from nanoidp's source (services/token.py, services/userinfo.py) and checked by provider_selftest.py:
- ID token (RS256, header `kid` = nanoidp's active key, `typ` JWT): `iss`, `sub` (the username), `aud` (the
  client id, a string), `exp`, `iat`, `nbf`, `jti`, `nonce` (when the request had one), `auth_time`,
  `at_hash`, `token_use: "id"`. `azp` only when the client has additional audiences. No `email`, `name` or
  `groups` unless the client asks for them with the OIDC `claims` request parameter.
- userinfo (with the access token): `sub`, `email`, `email_verified` (nanoidp hard-codes true for everyone),
  `preferred_username`, `roles`, `tenant`, `groups` (only when the user has some), `attributes`.
- nanoidp has no `name` claim (only custom `attributes`) and cannot say `email_verified: false`.
So the proxy completes what nanoidp cannot express, as a provider with claim mappers (Keycloak, Okta) does:
in every token-endpoint answer that carries an `id_token`, it sets `email`, `email_verified`, `name` and
`groups` (the groups claim is named `groups`; left out when the person has none, as nanoidp itself does)
from USERS and re-signs the token with nanoidp's own private key under nanoidp's kid; in every userinfo
answer it sets the same four. Everything else nanoidp minted is kept as it was. With
`proxy.profile_claims = "userinfo"` the id_token is passed on exactly as nanoidp minted it (no profile claims
at all, as many providers do) and only userinfo carries them, so a relying party must call userinfo.
`provider.set_groups(user, groups)` changes a person's groups for their next tokens (in USERS and in
nanoidp's users.yaml, reloaded).

The proxy
---------
Forwards every request to nanoidp as it came (method, path, query, body, headers including Host, Cookie and
Authorization) and every answer back as it came (status, headers including Set-Cookie and Location;
redirects are never followed). Every exchange is recorded as an `Exchange` in `proxy.exchanges` (`method`,
`path`, `params` of the query, `form` of an urlencoded body, `headers` with lower-case names, `body`,
`status`, `response_headers`, `upstream_body` as nanoidp answered, `response_body` as delivered,
`tampered`), and `proxy.find(path)` / `proxy.last(path)` pick them out; `Exchange.client_auth` says which
client authentication a token request used (`client_secret_basic`, `client_secret_post` or `none`).

`proxy.tamper = MODE` rewrites the id_token of the NEXT token-endpoint answer that has one (then resets
itself to None):
    wrong_audience   aud "someone-else", re-signed with nanoidp's key and kid
    expired          exp an hour ago, iat (and nbf) two hours ago, re-signed with nanoidp's key
    wrong_nonce      another nonce, re-signed with nanoidp's key
    wrong_issuer     iss "https://issuer.evil.example", re-signed with nanoidp's key
    wrong_azp        aud [client id, "someone-else"], azp "someone-else", re-signed with nanoidp's key
    unknown_kid      signed with a fresh RSA key under kid "unknown-kid" (in no JWKS)
    alg_none         header alg "none" (nanoidp's kid kept), empty signature
    hmac_public_key  header alg "HS256" (nanoidp's kid kept), HMAC-SHA256 keyed with the bytes of nanoidp's
                     public key PEM (rsa_public.pem, as published): the RS256/HS256 key-confusion attack
    replay_other     replaced by an id_token delivered for an earlier successful login (another nonce),
                     untouched: validly signed, right audience, not expired
and one mode for the next userinfo answer instead:
    userinfo_other_sub   userinfo's `sub` is another person's (bob's, or alice's for bob)

Acting as the person in the browser
-----------------------------------
`login(authorize_url, user)`: GETs the authorization URL (following redirects only while they stay at the
provider), submits nanoidp's login form (fields `username`, `password`, and the hidden `transaction_id`
bound to nanoidp's session cookie) and returns the absolute URL nanoidp redirects to (the callback, with
`code` and `state`, or with `error`), without calling it. `approve_device(verification_uri_complete or
user_code, user, deny=False)`: signs in on nanoidp's `/device` page and authorizes (or denies).
`rotate_keys()`: nanoidp's `POST /api/keys/rotate` while it runs: it signs with a new key at once and
publishes old and new in its JWKS (keeping up to two previous keys); returns the new kid.

The API, in short
-----------------
    Provider(token_auth_method="client_secret_basic"|"client_secret_post", redirect_uris=None)
      .start() / .stop() / with Provider() as p     .reset()  (between tests)
      .issuer  .client_id  .client_secret  .write_secret_file(folder) -> path  .discovery
      .users {username: Person(username, email, email_verified, name, groups, password)}  .person(name or email)
      .login(authorize_url, user, password=None) -> callback URL     (raises ProviderError)
      .approve_device(verification_uri_complete or user_code, user, deny=False, password=None)
      .rotate_keys() -> new kid   .signing_key() -> (kid, private PEM, public PEM)   .sign(claims)   .jwks()
      .set_groups(user, groups)   .log_tail()
      .proxy: .tamper (TAMPER_MODES + USERINFO_TAMPER_MODES)  .profile_claims ("id_token" | "userinfo")
              .exchanges  .find(path, method)  .last(path, method)  .token_requests()  .authorize_requests()
              .captured_id_tokens  .errors (harness failures; a test should assert it is empty)

Processes: nanoidp runs in its own session with PR_SET_PDEATHSIG, so it dies with the test process; `stop()`
(also at exit, and on leaving a `with` block) terminates it, waits at most 5 s, then kills it.
"""
import atexit, base64, ctypes, hashlib, hmac, html.parser, json, os, secrets, shutil, signal, socket, subprocess
import sys, tempfile, threading, time, urllib.parse
import http.client, http.server

import jwt  # PyJWT, which nanoidp depends on
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

CLIENT_ID = "remote-config"
CALLBACK_PATH = "/console/auth/callback"


class Person:
    def __init__(self, username, email, email_verified, name, groups):
        self.username, self.email, self.email_verified, self.name = username, email, email_verified, name
        self.groups = list(groups)
        self.password = f"{username}-password"

    def __repr__(self):
        return f"Person({self.username!r})"


def _people():
    return {
        "alice": Person("alice", "alice@example.com", True, "Alice Example", ["mobile-release"]),
        "bob": Person("bob", "bob@example.com", True, "Bob Example", ["platform"]),
        "carol": Person("carol", "carol@example.com", False, "Carol Example", []),
        "dave": Person("dave", "dave@other.example", True, "Dave Other", []),
    }


USERS = _people()  # the defaults; each Provider has its own copy in provider.users

TAMPER_MODES = ("wrong_audience", "expired", "wrong_nonce", "wrong_issuer", "wrong_azp", "unknown_kid",
                "alg_none", "hmac_public_key", "replay_other")
USERINFO_TAMPER_MODES = ("userinfo_other_sub",)

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
               "transfer-encoding", "upgrade", "content-length"}


class ProviderError(Exception):
    """The provider did not do what a step needed (a login refused, a page without its form, no start)."""


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_json(value):
    return _b64url(json.dumps(value, separators=(",", ":")).encode())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    """preexec_fn: SIGTERM this child when the process that started it ends (Linux), so no orphan survives a
    killed test run."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Exchange:
    """One request through the proxy and its answer."""

    def __init__(self, method, target, headers, body):
        self.time = time.time()
        self.method = method
        split = urllib.parse.urlsplit(target)
        self.path = split.path
        self.query = split.query
        self.params = {k: v[0] for k, v in urllib.parse.parse_qs(split.query, keep_blank_values=True).items()}
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body
        self.form = {}
        if "application/x-www-form-urlencoded" in self.headers.get("content-type", ""):
            self.form = {k: v[0] for k, v in
                         urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        self.status = None
        self.response_headers = []
        self.upstream_body = b""
        self.response_body = b""
        self.tampered = None

    @property
    def client_auth(self):
        """How a token-endpoint request authenticated the client."""
        if self.headers.get("authorization", "").lower().startswith("basic "):
            return "client_secret_basic"
        if "client_secret" in self.form:
            return "client_secret_post"
        return "none"

    def basic_credentials(self):
        """(client id, secret) from an Authorization: Basic header, or None."""
        value = self.headers.get("authorization", "")
        if not value.lower().startswith("basic "):
            return None
        user, _, password = base64.b64decode(value[6:]).decode().partition(":")
        return urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password)

    def json(self):
        return json.loads(self.response_body)

    def upstream_json(self):
        return json.loads(self.upstream_body)

    def __repr__(self):
        return f"<{self.method} {self.path} -> {self.status}{' tampered ' + self.tampered if self.tampered else ''}>"


class Proxy:
    """The issuer the server sees: a transparent forwarder to nanoidp that records and can tamper."""

    def __init__(self, provider):
        self.provider = provider
        self.lock = threading.Lock()
        self.exchanges = []
        self._tamper = None
        self.profile_claims = "id_token"  # or "userinfo"
        self.discovery_overrides = {}
        self.captured_id_tokens = []  # (nonce, id_token) delivered for logins that were not tampered with
        self.errors = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self):
                proxy._handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def tamper(self):
        """The tamper mode waiting for its answer, or None once it has been applied."""
        return self._tamper

    @tamper.setter
    def tamper(self, mode):
        if mode is not None and mode not in TAMPER_MODES + USERINFO_TAMPER_MODES:
            raise ValueError(f"unknown tamper mode {mode!r}; known: {', '.join(TAMPER_MODES + USERINFO_TAMPER_MODES)}")
        with self.lock:
            self._tamper = mode

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def reset(self):
        with self.lock:
            self.exchanges.clear()
            self._tamper = None
            self.profile_claims = "id_token"
            self.errors.clear()

    # Looking at what went through.

    def find(self, path=None, method=None, since=0.0):
        with self.lock:
            return [e for e in self.exchanges
                    if (path is None or e.path == path) and (method is None or e.method == method)
                    and e.time >= since]

    def last(self, path, method=None):
        found = self.find(path, method)
        return found[-1] if found else None

    def authorize_requests(self):
        return self.find("/authorize", "GET")

    def token_requests(self):
        return self.find("/token", "POST")

    # Forwarding.

    def _handle(self, handler):
        if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
            body = self._read_chunked(handler.rfile)
        else:
            length = int(handler.headers.get("Content-Length") or 0)
            body = handler.rfile.read(length) if length else b""
        headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in _HOP_BY_HOP]
        exchange = Exchange(handler.command, handler.path, headers, body)
        try:
            upstream = http.client.HTTPConnection("127.0.0.1", self.provider.nanoidp_port, timeout=30)
            upstream.putrequest(handler.command, handler.path, skip_host=True, skip_accept_encoding=True)
            for k, v in headers:
                upstream.putheader(k, v)
            if body or handler.command in ("POST", "PUT", "PATCH"):
                upstream.putheader("Content-Length", str(len(body)))
            upstream.endheaders(body or None)
            answer = upstream.getresponse()
            status, reason = answer.status, answer.reason
            answer_headers = [(k, v) for k, v in answer.getheaders() if k.lower() not in _HOP_BY_HOP]
            upstream_body = answer.read() if handler.command != "HEAD" else b""
            upstream.close()
        except Exception as error:
            status, reason, answer_headers = 502, "Bad Gateway", [("Content-Type", "text/plain")]
            upstream_body = f"proxy: nanoidp did not answer: {error}".encode()
        exchange.status = status
        exchange.response_headers = answer_headers
        exchange.upstream_body = upstream_body
        try:
            delivered = self._rewrite(exchange, upstream_body)
        except Exception as error:  # a harness bug: say so, deliver what nanoidp said
            self.errors.append(f"{exchange.method} {exchange.path}: {error!r}")
            delivered = upstream_body
        exchange.response_body = delivered
        with self.lock:
            self.exchanges.append(exchange)
        handler.send_response_only(status, reason)
        for k, v in answer_headers:
            handler.send_header(k, v)
        handler.send_header("Content-Length", str(len(delivered)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(delivered)

    @staticmethod
    def _read_chunked(stream):
        body = b""
        while True:
            size = int(stream.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while stream.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return body
            body += stream.read(size)
            stream.readline()

    def _rewrite(self, exchange, body):
        if exchange.status != 200 or not body:
            return body
        if exchange.path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
            if not self.discovery_overrides:
                return body
            document = json.loads(body)
            document.update(self.discovery_overrides)
            return json.dumps(document).encode()
        if exchange.path == "/token" and exchange.method == "POST":
            answer = json.loads(body)
            if "id_token" not in answer:
                return body
            answer["id_token"], exchange.tampered = self._id_token(answer["id_token"])
            return json.dumps(answer).encode()
        if exchange.path == "/userinfo":
            info = json.loads(body)
            person = self.provider.users.get(info.get("sub"))
            if person is not None:
                info.update(self.provider.profile_claims_of(person))
            with self.lock:
                mode = self._tamper if self._tamper in USERINFO_TAMPER_MODES else None
                if mode:
                    self._tamper = None
            if mode == "userinfo_other_sub":
                info["sub"] = "bob" if info.get("sub") != "bob" else "alice"
                exchange.tampered = mode
            return json.dumps(info).encode()
        return body

    def _id_token(self, token):
        """The id_token to deliver for one that nanoidp minted: with the profile claims, and tampered with
        when a mode is set. Returns (token, mode or None)."""
        claims = jwt.decode(token, options={"verify_signature": False})
        person = self.provider.users.get(claims.get("sub"))
        shaped = token
        if self.profile_claims == "id_token" and person is not None:
            claims.update(self.provider.profile_claims_of(person))
            shaped = self.provider.sign(claims)
        with self.lock:
            mode = self._tamper if self._tamper in TAMPER_MODES else None
            if mode:
                self._tamper = None
            earlier = [t for n, t in self.captured_id_tokens if n != claims.get("nonce")]
            if mode is None and claims.get("nonce"):
                self.captured_id_tokens.append((claims.get("nonce"), shaped))
        if mode is None:
            return shaped, None
        now = int(time.time())
        provider = self.provider
        if mode == "wrong_audience":
            return provider.sign(dict(claims, aud="someone-else")), mode
        if mode == "expired":
            return provider.sign(dict(claims, exp=now - 3600, iat=now - 7200, nbf=now - 7200,
                                      auth_time=now - 7200)), mode
        if mode == "wrong_nonce":
            return provider.sign(dict(claims, nonce=secrets.token_urlsafe(16))), mode
        if mode == "wrong_issuer":
            return provider.sign(dict(claims, iss="https://issuer.evil.example")), mode
        if mode == "wrong_azp":
            return provider.sign(dict(claims, aud=[CLIENT_ID, "someone-else"], azp="someone-else")), mode
        if mode == "unknown_kid":
            stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pem = stranger.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption())
            return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": "unknown-kid", "typ": "JWT"}), mode
        if mode == "alg_none":
            header = {"alg": "none", "typ": "JWT", "kid": provider.signing_key()[0]}
            return f"{_b64url_json(header)}.{_b64url_json(claims)}.", mode
        if mode == "hmac_public_key":
            kid, _, public_pem = provider.signing_key()
            header = {"alg": "HS256", "typ": "JWT", "kid": kid}
            signing_input = f"{_b64url_json(header)}.{_b64url_json(claims)}"
            mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
            return f"{signing_input}.{_b64url(mac)}", mode
        if mode == "replay_other":
            if not earlier:
                self.errors.append("replay_other: no id_token of an earlier login to replay; delivered as is")
                return shaped, None
            return earlier[-1], mode
        raise ValueError(f"unknown tamper mode {mode!r}")


class _Forms(html.parser.HTMLParser):
    """The forms of a page: [{"action", "method", "fields": {name: value}, "names": set}] and alert texts."""

    def __init__(self):
        super().__init__()
        self.forms, self.alerts, self._alert_depth, self._text = [], [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action") or "", "method": (attrs.get("method") or "GET").upper(),
                               "fields": {}, "names": set()})
        elif tag in ("input", "button", "textarea", "select") and self.forms and attrs.get("name"):
            form = self.forms[-1]
            form["names"].add(attrs["name"])
            if tag == "input" and attrs.get("type", "text") in ("hidden", "text") and attrs.get("value"):
                form["fields"][attrs["name"]] = attrs["value"]
        if tag == "div" and "alert" in (attrs.get("class") or "").split():
            self._alert_depth, self._text = 1, []
        elif tag == "div" and self._alert_depth:
            self._alert_depth += 1

    def handle_endtag(self, tag):
        if tag == "div" and self._alert_depth:
            self._alert_depth -= 1
            if not self._alert_depth:
                self.alerts.append(" ".join(" ".join(self._text).split()))

    def handle_data(self, data):
        if self._alert_depth:
            self._text.append(data)


def _page(text):
    parser = _Forms()
    parser.feed(text)
    return parser


class Provider:
    """nanoidp behind the tampering proxy (see the module docstring)."""

    def __init__(self, token_auth_method="client_secret_basic", redirect_uris=None, log=None):
        self.token_auth_method = token_auth_method
        # The console's callback, and the command line's loopback listener (`remote-config login` without a
        # device endpoint); nanoidp takes any port on a loopback registration (RFC 8252).
        self.redirect_uris = redirect_uris or [f"http://127.0.0.1{CALLBACK_PATH}", "http://127.0.0.1/callback"]
        self.users = _people()
        self.client_id = CLIENT_ID
        self.client_secret = "rc-" + secrets.token_urlsafe(24)
        self.folder = tempfile.mkdtemp(prefix="rc-oidc-")
        self.config_dir = os.path.join(self.folder, "config")
        self.keys_dir = os.path.join(self.config_dir, "keys")
        self.log_path = log or os.path.join(self.folder, "nanoidp.log")
        self.process = None
        self.nanoidp_port = None
        self.proxy = Proxy(self)
        self.issuer = self.proxy.url
        if token_auth_method == "client_secret_post":
            self.proxy.discovery_overrides["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
        self._stopped = False

    # Life.

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def start(self, timeout=30):
        self.proxy.start()
        self._write_config()
        atexit.register(self.stop)
        last_error = None
        for _ in range(3):  # a free port may be taken between choosing and binding it
            self.nanoidp_port = free_port()
            self._write_settings()
            try:
                self._launch(timeout)
                break
            except ProviderError as error:
                last_error = error
        else:
            self.stop()
            raise last_error
        discovery = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=10).json()
        if discovery.get("issuer") != self.issuer:
            self.stop()
            raise ProviderError(f"nanoidp advertises issuer {discovery.get('issuer')!r}, not {self.issuer!r}")
        self.discovery = discovery
        return self

    def _launch(self, timeout):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "nanoidp", "--config", self.config_dir, "--host", "127.0.0.1",
             "--port", str(self.nanoidp_port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=self.folder,
            start_new_session=True, preexec_fn=_die_with_parent, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        log.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise ProviderError(f"nanoidp exited with {self.process.returncode}: {self.log_tail()}")
            try:
                answer = requests.get(f"{self.nanoidp_url}/.well-known/openid-configuration", timeout=2)
                if answer.status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self._end_process()
        raise ProviderError(f"nanoidp did not answer discovery within {timeout} s: {self.log_tail()}")

    def stop(self):
        if self._stopped:
            return
        self._stopped = True
        self._end_process()
        try:
            self.proxy.stop()
        except Exception:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def _end_process(self):
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=5)

    def reset(self):
        """Between tests: no tamper mode, no records, profile claims in the id_token, default groups."""
        self.proxy.reset()
        changed = any(self.users[n].groups != USERS[n].groups for n in USERS)
        if changed:
            for name, person in USERS.items():
                self.users[name].groups = list(person.groups)
            self._write_users()
            self._reload()

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    @property
    def nanoidp_url(self):
        return f"http://127.0.0.1:{self.nanoidp_port}"

    @property
    def authorization_endpoint(self):
        return self.discovery["authorization_endpoint"]

    @property
    def token_endpoint(self):
        return self.discovery["token_endpoint"]

    # Configuration.

    def _write_config(self):
        os.makedirs(self.keys_dir, exist_ok=True)
        self._write_users()

    def _write_users(self):
        lines = ["config_version: 1", "users:"]
        for person in self.users.values():
            lines += [f"  {person.username}:",
                      f"    password: {json.dumps(person.password)}",
                      f"    email: {json.dumps(person.email)}",
                      f"    groups: {json.dumps(person.groups)}",
                      f"    attributes:",
                      f"      name: {json.dumps(person.name)}"]
        self._atomic_write("users.yaml", "\n".join(lines) + "\n")

    def _write_settings(self):
        settings = f"""config_version: 1
server:
  host: "127.0.0.1"
  port: {self.nanoidp_port}
oauth:
  issuer: {json.dumps(self.issuer)}
  audience: "nanoidp-resources"
  require_pkce: true
  token_expiry_minutes: 60
  scopes_supported: ["openid", "profile", "email", "groups", "offline_access"]
  clients:
    - client_id: {json.dumps(self.client_id)}
      client_secret: {json.dumps(self.client_secret)}
      description: "remote-config under test"
      redirect_uris: {json.dumps(self.redirect_uris)}
      token_endpoint_auth_method: {json.dumps(self.token_auth_method)}
device_flow:
  code_expiry_seconds: 600
  polling_interval: 1
jwt:
  keys_dir: {json.dumps(self.keys_dir)}
session:
  secret_key: {json.dumps(secrets.token_hex(32))}
logging:
  level: "WARNING"
  log_token_requests: false
  log_saml_requests: false
  verbose_logging: false
"""
        self._atomic_write("settings.yaml", settings)

    def _atomic_write(self, name, text):
        path = os.path.join(self.config_dir, name)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)

    def _reload(self):
        answer = requests.post(f"{self.nanoidp_url}/api/config/reload", timeout=10)
        if answer.status_code != 200:
            raise ProviderError(f"nanoidp refused to reload its configuration: {answer.status_code} {answer.text}")

    def write_secret_file(self, folder):
        """The client secret in a file of its own (mode 0600) in `folder`; returns its path."""
        path = os.path.join(folder, "oidc-client-secret")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.client_secret + "\n")
        return path

    def set_groups(self, user, groups):
        """The person's groups from their next token on (nanoidp's users.yaml, reloaded, and the claims)."""
        self.person(user).groups = list(groups)
        self._write_users()
        self._reload()

    def person(self, user):
        if isinstance(user, Person):
            return user
        for person in self.users.values():
            if user in (person.username, person.email):
                return person
        raise KeyError(f"no such person at the provider: {user!r}")

    def profile_claims_of(self, person):
        claims = {"email": person.email, "email_verified": person.email_verified, "name": person.name}
        if person.groups:
            claims["groups"] = list(person.groups)
        return claims

    # Keys.

    def signing_key(self):
        """(kid, private key PEM, public key PEM) nanoidp signs with now, read from its keys folder."""
        for _ in range(50):
            try:
                with open(os.path.join(self.keys_dir, "kid.txt")) as f:
                    kid = f.read().strip()
                with open(os.path.join(self.keys_dir, "rsa_private.pem"), "rb") as f:
                    private_pem = f.read()
                with open(os.path.join(self.keys_dir, "rsa_public.pem"), "rb") as f:
                    public_pem = f.read()
                if kid and private_pem and public_pem:
                    return kid, private_pem, public_pem
            except OSError:
                pass
            time.sleep(0.05)
        raise ProviderError("nanoidp's signing key could not be read from " + self.keys_dir)

    def public_key_pem(self):
        return self.signing_key()[2]

    def sign(self, claims):
        """`claims` as an RS256 JWT signed with nanoidp's own active key, under its kid."""
        kid, private_pem, _ = self.signing_key()
        return jwt.encode(claims, private_pem, algorithm="RS256", headers={"kid": kid, "typ": "JWT"})

    def jwks(self):
        return requests.get(f"{self.nanoidp_url}/.well-known/jwks.json", timeout=10).json()

    def rotate_keys(self, timeout=10):
        """nanoidp signs with a new key from now on and publishes it (with the previous ones) in its JWKS,
        without a restart. Returns the new kid."""
        answer = requests.post(f"{self.nanoidp_url}/api/keys/rotate", timeout=timeout)
        if answer.status_code != 200 or not answer.json().get("success"):
            raise ProviderError(f"nanoidp did not rotate its keys: {answer.status_code} {answer.text}")
        new_kid = answer.json()["new_kid"]
        deadline = time.time() + timeout
        while time.time() < deadline:
            if new_kid in [k.get("kid") for k in self.jwks().get("keys", [])] and self.signing_key()[0] == new_kid:
                return new_kid
            time.sleep(0.1)
        raise ProviderError(f"the new key {new_kid} did not show in nanoidp's JWKS and keys folder")

    # The person in the browser.

    def _at_provider(self, url):
        netloc = urllib.parse.urlsplit(url).netloc
        return netloc in (urllib.parse.urlsplit(self.issuer).netloc, f"127.0.0.1:{self.nanoidp_port}")

    def login(self, authorize_url, user, password=None, timeout=10):
        """Signs in at nanoidp's login page as `user` (a username or an email) for this authorization
        request; returns the absolute URL nanoidp sends the browser back to (the redirect URI with `code`
        and `state`, or with `error`), without calling it. Raises ProviderError when nanoidp keeps the
        browser on its page (wrong password, invalid request)."""
        person = self.person(user)
        browser = requests.Session()
        url = authorize_url
        answer = browser.get(url, allow_redirects=False, timeout=timeout)
        for _ in range(10):
            if answer.status_code not in (301, 302, 303, 307, 308):
                break
            location = urllib.parse.urljoin(url, answer.headers["Location"])
            if not self._at_provider(location):
                return location  # nanoidp answered at once (an error redirect)
            url = location
            answer = browser.get(url, allow_redirects=False, timeout=timeout)
        if answer.status_code != 200:
            raise ProviderError(f"the authorization request answered {answer.status_code}: {answer.text[:300]}")
        page = _page(answer.text)
        forms = [f for f in page.forms if "password" in f["names"] and "username" in f["names"]]
        if not forms:
            raise ProviderError(f"nanoidp's page has no login form: {' '.join(page.alerts) or answer.text[:300]}")
        form = forms[0]
        data = dict(form["fields"], username=person.username,
                    password=person.password if password is None else password)
        target = urllib.parse.urljoin(url, form["action"]) if form["action"] else url
        answer = browser.post(target, data=data, allow_redirects=False, timeout=timeout)
        if answer.status_code in (302, 303) and "Location" in answer.headers:
            return urllib.parse.urljoin(target, answer.headers["Location"])
        alerts = _page(answer.text).alerts
        raise ProviderError(f"nanoidp did not sign {person.username} in ({answer.status_code}): "
                            f"{' '.join(alerts) or answer.text[:300]}")

    def approve_device(self, verification, user, deny=False, password=None, timeout=10):
        """Signs in at nanoidp's device page as `user` and authorizes (or, with deny, denies) the device
        whose user code is `verification` (a user code, or the verification_uri_complete URL)."""
        person = self.person(user)
        browser = requests.Session()
        if "://" in verification:
            url = verification
            user_code = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).get("user_code", [""])[0]
        else:
            url = f"{self.issuer}/device?user_code={urllib.parse.quote(verification)}"
            user_code = verification
        answer = browser.get(url, allow_redirects=False, timeout=timeout)
        if answer.status_code != 200:
            raise ProviderError(f"the device page answered {answer.status_code}: {answer.text[:300]}")
        page = _page(answer.text)
        forms = [f for f in page.forms if "user_code" in f["names"] and "password" in f["names"]]
        if not forms:
            raise ProviderError("nanoidp's device page has no sign-in form")
        data = dict(forms[0]["fields"], user_code=forms[0]["fields"].get("user_code") or user_code,
                    username=person.username, password=person.password if password is None else password,
                    action="deny" if deny else "authorize")
        target = urllib.parse.urljoin(url, forms[0]["action"]) if forms[0]["action"] else url
        answer = browser.post(target, data=data, allow_redirects=False, timeout=timeout)
        wanted = 'class="decision-message decision-' + ("denied" if deny else "authorized") + '"'
        if answer.status_code == 200 and wanted in answer.text:
            return True
        alerts = _page(answer.text).alerts
        raise ProviderError(f"nanoidp did not record the decision for {user_code} ({answer.status_code}): "
                            f"{' '.join(alerts) or answer.text[:300]}")
