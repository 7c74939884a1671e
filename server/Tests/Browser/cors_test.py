#!/usr/bin/env python3
"""Cross-origin calls from a real browser: headless Chromium on a page served from another loopback origin.

    server/Tests/Browser/cors_test.py [--binary PATH] [--screenshots DIR]

Serves a small page from two more loopback ports (python's http.server), starts `remote-config serve` with
RC_CORS_ORIGINS naming only the first, and has the page call fetch and OFREP (bulk and one flag) with
`fetch()` and open an `EventSource` on the stream. From the listed origin every call succeeds (and the ETag
is readable); from the other, the browser refuses each. Ends with "N passed, M failed" (exit 1 on any
failure). scripts/test runs it after installing Chromium, chromedriver and Selenium.
"""
import argparse, functools, http.server, json, os, shutil, sys, tempfile, threading, traceback
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402

from selenium import webdriver  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>shop</title></head>
<body><h1>A web app on another origin</h1><pre id="out">running…</pre>
<script>
async function attempt(name, work) {
  try { return await work(); } catch (error) { return {error: String(error)}; }
}
function stream(url) {
  return new Promise(resolve => {
    const source = new EventSource(url);
    const timer = setTimeout(() => { source.close(); resolve({error: "no event within 10 s"}); }, 10000);
    source.addEventListener("version", event => {
      clearTimeout(timer); source.close(); resolve({id: event.lastEventId, data: JSON.parse(event.data)});
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) { clearTimeout(timer); resolve({error: "closed"}); }
    };
  });
}
async function run(base, key) {
  const json = {"Content-Type": "application/json"};
  const result = {};
  result.fetch = await attempt("fetch", async () => {
    const response = await fetch(base + "/v1/projects/cors-app/remoteConfig:fetch", {
      method: "POST", headers: {...json, "X-API-Key": key}, body: JSON.stringify({appInstanceId: "browser-1"})});
    return {status: response.status, etag: response.headers.get("ETag"), body: await response.json()};
  });
  result.ofrepBulk = await attempt("ofrep", async () => {
    const response = await fetch(base + "/ofrep/v1/evaluate/flags", {
      method: "POST", headers: {...json, "Authorization": "Bearer " + key},
      body: JSON.stringify({context: {targetingKey: "browser-1"}})});
    return {status: response.status, etag: response.headers.get("ETag"), body: await response.json()};
  });
  result.ofrepFlag = await attempt("flag", async () => {
    const response = await fetch(base + "/ofrep/v1/evaluate/flags/banner", {
      method: "POST", headers: {...json, "X-API-Key": key},
      body: JSON.stringify({context: {targetingKey: "browser-1"}})});
    return {status: response.status, body: await response.json()};
  });
  result.stream = await stream(base + "/v1/projects/cors-app/remoteConfig:stream?key=" + encodeURIComponent(key));
  document.getElementById("out").textContent = JSON.stringify(result, null, 2);
  return result;
}
</script></body></html>
"""


def serve_page(directory):
    """A static file server on a free loopback port, in the background; returns (server, origin)."""
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


def browser():
    options = webdriver.ChromeOptions()
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            options.binary_location = shutil.which(name)
            break
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=900,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(shutil.which("chromedriver")))
    driver.set_script_timeout(30)
    return driver


def run_page(driver, origin, base, key, screenshot):
    driver.get(origin + "/index.html")
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; run(arguments[0], arguments[1]).then(done)", base, key)
    driver.save_screenshot(screenshot)
    return result


def test_listed_origin_calls_every_client_route(driver, allowed, unlisted, base, key, shots):
    result = run_page(driver, allowed, base, key, os.path.join(shots, "listed-origin.png"))
    assert result["fetch"].get("status") == 200, result["fetch"]
    assert result["fetch"]["body"]["entries"] == {"banner": "spring"}, result["fetch"]
    assert result["fetch"]["etag"], f"the ETag is not exposed to the page: {result['fetch']}"
    assert result["ofrepBulk"].get("status") == 200, result["ofrepBulk"]
    assert [flag["key"] for flag in result["ofrepBulk"]["body"]["flags"]] == ["banner"], result["ofrepBulk"]
    assert result["ofrepBulk"]["etag"], result["ofrepBulk"]
    assert result["ofrepFlag"].get("status") == 200 and result["ofrepFlag"]["body"]["value"] == "spring", \
        result["ofrepFlag"]
    assert result["stream"].get("id") == "1", result["stream"]
    assert result["stream"]["data"] == {"latestTemplateVersionNumber": "1"}, result["stream"]


def test_unlisted_origin_is_refused_by_the_browser(driver, allowed, unlisted, base, key, shots):
    result = run_page(driver, unlisted, base, key, os.path.join(shots, "unlisted-origin.png"))
    for name in ("fetch", "ofrepBulk", "ofrepFlag"):
        assert "Failed to fetch" in result[name].get("error", ""), f"{name}: {result[name]}"
    assert result["stream"].get("error"), result["stream"]


TESTS = [test_listed_origin_calls_every_client_route, test_unlisted_origin_is_refused_by_the_browser]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("--screenshots", default=os.path.join(HERE, "..", "..", ".build", "cors-screenshots"))
    options = parser.parse_args()
    shutil.rmtree(options.screenshots, ignore_errors=True)
    os.makedirs(options.screenshots)
    pages = tempfile.mkdtemp(prefix="rc-cors-page-")
    with open(os.path.join(pages, "index.html"), "w") as page:
        page.write(PAGE)
    allowed_server, allowed = serve_page(pages)
    unlisted_server, unlisted = serve_page(pages)
    os.environ["RC_CORS_ORIGINS"] = allowed
    server, base, data_dir = start_server(options.binary, "rc-cors-")
    passed, failed = 0, 0
    try:
        assert call("POST", base + "/v1/projects", {"projectId": "cors-app"}, ADMIN)[0] == 201
        template = {"parameters": {"banner": {"defaultValue": {"value": "spring"}}}}
        assert call("PUT", base + "/v1/projects/cors-app/remoteConfig", template,
                    dict(ADMIN, **{"If-Match": "*"}))[0] == 200
        status, _, body = call("POST", base + "/v1/apiKeys",
                               {"displayName": "web", "role": "client", "project": "cors-app"}, ADMIN)
        assert status == 201, body
        key = json.loads(body)["key"]
        for test in TESTS:
            driver = browser()
            try:
                test(driver, allowed, unlisted, base, key, options.screenshots)
                passed += 1
                print(f"✔ {test.__name__}", flush=True)
            except Exception:
                failed += 1
                print(f"✘ {test.__name__}", flush=True)
                traceback.print_exc()
            finally:
                driver.quit()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
        allowed_server.shutdown()
        unlisted_server.shutdown()
        shutil.rmtree(pages, ignore_errors=True)
    print(f"screenshots in {os.path.abspath(options.screenshots)}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
