"""Production settings, logging, static files and the health check (README "Deploying").

The settings are read once per process, so what depends on the environment is checked in a
fresh ``manage.py`` process with the environment a deployment gives it. The whole deployment
(collectstatic, check --deploy, gunicorn on PostgreSQL) runs in CI as .ci/deploy-check.
"""

import json
import os
import secrets
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

pytestmark = pytest.mark.django_db

NOWHERE = "sqlite:////nonexistent-directory/db.sqlite3"  # a database that cannot be opened
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "scores.example.org",
}


def manage(*args, **env):
    """``manage.py ARGS`` with the project's own settings and only the environment given (the
    tests' DEBUG=1 and settings module left out)."""
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE")}
    return subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        capture_output=True,
        text=True,
        env={**base, "DATABASE_URL": "sqlite:///:memory:", **env},
        check=False,
    )


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """A deployment's collected static files (the pages of a production process need their
    manifest): the environment that points the process at them."""
    root = tmp_path_factory.mktemp("staticfiles")
    result = manage("collectstatic", "--noinput", **PRODUCTION, STATIC_ROOT=str(root))
    assert result.returncode == 0, result.stderr
    return {"STATIC_ROOT": str(root)}


def get(path, host="scores.example.org", proto="http"):
    """Python for ``manage.py shell -c``: GET ``path`` as the proxy passes it on, and print the
    status, the cookie set and the content; the view's exception is not raised (as a server)."""
    headers = {"host": host, "x-forwarded-proto": proto}
    return (
        "from django.test import Client\n"
        f"r = Client(raise_request_exception=False).get({path!r}, headers={headers!r})\n"
        "print(r.status_code, r.headers.get('Set-Cookie'), r.content.decode())"
    )


def test_debug_is_off_when_the_environment_does_not_say():
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.DEBUG)",
        **PRODUCTION,
    )
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "",
        "development-only-not-secret",  # the key DEBUG runs with
        # Random keys are named: each test worker (pytest-xdist) collects the same tests.
        pytest.param(secrets.token_urlsafe(50)[:49], id="too-short"),
        "ab" * 30,  # long, but two characters
        pytest.param("django-insecure-" + secrets.token_urlsafe(50), id="django-insecure"),
    ],
)
def test_production_refuses_to_start_without_a_real_secret_key(key):
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", SECRET_KEY=key, **env)
    assert result.returncode != 0
    assert "Set SECRET_KEY in the environment when DEBUG is off" in result.stderr
    assert "50 characters or more" in result.stderr


def test_debug_on_runs_with_the_development_key():
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.SECRET_KEY)",
        DEBUG="1",
    )
    assert result.stdout.strip() == "development-only-not-secret", result.stderr


@pytest.mark.parametrize(
    "env, message",
    [
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of"),
        ({"LOG_HANDLER": "syslog"}, "LOG_HANDLER must be one of"),
        ({"LOG_HANDLER": "file"}, "Set LOG_FILE to a path when LOG_HANDLER is file."),
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT must be a whole number from 1"),
        ({"PROXY_COUNT": "-1"}, "PROXY_COUNT must be a whole number from 0"),
        ({"TRUSTED_PROXIES": "127.0.0.1,the-proxy"}, "TRUSTED_PROXIES must list addresses"),
    ],
)
def test_a_bad_setting_fails_loudly(env, message):
    result = manage("check", **{**PRODUCTION, **env})
    assert result.returncode != 0 and message in result.stderr


def test_a_server_error_is_logged_to_the_console_and_the_page_says_so(collected):
    # A page that needs the database, with no database to be had: a real 500.
    env = {**PRODUCTION, **collected, "DATABASE_URL": NOWHERE}
    result = manage("shell", "--no-imports", "-c", get("/", proto="https"), **env)
    status, _cookie, page = result.stdout.split(" ", 2)
    assert status == "500"
    assert "The error has been logged" in page
    assert "Traceback" not in page and "sqlite" not in page  # nothing of the inside shows
    assert "ERROR django.request: Internal Server Error: /" in result.stderr
    assert "unable to open database file" in result.stderr  # with its traceback


def test_the_log_goes_to_a_file_at_the_level_asked_for(tmp_path, collected):
    log = tmp_path / "site.log"
    env = {**PRODUCTION, **collected, "DATABASE_URL": NOWHERE}
    env.update(LOG_HANDLER="file", LOG_FILE=str(log), LOG_LEVEL="ERROR")
    result = manage("shell", "--no-imports", "-c", get("/", proto="https"), **env)
    assert result.stdout.startswith("500")
    written = log.read_text()
    assert "ERROR django.request: Internal Server Error: /" in written
    assert " INFO " not in written and "Internal Server Error" not in result.stderr


