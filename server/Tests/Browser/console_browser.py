"""The console's browser tests' window on the page: one headless Chromium driven by Selenium, with waits on
conditions, clicks and typing by CSS selector, and screenshots at a desktop's and a phone's size."""
import os, shutil, time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

SIZES = [(1280, 800), (390, 844)]


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
