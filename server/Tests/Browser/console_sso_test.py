#!/usr/bin/env python3
"""The console's single sign-on in a real browser: headless Chromium driven by Selenium, signing in through the
provider's own login page (nanoidp's HTML form, filled in and submitted in the browser), against the built server.

    "$OIDC_PYTHON" server/Tests/Browser/console_sso_test.py [--binary PATH] [--screenshots DIR] [-k NAME]

Runs under the single sign-on tests' venv (scripts/ensure-oidc-provider.sh: nanoidp, requests and Selenium) with
Chromium and chromedriver from scripts/ensure-browser.sh. One provider for the run (server/Tests/OIDC/provider.py:
nanoidp behind its tampering proxy, reset between tests); each test starts its own `remote-config serve`
(default: server/.build/debug/remote-config) as server/Tests/OIDC/sso_test.py does, with an embedded
PostgreSQL, RC_ADMIN_TOKEN, and

    --oidc-issuer <proxy> --oidc-client-id remote-config --oidc-client-secret-file <file>
    --public-url http://127.0.0.1:<port> --oidc-admins alice@example.com

and a fresh browser for each person. The browser reaches loopback only (every other host name fails to
resolve, so nanoidp's page is shown without the CSS it would load from a CDN). Screenshots at 1280x800 (the
People page also at 390x844) go to server/.build/console-screenshots as sso-*.png (only those are replaced).
Every wait is bounded. Ends with the line "N passed, M failed" (exit 1 on any failure).
"""
import argparse, os, shutil, signal, sys, time, traceback, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "OIDC"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY  # noqa: E402
from provider import Provider  # noqa: E402
from sso_test import Server, create_project, request  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from console_browser import Browser  # noqa: E402

DESKTOP, PHONE = (1280, 800), (390, 844)


class SSOBrowser(Browser):
    """console_browser.Browser for one person: loopback only, and screenshots at the sizes asked for."""

    def __init__(self, base, test, screenshots):
        options = webdriver.ChromeOptions()
        for name in ("chromium", "chromium-browser", "google-chrome"):
            if shutil.which(name):
                options.binary_location = shutil.which(name)
                break
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1280,800", "--lang=en-US", "--no-proxy-server",
                         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(30)
        self.resize(*DESKTOP)
        self.base, self.test, self.screenshots, self.count = base, test, screenshots, 0

    def shot(self, name, sizes=(DESKTOP,), show=None, ours=True):
        """Screenshots at `sizes`; on the server's own pages (`ours`), checks that none scrolls sideways."""
        self.count += 1
        for width, height in sizes:
            self.resize(width, height)
            time.sleep(0.2)  # layout after a resize
            if show:
                self.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", show)
            path = os.path.join(self.screenshots, f"sso-{self.test}-{self.count:02d}-{name}-{width}x{height}.png")
            self.driver.save_screenshot(path)
            if ours:
                overflow = self.driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 1, f"{name}: the page is {overflow}px wider than a {width}px window"
        self.resize(*DESKTOP)

    def top(self, css):
        return self.driver.execute_script(
            "return Math.round(document.querySelector(arguments[0]).getBoundingClientRect().top)", css)

    def status(self):
        """The HTTP status of the page the browser shows (Navigation Timing)."""
        return self.driver.execute_script(
            "const [n] = performance.getEntriesByType('navigation'); return n ? n.responseStatus : null")

    def texts(self, css):
        return [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, css)]


class Context:
    """What one test uses: the provider, servers and browsers it started (all stopped after it)."""

    def __init__(self, binary, provider, screenshots, name):
        self.binary, self.provider, self.screenshots, self.name = binary, provider, screenshots, name
        self.servers, self.browsers = [], []

    def server(self, extra_args=()):
        server = Server(self.binary, self.provider, extra_args=extra_args)
        self.servers.append(server)
        return server.start()

    def browser(self, server, who):
        """A fresh browser (no cookies) for one person at `server`."""
        browser = SSOBrowser(server.base, f"{self.name}-{who}", self.screenshots)
        self.browsers.append(browser)
        return browser

    def cleanup(self):
        for browser in self.browsers:
            try:
                browser.close()
            except Exception:
                pass
        for server in self.servers:
            server.stop()


# Signing in through the provider's page, as a person does.

def provider_host(provider):
    return urllib.parse.urlsplit(provider.issuer).hostname


def at_provider(browser, provider):
    return urllib.parse.urlsplit(browser.driver.current_url).netloc == urllib.parse.urlsplit(provider.issuer).netloc


