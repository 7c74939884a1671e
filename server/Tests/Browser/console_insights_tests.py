"""The console's browser tests of what a change does to the fleet: the impact shown before approving and
publishing (from sample rows written into the database), and the Insights page counting real fetches."""
import json, os, time

import console_helpers
from console_helpers import ADMIN, TOKEN, add_parameter, call, new_key, seed


def insert_sample(project, contexts):
    """Rows of the impact sample, written straight into the server's database as collection would."""
    import hashlib, subprocess
    url = open(os.path.join(console_helpers.DATA_DIR, "database-url")).read().strip()
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


def test_minimum_version_card(browser, base):
    """Two weeks of imported history in which 2.0.0 fades: the Insights page shows the current minimum, the
    recommended one with what it blocks, and the day 2.1.0 is expected to get within the share, on the chart's
    legend too."""
    import datetime
    seed(base, "minimum-app")
    template = {"parameters": {"min_supported_version": {"defaultValue": {"value": "1.9.0"}, "valueType": "STRING"}}}
    status, _, body = call("PUT", base + "/v1/projects/minimum-app/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    today = datetime.datetime.now(datetime.timezone.utc).date()
    rows = []
    for days_ago in range(1, 15):
        date = (today - datetime.timedelta(days=days_ago)).isoformat()
        faded = round(400 * 0.85 ** (14 - days_ago))
        rows += [{"date": date, "platform": "IOS", "version": "1.9.0", "activeInstances": 5},
                 {"date": date, "platform": "IOS", "version": "2.0.0", "activeInstances": faded},
                 {"date": date, "platform": "IOS", "version": "2.1.0", "activeInstances": 995 - faded}]
    status, _, body = call("POST", base + "/v1/projects/minimum-app/insights:import", {"rows": rows}, ADMIN)
    assert status == 200, body
    browser.sign_in(TOKEN)
    browser.go("#/projects/minimum-app/insights")
    browser.wait_text("#minimum-current", "1.9.0")
    assert "blocks 0.0%" in browser.text("#minimum-current"), browser.text("#minimum-current")
    recommended = browser.text("#minimum-recommended")
    assert "Recommended within 1.0%: 2.0.0, blocks 0.5%" in recommended, recommended
    forecast = browser.text("#minimum-forecast")
    assert "2.1.0" in forecast and str(today.year) in forecast, forecast
    legend = browser.text("#adoption-legend")
    assert "2.1.0" in legend and "within 1.0% by" in legend and "recommended minimum" in legend, legend
    browser.shot("insights-minimum", show="#insights-minimum")
    browser.shot("insights-minimum-legend", show="#insights-adoption")
    # Another share: the recommendation follows.
    browser.choose("#minimum-max-blocked", "0.05")
    browser.wait_text("#minimum-recommended", "within 5.0%")


def test_minimum_version_policy(browser, base):
    """A policy that proposes raises: the Insights page shows its limits and its last check, the proposal with
    its figures and a link to the change request."""
    import datetime
    seed(base, "policy-app")
    template = {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
                "parameters": {"min_supported_version": {"defaultValue": {"value": "1.9.0"}, "valueType": "STRING",
                                                         "conditionalValues": {"ios": {"value": "1.9.0"}}},
                               "current_version": {"defaultValue": {"value": "2.2.0"}, "valueType": "STRING"}}}
    status, _, body = call("PUT", base + "/v1/projects/policy-app/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    browser.sign_in(TOKEN)
    browser.go("#/projects/policy-app/insights")
    browser.wait_text("#minimum-policy", "Raised by itself: off")
    today = datetime.datetime.now(datetime.timezone.utc).date()
    rows = []
    for days_ago in range(1, 8):
        date = (today - datetime.timedelta(days=days_ago)).isoformat()
        rows += [{"date": date, "platform": "IOS", "version": "1.9.0", "activeInstances": 10},
                 {"date": date, "platform": "IOS", "version": "2.0.0", "activeInstances": 90},
                 {"date": date, "platform": "IOS", "version": "2.1.0", "activeInstances": 900}]
    status, _, body = call("POST", base + "/v1/projects/policy-app/insights:import", {"rows": rows}, ADMIN)
    assert status == 200, body
    policy = {"platform": "IOS", "condition": "ios", "minActiveInstances": 500, "neverAbove": "current_version",
              "keepBehindLatest": 1}
    status, _, body = call("PUT", base + "/v1/projects/policy-app/minimumVersionPolicy", policy, ADMIN)
    assert status == 200, body
    deadline = time.time() + 20
    while time.time() < deadline:
        status, _, body = call("GET", base + "/v1/projects/policy-app/minimumVersionPolicy", None, ADMIN)
        if json.loads(body).get("lastResult"):
            break
        time.sleep(0.2)
    assert json.loads(body)["lastResult"] == "PROPOSED", body
    browser.go("#/projects/policy-app/changes")
    browser.go("#/projects/policy-app/insights")
    browser.wait_text("#minimum-policy-last", "proposed")
    shown = browser.text("#minimum-policy")
    assert "IOS min_supported_version (condition ios)" in shown, shown
    assert "never above current_version, 1 release behind the latest" in shown, shown
    assert "checked every day, as a change request" in shown, shown
    last = browser.text("#minimum-policy-last")
    assert "proposed 2.0.0" in last and "1.9.0 → 2.0.0 on IOS: blocks 1% (10 of 1000" in last, last
    # Change request ids are the server's, shared by every project: whichever it is, it is linked.
    status, _, body = call("GET", base + "/v1/projects/policy-app/minimumVersionPolicy", None, ADMIN)
    assert json.loads(body)["lastChangeRequest"] in last, last
    browser.shot("insights-minimum-policy", show="#insights-minimum")
