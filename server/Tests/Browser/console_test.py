#!/usr/bin/env python3
"""The web console in a real browser: headless Chromium driven by Selenium, against the built server.

    server/Tests/Browser/console_test.py [--binary PATH] [--screenshots DIR] [-k NAME]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with an
embedded PostgreSQL, the App Store lookup pointed at a local stand-in and webhooks allowed to loopback
receivers (--webhooks-allow-private), runs each test in a fresh browser, saves screenshots of each at 1280x800 and 390x844
(default: server/.build/console-screenshots), and ends with the line "N passed, M failed" (exit 1 on any
failure; a test that cannot run against this server says so and counts as skipped). scripts/test runs it after installing Chromium, chromedriver and Selenium (scripts/ensure-browser.sh).
"""
import argparse, http.server, json, os, shutil, sys, threading, time, traceback
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

SIZES = [(1280, 800), (390, 844)]
ADMIN = {"Authorization": f"Bearer {TOKEN}"}
IOS_OLD = "device.os == 'ios' && app.version.<(['2.0.0'])"
EXACT = "app.version.==(['1.1.4'])"
DATA_DIR = None  # the server's data dir (its database-url), set by main()


class Browser:
    """One Chromium window, with waits on conditions and screenshots at both sizes."""

    def __init__(self, base, test, screenshots):
        options = webdriver.ChromeOptions()
        for name in ("chromium", "chromium-browser", "google-chrome"):
            if shutil.which(name):
                options.binary_location = shutil.which(name)
                break
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1280,800", "--lang=en-US"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.resize(*SIZES[0])
        self.base, self.test, self.screenshots, self.count = base, test, screenshots, 0

    def open(self, path="/console"):
        self.driver.get(self.base + path)

    def wait(self, condition, timeout=15, message=""):
        return WebDriverWait(self.driver, timeout).until(lambda driver: condition(), message)

    def visible(self, css):
        """The displayed elements matching css; one removed while looking counts as not displayed."""
        found = []
        for element in self.driver.find_elements(By.CSS_SELECTOR, css):
            try:
                if element.is_displayed():
                    found.append(element)
            except StaleElementReferenceException:
                pass
        return found

    def find(self, css, timeout=15):
        return self.wait(lambda: next(iter(self.visible(css)), None), timeout, f"no visible {css}")

    def absent(self, css):
        return not self.visible(css)

    def text(self, css):
        return self.find(css).text

    def wait_text(self, css, fragment, timeout=15):
        def shows():
            try:
                return any(fragment in e.text for e in self.driver.find_elements(By.CSS_SELECTOR, css))
            except StaleElementReferenceException:
                return False
        self.wait(shows, timeout, f"{css} never showed {fragment!r}")

    def click(self, css):
        element = self.find(css)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()
        return element

    def type(self, css, text, clear=True):
        element = self.find(css)
        if clear:
            element.clear()
        element.send_keys(text)
        return element

    def choose(self, css, value):
        Select(self.find(css)).select_by_value(value)

    def go(self, hash_path):
        self.driver.execute_script("location.hash = arguments[0]", hash_path)

    def shot(self, name, show=None):
        """Screenshots at 1280x800 and at a phone's 390x844, with the element `show` (CSS) scrolled into view;
        checks that neither width scrolls sideways."""
        self.count += 1
        for width, height in SIZES:
            self.resize(width, height)
            time.sleep(0.2)  # layout after a resize; nothing is asserted on it but the overflow below
            if show:
                self.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", show)
            path = os.path.join(self.screenshots, f"{self.test}-{self.count:02d}-{name}-{width}x{height}.png")
            self.driver.save_screenshot(path)
            overflow = self.driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, f"{name}: the page is {overflow}px wider than a {width}px window"
        self.resize(*SIZES[0])

    def resize(self, width, height):
        """Makes the page's viewport (not the window, which has the browser's own bars) width x height."""
        self.driver.set_window_size(width, height)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        self.driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])

    def sign_in(self, key):
        self.open()
        self.type("#api-key", key)
        self.click("#sign-in-button")
        self.find("#sign-out")
        assert key not in self.driver.current_url

    def script_errors(self):
        """Console errors that mean a broken page: uncaught exceptions and blocked content (CSP)."""
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and ("Uncaught" in entry["message"] or "Content Security Policy" in entry["message"])]

    def close(self):
        self.driver.quit()


# The recipe, built through the UI.

def add_condition(browser, name, expression):
    browser.click("#add-condition")
    browser.type("#cond-name", name)
    browser.type("#cond-expression", expression)
    browser.find("#expression-ok")
    browser.click("#cond-save")
    browser.wait(lambda: browser.absent("dialog"))
    browser.find(f'[data-condition="{name}"]')


def add_parameter(browser, key, value_type, default, group=None, description=None, conditional=()):
    browser.click("#add-parameter")
    browser.type("#param-key", key)
    browser.choose("#param-type", value_type)
    if description:
        browser.type("#param-description", description)
    if group:
        browser.type("#param-group", group)
    if value_type == "BOOLEAN":
        browser.choose("#param-default-value", default)
    else:
        browser.type("#param-default-value", default)
    for condition, value in conditional:
        browser.choose("#param-add-condition", condition)
        browser.click("#param-add-conditional")
        row = f'#param-conditional-values [data-condition="{condition}"]'
        if value_type == "BOOLEAN":
            browser.choose(f"{row} select", value)
        else:
            browser.type(f"{row} input", value)
    browser.click("#param-save")
    browser.wait(lambda: browser.absent("dialog"))
    browser.find(f'li.param[data-key="{key}"]')


def publish(browser, description):
    browser.click("#publish")
    browser.type("#publish-description", description)
    browser.click("#publish-confirm")
    browser.wait_text("#draft-notice", "Published version")


def preview(browser, platform, version):
    browser.choose("#preview-platform", platform)
    browser.type("#preview-app-version", version)
    browser.click("#preview-button")
    browser.wait_text("#preview-state", "Values for this app")
    rows = browser.driver.find_elements(By.CSS_SELECTOR, "#preview-parameters tbody tr")
    answer = {row.get_attribute("data-key"): (row.find_element(By.CSS_SELECTOR, ".value").text,
                                              row.find_element(By.CSS_SELECTOR, ".why").text) for row in rows}
    truths = {item.get_attribute("data-condition"): item.get_attribute("data-truth")
              for item in browser.driver.find_elements(By.CSS_SELECTOR, "#preview-conditions li")}
    return answer, truths


def fetch(base, key, platform, version):
    status, _, body = call("POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
                           {"appInstanceId": "browser-test", "platform": platform, "appVersion": version},
                           {"X-API-Key": key})
    assert status == 200, (status, body)
    return json.loads(body)