def to_provider(browser, provider):
    """From the console's sign-in page to the provider's login form (waits for its fields)."""
    browser.open("/console")
    button = browser.find("#sso-sign-in")
    assert button.text == f"Sign in with {provider_host(provider)}", button.text
    browser.click("#sso-sign-in")
    browser.wait(lambda: at_provider(browser, provider), message=f"never reached the provider: {browser.driver.current_url}")
    browser.find("form input[name=username]")
    browser.find("form input[name=password]")


def submit_login(browser, provider, user):
    """Types the person's username and password into the provider's form and submits it."""
    person = provider.person(user)
    browser.type("form input[name=username]", person.username)
    browser.type("form input[name=password]", person.password)
    browser.click("form button[type=submit]")
    browser.wait(lambda: browser.driver.current_url.startswith(browser.base + "/"),
                 message=f"the provider kept the browser: {browser.driver.current_url}")


def sign_in(browser, provider, user, shoot_provider=False):
    """The whole sign-in through the provider's page; waits for a signed-in console."""
    to_provider(browser, provider)
    if shoot_provider:
        browser.shot("provider-login", ours=False)
    submit_login(browser, provider, user)
    browser.find("#sign-out")
    split = urllib.parse.urlsplit(browser.driver.current_url)
    assert split.path == "/console", browser.driver.current_url
    cookie = browser.driver.get_cookie("rc_session")
    assert cookie and cookie["value"] and cookie.get("httpOnly"), cookie
    assert browser.text("#person") == provider.person(user).name, browser.text("#person")
    return cookie["value"]


def nav_links(browser):
    return {e.get_attribute("href").rsplit("/console", 1)[-1]: e.text
            for e in browser.driver.find_elements(By.CSS_SELECTOR, "#nav a")}


def rows(browser, table):
    """The rows of a table as lists of cell texts, read again when the page redraws the table while reading."""
    for _ in range(20):
        try:
            return [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
                    for row in browser.driver.find_elements(By.CSS_SELECTOR, f"{table} tbody tr")]
        except StaleElementReferenceException:
            time.sleep(0.05)
    return []


# The tests.

def test_alice_signs_in_through_the_provider(ctx):
    server, provider = ctx.server(), ctx.provider
    browser = ctx.browser(server, "alice")
    browser.open("/console")
    button = browser.find("#sso-sign-in")
    assert button.text == f"Sign in with {provider_host(provider)}", button.text
    browser.find("#api-key")
    assert browser.top("#sso-sign-in") < browser.top("#api-key"), "the provider's button is not above the key form"
    browser.shot("sign-in-page")

    to_provider(browser, provider)
    assert provider.proxy.authorize_requests(), "the browser never asked the provider's /authorize"
    browser.shot("provider-login", ours=False)
    submit_login(browser, provider, "alice")
    browser.find("#sign-out")
    assert urllib.parse.urlsplit(browser.driver.current_url).path == "/console", browser.driver.current_url
    assert browser.text("#person") == "Alice Example", browser.text("#person")
    browser.wait_text("#who #role", "Signed in: admin")
    links = nav_links(browser)
    assert links.get("#/people") == "People", links
    browser.wait_text("main h1", "Projects")
    browser.find("#create-project")  # an admin may create projects
    browser.shot("projects")

    browser.click('#nav a[href="#/people"]')
    browser.find("#people")
    people = rows(browser, "#people")
    assert any("Alice Example" in r[0] and "alice@example.com" in r[0] for r in people), people
    assert any("admin on every project" in r[2] for r in people if "alice@example.com" in r[0]), people
    browser.find("#role-bindings")
    bindings = rows(browser, "#role-bindings")
    assert ["user:alice@example.com", "admin", "every project", "--oidc-admins at start"] in [r[:4] for r in bindings], bindings
    browser.shot("people", sizes=(DESKTOP, PHONE))


