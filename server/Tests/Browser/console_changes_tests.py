"""The console's browser tests of the ways a template changes besides a direct publish: a change request
approved by another key, and the App Store sync page (against the server's lookup stand-in)."""
import json
import tempfile

from console_helpers import (ADMIN, PLAY, STORE, TOKEN, add_parameter, call, new_key, seed,  # noqa: F401
                             service_account_key_file)


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


def test_google_play_page(browser, base):
    """Link a project to Google Play from the console with a key file, sync it, watch a 403 be said in words."""
    call("POST", base + "/v1/projects", {"projectId": "play-app", "displayName": "Play App"}, ADMIN)
    template = {
        "conditions": [{"name": "android", "expression": "device.os == 'android'"}],
        "parameters": {
            "current_version": {"defaultValue": {"value": "2.3.0"}, "valueType": "STRING"},
            "current_build_android": {"defaultValue": {"value": "1"}, "valueType": "NUMBER"}}}
    status, _, body = call("PUT", base + "/v1/projects/play-app/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    PLAY["track"] = {"track": "production", "releases": [
        {"name": "2.5.0", "versionCodes": ["251"], "status": "inProgress", "userFraction": 0.1},
        {"name": "2.4.0", "versionCodes": ["240", "241"], "status": "completed"}]}
    PLAY["fail"] = None
    key_file = service_account_key_file(tempfile.mkdtemp(prefix="rc-play-key-"))
    browser.sign_in(TOKEN)
    browser.go("#/projects/play-app/store-sync")
    browser.find("#play-none")
    assert browser.find("#store-sync-none"), "the App Store half is gone"
    assert browser.absent("#play-sync-now"), "Sync now offered without a link"
    browser.shot("store-sync-both-stores")
    # Linked, switched off, with the key file chosen in the page.
    browser.click("#play-enabled-input")
    browser.type("#play-package", "com.example.play")
    browser.choose("#play-condition", "android")
    browser.choose("#play-map-versionName", "current_version")
    browser.choose("#play-map-versionCode", "current_build_android")
    browser.find("#play-key").send_keys(key_file)
    browser.click("#play-save")
    browser.wait_text("#play-notice", "Syncing is off")
    assert "remote-config@shop-123.iam.gserviceaccount.com" in browser.text("#play-account")
    assert "PRIVATE KEY" not in browser.driver.page_source, "the key is on the page"
    browser.click("#play-sync-now")
    browser.wait_text("#play-notice", "published version 2")
    assert browser.text("#play-release").startswith("2.4.0 (versionCode 241), completed"), browser.text("#play-release")
    assert browser.text("#play-error") == "none" and browser.text("#play-outcome") == "synced"
    published = json.loads(call("GET", base + "/v1/projects/play-app/remoteConfig", None, ADMIN)[2])
    android = published["parameters"]["current_version"]["conditionalValues"]["android"]["value"]
    assert android == "2.4.0" and published["parameters"]["current_version"]["defaultValue"]["value"] == "2.3.0", published
    browser.shot("google-play-published", show="#store-sync-google-play")
    # Google refuses the account: nothing changes, and the page says why in words.
    PLAY["fail"] = 403
    browser.click("#play-sync-now")
    browser.wait_text("#play-notice", "The sync failed")
    browser.wait_text("#play-error", "has no access to the app com.example.play")
    assert "error-text" in browser.find("#play-error").get_attribute("class")
    assert "failed (1 in a row" in browser.text("#play-outcome"), browser.text("#play-outcome")
    browser.shot("google-play-failed", show="#play-status")
    PLAY["fail"] = None
    # A staged rollout counts once the link says so.
    browser.choose("#play-staged-input", "ANY_LIVE")
    browser.click("#play-save")
    browser.wait_text("#play-notice", "Saved")
    browser.click("#play-sync-now")
    browser.wait_text("#play-release", "staged rollout to 10% of users")
    browser.shot("google-play-staged", show="#store-sync-google-play")