def test_force_update_recipe(browser, base):
    browser.sign_in(TOKEN)
    browser.shot("projects-empty")
    assert top(browser, "#new-project-id") == top(browser, "#new-project-name"), "the create-project fields do not line up"
    browser.type("#new-project-id", "shop-app")
    browser.type("#new-project-name", "Shop")
    browser.click("#create-project button[type=submit]")
    browser.find("#add-parameter")
    # The heading names the project as people named it; the id comes second.
    title = browser.find("#project-title")
    assert title.text.startswith("Shop") and browser.text("#project-title .project-id") == "shop-app", title.text
    # Nothing to publish: the draft bar is neutral, not a warning.
    assert "changed" not in browser.find("#draft-bar").get_attribute("class").split()
    browser.go("#/projects/shop-app/conditions")

    # The expression is checked while it is typed; a parse error points at the character.
    browser.click("#add-condition")
    browser.type("#cond-name", "iOS below 2.0.0")
    browser.type("#cond-expression", "device.os == 'ios' && app.version.<(['2.0.0')")
    browser.find("#expression-error")
    caret = browser.text("#expression-caret")
    assert caret.splitlines()[-1].endswith("^"), caret
    browser.shot("condition-parse-error")
    browser.type("#cond-expression", IOS_OLD)
    browser.find("#expression-ok")
    browser.click("#cond-save")
    browser.wait(lambda: browser.absent("dialog"))
    add_condition(browser, "exactly 1.1.4", EXACT)
    browser.shot("conditions")

    browser.go("#/projects/shop-app/parameters")
    add_parameter(browser, "require_force_update", "BOOLEAN", "false", group="force_update",
                  description="Block the app until it is updated",
                  conditional=[("iOS below 2.0.0", "true"), ("exactly 1.1.4", "true")])
    browser.wait(lambda: "changed" in browser.find("#draft-bar").get_attribute("class").split(), message="draft bar not yellow")
    # The editor's Key and Type fields start level.
    browser.click("#add-parameter")
    assert top(browser, "#param-key") == top(browser, "#param-type"), (top(browser, "#param-key"), top(browser, "#param-type"))
    browser.shot("parameter-editor")
    browser.driver.find_element(By.CSS_SELECTOR, "#param-key").send_keys(Keys.ESCAPE)
    browser.wait(lambda: browser.absent("dialog"))
    add_parameter(browser, "current_version", "STRING", "2.1.0", group="force_update")
    add_parameter(browser, "app_store_url", "STRING", "https://apps.apple.com/app/id123456789", group="force_update")
    browser.wait_text("#draft-state", "unpublished change")
    # Nothing is live before Publish.
    assert json.loads(call("GET", base + "/v1/projects/shop-app/remoteConfig", None, ADMIN)[2])["parameters"] == {}
    # The search narrows the list.
    browser.type("#search", "store_url")
    browser.wait(lambda: browser.absent('li.param[data-key="current_version"]'))
    browser.find('li.param[data-key="app_store_url"]')
    browser.shot("parameters-search")
    browser.type("#search", Keys.BACKSPACE * 20, clear=False)
    browser.find('li.param[data-key="current_version"]')
    browser.shot("parameters-draft")
    publish(browser, "Force update for old iOS")
    browser.wait_text("#draft-state", "matches the published template")
    browser.wait(lambda: "changed" not in browser.find("#draft-bar").get_attribute("class").split(), message="draft bar still yellow")
    browser.shot("published")

    browser.go("#/projects/shop-app/preview")
    answer, truths = preview(browser, "IOS", "1.1.4")
    assert answer["require_force_update"] == ("true", "condition iOS below 2.0.0"), answer
    assert truths == {"iOS below 2.0.0": "true", "exactly 1.1.4": "true"}, truths
    browser.shot("preview-1.1.4", show="#preview-result")
    answer, truths = preview(browser, "IOS", "2.1.0")
    assert answer["require_force_update"] == ("false", "default value"), answer
    assert answer["current_version"] == ("2.1.0", "default value"), answer
    assert truths == {"iOS below 2.0.0": "false", "exactly 1.1.4": "false"}, truths
    browser.shot("preview-2.1.0", show="#preview-result")

    # A second version, to diff and roll back.
    browser.go("#/projects/shop-app/parameters")
    browser.click('li.param[data-key="current_version"] button.edit')
    browser.type("#param-default-value", "2.2.0")
    browser.click("#param-save")
    browser.wait(lambda: browser.absent("dialog"))
    publish(browser, "Current version 2.2.0")

    browser.go("#/projects/shop-app/history")
    browser.wait_text("#versions", "Current version 2.2.0")
    first = browser.text('#versions tr[data-version="1"]')
    assert "Force update for old iOS" in first and "update · console" in first, first
    browser.choose("#diff-from", "1")
    browser.choose("#diff-to", "2")
    browser.click("#compare-button")
    browser.wait_text("#diff", "current_version")
    diff = browser.text("#diff")
    assert "defaultValue: 2.1.0 → 2.2.0" in diff, diff
    browser.shot("history-diff", show="#diff")
    assert one_line(browser, '#versions tr[data-version="1"] button.rollback'), "Roll back wraps"
    browser.click('#versions tr[data-version="1"] button.rollback')
    browser.find("dialog")
    browser.shot("rollback-confirm")
    browser.click("dialog button.danger")
    browser.wait_text("#history-notice", "version 3 is a copy of version 1")
    assert "rollback to version 1" in browser.text('#versions tr[data-version="3"]')
    browser.shot("rolled-back")

    # What the console shows is what an app gets: a client key made in the console, then a real fetch.
    browser.go("#/keys")
    browser.type("#key-name", "ios app")
    browser.choose("#key-role", "client")
    browser.choose("#key-project", "shop-app")
    browser.click("#create-key-button")
    secret = browser.find("#new-key-secret").get_attribute("value")
    assert secret, "no key shown"
    browser.shot("key-created")
    # A key created without a name reads as one, not as its resource name.
    browser.choose("#key-role", "viewer")
    browser.choose("#key-project", "shop-app")
    browser.click("#create-key-button")
    browser.find("#new-key-secret")
    browser.wait_text("#keys td", "Unnamed viewer key")
    assert "apiKeys/" not in browser.text("#keys tbody"), browser.text("#keys tbody")
    browser.shot("key-unnamed")
    browser.go("#/projects/shop-app/parameters")
    browser.find('li.param[data-key="current_version"]')
    shown = browser.text('li.param[data-key="current_version"] .value.default')
    assert shown == "2.1.0", shown
    new = fetch(base, secret, "IOS", "2.1.0")
    assert new["templateVersion"] == "3" and new["entries"] == {
        "require_force_update": "false", "current_version": shown,
        "app_store_url": "https://apps.apple.com/app/id123456789"}, new
    old = fetch(base, secret, "IOS", "1.1.4")
    assert old["entries"]["require_force_update"] == "true", old
    browser.go("#/projects/shop-app/audit")
    browser.wait_text("#audit", "publish")
    # Actions and key ids are never cut mid-word; the Detail column has the room.
    for element in browser.driver.find_elements(By.CSS_SELECTOR, "#audit code, #audit .actor-key"):
        assert one_line_element(browser, element), f"{element.text} breaks inside"
    browser.shot("audit")


