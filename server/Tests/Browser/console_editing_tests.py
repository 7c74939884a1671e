"""The console's browser tests of editing a template and who may: the force-update recipe built through the UI
(preview, history, diff, rollback, keys, a real fetch, audit), a viewer's read-only view, a conflicting edit
from a second tab, keyboard-only use, and signing in and out."""
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from console_helpers import (ADMIN, EXACT, IOS_OLD, TOKEN, add_condition, add_parameter, call, fetch, new_key,
                             one_line, one_line_element, preview, publish, seed, top)


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
