#!/usr/bin/env python3
"""The web console in a real browser: headless Chromium driven by Selenium, against the built server.

    server/Tests/Browser/console_test.py [--binary PATH] [--screenshots DIR] [-k NAME]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with an
embedded PostgreSQL, the App Store lookup and Google Play pointed at local stand-ins and webhooks allowed to loopback
receivers (--webhooks-allow-private), runs each test in a fresh browser, saves screenshots of each at 1280x800 and 390x844
(default: server/.build/console-screenshots), and ends with the line "N passed, M failed" (exit 1 on any
failure; a test that cannot run against this server says so and counts as skipped). scripts/test runs it after installing Chromium, chromedriver and Selenium (scripts/ensure-browser.sh).

This file is the runner; the browser wrapper is console_browser.py, what the tests share is console_helpers.py,
and the tests are in console_*_tests.py by page: editing and roles, change requests and store sync, insights
and impact, webhooks, rollouts. TESTS below sets the order they run in, one server for all.
"""
import argparse, http.server, os, shutil, sys, threading, traceback
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, start_server  # noqa: E402

from selenium.common.exceptions import TimeoutException  # noqa: E402

import console_helpers  # noqa: E402
from console_browser import Browser  # noqa: E402
from console_changes_tests import (test_change_request_approved_by_another_key, test_google_play_page,  # noqa: E402
                                  test_store_sync_page)
from console_environments_tests import test_promote_page  # noqa: E402
from console_editing_tests import (test_conflicting_edit_from_second_tab, test_force_update_recipe,  # noqa: E402
                                   test_keyboard_only, test_sign_out_forgets_the_key,
                                   test_viewer_sees_no_edit_controls)
from console_helpers import PlayStandIn, Skip, StoreStandIn  # noqa: E402
from console_insights_tests import (test_impact_before_approving_and_publishing,  # noqa: E402
                                    test_insights_page_counts_real_fetches, test_minimum_version_card,
                                    test_minimum_version_policy)
from console_rollouts_tests import test_rollouts_page  # noqa: E402
from console_webhooks_tests import test_webhooks_page  # noqa: E402


TESTS = [test_force_update_recipe, test_viewer_sees_no_edit_controls, test_conflicting_edit_from_second_tab,
         test_change_request_approved_by_another_key, test_keyboard_only, test_sign_out_forgets_the_key,
         test_store_sync_page, test_google_play_page, test_impact_before_approving_and_publishing,
         test_insights_page_counts_real_fetches, test_minimum_version_card, test_minimum_version_policy,
         test_webhooks_page,
         test_rollouts_page, test_promote_page]


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
    play = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PlayStandIn)
    threading.Thread(target=play.serve_forever, daemon=True).start()
    server, base, data_dir = start_server(
        options.binary, "rc-console-", ["--store-lookup-url", f"http://127.0.0.1:{store.server_port}/lookup",
                                        "--play-token-url", f"http://127.0.0.1:{play.server_port}/token",
                                        "--play-api-url", f"http://127.0.0.1:{play.server_port}",
                                        "--insights-flush-interval", "1", "--webhooks-allow-private"])
    console_helpers.DATA_DIR = data_dir
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