def top(browser, css):
    """Where an element starts, in page pixels."""
    return browser.driver.execute_script("return Math.round(document.querySelector(arguments[0]).getBoundingClientRect().top)", css)


def one_line_element(browser, element):
    """Whether an element's text sits on one line (one line box for inline text, or a line's height)."""
    return browser.driver.execute_script("""
        const e = arguments[0], style = getComputedStyle(e);
        const range = document.createRange(); range.selectNodeContents(e);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return tops.size <= 1;""", element)


def one_line(browser, css):
    return one_line_element(browser, browser.find(css))


def seed(base, project):
    """A project with a published template, through the API."""
    call("POST", base + "/v1/projects", {"projectId": project}, ADMIN)
    template = {"conditions": [{"name": "ios_old", "expression": IOS_OLD}],
                "parameters": {"require_force_update": {"defaultValue": {"value": "false"}, "valueType": "BOOLEAN",
                                                        "conditionalValues": {"ios_old": {"value": "true"}}}}}
    status, _, body = call("PUT", base + f"/v1/projects/{project}/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body


def new_key(base, role, project=None, name=None):
    status, _, body = call("POST", base + "/v1/apiKeys", {"role": role, "project": project, "displayName": name or f"{role} test"}, ADMIN)
    assert status == 201, body
    return json.loads(body)["key"]


def test_viewer_sees_no_edit_controls(browser, base):
    seed(base, "viewer-app")
    browser.sign_in(new_key(base, "viewer", "viewer-app"))
    assert "viewer" in browser.text("#role")
    assert browser.absent('a[href="#/keys"]'), "a viewer sees the keys page"
    browser.click('a[href="#/projects/viewer-app/parameters"]')
    browser.find('li.param[data-key="require_force_update"]')
    browser.find("#read-only")
    for css in ("#add-parameter", "#publish", "#discard-draft", "button.edit", "button.delete"):
        assert browser.absent(css), f"a viewer sees {css}"
    browser.shot("parameters")
    browser.go("#/projects/viewer-app/conditions")
    browser.find('[data-condition="ios_old"]')
    assert browser.absent("#add-condition") and not browser.driver.find_elements(By.CSS_SELECTOR, "#conditions button")
    browser.go("#/projects/viewer-app/history")
    browser.find('#versions tr[data-version="1"]')
    assert browser.absent("button.rollback")
    browser.shot("history")
    # Preview works for a viewer.
    browser.go("#/projects/viewer-app/preview")
    answer, _ = preview(browser, "IOS", "1.0.0")
    assert answer["require_force_update"] == ("true", "condition ios_old"), answer


def test_conflicting_edit_from_second_tab(browser, base):
    seed(base, "conflict-app")
    key = new_key(base, "editor", "conflict-app")
    browser.sign_in(key)
    first = browser.driver.current_window_handle
    browser.go("#/projects/conflict-app/parameters")
    browser.find('li.param[data-key="require_force_update"]')
    # A second tab: its own sign-in (the key is kept per tab), then an edit there.
    browser.driver.switch_to.new_window("tab")
    browser.open()
    assert browser.find("#api-key"), "a new tab is signed in without a key"
    browser.sign_in(key)
    browser.go("#/projects/conflict-app/parameters")
    add_parameter(browser, "from_second_tab", "STRING", "hello")
    browser.driver.switch_to.window(first)
    # The first tab still holds the old draft: its edit is refused and explained.
    browser.click('li.param[data-key="require_force_update"] button.edit')
    browser.type("#param-description", "edited in the first tab")
    browser.click("#param-save")
    browser.wait_text("#draft-notice", "Someone else saved this draft")
    browser.shot("conflict")
    browser.click("#conflict-reload")
    browser.find('li.param[data-key="from_second_tab"]')
    assert "edited in the first tab" not in browser.text("#parameters")
    # Deleting, after a confirmation.
    browser.click('li.param[data-key="from_second_tab"] button.delete')
    browser.click("dialog button.danger")
    browser.wait(lambda: browser.absent('li.param[data-key="from_second_tab"]'))
    browser.go("#/projects/conflict-app/conditions")
    browser.click('[data-condition="ios_old"] button.link')
    dialog = browser.text("dialog")
    assert "require_force_update" in dialog, dialog
    browser.click("dialog button.danger")
    browser.wait_text("#conditions", "No conditions yet")
    # Someone publishes while this draft is open: publishing it is refused, explained, and can be forced.
    status, _, body = call("PUT", base + "/v1/projects/conflict-app/remoteConfig",
                           {"parameters": {"published_elsewhere": {"defaultValue": {"value": "x"}}}},
                           dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    browser.click("#publish")
    browser.type("#publish-description", "Remove ios_old")
    browser.click("#publish-confirm")
    browser.wait_text("#draft-notice", "Someone published a new version")
    browser.shot("publish-conflict")
    browser.click("#conflict-force")
    browser.type("#publish-description", "Remove ios_old anyway")
    browser.click("#publish-confirm")
    browser.wait_text("#draft-notice", "Published version 3")
    published = json.loads(call("GET", base + "/v1/projects/conflict-app/remoteConfig", None, ADMIN)[2])
    assert published["conditions"] == [] and "published_elsewhere" not in published["parameters"], published


def test_keyboard_only(browser, base):
    seed(base, "keys-app")
    browser.open()
    active = lambda: browser.driver.switch_to.active_element  # noqa: E731
    browser.wait(lambda: active().get_attribute("id") == "api-key", message="the key field is not focused at start")
    active().send_keys(TOKEN + Keys.ENTER)
    browser.find("#sign-out")
    browser.go("#/projects/keys-app/parameters")
    browser.find('li.param[data-key="require_force_update"]')
    # Every control of the page is reached with Tab, in order, and every field has a label.
    focusable = browser.driver.execute_script("""
        return [...document.querySelectorAll('a[href], button, input, select, textarea')]
            .filter(e => !e.disabled && e.offsetParent !== null).length""")
    browser.driver.execute_script("document.activeElement && document.activeElement.blur()")
    seen = set()
    for _ in range(focusable + 5):
        active().send_keys(Keys.TAB)
        seen.add(browser.driver.execute_script("""
            const e = document.activeElement;
            return [...document.querySelectorAll('a[href], button, input, select, textarea')].indexOf(e)"""))
    reachable = browser.driver.execute_script("""
        return [...document.querySelectorAll('a[href], button, input, select, textarea')]
            .map((e, i) => [i, !e.disabled && e.offsetParent !== null]).filter(p => p[1]).map(p => p[0])""")
    missing = set(reachable) - seen
    assert not missing, f"controls Tab never reaches: {missing}"
    # Add a parameter with the keyboard only: focus the button, Enter, type and Tab through the form.
    browser.find("#add-parameter").send_keys(Keys.ENTER)
    browser.wait(lambda: active().get_attribute("id") == "param-key", message="the form does not focus its first field")
    active().send_keys("typed_by_keyboard")
    order = []
    for _ in range(12):
        active().send_keys(Keys.TAB)
        element = active()
        order.append(element.get_attribute("id") or element.text)
        if element.tag_name in ("input", "select", "textarea"):
            labelled = browser.driver.execute_script(
                "return arguments[0].labels.length > 0 || !!arguments[0].getAttribute('aria-label')", element)
            assert labelled, f"{element.get_attribute('id')} has no label"
        if element.get_attribute("id") == "param-default-value":
            element.send_keys("from the keyboard")
    assert "param-type" in order and "param-description" in order and "param-default-value" in order, order
    browser.shot("keyboard-form")
    # Enter in a text field submits the form.
    browser.find("#param-default-value").send_keys(Keys.ENTER)
    browser.find('li.param[data-key="typed_by_keyboard"]')
    # Escape closes a dialog.
    browser.find("#add-parameter").send_keys(Keys.ENTER)
    browser.find("#param-key")
    active().send_keys(Keys.ESCAPE)
    browser.wait(lambda: browser.absent("dialog"))


def test_sign_out_forgets_the_key(browser, base):
    browser.sign_in(TOKEN)
    assert browser.driver.execute_script("return Object.values(sessionStorage).includes(arguments[0])", TOKEN)
    browser.shot("signed-in")
    browser.click("#sign-out")
    browser.find("#api-key")
    assert browser.driver.execute_script("return sessionStorage.length") == 0
    browser.driver.refresh()
    browser.find("#api-key")
    # A wrong key is refused with the server's reason.
    browser.type("#api-key", "rc_admin_notAKey")
    browser.click("#sign-in-button")
    browser.wait_text("#sign-in-feedback", "Not signed in")
    browser.shot("refused")


def test_change_request_approved_by_another_key(browser, base):
    seed(base, "cr-app")
    status, _, body = call("PATCH", base + "/v1/projects/cr-app", {"requireApproval": True, "approvalsRequired": 1}, ADMIN)
    assert status == 200, body
    # Two people: a key with the author's display name would count as the author.
    alice, bob = new_key(base, "editor", "cr-app", "Alice"), new_key(base, "editor", "cr-app", "Bob")
    browser.sign_in(alice)
    browser.go("#/projects/cr-app/parameters")
    add_parameter(browser, "from_request", "STRING", "reviewed")
    # A direct publish is refused: the console says why and leads to the change requests.
    browser.click("#publish")
    browser.type("#publish-description", "direct")
    browser.click("#publish-confirm")
    browser.wait_text("#draft-notice", "only through approved change requests")
    browser.click("#to-changes")
    browser.click("#cr-propose")
    browser.type("#cr-description", "Add from_request")
    browser.click("#cr-propose-confirm")
    browser.wait_text("#cr-notice", "Opened change request")
    browser.wait_text("#cr-card", "OPEN")
    assert "from_request" in browser.text("#diff")
    # Its author cannot approve it.
    browser.click("#cr-approve")
    browser.click("#cr-comment-confirm")
    browser.wait_text("#cr-notice", "author")
    browser.shot("proposed")
    browser.click("#sign-out")
    browser.sign_in(bob)
    browser.go("#/projects/cr-app/changes")
    browser.click("#change-requests button.show")
    browser.click("#cr-approve")
    browser.type("#cr-comment", "looks right")
    browser.click("#cr-comment-confirm")
    browser.wait_text("#cr-card", "APPROVED")
    assert "looks right" in browser.text("#cr-approvals")
    browser.click("#cr-publish")
    browser.wait_text("#cr-card", "PUBLISHED")
    browser.shot("published")
    published = json.loads(call("GET", base + "/v1/projects/cr-app/remoteConfig", None, ADMIN)[2])
    assert published["parameters"]["from_request"]["defaultValue"] == {"value": "reviewed"}, published
    assert published["version"]["updateOrigin"] == "CHANGE_REQUEST", published["version"]


def test_store_sync_page(browser, base):
    """Link a project to its App Store listing from the console, sync it now, watch a failure show, turn it on."""
    call("POST", base + "/v1/projects", {"projectId": "store-app", "displayName": "Store App"}, ADMIN)
    template = {"parameters": {
        "current_version": {"defaultValue": {"value": "2.3.0"}, "valueType": "STRING"},
        "app_store_url": {"defaultValue": {"value": "https://apps.apple.com/app/id123456789"}, "valueType": "STRING"}}}
    status, _, body = call("PUT", base + "/v1/projects/store-app/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    STORE["answer"] = {"resultCount": 1, "results": [{"version": "2.4.0", "trackViewUrl": "https://apps.apple.com/jp/app/id123456789",
                                                      "currentVersionReleaseDate": "2026-01-05T08:00:00Z"}]}
    browser.sign_in(TOKEN)
    browser.go("#/projects/store-app/store-sync")
    browser.find("#store-sync-none")
    assert browser.absent("#sync-now"), "Sync now offered without a link"
    browser.shot("store-sync-empty")
    # Linked, switched off: nothing reads the store until Sync now.
    browser.click("#store-sync-enabled-input")
    browser.type("#store-sync-app-id", "123456789")
    browser.type("#store-sync-country", "jp")
    browser.choose("#store-sync-map-version", "current_version")
    browser.choose("#store-sync-map-trackViewUrl", "app_store_url")
    browser.click("#store-sync-save")
    browser.wait_text("#store-sync-notice", "Syncing is off")
    assert "off" in browser.text("#store-sync-enabled") and browser.text("#store-sync-last") == "never"
    browser.click("#sync-now")
    browser.wait_text("#store-sync-notice", "published version 2")
    assert browser.text("#store-sync-version") == "2.4.0" and browser.text("#store-sync-error") == "none"
    published = json.loads(call("GET", base + "/v1/projects/store-app/remoteConfig", None, ADMIN)[2])
    assert published["parameters"]["current_version"]["defaultValue"]["value"] == "2.4.0", published
    assert published["version"]["updateOrigin"] == "STORE_SYNC", published["version"]
    browser.shot("store-sync-published", show="#store-sync-status")
    # The same listing again: nothing to publish, and the page says so.
    browser.click("#sync-now")
    browser.wait_text("#store-sync-notice", "nothing to publish")
    # A store answering nonsense: nothing changes, and the error is shown where people look.
    STORE["answer"] = {"resultCount": 0, "results": []}
    browser.click("#sync-now")
    browser.wait_text("#store-sync-notice", "The sync failed")
    browser.wait_text("#store-sync-error", "found no app")
    assert "error-text" in browser.find("#store-sync-error").get_attribute("class")
    browser.shot("store-sync-failed", show="#store-sync-status")
    # Switched on: saving syncs at once, and the next sync has a time.
    STORE["answer"] = {"resultCount": 1, "results": [{"version": "2.5.0", "trackViewUrl": "https://apps.apple.com/jp/app/id123456789",
                                                      "currentVersionReleaseDate": "2026-01-05T08:00:00Z"}]}
    browser.click("#store-sync-enabled-input")
    browser.click("#store-sync-save")
    browser.wait_text("#store-sync-notice", "syncs it now")
    browser.wait_text("#store-sync-version", "2.5.0", timeout=20)
    assert "every hour" in browser.text("#store-sync-enabled"), browser.text("#store-sync-enabled")
    assert browser.text("#store-sync-next") not in ("", "never"), browser.text("#store-sync-next")
    browser.shot("store-sync-enabled", show="#store-sync-status")
    # A viewer sees the page, without Sync now or a Save button.
    browser.click("#sign-out")
    browser.find("#api-key")
    browser.sign_in(new_key(base, "viewer", "store-app"))
    browser.go("#/projects/store-app/store-sync")
    browser.wait_text("#store-sync-version", "2.5.0")
    assert browser.absent("#sync-now") and browser.absent("#store-sync-save")


