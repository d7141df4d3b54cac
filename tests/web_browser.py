"""People in real browsers for the web table's tests: headless Chromium driven by selenium.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs both); the driver is the
system's ``chromedriver``, so selenium never looks for one on the network. Each browser keeps
Chrome's performance log, whose ``Network.webSocketFrameReceived`` entries are every frame the
page received, read from outside the page.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from mase.replay.browser import find_chromium

CHROMEDRIVER = shutil.which("chromedriver")


def _has_selenium() -> bool:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return True


def browser_missing() -> str | None:
    """Why no browser test can run here, or ``None``."""
    if find_chromium() is None:
        return "Chromium is not installed (Debian: apt-get install chromium)"
    if CHROMEDRIVER is None:
        return "chromedriver is not installed (Debian: apt-get install chromium-driver)"
    if not _has_selenium():
        return "selenium is not installed (the dev extra)"
    return None


#: Run the browser tests, or skip them where no browser is (``.ci/run`` sets
#: ``MASE_REQUIRE_CHROMIUM``: there they run or fail).
needs_browser = pytest.mark.skipif(
    browser_missing() is not None and not os.environ.get("MASE_REQUIRE_CHROMIUM"),
    reason=str(browser_missing()),
)


def open_browser(size=(1280, 900)):
    """A headless Chromium under WebDriver, with its performance log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = find_chromium()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 f"--window-size={size[0]},{size[1]}"):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))


def frames_received(driver) -> list[str]:
    """Every websocket frame the page received since the last call (Chrome's own log)."""
    frames = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.webSocketFrameReceived":
            frames.append(message["params"]["response"]["payloadData"])
    return frames


#: What a page says about itself, read in one call.
_PAGE = """
var s = window.MASE_SEAT || {};
return {seq: document.body.getAttribute('data-seq'),
        you: document.getElementById('turn').getAttribute('data-you') === 'true',
        finished: document.body.getAttribute('data-finished') === 'true',
        speech: document.getElementById('reply-label').textContent === 'Your words',
        moves: Array.from(document.querySelectorAll('#moves button'))
                    .map(b => b.getAttribute('data-move')),
        errors: window.MASE_ERRORS || [], closed: s.closed === undefined ? null : s.closed,
        refusals: (s.notices || []).filter(n => n[0] === 'refused').length};
"""


def wait_for(check, timeout: float = 60, what: str = "the page"):
    """``check()``'s first true value, polled; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.02)


class Person:
    """A scripted person at a seat's page: reads the page, clicks a button or types."""

    def __init__(self, driver, link: str, words: str = "I am on the good side."):
        self.driver, self.link, self.words = driver, link, words
        self.answered: str | None = None
        self.moves = 0
        self.refusals = 0  # refusals the page showed so far
        self.tries = 0  # moves refused on the state now
        driver.get(link)
        # the page has drawn its first state (under load, that can come well after "load")
        wait_for(lambda: self.look()["seq"] not in (None, "-1"), 120, "the page's first state")

    def look(self) -> dict:
        return self.driver.execute_script(_PAGE)

    def act(self) -> bool:
        """Make a move if it is this seat's, on a state not answered yet; whether it did."""
        from selenium.webdriver.common.by import By

        page = self.look()
        retry = page["seq"] == self.answered and page["refusals"] > self.refusals
        if page["finished"] or not page["you"] or (page["seq"] == self.answered and not retry):
            return False
        self.refusals = page["refusals"]
        self.tries = self.tries + 1 if retry else 0
        if page["speech"]:
            box = self.driver.find_element(By.ID, "reply")
            box.send_keys(self.words)
            self.driver.find_element(By.ID, "send").click()
        else:
            if not page["moves"]:
                return False
            buttons = self.driver.find_elements(By.CSS_SELECTOR, "#moves button")
            buttons[(int(page["seq"]) + self.tries) % len(buttons)].click()
        self.answered = page["seq"]
        self.moves += 1
        return True

    def finished(self) -> bool:
        return self.look()["finished"]

    def my_turn(self) -> dict:
        """The page once it shows a move of this seat's not answered yet."""
        return wait_for(
            lambda: (p := self.look())["you"] and p["seq"] != self.answered and p,
            what="the seat's turn",
        )


def play_together(people: list[Person], timeout: float = 600, every=None) -> None:
    """Each person acts when it is their move, until every page says the games are over.

    ``every(k)``, when given, is called after the k-th move of all (screenshots, say).
    """
    deadline = time.monotonic() + timeout
    moves = 0
    while not all(p.finished() for p in people):
        acted = False
        for person in people:
            if person.act():
                acted, moves = True, moves + 1
                if every is not None:
                    every(moves)
        if not acted:
            time.sleep(0.02)
        if time.monotonic() > deadline:
            raise AssertionError(f"the game did not end in {timeout} s ({moves} moves made)")


def screenshot(driver, path) -> str:
    """A PNG of the page as the person sees it (tried again once if Chrome's capture times out)."""
    from selenium.common.exceptions import TimeoutException

    os.makedirs(os.path.dirname(str(path)) or ".", exist_ok=True)
    try:
        driver.save_screenshot(str(path))
    except TimeoutException:
        driver.save_screenshot(str(path))
    return str(path)
