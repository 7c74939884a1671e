#!/usr/bin/env python3
"""Proves the OpenID provider harness (provider.py) before any server test relies on it: a minimal relying
party written here (requests and PyJWT) signs in through the tampering proxy and checks what it gets.

    "$OIDC_PYTHON" server/Tests/OIDC/provider_selftest.py [-k NAME]

Covers: discovery names the proxy; a full authorization code + PKCE login as alice whose id_token verifies
against the JWKS and carries email, email_verified, name and groups; what went through the proxy was
recorded and passed on untouched (Set-Cookie, redirects not followed); nanoidp enforces PKCE, single use of
codes and the registered redirect URI; every tamper mode yields a token that is refused for the intended
reason (and alg_none / hmac_public_key tokens are what they claim to be); carol's email_verified is false;
claims only in userinfo; changing a person's groups; the device flow (approve and deny); a key rotation
while nanoidp runs; client_secret_post; and that stop() leaves no process or port behind. Ends with
"N passed, M failed" (exit 1 on any failure).
"""
import argparse, base64, hashlib, hmac, os, secrets, socket, sys, time, traceback, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import jwt  # noqa: E402
import requests  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from provider import CLIENT_ID, TAMPER_MODES, Provider, ProviderError  # noqa: E402

REDIRECT_URI = "http://127.0.0.1:5555/console/auth/callback"  # never called: the RP reads the code off it


class Rejected(Exception):
    """The relying party refused a token; `reason` says which check."""

    def __init__(self, reason, detail=""):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class RelyingParty:
    """What a careful OIDC client does, in a few lines."""

    def __init__(self, provider, redirect_uri=REDIRECT_URI):
        self.provider = provider
        self.redirect_uri = redirect_uri
        self.discovery = requests.get(provider.issuer + "/.well-known/openid-configuration", timeout=10).json()
        self.issuer = self.discovery["issuer"]

    def authorize_url(self, **extra):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        request = dict(response_type="code", client_id=CLIENT_ID, redirect_uri=self.redirect_uri,
                       scope="openid email profile groups", state=secrets.token_urlsafe(16),
                       nonce=secrets.token_urlsafe(16), code_challenge=challenge, code_challenge_method="S256")
        request.update(extra)
        request = {k: v for k, v in request.items() if v is not None}
        return self.discovery["authorization_endpoint"] + "?" + urllib.parse.urlencode(request), request, verifier

    def exchange(self, code, verifier, auth="basic", secret=None):
        secret = self.provider.client_secret if secret is None else secret
        form = dict(grant_type="authorization_code", code=code, redirect_uri=self.redirect_uri)
        if verifier is not None:
            form["code_verifier"] = verifier
        if auth == "basic":
            return requests.post(self.discovery["token_endpoint"], data=form, auth=(CLIENT_ID, secret), timeout=10)
        return requests.post(self.discovery["token_endpoint"], data=dict(form, client_id=CLIENT_ID,
                                                                         client_secret=secret), timeout=10)

    def sign_in(self, user, auth="basic"):
        """Login and code exchange; returns (token answer, the authorization request)."""
        url, request, verifier = self.authorize_url()
        callback = self.provider.login(url, user)
        answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        assert callback.startswith(self.redirect_uri + "?"), callback
        assert answer.get("state") == request["state"] and answer.get("code"), callback
        tokens = self.exchange(answer["code"], verifier, auth=auth)
        assert tokens.status_code == 200, (tokens.status_code, tokens.text)
        return tokens.json(), request

    def jwks(self):
        return requests.get(self.discovery["jwks_uri"], timeout=10).json()

    def key_for(self, kid):
        for key in self.jwks()["keys"]:
            if key.get("kid") == kid:
                return key
        raise Rejected("kid", f"no key {kid!r} in the provider's JWKS")

    def verify(self, id_token, nonce=None):
        """The checks of OIDC Core 3.1.3.7 that matter here; raises a PyJWT error or Rejected."""
        header = jwt.get_unverified_header(id_token)
        jwk = self.key_for(header.get("kid"))
        algorithm = jwk.get("alg", "RS256")  # the algorithm the key declares, never the token's say-so
        claims = jwt.decode(id_token, jwt.PyJWK(jwk).key, algorithms=[algorithm], audience=CLIENT_ID,
                            issuer=self.issuer, leeway=60, options={"require": ["exp", "iat", "iss", "aud", "sub"]})
        if "azp" in claims and claims["azp"] != CLIENT_ID:
            raise Rejected("azp", claims["azp"])
        if nonce is not None and claims.get("nonce") != nonce:
            raise Rejected("nonce", f"{claims.get('nonce')!r} is not the nonce sent")
        return claims

    def userinfo(self, access_token):
        answer = requests.get(self.discovery["userinfo_endpoint"],
                              headers={"Authorization": f"Bearer {access_token}"}, timeout=10)
        assert answer.status_code == 200, (answer.status_code, answer.text)
        return answer.json()