# The App Store lookup stand-in's next answer (the server's --store-lookup-url points at it).
STORE = {"answer": {"resultCount": 0, "results": []}}


class StoreStandIn(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps(STORE["answer"]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def insert_sample(project, contexts):
    """Rows of the impact sample, written straight into the server's database as collection would."""
    import hashlib, subprocess
    url = open(os.path.join(DATA_DIR, "database-url")).read().strip()
    values = []
    for context in contexts:
        digest = hashlib.sha256(context["appInstanceId"].encode()).digest()
        hashed = int.from_bytes(digest[:8], "big", signed=True)
        text = json.dumps(context).replace("'", "''")
        values.append(f"('{project}', {hashed}, '{text}'::jsonb, now())")
    sql = "INSERT INTO insight_samples (project_id, instance_hash, context, last_seen) VALUES " + ", ".join(values)
    subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True)


def fleet(prefix, n, platform, version):
    return [{"appInstanceId": f"{prefix}-{i}", "platform": platform, "appVersion": version} for i in range(n)]




def test_impact_before_approving_and_publishing(browser, base):
    seed(base, "impact-app")
    insert_sample("impact-app", fleet("a", 40, "IOS", "2.3.0") + fleet("b", 30, "IOS", "2.2.1")
                  + fleet("c", 20, "IOS", "1.0.9") + fleet("e", 10, "IOS", "1.0.8") + fleet("d", 20, "ANDROID", "1.0.9"))
    raised = {"conditions": [{"name": "ios_old", "expression": "device.os == 'ios' && app.version.<(['2.3.0'])"}],
              "parameters": {"require_force_update": {"defaultValue": {"value": "false"}, "valueType": "BOOLEAN",
                                                      "conditionalValues": {"ios_old": {"value": "true"}}}}}
    status, _, body = call("POST", base + "/v1/projects/impact-app/remoteConfig/changeRequests",
                           {"description": "Require 2.3.0 on iOS", "template": raised}, ADMIN)
    assert status == 201, body
    browser.sign_in(new_key(base, "editor", "impact-app"))
    browser.go("#/projects/impact-app/changes")
    browser.click("#change-requests button.show")
    # The impact is on the page before anyone approves or publishes.
    browser.wait_text("#impact-summary", "required to update: 2.2.1")
    summary = browser.text("#impact-summary")
    assert "30.0% of active iOS installs, about 30" in summary, summary
    assert "require_force_update" in browser.text("#impact-changes")
    assert browser.visible("#cr-approve")
    browser.shot("change-request-impact", show="#cr-card")
    # The publish dialog says what publishing the draft would do.
    browser.go("#/projects/impact-app/parameters")
    add_parameter(browser, "welcome_text", "STRING", "Hello")
    browser.click("#publish")
    browser.wait_text("#impact-summary", "1 parameter changes for 100.0%")
    assert "welcome_text" in browser.text("#impact-changes")
    browser.shot("publish-dialog-impact")
    browser.click("dialog .buttons button")


def test_insights_page_counts_real_fetches(browser, base):
    """Apps fetch; once the server has added its counts (every second here), the Insights page draws them."""
    seed(base, "fleet-app")
    key = new_key(base, "client", "fleet-app")
    for version, n in [("2.3.0", 30), ("1.9.0", 12)]:
        for i in range(n):
            status, _, body = call("POST", base + "/v1/projects/fleet-app/remoteConfig:fetch",
                                   {"appInstanceId": f"{version}-{i}", "platform": "IOS", "appVersion": version},
                                   {"X-API-Key": key})
            assert status == 200, body
    deadline, data = time.time() + 20, None
    while time.time() < deadline:
        status, _, body = call("GET", base + "/v1/projects/fleet-app/insights/versions", None, ADMIN)
        data = json.loads(body)
        if status == 200 and data["platforms"] and data["platforms"][0]["answers"] == 42:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"the counts never reached the database: {data}")
    assert [v["version"] for v in data["platforms"][0]["versions"]] == ["2.3.0", "1.9.0"], data
    browser.sign_in(TOKEN)
    browser.go("#/projects/fleet-app/insights")
    browser.find("#adoption-chart circle")
    legend = browser.text("#adoption-legend")
    assert "2.3.0" in legend and "1.9.0" in legend, legend
    assert "condition ios_old" in browser.text("#parameter-shares"), browser.text("#parameter-shares")
    browser.shot("insights-real", show="#insights-adoption")


