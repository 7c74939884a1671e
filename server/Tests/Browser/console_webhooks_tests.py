"""The console's browser test of the Webhooks page, against a real loopback receiver."""
import http.server, json, threading

from selenium.webdriver.common.by import By

from console_helpers import ADMIN, TOKEN, call, new_key, reopen, seed


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