def unverified(token):
    return jwt.decode(token, options={"verify_signature": False})


def refused(call, error):
    """`call()` raises `error` (a class, or a Rejected reason); returns the exception."""
    try:
        call()
    except Exception as raised:
        if isinstance(error, str):
            assert isinstance(raised, Rejected) and raised.reason == error, f"refused for another reason: {raised!r}"
        else:
            assert isinstance(raised, error), f"refused with {raised!r}, not {error.__name__}"
        return raised
    raise AssertionError(f"accepted, where {error} was wanted")


# The tests. Each takes the shared provider and relying party.

def test_discovery_names_the_proxy(provider, rp):
    d = rp.discovery
    assert d["issuer"] == provider.issuer == provider.proxy.url, d["issuer"]
    for name in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri",
                 "device_authorization_endpoint"):
        assert d[name].startswith(provider.issuer + "/"), (name, d[name])
    assert "client_secret_basic" in d["token_endpoint_auth_methods_supported"], d
    assert "S256" in d["code_challenge_methods_supported"], d
    assert {"openid", "email", "profile", "groups"} <= set(d["scopes_supported"]), d["scopes_supported"]
    assert provider.nanoidp_port != provider.proxy.port


def test_code_pkce_login_as_alice(provider, rp):
    tokens, request = rp.sign_in("alice")
    claims = rp.verify(tokens["id_token"], nonce=request["nonce"])
    assert claims["sub"] == "alice" and claims["aud"] == CLIENT_ID and claims["iss"] == provider.issuer, claims
    assert claims["email"] == "alice@example.com" and claims["email_verified"] is True, claims
    assert claims["name"] == "Alice Example" and claims["groups"] == ["mobile-release"], claims
    info = rp.userinfo(tokens["access_token"])
    assert info["sub"] == claims["sub"], info
    assert (info["email"], info["email_verified"], info["name"], info["groups"]) == \
        ("alice@example.com", True, "Alice Example", ["mobile-release"]), info

    # What went through the proxy, recorded.
    authorize = provider.proxy.authorize_requests()[-1]
    assert authorize.params["code_challenge_method"] == "S256", authorize.params
    for name in ("code_challenge", "nonce", "state", "redirect_uri", "scope"):
        assert authorize.params[name] == request[name], (name, authorize.params)
    assert any(k.lower() == "set-cookie" for k, _ in authorize.response_headers), "nanoidp's cookie was not passed on"
    posted = provider.proxy.find("/authorize", "POST")[-1]
    assert posted.status == 302 and dict(posted.response_headers)["Location"].startswith(REDIRECT_URI), posted
    assert "cookie" in posted.headers, "the browser's cookie did not reach nanoidp"
    token = provider.proxy.token_requests()[-1]
    assert token.client_auth == "client_secret_basic", token.headers
    assert token.basic_credentials() == (CLIENT_ID, provider.client_secret)
    verifier = token.form["code_verifier"]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert challenge == request["code_challenge"], "the recorded code_verifier does not match the challenge"
    assert token.form["grant_type"] == "authorization_code" and "client_secret" not in token.form, token.form
    assert token.tampered is None

    # What nanoidp itself minted (documented in provider.py): RS256 under its kid, no profile claims.
    raw = token.upstream_json()["id_token"]
    header = jwt.get_unverified_header(raw)
    assert header["alg"] == "RS256" and header["kid"] == provider.signing_key()[0], header
    raw_claims = unverified(raw)
    assert set(raw_claims) == {"iss", "sub", "aud", "exp", "iat", "nbf", "jti", "nonce", "auth_time", "at_hash",
                               "token_use"}, sorted(raw_claims)
    raw_info = provider.proxy.last("/userinfo").upstream_json()
    assert raw_info["email_verified"] is True and "name" not in raw_info, raw_info
    assert raw_info["groups"] == ["mobile-release"], raw_info
    # The delivered token is nanoidp's with the profile claims added, re-signed under the same kid.
    assert jwt.get_unverified_header(tokens["id_token"])["kid"] == header["kid"]
    assert {k: v for k, v in claims.items() if k not in ("email", "email_verified", "name", "groups")} == raw_claims