class WebhookReceiver(http.server.BaseHTTPRequestHandler):
    """A loopback receiver: records every POST; answers 500 on /fail, 204 elsewhere."""
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        WebhookReceiver.received.append((self.path, dict(self.headers), body))
        self.send_response(500 if self.path == "/fail" else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def signed_with(secret, headers, body):
    import hashlib, hmac
    expected = hmac.new(secret.encode(), headers["RC-Webhook-Timestamp"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(part == f"v1={expected}" for part in headers["RC-Webhook-Signature"].split(" "))


def delivery_row(browser, webhook):
    return f'[data-webhook="{webhook}"] .deliveries-table tbody tr'


def row_state(browser, row):
    """(state, attempts) of a delivery row, read in one step (the list is redrawn while it is pending)."""
    return tuple(browser.driver.execute_script(
        "const r = document.querySelector(arguments[0]); return r ? [r.dataset.state, r.querySelector('.attempts').textContent] : [null, null]", row))


def reopen(browser, project, tab, gone):
    """Leaves for the Parameters tab and comes back, so the page reads everything again; waits until the old
    page (`gone`, CSS) is replaced, so nothing found afterwards belongs to it."""
    browser.go(f"#/projects/{project}/parameters")
    browser.wait(lambda: browser.absent(gone), message=f"{gone} stayed")
    browser.go(f"#/projects/{project}/{tab}")


def test_webhooks_page(browser, base):
    """An admin adds a webhook to a real loopback receiver, copies its secret (shown once), pings it, sees the
    ping DELIVERED, redelivers it, sees a failing one retried, disables, rotates and deletes."""
    seed(base, "hook-app")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), WebhookReceiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_port}/hook"
    try:
        browser.sign_in(TOKEN)
        browser.go("#/projects/hook-app/webhooks")
        browser.wait_text("#webhooks-empty", "No webhooks yet")
        browser.shot("webhooks-empty")
        # A refusal is shown under the field it names, and creates nothing.
        browser.type("#webhook-url", "ftp://example.com/hook")
        browser.click("#create-webhook-button")
        browser.wait_text("#webhook-url-error", "url")
        assert browser.find("#webhook-url").get_attribute("aria-invalid") == "true"
        assert browser.driver.switch_to.active_element.get_attribute("id") == "webhook-url"
        browser.shot("webhook-url-refused", show="#create-webhook")
        assert json.loads(call("GET", base + "/v1/projects/hook-app/webhooks", None, ADMIN)[2])["webhooks"] == []
        browser.type("#webhook-url", hook_url)
        browser.click("#webhook-event-template-published")  # unticked: no event at all
        browser.click("#create-webhook-button")
        browser.wait_text("#webhook-events-error", "event")
        assert browser.absent("#webhook-url-error")
        # All events, JSON, a description: created; the secret is shown once, focused, with a copy button.
        browser.click("#webhook-event-all")
        ping_box = browser.find("#webhook-event-ping")
        assert not ping_box.is_enabled() and ping_box.is_selected()
        browser.type("#webhook-description", "CI receiver")
        browser.click("#create-webhook-button")
        secret = browser.find("#webhook-secret").get_attribute("value")
        assert secret.startswith("whsec_"), secret
        assert browser.driver.switch_to.active_element.get_attribute("id") == "webhook-secret"
        assert "not see this secret again" in browser.text("#webhook-secret-panel")
        browser.find("#copy-webhook-secret")
        browser.shot("webhook-secret-once", show="#webhook-secret-panel")
        browser.click("#dismiss-webhook-secret")
        browser.wait(lambda: browser.absent("#webhook-secret-panel"))
        webhook = json.loads(call("GET", base + "/v1/projects/hook-app/webhooks", None, ADMIN)[2])["webhooks"][0]
        wid = webhook["name"].split("/")[1]
        card = f'[data-webhook="{wid}"]'
        assert "all events" in browser.text(f"{card} .webhook-events") and "CI receiver" in browser.text(card)
        browser.wait_text(f"{card} .empty-deliveries", "Nothing sent yet")
        # Shown once: after reading the page again it is nowhere.
        reopen(browser, "hook-app", "webhooks", "#webhooks")
        browser.find(card)
        assert secret not in browser.driver.page_source
        # A test ping reaches the receiver, signed with that secret, and the list follows it to DELIVERED.
        browser.click(f"{card} button.ping")
        browser.wait_text("#webhooks-notice", "Test ping queued")
        row = delivery_row(browser, wid)
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, f'{row}[data-state="DELIVERED"]'), 20,
                     "the ping never showed DELIVERED")
        assert browser.text(f"{row} .attempts") == "1" and "HTTP 204" in browser.text(f"{row} .last-answer")
        pings = [r for r in WebhookReceiver.received if r[0] == "/hook"]
        assert len(pings) == 1 and json.loads(pings[0][2])["type"] == "ping", pings
        assert signed_with(secret, pings[0][1], pings[0][2]), pings[0][1]
        hover = browser.find(f"{row} time").get_attribute("title")
        assert hover.endswith(" UTC"), hover
        browser.shot("webhook-ping-delivered", show=card)
        # Redeliver: a second attempt of the same delivery id.
        browser.click(f"{row} button.redeliver")
        browser.wait(lambda: row_state(browser, row) == ("DELIVERED", "2"), 20, "the redelivery never showed")
        pings = [r for r in WebhookReceiver.received if r[0] == "/hook"]
        assert len(pings) == 2 and pings[0][1]["RC-Webhook-Id"] == pings[1][1]["RC-Webhook-Id"], pings
        # A receiver answering 500: pending, with the answer and the next attempt shown.
        call("POST", base + "/v1/projects/hook-app/webhooks", {"url": f"http://127.0.0.1:{receiver.server_port}/fail",
             "events": ["template.published"], "format": "SLACK"}, ADMIN)
        reopen(browser, "hook-app", "webhooks", "#webhooks")
        failing = json.loads(call("GET", base + "/v1/projects/hook-app/webhooks", None, ADMIN)[2])["webhooks"][1]
        fid = failing["name"].split("/")[1]
        browser.click(f'[data-webhook="{fid}"] button.ping')
        frow = delivery_row(browser, fid)
        browser.wait_text(f"{frow} .last-answer", "HTTP 500", 20)
        assert row_state(browser, frow)[0] == "PENDING"
        assert "in " in browser.text(f"{frow} td:nth-child(6)"), browser.text(f"{frow} td:nth-child(6)")
        browser.shot("webhook-failing", show=f'[data-webhook="{fid}"]')
        assert browser.driver.execute_script("return [...document.querySelectorAll('.deliveries .table-wrap')]"
                                             ".every((w) => w.scrollWidth <= w.clientWidth + 1)"), "the deliveries scroll sideways at 1280 px"
        # Disable and enable.
        browser.click(f"{card} button.toggle")
        browser.wait_text(f"{card} .webhook-enabled", "Disabled")
        assert json.loads(call("GET", base + f"/v1/projects/hook-app/webhooks/{wid}", None, ADMIN)[2])["enabled"] is False
        browser.click(f"{card} button.toggle")
        browser.wait_text(f"{card} .webhook-enabled", "Enabled")
        # The keyboard focus stays on the (redrawn) button pressed.
        browser.wait(lambda: "toggle" in browser.driver.switch_to.active_element.get_attribute("class"), 5, "focus lost after Enable")
        # Edited in a dialog: the events and description change, and a bad URL is refused under its field.
        browser.click(f"{card} button.edit")
        browser.type("#edit-webhook-url", "not a url")
        browser.click("#edit-webhook-save")
        browser.wait_text("#edit-webhook-url-error", "url")
        browser.type("#edit-webhook-url", hook_url)
        browser.click("#edit-webhook-event-all")  # every event stays ticked: untick the one not wanted
        browser.click("#edit-webhook-event-ping")
        browser.type("#edit-webhook-description", "CI receiver, publishes and requests")
        browser.shot("webhook-edit")
        browser.click("#edit-webhook-save")
        browser.wait(lambda: browser.absent("dialog"))
        browser.wait_text(f"{card} .webhook-events", "changeRequest.opened")
        edited = json.loads(call("GET", base + f"/v1/projects/hook-app/webhooks/{wid}", None, ADMIN)[2])
        assert "*" not in edited["events"] and "ping" not in edited["events"] and len(edited["events"]) == 9, edited
        assert edited["description"] == "CI receiver, publishes and requests", edited
        # Rotation shows the new secret once.
        browser.click(f"{card} button.rotate")
        browser.click("dialog .buttons button.primary")
        rotated = browser.find("#webhook-secret").get_attribute("value")
        assert rotated.startswith("whsec_") and rotated != secret
        assert "24 hours" in browser.text("#webhook-secret-panel")
        browser.click("#dismiss-webhook-secret")
        # Delete asks first; Cancel keeps it.
        browser.click(f"{card} button.delete")
        browser.click("dialog .buttons button:not(.danger)")
        browser.wait(lambda: browser.absent("dialog"))
        browser.find(card)
        browser.click(f"{card} button.delete")
        browser.click("dialog .buttons button.danger")
        browser.wait(lambda: browser.absent(card))
        browser.wait_text("#webhooks-notice", "Deleted")
        # Not an admin: no tab.
        browser.click("#sign-out")
        browser.find("#api-key")
        browser.sign_in(new_key(base, "editor", "hook-app"))
        browser.go("#/projects/hook-app/parameters")
        browser.find(".tabs")
        assert not browser.driver.find_elements(By.CSS_SELECTOR, '.tabs a[href$="/webhooks"]')
    finally:
        receiver.shutdown()