def test_alice_binds_a_group_and_bob_edits(ctx):
    server, provider = ctx.server(), ctx.provider
    create_project(server, "shop")
    alice = ctx.browser(server, "alice")
    sign_in(alice, provider, "alice")
    alice.go("#/people")
    alice.find("#role-bindings")
    alice.type("#binding-member", "group:platform")
    alice.choose("#binding-role", "editor")
    alice.choose("#binding-project", "shop")
    alice.click("#create-binding-button")
    alice.wait_text("#people-notice", "group:platform is now editor on shop")
    alice.wait(lambda: ["group:platform", "editor", "shop", "alice@example.com"] in [r[:4] for r in rows(alice, "#role-bindings")],
               message=f"the binding is not in the table: {rows(alice, '#role-bindings')}")
    alice.shot("binding-made")
    made = server.admin("GET", "/v1/roleBindings?project=shop").json()["roleBindings"]
    assert [(b["member"], b["role"], b["createdBy"].get("email")) for b in made if b["member"] == "group:platform"] == \
        [("group:platform", "editor", "alice@example.com")], made

    bob = ctx.browser(server, "bob")
    sign_in(bob, provider, "bob")
    assert "#/people" not in nav_links(bob), nav_links(bob)
    assert "#/keys" not in nav_links(bob), nav_links(bob)
    bob.find('#projects a[href="#/projects/shop/parameters"]')
    bob.shot("bob-projects")
    bob.click('#projects a[href="#/projects/shop/parameters"]')
    bob.find("#project-title")
    bob.wait_text("#who #role", "Signed in: editor")
    assert bob.absent("#read-only"), "an editor of shop is shown the read-only notice"
    bob.find("#add-parameter")
    assert "#/people" not in nav_links(bob), nav_links(bob)
    bob.shot("bob-project-page")


def test_dave_has_no_access_yet(ctx):
    server, provider = ctx.server(), ctx.provider
    browser = ctx.browser(server, "dave")
    sign_in(browser, provider, "dave")
    card = browser.find("#no-access")
    assert "No access yet" in card.text and "an admin of this server" in card.text, card.text
    assert "alice@example.com" not in browser.driver.page_source, "the page shows an admin's email"
    assert "#/people" not in nav_links(browser) and "#/keys" not in nav_links(browser), nav_links(browser)
    browser.shot("no-access")


def test_sign_out_ends_the_session(ctx):
    server, provider = ctx.server(), ctx.provider
    browser = ctx.browser(server, "alice")
    cookie = sign_in(browser, provider, "alice")
    before = server.call("GET", "/v1/me", headers={"Cookie": f"rc_session={cookie}"})
    assert before.status == 200 and before.json()["user"]["email"] == "alice@example.com", before
    browser.click("#sign-out")
    browser.find("#sso-sign-in")
    assert browser.absent("#person"), "the header still names the person"
    browser.wait(lambda: browser.driver.get_cookie("rc_session") is None,
                 message=f"the browser kept the cookie: {browser.driver.get_cookie('rc_session')}")
    browser.driver.refresh()
    browser.find("#sso-sign-in")
    assert not browser.driver.find_elements(By.CSS_SELECTOR, "#sign-out"), "signed in again after a reload"
    browser.shot("signed-out")
    after = server.call("GET", "/v1/me", headers={"Cookie": f"rc_session={cookie}"})
    assert after.status == 401, f"the old cookie after signing out: {after}"


def test_keys_page_shows_owners(ctx):
    server, provider = ctx.server(), ctx.provider
    browser = ctx.browser(server, "alice")
    sign_in(browser, provider, "alice")
    browser.click('#nav a[href="#/keys"]')
    browser.find("#keys")
    headings = browser.texts("#keys thead th")
    assert "Owner" in headings and "Last used" in headings, headings
    browser.type("#key-name", "alice laptop")
    browser.choose("#key-role", "viewer")
    browser.click("#create-key-button")
    secret = browser.find("#new-key-secret").get_attribute("value")
    assert secret, "no key shown"
    column = {name: i for i, name in enumerate(headings)}

    def row():
        found = [r for r in rows(browser, "#keys") if r and r[0] == "alice laptop"]
        return found[0] if found else None
    browser.wait(row, message=f"the new key is not listed: {rows(browser, '#keys')}")
    assert row()[column["Owner"]] == "alice@example.com", row()
    assert row()[column["Last used"]] == "never", row()
    listed = server.admin("GET", "/v1/apiKeys").json()["apiKeys"]
    mine = [k for k in listed if k.get("displayName") == "alice laptop"]
    assert mine and mine[0].get("owner", "").startswith("users/"), listed
    browser.shot("keys")
    # Used once, the key shows when (to the minute) after the page reads the keys again.
    used = server.call("GET", "/v1/projects", headers={"Authorization": f"Bearer {secret}"})
    assert used.status == 200, used
    browser.go("#/projects")
    browser.wait(lambda: browser.absent("#keys"))
    browser.go("#/keys")
    browser.find("#keys")
    browser.wait(lambda: row() and row()[column["Last used"]] not in ("", "never"),
                 message=f"Last used after a call: {row()}")
    browser.shot("keys-used")


