"""The console's browser tests of environments: the environment's name on every page of a project, and the
Promote page's three-way table, a choice per parameter, the impact, and the publish it makes."""
import json

from console_helpers import ADMIN, TOKEN, call


def publish(base, project, force, minimum):
    template = {"parameters": {
        "require_force_update": {"defaultValue": {"value": force}, "valueType": "BOOLEAN"},
        "min_supported_version": {"defaultValue": {"value": minimum}, "valueType": "STRING"},
        "api_base_url": {"defaultValue": {"value": f"https://{project}.example.com"}, "valueType": "STRING"}}}
    status, _, body = call("PUT", base + f"/v1/projects/{project}/remoteConfig", template, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body


def test_promote_page(browser, base):
    for project in ("promo-app", "promo-app-staging"):
        call("POST", base + "/v1/projects", {"projectId": project}, ADMIN)
    status, _, body = call("PATCH", base + "/v1/projects/promo-app-staging",
                           {"environmentName": "staging", "promotesTo": "promo-app", "localParameters": ["api_base_url"]}, ADMIN)
    assert status == 200, body
    publish(base, "promo-app", "false", "1.0.0")
    publish(base, "promo-app-staging", "false", "1.0.0")
    # Promoted once (the base), then a hotfix in production and a change in staging.
    status, _, body = call("POST", base + "/v1/projects/promo-app/remoteConfig:promote", {}, dict(ADMIN, **{"If-Match": "*"}))
    assert status == 200, body
    publish(base, "promo-app", "false", "1.0.1")
    publish(base, "promo-app-staging", "true", "1.0.0")

    browser.sign_in(TOKEN)
    browser.go("#/projects")
    browser.wait_text('#projects li[data-project="promo-app-staging"]', "staging → promo-app")
    order = [e.get_attribute("data-project") for e in browser.driver.find_elements("css selector", "#projects li")]
    assert order.index("promo-app-staging") + 1 == order.index("promo-app"), order
    browser.go("#/projects/promo-app-staging/parameters")
    browser.wait_text("#environment", "staging")
    assert "promotes to promo-app" in browser.text("#environment"), browser.text("#environment")
    browser.go("#/projects/promo-app/promote")
    browser.wait_text("#promote-summary", "From promo-app-staging version 2")
    table = browser.text("#promote-table")
    assert "require_force_update changed in the source" in table, table
    assert "min_supported_version changed here since (a hotfix)" in table, table
    assert "api_base_url local to each environment" in table, table
    forced = browser.find('input[data-key="require_force_update"]')
    hotfix = browser.find('input[data-key="min_supported_version"]')
    assert forced.is_selected() and not hotfix.is_selected()
    browser.wait_text("#impact-summary", "")
    browser.click("#promote-result summary")
    assert '"require_force_update"' in browser.text("#promote-result pre")
    browser.shot("promote-plan", show="#promote")
    browser.click("#promote-go")
    browser.wait_text("#promote-outcome", "Published version")
    browser.shot("promote-done", show="#promote-outcome")
    status, _, body = call("GET", base + "/v1/projects/promo-app/remoteConfig", None, ADMIN)
    parameters = json.loads(body)["parameters"]
    assert parameters["require_force_update"]["defaultValue"]["value"] == "true", body
    assert parameters["min_supported_version"]["defaultValue"]["value"] == "1.0.1", "the hotfix stays"
    assert parameters["api_base_url"]["defaultValue"]["value"] == "https://promo-app.example.com"
