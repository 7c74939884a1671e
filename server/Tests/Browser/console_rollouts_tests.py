"""The console's browser test of the Rollouts page: started, stepped, paused, halted, completed, proposed."""
import json, time

from console_helpers import ADMIN, Skip, call, new_key, reopen


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