def test_failed_sign_in_shows_why(ctx):
    server, provider = ctx.server(), ctx.provider
    browser = ctx.browser(server, "alice")
    to_provider(browser, provider)
    provider.proxy.tamper = "wrong_audience"
    submit_login(browser, provider, "alice")
    heading = browser.find("h1")
    assert heading.text == "Sign-in failed", heading.text
    assert urllib.parse.urlsplit(browser.driver.current_url).path == "/console/auth/callback", browser.driver.current_url
    assert browser.status() == 400, f"the failure page answered {browser.status()}"
    assert provider.proxy.tamper is None, "the server never asked the token endpoint"
    assert provider.proxy.token_requests()[-1].tampered == "wrong_audience", provider.proxy.token_requests()
    words = browser.text("main p")
    assert "another client" in words and "aud" in words, words
    assert browser.driver.get_cookie("rc_session") is None, "a session cookie after a refused sign-in"
    browser.find('a[href="/console"]')
    browser.shot("sign-in-failed")
    # Back to the console: still signed out, offered the provider again.
    browser.click('a[href="/console"]')
    browser.find("#sso-sign-in")
    assert not browser.driver.find_elements(By.CSS_SELECTOR, "#sign-out")


def test_token_sign_in_off_offers_only_the_provider(ctx):
    server, provider = ctx.server(extra_args=["--console-token-sign-in", "off"]), ctx.provider
    config = server.call("GET", "/console/auth/config")
    assert config.status == 200 and config.json()["tokenSignIn"] is False, config
    browser = ctx.browser(server, "anyone")
    browser.open("/console")
    button = browser.find("#sso-sign-in")
    assert button.text == f"Sign in with {provider_host(provider)}", button.text
    assert not browser.driver.find_elements(By.CSS_SELECTOR, "#api-key"), "a key input with token sign-in off"
    assert not browser.driver.find_elements(By.CSS_SELECTOR, "#sign-in"), "the key form with token sign-in off"
    browser.shot("sign-in-provider-only")
    # The one way in still works.
    sign_in(browser, provider, "alice")
    browser.wait_text("#who #role", "Signed in: admin")


TESTS = [test_alice_signs_in_through_the_provider, test_alice_binds_a_group_and_bob_edits,
         test_dave_has_no_access_yet, test_sign_out_ends_the_session, test_keys_page_shows_owners,
         test_failed_sign_in_shows_why, test_token_sign_in_off_offers_only_the_provider]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--screenshots", default=os.path.join(HERE, "..", "..", ".build", "console-screenshots"))
    parser.add_argument("-k", default="", help="run only the tests whose name contains this")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    tests = [t for t in TESTS if options.k in t.__name__]
    if not os.access(binary, os.X_OK):
        print(f"no server binary at {binary}", file=sys.stderr)
        print(f"0 passed, {len(tests)} failed")
        sys.exit(1)
    # Only this file's screenshots are replaced: console_test.py's share the folder.
    os.makedirs(options.screenshots, exist_ok=True)
    for name in os.listdir(options.screenshots):
        if name.startswith("sso-") and name.endswith(".png"):
            os.remove(os.path.join(options.screenshots, name))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that everything started is stopped
    passed = failed = 0
    started = time.time()
    provider = Provider().start()
    try:
        for test in tests:
            provider.reset()
            name = test.__name__.removeprefix("test_")
            context = Context(binary, provider, options.screenshots, name)
            try:
                test(context)
                for browser in context.browsers:
                    errors = browser.script_errors()
                    assert not errors, f"script errors in {browser.test}: {errors}"
                assert not provider.proxy.errors, f"the provider harness failed: {provider.proxy.errors}"
                passed += 1
                print(f"✔ {name}", flush=True)
            except (AssertionError, TimeoutException, Exception):
                failed += 1
                print(f"✘ {name}", flush=True)
                traceback.print_exc()
                for browser in context.browsers:
                    try:
                        print(f"  {browser.test} at {browser.driver.current_url}", flush=True)
                        browser.driver.save_screenshot(os.path.join(options.screenshots, f"sso-{browser.test}-FAILED.png"))
                        print("  browser log:", [e["message"] for e in browser.driver.get_log("browser")][-10:])
                    except Exception:
                        pass
                for server in context.servers:
                    print(f"--- server {getattr(server, 'base', '(not started)')}\n{server.log()[-3000:]}", file=sys.stderr)
            finally:
                context.cleanup()
    finally:
        provider.stop()
    print(f"screenshots in {os.path.abspath(options.screenshots)}")
    print(f"{time.time() - started:.0f} s")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