class Skip(Exception):
    """A test that cannot run against this server (said in the output, never counted as passed)."""


def rollout_state(base, project, rid):
    return json.loads(call("GET", base + f"/v1/projects/{project}/rollouts/{rid}", None, ADMIN)[2])


def test_rollouts_page(browser, base):
    """An editor starts a rollout from the console (steps, audience, value), copies its halt token and alert hook
    URL (shown once), watches the next step publish on time with the share of answers its condition matched,
    pauses, resumes and halts it, and completes another. Needs the rollouts routes (issue 33)."""
    call("POST", base + "/v1/projects", {"projectId": "roll-app", "displayName": "Roll App"}, ADMIN)
    template = {"parameters": {
        "new_checkout": {"defaultValue": {"value": "false"}, "valueType": "BOOLEAN"},
        "banner_text": {"defaultValue": {"value": "Welcome"}, "valueType": "STRING"}}}
    status, _, body = call("PUT", base + "/v1/projects/roll-app/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    status, _, body = call("GET", base + "/v1/projects/roll-app/rollouts", None, ADMIN)
    if status == 404:  # the project exists: the route does not
        raise Skip("this server has no rollouts routes (GET …/rollouts answered 404)")
    browser.sign_in(new_key(base, "editor", "roll-app", "release manager"))
    browser.go("#/projects/roll-app/rollouts")
    browser.wait_text("#rollouts-empty", "No rollouts yet")
    browser.shot("rollouts-empty")
    # Percents that do not increase: refused under the steps, nothing started.
    browser.choose("#rollout-parameter", "new_checkout")
    browser.choose("#rollout-value", "true")
    browser.type("#rollout-step-1-percent", "1")
    browser.click("#create-rollout-button")
    browser.wait(lambda: browser.find("#rollout-steps-error").text, message="no error under the steps")
    assert browser.find("#rollout-step-1-percent").get_attribute("aria-invalid") == "true" or \
        browser.find("#rollout-step-0-percent").get_attribute("aria-invalid") == "true"
    assert json.loads(call("GET", base + "/v1/projects/roll-app/rollouts", None, ADMIN)[2]).get("rollouts", []) == []
    # The audience is checked as it is typed.
    browser.type("#rollout-audience", "device.os == ")
    browser.find("#rollout-audience-check .bad")
    browser.type("#rollout-audience", "device.os == 'ios'")
    browser.find("#rollout-audience-check .ok")
    # 10% for 2 seconds, then 50% for a day, then everyone.
    browser.type("#rollout-step-0-percent", "10")
    browser.type("#rollout-step-0-hold", "2")
    browser.choose("#rollout-step-0-unit", "1")
    browser.type("#rollout-step-1-percent", "50")
    browser.click("#rollout-steps li:nth-child(3) button")
    assert len(browser.visible("#rollout-steps li")) == 3
    browser.type("#rollout-description", "New checkout on iOS")
    browser.click("#create-rollout-button")
    token = browser.find("#rollout-halt-token").get_attribute("value")
    hook = browser.find("#rollout-halt-url").get_attribute("value")
    assert token.startswith("rch_"), token
    assert browser.driver.switch_to.active_element.get_attribute("id") == "rollout-halt-token"
    assert "not see it again" in browser.text("#rollout-halt-panel")
    rollouts = json.loads(call("GET", base + "/v1/projects/roll-app/rollouts", None, ADMIN)[2])["rollouts"]
    assert len(rollouts) == 1, rollouts
    rid = rollouts[0]["name"].split("/")[1]
    assert hook == f"{base}/v1/rollouts/{rid}:halt", hook
    assert rollouts[0]["audience"] == "device.os == 'ios'" and [s["percent"] for s in rollouts[0]["steps"]] == [10, 50, 100]
    browser.shot("rollout-halt-token", show="#rollout-halt-panel")
    browser.click("#dismiss-halt-token")
    browser.wait(lambda: browser.absent("#rollout-halt-panel"))
    assert len(browser.visible("#rollout-steps li")) == 4 and browser.find("#rollout-description").get_attribute("value") == "", \
        "the form still holds the rollout just started"
    card = f'[data-rollout="{rid}"]'
    assert "Running" in browser.text(f"{card} .rollout-state")
    # The next step publishes on time and the page follows without a reload.
    browser.find(f'{card} .stepper li[data-step="1"].reached', timeout=30)
    assert "50%" in browser.text(f"{card} .rollout-bar-text")
    # Apps fetch; once counted, each step shows the share of answers its condition matched.
    client = new_key(base, "client", "roll-app")
    for i in range(40):
        status, _, body = call("POST", base + "/v1/projects/roll-app/remoteConfig:fetch",
                               {"appInstanceId": f"roll-{i}", "platform": "IOS", "appVersion": "2.0.0"}, {"X-API-Key": client})
        assert status == 200, body
    condition = rollouts[0]["conditionName"]
    deadline = time.time() + 20
    while time.time() < deadline:
        counted = json.loads(call("GET", base + "/v1/projects/roll-app/insights/parameters", None, ADMIN)[2])
        if counted.get("conditions", {}).get(condition, {}).get("matched", 0) > 0 and counted["answers"] >= 40:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"the fetches were never counted: {counted}")
    reopen(browser, "roll-app", "rollouts", "#rollouts")
    browser.wait_text(f'{card} .stepper li[data-step="1"] .step-share', "share of answers in the window")
    share = browser.text(f'{card} .stepper li[data-step="1"] .step-share')
    assert "%" in share and "of 40" in share, share
    title = browser.find(f'{card} .stepper time').get_attribute("title")
    assert title.endswith(" UTC"), title
    browser.shot("rollout-running", show=card)
    # Pause and resume.
    browser.click(f"{card} button.pause")
    browser.wait_text(f"{card} .rollout-state", "Paused")
    assert "resume" in browser.driver.switch_to.active_element.get_attribute("class"), "focus lost after Pause"
    assert rollout_state(base, "roll-app", rid)["state"] == "PAUSED"
    browser.wait_text(card, "Paused by an editor")
    browser.click(f"{card} button.resume")
    browser.wait_text(f"{card} .rollout-state", "Running")
    # Halt asks first; then every app is back to what it had.
    browser.click(f"{card} button.halt")
    browser.click("dialog .buttons button.danger")
    browser.wait_text(f"{card} .rollout-state", "Halted")
    published = json.loads(call("GET", base + "/v1/projects/roll-app/remoteConfig", None, ADMIN)[2])
    assert condition not in [c["name"] for c in published.get("conditions", [])], published
    assert browser.absent(f"{card} button.halt")
    browser.shot("rollout-halted", show=card)
    # The alert hook the page showed answers too (a repeat is harmless).
    status, _, body = call("POST", hook, None, {"Authorization": f"Bearer {token}"})
    assert status == 200, (status, body)
    # Another, started through the API, completed from the page: the value becomes the default.
    status, _, body = call("POST", base + "/v1/projects/roll-app/rollouts",
                           {"parameter": "banner_text", "value": "Hello", "steps": [{"percent": 5, "holdSeconds": 86400}, {"percent": 100}]}, ADMIN)
    assert status == 201, body
    other = json.loads(body)["name"].split("/")[1]
    reopen(browser, "roll-app", "rollouts", "#rollouts")
    browser.click(f'[data-rollout="{other}"] button.complete')
    browser.click("dialog .buttons button.primary")
    browser.wait_text(f'[data-rollout="{other}"] .rollout-state', "Completed")
    published = json.loads(call("GET", base + "/v1/projects/roll-app/remoteConfig", None, ADMIN)[2])
    assert published["parameters"]["banner_text"]["defaultValue"]["value"] == "Hello", published
    # With approval required, starting one proposes a change request carrying the plan; the page says so.
    status, _, body = call("PATCH", base + "/v1/projects/roll-app", {"requireApproval": True}, ADMIN)
    assert status == 200, body
    reopen(browser, "roll-app", "rollouts", "#rollouts")
    browser.choose("#rollout-parameter", "new_checkout")
    browser.type("#rollout-step-0-percent", "5")
    browser.click("#create-rollout-button")
    browser.wait_text("#rollouts-notice", "proposed as changeRequests/")
    proposed = [r for r in json.loads(call("GET", base + "/v1/projects/roll-app/rollouts?state=PROPOSED", None, ADMIN)[2])["rollouts"]]
    assert len(proposed) == 1 and proposed[0]["changeRequest"], proposed
    pcard = f'[data-rollout="{proposed[0]["name"].split("/")[1]}"]'
    assert "Waiting for approval" in browser.text(f"{pcard} .rollout-state")
    assert proposed[0]["changeRequest"] in browser.text(pcard) and browser.find(f'{pcard} a[href$="/changes"]')
    assert browser.absent(f"{pcard} button.halt")
    browser.shot("rollout-proposed", show=pcard)
    # A viewer sees the rollouts, without the form or the buttons.
    browser.click("#sign-out")
    browser.find("#api-key")
    browser.sign_in(new_key(base, "viewer", "roll-app"))
    browser.go("#/projects/roll-app/rollouts")
    browser.find(card)
    assert browser.absent("#create-rollout") and browser.absent("button.halt") and browser.absent("button.complete")