def test_healthz_says_ok_without_a_session(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content.decode().splitlines() == [
        "ok",
        "database: ok",
        "cache: ok",
        "worker: none (tasks run inside the requests)",  # the tests' immediate backend
    ]
    assert not response.cookies and response["Cache-Control"] == "no-store"


def work_as_the_worker():
    """What ``db_worker`` does with each queued task (its loop closes the test's connection)."""
    from django_tasks_db.models import DBTaskResult

    for result in DBTaskResult.objects.ready():
        result.claim("test-worker")
        done = result.task_result
        result.set_successful(result.task.call(*done.args, **done.kwargs))


DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@override_settings(TASKS=DATABASE_TASKS)
def test_healthz_follows_the_workers_heartbeat(client, settings):
    from django.core.cache import cache
    from django_tasks_db.models import DBTaskResult

    from tournament.health import HEARTBEAT_TASK, WORKER_LATE_SECONDS

    cache.delete("healthz:heartbeat")
    first = client.get("/healthz?worker=1")
    assert first.status_code == 200  # a site just started: its first heartbeat is queued
    assert "worker: starting (no heartbeat yet)" in first.content.decode()
    beats = DBTaskResult.objects.filter(task_path=HEARTBEAT_TASK)
    assert beats.filter(status="READY").count() == 1
    client.get("/healthz")
    assert beats.count() == 1  # one queued at a time

    # No worker took it for longer than the bound: the strict probe (the hall's) fails, a load
    # balancer's plain probe still passes (the web servers serve without a worker).
    late = timezone.now() - timedelta(seconds=WORKER_LATE_SECONDS + 5)
    beats.update(enqueued_at=late)
    strict, plain = client.get("/healthz?worker=1"), client.get("/healthz")
    assert strict.status_code == 503 and plain.status_code == 200
    assert strict.content.decode().startswith("unhealthy\n")
    assert "worker: not running (a task has waited 12" in strict.content.decode()

    # The worker runs: alive again, and the heartbeats do not pile up.
    work_as_the_worker()
    alive = client.get("/healthz?worker=1")
    assert alive.status_code == 200
    assert "worker: ok (last heartbeat 0 s ago)" in alive.content.decode()
    for _ in range(8):
        cache.delete("healthz:heartbeat")
        client.get("/healthz")
        work_as_the_worker()
    assert beats.count() <= 6


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens there
        }
    }
)
def test_healthz_says_503_when_the_cache_is_unreachable(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.content.decode().splitlines()[:3] == [
        "unhealthy",
        "database: ok",
        "cache: unreachable",
    ]


def test_healthz_answers_a_probe_over_plain_http_by_the_servers_address():
    # Production settings redirect to HTTPS and know one host name: a probe is neither.
    result = manage(
        "shell", "--no-imports", "-c", get("/healthz", host="10.1.2.3:8000"), **PRODUCTION
    )
    assert result.stdout.split()[:5] == ["200", "None", "ok", "database:", "ok"], result.stderr


@pytest.mark.parametrize(
    "database",
    [NOWHERE, "postgres://postgres@127.0.0.1:9/nothing"],  # no file; no server on that port
)
def test_healthz_says_503_when_the_database_is_unreachable(database):
    env = {**PRODUCTION, "DATABASE_URL": database}
    result = manage("shell", "--no-imports", "-c", get("/healthz"), **env)
    assert result.stdout.split() == ["503", "None", "database", "unreachable"], result.stderr
    assert "WARNING tournament.health: Health check: the database does not answer: " in (
        result.stderr
    )


def test_the_static_files_collect_into_a_manifest(tmp_path, client):
    """collectstatic post-processes every reference inside the CSS and JavaScript: one to a
    file that is not shipped (Bootstrap's source maps) fails it, and then every page."""
    manifest = {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}
    storages = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    with override_settings(STATIC_ROOT=tmp_path, STORAGES={**storages, "staticfiles": manifest}):
        call_command("collectstatic", "--noinput", verbosity=0)
        page = client.get("/").content.decode()
    hashed = [p.name for p in (tmp_path / "vendor").iterdir()]
    assert any(n.startswith("bootstrap.min.") and n != "bootstrap.min.css" for n in hashed)
    assert "/static/vendor/bootstrap.min.css" not in page
    assert "/static/vendor/bootstrap.min." in page and "/static/js/site." in page


def test_check_deploy_warns_behind_the_https_proxy_without_proxy_count():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode != 0
    assert "tournament.W001" in result.stderr and "PROXY_COUNT is 0" in result.stderr
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION, PROXY_COUNT="1")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    "changes, warned",
    [
        ({}, True),
        ({"PROXY_COUNT": 1}, False),
        ({"DEBUG": True}, False),
        ({"HALL": True}, False),  # the laptop serves the hall itself, with no proxy
        ({"SECURE_PROXY_SSL_HEADER": None}, False),  # not behind an HTTPS proxy
    ],
)
def test_the_proxy_count_check(settings, changes, warned):
    from tournament.checks import proxy_count_behind_https_proxy

    settings.DEBUG, settings.HALL, settings.PROXY_COUNT = False, False, 0
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    for name, value in changes.items():
        setattr(settings, name, value)
    found = [w.id for w in proxy_count_behind_https_proxy(None)]
    assert found == (["tournament.W001"] if warned else [])


def test_the_log_is_json_with_a_line_a_request_when_asked(collected):
    env = {**PRODUCTION, **collected, "LOG_FORMAT": "json", "LOG_REQUESTS": "1"}
    code = get("/no-such-page/", proto="https") + "\n" + get("/healthz")
    result = manage("shell", "--no-imports", "-c", code, **env)
    assert result.stdout.split()[0] == "404", result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["logger"] == "tournament.requests"]
    assert len(requests) == 1  # the health probe is not logged
    (line,) = requests
    assert line["level"] == "INFO" and line["message"].startswith("GET /no-such-page/ 404 ")
    assert (line["method"], line["path"], line["status"], line["user"]) == (
        "GET",
        "/no-such-page/",
        404,
        "",
    )
    assert line["client"] == "127.0.0.1" and line["ms"] >= 0
    refusal = next(line for line in lines if line["logger"] == "django.request")
    assert refusal["message"] == "404 GET /no-such-page/ by anonymous: Not Found"
    assert "traceback" not in refusal
