"""What the console's browser tests share: the admin token and a few expressions, projects and keys made
through the API (seed, new_key), the template edited through the UI (conditions, parameters, publish, preview),
a real fetch as an app makes it, layout checks, and the App Store lookup stand-in the server is pointed at."""
import http.server, json, os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
# TOKEN and call are the tests' too: they import them from here, where the drills' folder is on the path.
from common import TOKEN, call  # noqa: E402,F401

from selenium.webdriver.common.by import By  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}
IOS_OLD = "device.os == 'ios' && app.version.<(['2.0.0'])"
EXACT = "app.version.==(['1.1.4'])"
DATA_DIR = None  # the server's data dir (its database-url), set by console_test.main()


class Skip(Exception):
    """A test that cannot run against this server (said in the output, never counted as passed)."""


# The template, edited through the UI as a person does.

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


def reopen(browser, project, tab, gone):
    """Leaves for the Parameters tab and comes back, so the page reads everything again; waits until the old
    page (`gone`, CSS) is replaced, so nothing found afterwards belongs to it."""
    browser.go(f"#/projects/{project}/parameters")
    browser.wait(lambda: browser.absent(gone), message=f"{gone} stayed")
    browser.go(f"#/projects/{project}/{tab}")


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


# The Google Play stand-in's track and failure (the server's --play-token-url and --play-api-url point at it).
# Shapes only: Tests/GooglePlay checks the server's JWT with Google's library and builds answers from Google's
# discovery document; here the page is what is tested.
PLAY = {"track": {"track": "production", "releases": []}, "fail": None, "edits": 0}


class PlayStandIn(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/token":
            return self.answer(200, {"access_token": "ya29.console", "expires_in": 3599, "token_type": "Bearer"})
        if PLAY["fail"]:
            return self.answer(PLAY["fail"], {"error": {"code": PLAY["fail"], "message": "The caller does not have "
                                                        "permission", "status": "PERMISSION_DENIED"}})
        PLAY["edits"] += 1
        self.answer(200, {"id": f"edit{PLAY['edits']}", "expiryTimeSeconds": "1999999999"})

    def do_GET(self):
        self.answer(200, PLAY["track"])

    def do_DELETE(self):
        self.answer(204, None)

    def log_message(self, *args):
        pass


def service_account_key_file(directory):
    """A service account's JSON key file with a fresh RSA key (openssl), written into `directory`; its path."""
    pem = subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                         check=True, capture_output=True, text=True).stdout
    path = os.path.join(directory, "play-key.json")
    with open(path, "w") as file:
        json.dump({"type": "service_account", "project_id": "shop-123", "private_key_id": "0a1b2c3d4e5f",
                   "private_key": pem, "client_email": "remote-config@shop-123.iam.gserviceaccount.com"}, file)
    return path
