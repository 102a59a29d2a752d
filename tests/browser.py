"""Shared Playwright helpers for the browser tests: Debian's Chromium, headless.

No browser is downloaded: the tests drive the system's Chromium (``apt-get install chromium``).
Set CHROMIUM to use another binary. Without one, the browser tests are skipped, unless
BROWSER_TESTS=required (as in .ci/run), where a missing browser is a failure.
"""

import os
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
    "--headless",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"  # gitignored
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TIMEOUT_MS = 15_000


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if os.access(CHROMIUM, os.X_OK):
        return None
    return f"{CHROMIUM} not found: apt-get install chromium (or set CHROMIUM)"


def launch(playwright):
    return playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )


def new_page(browser, **context_options):
    """A page in a fresh context: its own cookies, so nobody is logged in."""
    context = browser.new_context(**context_options)
    context.set_default_timeout(TIMEOUT_MS)
    return context.new_page()


def log_in(page, username: str, password: str) -> None:
    """Fill in and send the real login form the page is showing (/accounts/login/)."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in", exact=True).click()


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
