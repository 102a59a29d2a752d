"""The site as ``make bench`` serves it under gunicorn (tests/bench.py): the tests' settings
with DEBUG off (no query log, production error pages), plain HTTP on 127.0.0.1, and one more
address, the floor view (tests/bench_urls.py)."""

from tests.settings import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "tests.bench_urls"