TESTS = [test_force_update_recipe, test_viewer_sees_no_edit_controls, test_conflicting_edit_from_second_tab,
         test_change_request_approved_by_another_key, test_keyboard_only, test_sign_out_forgets_the_key,
         test_store_sync_page, test_impact_before_approving_and_publishing,
         test_insights_page_counts_real_fetches, test_webhooks_page,
         test_rollouts_page]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--screenshots", default=os.path.join(HERE, "..", "..", ".build", "console-screenshots"))
    parser.add_argument("-k", default="")
    options = parser.parse_args()
    shutil.rmtree(options.screenshots, ignore_errors=True)
    os.makedirs(options.screenshots)
    store = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StoreStandIn)
    threading.Thread(target=store.serve_forever, daemon=True).start()
    global DATA_DIR
    server, base, data_dir = start_server(
        options.binary, "rc-console-", ["--store-lookup-url", f"http://127.0.0.1:{store.server_port}/lookup",
                                        "--insights-flush-interval", "1", "--webhooks-allow-private"])
    DATA_DIR = data_dir
    passed, failed, skipped = 0, 0, 0
    try:
        for test in TESTS:
            if options.k not in test.__name__:
                continue
            name = test.__name__.removeprefix("test_")
            browser = Browser(base, name, options.screenshots)
            try:
                test(browser, base)
                errors = browser.script_errors()
                assert not errors, f"script errors: {errors}"
                passed += 1
                print(f"✔ {name}", flush=True)
            except Skip as reason:
                skipped += 1
                print(f"- {name} skipped: {reason}", flush=True)
            except (AssertionError, TimeoutException, Exception):
                failed += 1
                print(f"✘ {name}", flush=True)
                traceback.print_exc()
                try:
                    browser.driver.save_screenshot(os.path.join(options.screenshots, f"{name}-FAILED.png"))
                    print("  browser log:", [e["message"] for e in browser.driver.get_log("browser")][-10:])
                except Exception:
                    pass
            finally:
                browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"screenshots in {os.path.abspath(options.screenshots)}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