def test_pkce_is_enforced(provider, rp):
    url, request, verifier = rp.authorize_url()
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(provider.login(url, "alice")).query))["code"]
    wrong = rp.exchange(code, secrets.token_urlsafe(48))
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant", wrong.text
    url, request, verifier = rp.authorize_url(code_challenge=None, code_challenge_method=None)
    answer = requests.get(url, allow_redirects=False, timeout=10)
    location = answer.headers.get("Location", "")
    assert answer.status_code in (302, 400) and ("error=" in location or answer.status_code == 400), \
        (answer.status_code, location, answer.text[:200])


def test_code_is_used_once(provider, rp):
    url, request, verifier = rp.authorize_url()
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(provider.login(url, "bob")).query))["code"]
    assert rp.exchange(code, verifier).status_code == 200
    again = rp.exchange(code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text


def test_redirect_uri_must_be_registered(provider, rp):
    for uri in ("http://127.0.0.1:5555/elsewhere", "http://evil.example/console/auth/callback",
                "http://localhost:5555/console/auth/callback"):
        url, _, _ = rp.authorize_url(redirect_uri=uri)
        refused(lambda: provider.login(url, "alice"), ProviderError)
    # Any port of the loopback registration (RFC 8252 7.3): what lets a test pick the server's port later.
    other = RelyingParty(provider, "http://127.0.0.1:6123/console/auth/callback")
    other.sign_in("alice")


def test_wrong_password_is_refused(provider, rp):
    url, _, _ = rp.authorize_url()
    error = refused(lambda: provider.login(url, "alice", password="not-it"), ProviderError)
    assert "Invalid username or password" in str(error), error


def tamper(provider, rp, mode, user="alice"):
    """A login whose token answer is tampered with: (delivered id_token, the authorization request)."""
    provider.proxy.tamper = mode
    tokens, request = rp.sign_in(user)
    assert provider.proxy.tamper is None, "the tamper mode was not used up"
    assert provider.proxy.token_requests()[-1].tampered == mode
    return tokens["id_token"], request


def nanoidp_signed(provider, token):
    """The token verifies with nanoidp's own public key (whatever its claims say)."""
    kid, _, public_pem = provider.signing_key()
    assert jwt.get_unverified_header(token)["kid"] == kid
    return jwt.decode(token, public_pem, algorithms=["RS256"], options={"verify_aud": False, "verify_exp": False,
                                                                        "verify_iss": False})


def test_tamper_wrong_audience(provider, rp):
    token, request = tamper(provider, rp, "wrong_audience")
    refused(lambda: rp.verify(token, request["nonce"]), jwt.InvalidAudienceError)
    assert nanoidp_signed(provider, token)["aud"] == "someone-else"


def test_tamper_expired(provider, rp):
    token, request = tamper(provider, rp, "expired")
    refused(lambda: rp.verify(token, request["nonce"]), jwt.ExpiredSignatureError)
    claims = nanoidp_signed(provider, token)
    now = time.time()
    assert abs(claims["exp"] - (now - 3600)) < 30 and abs(claims["iat"] - (now - 7200)) < 30, claims
    assert claims["aud"] == CLIENT_ID and claims["nonce"] == request["nonce"], claims


def test_tamper_wrong_nonce(provider, rp):
    token, request = tamper(provider, rp, "wrong_nonce")
    refused(lambda: rp.verify(token, request["nonce"]), "nonce")
    rp.verify(token)  # signature, issuer, audience and times are all right: only the nonce is wrong


def test_tamper_wrong_issuer(provider, rp):
    token, request = tamper(provider, rp, "wrong_issuer")
    refused(lambda: rp.verify(token, request["nonce"]), jwt.InvalidIssuerError)
    assert nanoidp_signed(provider, token)["iss"] == "https://issuer.evil.example"


def test_tamper_wrong_azp(provider, rp):
    token, request = tamper(provider, rp, "wrong_azp")
    refused(lambda: rp.verify(token, request["nonce"]), "azp")
    claims = nanoidp_signed(provider, token)
    assert CLIENT_ID in claims["aud"] and claims["azp"] == "someone-else", claims


def test_tamper_unknown_kid(provider, rp):
    token, request = tamper(provider, rp, "unknown_kid")
    assert jwt.get_unverified_header(token) == {"alg": "RS256", "kid": "unknown-kid", "typ": "JWT"}
    refused(lambda: rp.verify(token, request["nonce"]), "kid")
    refused(lambda: jwt.decode(token, provider.public_key_pem(), algorithms=["RS256"], audience=CLIENT_ID),
            jwt.InvalidSignatureError)


def test_tamper_alg_none(provider, rp):
    token, request = tamper(provider, rp, "alg_none")
    head, body, signature = token.split(".")
    assert signature == "", "alg none must have an empty signature"
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "none" and header["kid"] == provider.signing_key()[0], header
    refused(lambda: rp.verify(token, request["nonce"]), jwt.InvalidAlgorithmError)
    claims = unverified(token)  # otherwise a perfect token: only the missing signature gives it away
    assert claims["aud"] == CLIENT_ID and claims["nonce"] == request["nonce"] and claims["iss"] == provider.issuer


def test_tamper_hmac_public_key(provider, rp):
    token, request = tamper(provider, rp, "hmac_public_key")
    kid, _, public_pem = provider.signing_key()
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "HS256" and header["kid"] == kid, header
    signing_input, _, signature = token.rpartition(".")
    expected = base64.urlsafe_b64encode(hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest())
    assert signature == expected.rstrip(b"=").decode(), "not an HMAC keyed with the public key's PEM"
    # That PEM is the public key the JWKS publishes under this kid.
    published = jwt.PyJWK(rp.key_for(kid)).key.public_numbers()
    assert serialization.load_pem_public_key(public_pem).public_numbers() == published
    refused(lambda: rp.verify(token, request["nonce"]), jwt.InvalidAlgorithmError)
    refused(lambda: jwt.decode(token, public_pem, algorithms=["HS256"]), jwt.InvalidKeyError)  # PyJWT refuses


def test_tamper_replay_other(provider, rp):
    earlier, _ = rp.sign_in("alice")
    token, request = tamper(provider, rp, "replay_other")
    assert token == earlier["id_token"], "not the id_token of the earlier login"
    refused(lambda: rp.verify(token, request["nonce"]), "nonce")
    rp.verify(token)  # validly signed, right audience, not expired


def test_tamper_applies_to_one_answer(provider, rp):
    tamper(provider, rp, "wrong_audience")
    tokens, request = rp.sign_in("alice")
    rp.verify(tokens["id_token"], request["nonce"])
    assert provider.proxy.token_requests()[-1].tampered is None
    refused(lambda: setattr(provider.proxy, "tamper", "no_such_mode"), ValueError)
    assert set(TAMPER_MODES) == {"wrong_audience", "expired", "wrong_nonce", "wrong_issuer", "wrong_azp",
                                 "unknown_kid", "alg_none", "hmac_public_key", "replay_other"}


def test_userinfo_other_sub(provider, rp):
    provider.proxy.profile_claims = "userinfo"
    provider.proxy.tamper = "userinfo_other_sub"
    tokens, request = rp.sign_in("alice")
    claims = rp.verify(tokens["id_token"], request["nonce"])
    info = rp.userinfo(tokens["access_token"])
    assert provider.proxy.tamper is None and provider.proxy.last("/userinfo").tampered == "userinfo_other_sub"
    assert info["sub"] != claims["sub"], (info, claims)


def test_claims_only_in_userinfo(provider, rp):
    provider.proxy.profile_claims = "userinfo"
    tokens, request = rp.sign_in("bob")
    assert tokens["id_token"] == provider.proxy.token_requests()[-1].upstream_json()["id_token"], \
        "the id_token should be exactly nanoidp's"
    claims = rp.verify(tokens["id_token"], request["nonce"])
    assert not {"email", "email_verified", "name", "groups"} & set(claims), claims
    info = rp.userinfo(tokens["access_token"])
    assert (info["sub"], info["email"], info["email_verified"], info["name"], info["groups"]) == \
        ("bob", "bob@example.com", True, "Bob Example", ["platform"]), info


def test_carol_email_is_not_verified(provider, rp):
    tokens, request = rp.sign_in("carol@example.com")
    claims = rp.verify(tokens["id_token"], request["nonce"])
    assert claims["email"] == "carol@example.com" and claims["email_verified"] is False, claims
    assert "groups" not in claims, claims
    info = rp.userinfo(tokens["access_token"])
    assert info["email_verified"] is False and "groups" not in info, info


def test_dave_has_no_groups(provider, rp):
    tokens, request = rp.sign_in("dave")
    claims = rp.verify(tokens["id_token"], request["nonce"])
    assert (claims["email"], claims["email_verified"], claims["name"]) == ("dave@other.example", True, "Dave Other")
    assert "groups" not in claims, claims


def test_set_groups(provider, rp):
    provider.set_groups("bob", ["platform", "qa"])
    tokens, request = rp.sign_in("bob")
    assert rp.verify(tokens["id_token"], request["nonce"])["groups"] == ["platform", "qa"]
    rp.userinfo(tokens["access_token"])
    assert provider.proxy.last("/userinfo").upstream_json()["groups"] == ["platform", "qa"], "nanoidp not reloaded"
    provider.set_groups("bob", [])
    tokens, request = rp.sign_in("bob")
    assert "groups" not in rp.verify(tokens["id_token"], request["nonce"])
    provider.reset()
    tokens, request = rp.sign_in("bob")
    assert rp.verify(tokens["id_token"], request["nonce"])["groups"] == ["platform"]


def device_authorization(provider, rp):
    answer = requests.post(rp.discovery["device_authorization_endpoint"], data={"scope": "openid email profile"},
                           auth=(CLIENT_ID, provider.client_secret), timeout=10)
    assert answer.status_code == 200, answer.text
    grant = answer.json()
    assert {"device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in",
            "interval"} <= set(grant), grant
    assert grant["verification_uri_complete"].startswith(provider.issuer + "/device?user_code="), grant
    assert grant["interval"] == 1, grant
    return grant


def poll(provider, rp, grant):
    return requests.post(rp.discovery["token_endpoint"], auth=(CLIENT_ID, provider.client_secret), timeout=10,
                         data={"grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                               "device_code": grant["device_code"]})


def test_proxy_forwards_chunked_bodies(provider, rp):
    body = iter([b"scope=openid", b"+email"])  # requests sends an iterator with Transfer-Encoding: chunked
    answer = requests.post(rp.discovery["device_authorization_endpoint"], data=body, timeout=10,
                           auth=(CLIENT_ID, provider.client_secret),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 200, answer.text
    exchange = provider.proxy.last("/device_authorization")
    assert exchange.form == {"scope": "openid email"}, exchange.form  # read whole, passed on with a Content-Length
    assert answer.json()["user_code"], answer.json()


def test_device_flow(provider, rp):
    grant = device_authorization(provider, rp)
    pending = poll(provider, rp, grant)
    assert pending.status_code == 400 and pending.json()["error"] == "authorization_pending", pending.text
    provider.approve_device(grant["verification_uri_complete"], "alice")
    done = poll(provider, rp, grant)
    assert done.status_code == 200, done.text
    claims = rp.verify(done.json()["id_token"])
    assert claims["sub"] == "alice" and claims["email"] == "alice@example.com", claims
    assert claims["groups"] == ["mobile-release"] and "nonce" not in claims, claims
    again = poll(provider, rp, grant)
    assert again.status_code == 400, again.text
    # By the user code alone, as a person typing it.
    grant = device_authorization(provider, rp)
    provider.approve_device(grant["user_code"], "bob")
    assert rp.verify(poll(provider, rp, grant).json()["id_token"])["sub"] == "bob"


def test_device_flow_denied(provider, rp):
    grant = device_authorization(provider, rp)
    provider.approve_device(grant["verification_uri_complete"], "alice", deny=True)
    denied = poll(provider, rp, grant)
    assert denied.status_code == 400 and denied.json()["error"] == "access_denied", denied.text
    grant = device_authorization(provider, rp)
    refused(lambda: provider.approve_device(grant["user_code"], "alice", password="wrong"), ProviderError)


def test_key_rotation(provider, rp):
    old_kid = provider.signing_key()[0]
    before, request = rp.sign_in("alice")
    new_kid = provider.rotate_keys()
    assert new_kid != old_kid
    published = [k["kid"] for k in rp.jwks()["keys"]]
    assert new_kid in published and old_kid in published, published
    after, request = rp.sign_in("alice")
    raw = provider.proxy.token_requests()[-1].upstream_json()["id_token"]
    assert jwt.get_unverified_header(raw)["kid"] == new_kid, "nanoidp itself did not sign with the new key"
    assert jwt.get_unverified_header(after["id_token"])["kid"] == new_kid
    rp.verify(after["id_token"], request["nonce"])
    rp.verify(before["id_token"])  # the old key is still published
    provider.proxy.tamper = "wrong_audience"  # re-signing follows the rotation
    token = rp.sign_in("alice")[0]["id_token"]
    assert jwt.get_unverified_header(token)["kid"] == new_kid


def test_client_secret_post(provider, rp):
    with Provider(token_auth_method="client_secret_post") as post_only:
        other = RelyingParty(post_only)
        assert other.discovery["token_endpoint_auth_methods_supported"] == ["client_secret_post"]
        tokens, request = other.sign_in("alice", auth="post")
        other.verify(tokens["id_token"], request["nonce"])
        assert post_only.proxy.token_requests()[-1].client_auth == "client_secret_post"
        url, request, verifier = other.authorize_url()
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(post_only.login(url, "alice")).query))["code"]
        basic = other.exchange(code, verifier, auth="basic")
        assert basic.status_code == 401 and basic.json()["error"] == "invalid_client", basic.text


def refuses_connections(port):
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_stop_leaves_nothing(provider, rp):
    other = Provider().start()
    process, ports, folder = other.process, (other.nanoidp_port, other.proxy.port), other.folder
    assert process.poll() is None
    started = time.time()
    other.stop()
    assert time.time() - started < 11, "stop took too long"
    assert process.poll() is not None, "nanoidp still runs"
    assert all(refuses_connections(port) for port in ports), ports
    assert not os.path.exists(folder), folder
    other.stop()  # twice is fine


TESTS = [test_discovery_names_the_proxy, test_code_pkce_login_as_alice, test_pkce_is_enforced,
         test_code_is_used_once, test_redirect_uri_must_be_registered, test_wrong_password_is_refused,
         test_tamper_wrong_audience, test_tamper_expired, test_tamper_wrong_nonce, test_tamper_wrong_issuer,
         test_tamper_wrong_azp, test_tamper_unknown_kid, test_tamper_alg_none, test_tamper_hmac_public_key,
         test_tamper_replay_other, test_tamper_applies_to_one_answer, test_userinfo_other_sub,
         test_claims_only_in_userinfo, test_carol_email_is_not_verified, test_dave_has_no_groups, test_set_groups,
         test_proxy_forwards_chunked_bodies, test_device_flow, test_device_flow_denied, test_key_rotation,
         test_client_secret_post, test_stop_leaves_nothing]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", dest="name", help="run only the tests whose name contains this")
    arguments = parser.parse_args()
    passed = failed = 0
    provider = Provider().start()
    try:
        rp = RelyingParty(provider)
        for test in TESTS:
            if arguments.name and arguments.name not in test.__name__:
                continue
            provider.reset()
            try:
                test(provider, rp)
                assert not provider.proxy.errors, provider.proxy.errors
                passed += 1
                print(f"✔ {test.__name__}", flush=True)
            except Exception:
                failed += 1
                print(f"✘ {test.__name__}", flush=True)
                traceback.print_exc()
                print(provider.log_tail(), file=sys.stderr)
    finally:
        provider.stop()
    print(f"OIDC provider harness: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
