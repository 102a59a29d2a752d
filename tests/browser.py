"""Shared Playwright helpers for the browser tests: Debian's Chromium, headless.

No browser is downloaded: the tests drive the system's Chromium. Debian's headless shell
(``apt-get install chromium-headless-shell``, as ``make chromium`` does) when it is there: the
same Chromium, same version, built without the browser's windows and profile, which opens a
page of the site for about a fifth less CPU (the public 1280 px accessibility sweep: 28
CPU-seconds against 36); else the full ``chromium``. Set CHROMIUM to use another binary.
Without one, the browser tests are skipped, unless BROWSER_TESTS=required (as in .ci/run),
where a missing browser is a failure.
"""

import functools
import os
from pathlib import Path

import axe_playwright_python
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Keyboard, Locator, Mouse, Page

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("CHROMIUM") or (
    HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else "/usr/bin/chromium"
)
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
    return f"{CHROMIUM} not found: apt-get install chromium-headless-shell (or set CHROMIUM)"


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


# What Chromium reported of the site's Content-Security-Policy: conftest.py fails a test that
# leaves anything here.
CSP_VIOLATIONS: list[str] = []
# What the accessibility check (a11y_check.js) found in the pages opened: axe-core's WCAG 2.2
# A/AA violations and sideways scrolling. conftest.py fails a test that leaves anything here.
A11Y_PROBLEMS: list[str] = []
OPEN_PAGES: list = []  # every page new_page made, for settle()
# axe-core as the package ships it, given the page's own timers: a test's fake clock
# (page.clock.install) would stop its run.
_REAL_TIMERS = "window.setTimeout.bind(window), window.clearTimeout.bind(window)"
A11Y_SCRIPTS = [
    "(function (setTimeout, clearTimeout) {\n"
    + Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text()
    + f"\n}}).call(window, {_REAL_TIMERS});",
    Path(__file__).with_name("a11y_check.js").read_text(),
]


def new_page(browser, **context_options):
    """A page in a fresh context: its own cookies, so nobody is logged in. Its console is
    watched for Content-Security-Policy violations (CSP_VIOLATIONS), and every page it loads is
    checked for accessibility (A11Y_PROBLEMS).

    The site's service worker (static/js/sw.js) is blocked unless the test asks for it
    (service_workers="allow", tests/test_browser_offline.py): a worker writing its cache while
    the context closes can keep ``context.close()`` from ever returning (a CI run held for 10
    minutes at a test's teardown, microsoft/playwright#42273 for the same wedge)."""
    context_options.setdefault("service_workers", "block")
    context = browser.new_context(**context_options)
    context.set_default_timeout(TIMEOUT_MS)
    context.on("console", _watch_csp)
    context.expose_binding("__a11yReport", _a11y_report)
    for script in A11Y_SCRIPTS:
        context.add_init_script(script)
    page = context.new_page()
    page.keyboard._a11y_page = page.mouse._a11y_page = page
    OPEN_PAGES.append(page)
    return page


def _a11y_report(source, problem) -> None:
    A11Y_PROBLEMS.append(f"{problem['url']}: {problem['text']}")


def settle(pages=None) -> None:
    """Wait until the accessibility check of what each open page shows has finished."""
    for page in list(OPEN_PAGES if pages is None else pages):
        _settle(page)
    OPEN_PAGES[:] = [p for p in OPEN_PAGES if not p.is_closed()]


def _settle(page) -> None:
    if page.is_closed():
        return
    try:
        page.wait_for_function(_CHECKED, timeout=TIMEOUT_MS)
    except PlaywrightError:  # the page moved on meanwhile, or it is not a page of the site
        pass


_CHECKED = "() => !['waiting', 'running'].includes(window.__a11yState)"


def _page_of(obj):
    if isinstance(obj, Page):
        return obj
    if isinstance(obj, Locator):
        return obj.page
    return getattr(obj, "_a11y_page", None)  # a page's Keyboard or Mouse


def _checked_first(method):
    """A test's action that may leave the page waits for the page's check to finish first, so
    that no page goes unchecked however quickly a test moves on."""

    @functools.wraps(method)
    def action(self, *args, **kwargs):
        page = _page_of(self)
        if page is not None and any(page is p for p in OPEN_PAGES):
            _settle(page)
        return method(self, *args, **kwargs)

    return action


for _cls, _names in [
    (Page, ["goto", "reload", "go_back", "go_forward", "close", "expect_navigation"]),
    (Locator, ["click", "dblclick", "press", "tap", "check", "uncheck", "set_checked"]),
    (Keyboard, ["press"]),
    (Mouse, ["click", "dblclick"]),
]:
    for _name in _names:
        setattr(_cls, _name, _checked_first(getattr(_cls, _name)))


def _watch_csp(message) -> None:
    if message.type == "error" and "Content Security Policy" in message.text:
        CSP_VIOLATIONS.append(f"{message.location.get('url')}: {message.text}")


def log_in(page, username: str, password: str) -> None:
    """Fill in and send the real login form the page is showing (/accounts/login/)."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in", exact=True).click()


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
