import os

import pytest
from django.test import Client
from hypothesis import settings as hypothesis_settings

from tests.factories import make_director, make_event, make_players, seat

# Speed is measured by the benchmark, never by a test: no deadline for generated examples (a
# busy machine makes any deadline flaky).
hypothesis_settings.register_profile("site", deadline=None)
hypothesis_settings.load_profile("site")


@pytest.fixture
def director(db):
    return make_director("boss")


@pytest.fixture
def director_client(director):
    client = Client()
    client.force_login(director)
    return client


@pytest.fixture
def event(director):
    return make_event(director, name="Spring Games", slug="spring")


@pytest.fixture
def seated(event):
    """An event with 8 checked-in players seated at two tables of Game 1."""
    make_players(event, count=8)
    return seat(event)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def english_first():
    """Each test starts in the site's language: a request made in French by an earlier test
    of the same worker leaves its thread's language French (Django activates a request's
    language and never deactivates it)."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with empty caches: a rolled-back test's row ids are used again."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()


# Tests that each take minutes and share nothing within their file but the browser: handed
# out one by one, so that no worker runs them all while the other waits (``split_files``).
SPLIT_FILES = ("tests/test_browser_a11y.py::", "tests/test_hall_backups.py::")


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test`), the tests that take longest go first: every page of
    the site in a browser, then the files that start a Chromium or a `make hall` of their own
    and run for minutes; a worker that took one last would keep the whole run waiting
    (pytest-xdist hands out whole files, or single tests of ``SPLIT_FILES``, in this order:
    --no-loadscope-reorder in pyproject.toml). In one process, the order stays as collected."""
    if not hasattr(config, "workerinput"):
        return
    from tests.hall import Hall

    long_files = {
        item.path
        for item in items
        if "browser" in item.fixturenames or getattr(item.module, "Hall", None) is Hall
    }
    # stable: files stay whole
    items.sort(
        key=lambda item: (not item.nodeid.startswith(SPLIT_FILES), item.path not in long_files)
    )


def pytest_xdist_make_scheduler(config, log):
    """Whole files to each worker, as --dist loadfile does (a file's module fixtures, such as
    the hall of tests/test_hall.py, start once), except the tests of ``SPLIT_FILES``, each a
    unit of its own."""
    from xdist.scheduler import LoadScopeScheduling

    class FilesScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SPLIT_FILES):
                return nodeid
            return nodeid.split("::", 1)[0]

    return FilesScheduling(config, log)


DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}


@pytest.fixture(autouse=True)
def stored_totals_kept(request):
    """After every test that uses the database, each seat's stored total and each table's
    stored round counts are what its rounds say (scoring.services.rounds.store_totals): a
    write path of the site that forgets to keep them fails the test that takes it."""
    marked = request.node.get_closest_marker("django_db")
    uses_db = marked or DB_FIXTURES & set(request.fixturenames)
    if not uses_db:
        yield
        return
    # Set the test's database up before this fixture, so that it is checked before the
    # database is rolled back or flushed (pytest-django's own fixture for both cases).
    request.getfixturevalue("_django_db_helper")
    yield
    from tests.factories import stale_totals

    stale = stale_totals()
    assert not stale, f"Stored totals that differ from the rounds entered: {stale}"


@pytest.fixture(autouse=True)
def no_csp_violation():
    """Every page a browser test opens passes the site's Content-Security-Policy."""
    from tests import browser as b

    b.CSP_VIOLATIONS.clear()
    yield
    violations, b.CSP_VIOLATIONS[:] = list(b.CSP_VIOLATIONS), []
    assert not violations, "Content-Security-Policy violations:\n" + "\n".join(violations)


@pytest.fixture(autouse=True)
def accessible_pages():
    """Every page a browser test opens has no WCAG 2.2 A/AA violation that axe-core finds, and
    does not scroll sideways, at the test's width nor at 320 px (tests/a11y_check.js)."""
    from tests import browser as b

    b.A11Y_PROBLEMS.clear()
    yield
    if b.OPEN_PAGES:
        b.settle()
        b.OPEN_PAGES.clear()
    problems, b.A11Y_PROBLEMS[:] = list(b.A11Y_PROBLEMS), []
    assert not problems, "Accessibility problems:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def browser():
    """One Chromium per browser-test module, driven by Playwright (tests/browser.py).

    Module scope, not session: Playwright's sync API keeps an asyncio loop running in the main
    thread while it is started, which would break async_to_sync/asyncio.run in every test
    collected after the module, and hide Django's async-safety check from them too.
    """
    from playwright.sync_api import sync_playwright

    from tests import browser as b

    missing = b.chromium_missing()
    if missing:
        if os.environ.get("BROWSER_TESTS") == "required":
            pytest.fail(missing)
        pytest.skip(missing)
    # The ORM calls the tests make (factories, checks) are sync, though a loop is running.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    chromium = b.launch(playwright)
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def pages(browser):
    """Open pages in fresh contexts (nobody logged in); closed after the test."""
    from tests import browser as b

    opened = []

    def open_page(**context_options):
        page = b.new_page(browser, **context_options)
        opened.append(page.context)
        return page

    yield open_page
    b.settle()  # their accessibility checks finish before they close
    for context in opened:
        context.close()
