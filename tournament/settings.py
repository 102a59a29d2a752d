"""Settings, read from the environment (see README "Deploy").

DATABASE_URL   SQLite file db.sqlite3 when unset; postgres://user@host:5432/name for PostgreSQL.
SECRET_KEY     required when DEBUG is off: at least 50 characters, not the development key.
SECRET_KEY_FILE  instead: a file holding it, made with a random key on first start and kept
               (the container image's servers share one in their volume).
DEBUG          "1"/"true" or "0"/"false"; off when unset (`make run` and the tests turn it on).
ALLOWED_HOSTS  comma-separated host names.
TIME_ZONE      e.g. America/Los_Angeles (default UTC).
LOG_LEVEL      DEBUG, INFO (default), WARNING, ERROR.
LOG_HANDLER    console (default: standard error) or file (then LOG_FILE, a path).
LOG_FORMAT     plain (default) or json: one JSON object a line.
LOG_REQUESTS   "1": one line a request (method, path, status, milliseconds, user, client).
LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_MINUTES   failed log-ins (default 5) of one username from one
               address before that pair is locked out, and for how long (default 15 minutes).
CACHE_URL      where rendered pages are kept: locmem:// (default, one process's memory) or
               redis://127.0.0.1:6379/0 (shared by every worker; needs a Redis server).
LIVE_REFRESH_SECONDS   how often public pages ask whether anything changed (default 3).
LIVE_STREAMS           how many phones a server process pushes changes to instead (server-sent
                       events, tournament/streams.py): 0, the default, asks every page to poll;
                       `make hall` sets 1000, served by its front (tournament/hall_front.py).
LIVE_STREAMS_PER_CLIENT  of them, how many one address may hold (default 4).
API_REQUESTS_PER_MINUTE  requests to the public API (/api/) from one address (default 120).
PROXY_COUNT    how many proxies in front of the site append to X-Forwarded-For (default 0:
               the client's address is the connection's).
TRUSTED_PROXIES  comma-separated addresses or networks whose X-Forwarded-For is read (default
               127.0.0.0/8,::1: a proxy on the same machine).
HALL_ADDRESS   the laptop's address(es) on the hall's network, comma-separated, for a hall served
               from the container image (which cannot see them): printed for phones.
HALL           "1" under `make hall`: the laptop serves a closed hall network over plain HTTP
               (DEBUG off, secret key kept in HALL_SECRET_KEY_FILE, hosts: the laptop's
               addresses and name, no HTTPS redirect, cookies not marked secure).
HALL_SESSION_HOURS  a log-in from the hall's network (password and the laptop's one-time code)
               lasts this long (default 8), on that device only.
BACKUP_DIR     where each event's file is backed up after its changes (default backups/);
               "off" for no backups.
MEDIA_ROOT     where photos of the paper sheets are kept (default media/).
SQLITE_SYNCHRONOUS  FULL (default: a save answered survives a power cut), EXTRA or NORMAL.
RATING_MIN_GAMES  the ratings' leaderboard lists players with at least this many rated games
               (default 5).
EMAIL_HOST     the SMTP server that sends registrants their e-mails (issue 49); unset, the
               default: no e-mail is sent, and sign-up works the same. With it: EMAIL_PORT
               (default 587 with EMAIL_USE_TLS, 465 with EMAIL_USE_SSL, else 25),
               EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or EMAIL_USE_SSL ("1"),
               and DEFAULT_FROM_EMAIL (required: the sender, e.g. "Spring Games
               <games@example.org>").
SIGNUPS_PER_ADDRESS  sign-ups one address may make in an hour, all events together (default
               10; 0: no limit, for a hall whose phones share one address).
SIGNUPS_PER_HOUR     sign-ups the whole site takes in an hour (default 1000; 0: no limit).
"""

import ipaddress
import os
import zoneinfo
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from tournament import hall

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}.")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if not (value.isascii() and value.isdigit() and len(value) < 10 and int(value) >= minimum):
        raise ImproperlyConfigured(f"{name} must be a whole number from {minimum}, not {value!r}.")
    return int(value)


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}.")
    return value


# Off unless asked for: a deployment that forgets DEBUG must not show tracebacks to the public.
DEBUG = env_bool("DEBUG", False)
# The director's laptop serving the hall's Wi-Fi (`make hall`): production, minus HTTPS.
HALL = env_bool("HALL", False)
if HALL and DEBUG:
    raise ImproperlyConfigured("HALL serves the hall with DEBUG off: unset DEBUG.")
DEVELOPMENT_SECRET_KEY = "development-only-not-secret"  # noqa: S105 (refused with DEBUG off)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if os.environ.get("SECRET_KEY_FILE") and not SECRET_KEY:
    # A hosted site's containers: made once by the first to start, kept in their volume.
    SECRET_KEY = hall.kept_secret_key(Path(os.environ["SECRET_KEY_FILE"]))
if HALL and not SECRET_KEY:
    # Made on first start and kept (untracked): restarting the laptop logs nobody out.
    SECRET_KEY = hall.kept_secret_key(
        Path(os.environ.get("HALL_SECRET_KEY_FILE") or BASE_DIR / ".hall-secret-key")
    )
if not DEBUG and (
    SECRET_KEY == DEVELOPMENT_SECRET_KEY
    or SECRET_KEY.startswith("django-insecure-")  # startproject's, for development
    or len(SECRET_KEY) < 50  # what check --deploy asks for
    or len(set(SECRET_KEY)) < 5
):
    raise ImproperlyConfigured(
        "Set SECRET_KEY in the environment when DEBUG is off: a random string of 50 characters "
        "or more (python3 -c 'import secrets; print(secrets.token_urlsafe(50))')."
    )
SECRET_KEY = SECRET_KEY or DEVELOPMENT_SECRET_KEY

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS",
    hall.allowed_hosts() if HALL else ["127.0.0.1", "localhost"] if DEBUG else [],
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_tables2",
    "django_htmx",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    "django_tasks_db",
    "tournament",
    "scoring",
]

MIDDLEWARE = [
    "tournament.middleware.HealthCheckMiddleware",  # first: no host check, redirect or session
    "tournament.caching.LiveCheckMiddleware",  # a live page's check asked again: kept answer
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "tournament.middleware.TimeZoneMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "tournament.middleware.HallSessionMiddleware",  # under HALL: a session stays on its device
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "tournament.middleware.RefuseBadTextMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]
# One line a request (method, path, status, time, user, client), at INFO: a hosted site's.
LOG_REQUESTS = env_bool("LOG_REQUESTS", False)
if LOG_REQUESTS:
    MIDDLEWARE.insert(1, "tournament.middleware.RequestLogMiddleware")
if HALL and hall.in_container():
    # The laptop's addresses are unknown in a container: a private network's host is checked
    # here instead of by ALLOWED_HOSTS (tournament/hall.py).
    MIDDLEWARE.insert(1, "tournament.middleware.PrivateHostMiddleware")

ROOT_URLCONF = "tournament.urls"
WSGI_APPLICATION = "tournament.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournament.display.display",  # text size and contrast (issue 51)
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A hall of scorekeepers on the director's laptop: readers never wait for the writer
    # (WAL), and every write transaction takes the write lock when it begins (IMMEDIATE), so
    # concurrent writers queue (up to SQLITE_BUSY_SECONDS) instead of failing with
    # "database is locked" when a reader tries to become a writer.
    # synchronous=FULL: a save the site answered is on the disk before the answer, and
    # survives a power cut (NORMAL may lose the last ones; SQLITE_SYNCHRONOUS=NORMAL to
    # measure it: README "SQLite holds a hall").
    synchronous = env_choice("SQLITE_SYNCHRONOUS", "FULL", ("FULL", "EXTRA", "NORMAL"))
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": int(os.environ.get("SQLITE_BUSY_SECONDS", "30")),
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={synchronous};",
    }
    # Tests use a file too (not shared-cache memory, whose table locks ignore the timeout),
    # so that the threaded tests see what a hall sees.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("SQLITE_TEST_NAME", str(BASE_DIR / "test-db.sqlite3"))
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "tournament.security.LoginThrottleBackend",  # first: refuses a locked-out log-in
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
# The site's zone, and every new event's default: "local" is the laptop's own (`make run` and
# `make hall` ask for it); a hosted site names its zone.
TIME_ZONE = os.environ.get("TIME_ZONE") or "UTC"
if TIME_ZONE == "local":
    TIME_ZONE = hall.local_time_zone()
if TIME_ZONE not in zoneinfo.available_timezones():
    raise ImproperlyConfigured(
        f"TIME_ZONE must name a time zone (Europe/Paris), not {TIME_ZONE!r}."
    )
USE_I18N = True
# The French catalog (locale/fr/): `make messages` updates it, `make run`/`make test` compile it.
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language switch's choice is remembered for a year (else the browser's language).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# Photos of paper sheets (issue 33): Django's default storage, the folder MEDIA_ROOT on a
# laptop. No MEDIA_URL: nothing uploaded has an address of its own; scoring/views/photos.py
# serves each photo to whoever may see it. A hosted site may name another storage (S3 through
# django-storages) as STORAGES["default"]: README, "Photos of the paper sheets".
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Messages may carry a new scorekeeper's password: keep them server-side, not in a cookie.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# Background work (all of a stage's score sheets): Django's Tasks framework with the
# database backend, so a laptop needs nothing more (`make run` starts the worker:
# `manage.py db_worker`). TASKS_BACKEND=immediate runs tasks inside the request instead.
TASKS = {
    "default": {
        "BACKEND": "django.tasks.backends.immediate.ImmediateBackend"
        if env_choice("TASKS_BACKEND", "database", ("database", "immediate")) == "immediate"
        else "django_tasks_db.DatabaseBackend"
    }
}

# A stage's blank score sheets are rendered in the background as soon as it is seated.
PRINT_BLANK_ON_SEATING = env_bool("PRINT_BLANK_ON_SEATING", True)

# An uploaded event file larger than this (bytes) is imported in the background, its progress
# on a page of its own, so that no web worker is held for the seconds a large one takes.
IMPORT_IN_REQUEST_BYTES = env_int("IMPORT_IN_REQUEST_BYTES", 1_000_000)
# The same for a registration list (CSV or workbook, at most 2 MB): read in the background.
REGISTRATION_IN_REQUEST_BYTES = env_int("REGISTRATION_IN_REQUEST_BYTES", 256_000)

# The ratings (scoring/services/ratings.py) are computed in the background after each change;
# the leaderboard hides a player with fewer rated games than this (a rating still uncertain).
RATING_MIN_GAMES = env_int("RATING_MIN_GAMES", 5)

# E-mail to registrants (issue 49), sent by the background worker through the SMTP server
# EMAIL_HOST names; without one nothing is queued and nothing is sent. Django 6.1's MAILERS:
# its own EMAIL_* settings are deprecated, so the environment's names are read here only.
_email_host = os.environ.get("EMAIL_HOST", "")
SEND_EMAIL = bool(_email_host)
if SEND_EMAIL:  # without a server no mailer at all (a dummy one fails check --deploy)
    _use_tls = env_bool("EMAIL_USE_TLS", False)
    _use_ssl = env_bool("EMAIL_USE_SSL", False)
    if _use_tls and _use_ssl:
        raise ImproperlyConfigured("Set EMAIL_USE_TLS or EMAIL_USE_SSL, not both.")
    DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "")
    if "@" not in DEFAULT_FROM_EMAIL:
        raise ImproperlyConfigured(
            "Set DEFAULT_FROM_EMAIL to the sender of the e-mails (games@example.org) with "
            "EMAIL_HOST."
        )
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _email_host,
                "port": env_int("EMAIL_PORT", 587 if _use_tls else 465 if _use_ssl else 25, 1),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": _use_tls,
                "use_ssl": _use_ssl,
                "timeout": 30,
            },
        }
    }

# Sign-up on an event's page (issue 49): sign-ups one address may make in an hour, and the
# whole site takes in an hour (0: no limit).
SIGNUPS_PER_ADDRESS = env_int("SIGNUPS_PER_ADDRESS", 10)
SIGNUPS_PER_HOUR = env_int("SIGNUPS_PER_HOUR", 1000)

# Public pages ask this often (seconds) whether the event changed, and then fetch only the
# parts that did (static/js/live.js, htmx).
LIVE_REFRESH_SECONDS = env_int("LIVE_REFRESH_SECONDS", 3, minimum=1)
LIVE_STREAMS = env_int("LIVE_STREAMS", 0)  # a process's streams (tournament/streams.py)
LIVE_STREAMS_PER_CLIENT = env_int("LIVE_STREAMS_PER_CLIENT", 4)  # of them, to one address
# The public API (/api/, scoring/views/api.py): requests a minute from one address.
API_REQUESTS_PER_MINUTE = env_int("API_REQUESTS_PER_MINUTE", 120, minimum=1)
# The dashboard flags a table with no round saved for this long while the clock runs.
DASHBOARD_QUIET_MINUTES = env_int("DASHBOARD_QUIET_MINUTES", 15, minimum=1)


def cache_from_url(url: str, location: str = "site", entries: int = 300) -> dict:
    """CACHE_URL: locmem:// (the default: ``entries`` at most, the least used dropped first)
    or redis://host:port/db (rediss:// with TLS)."""
    if url in ("", "locmem://"):
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": location,
            "OPTIONS": {"MAX_ENTRIES": entries},
        }
    if url.startswith(("redis://", "rediss://")):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    raise ImproperlyConfigured(f"CACHE_URL must be locmem:// or redis://..., not {url!r}.")


# Rendered standings, bracket and results, keyed by the event's version (tournament/caching.py):
# a page is rendered once per change, whoever asks.
# "live": what the phones hold of the live parts of pages (tournament/live.py), a few entries a
# saved round, each small: without room of their own the rendered pages would push them out
# within seconds, and every phone would get whole parts again.
CACHES = {
    "default": cache_from_url(os.environ.get("CACHE_URL", "")),
    "live": cache_from_url(os.environ.get("CACHE_URL", ""), "live", entries=5000),
}
FRAGMENT_CACHE_SECONDS = env_int("FRAGMENT_CACHE_SECONDS", 24 * 3600, minimum=1)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my_tables"  # a scorekeeper lands on their tables
LOGOUT_REDIRECT_URL = "home"

# Login throttling (django-axes): a username and address pair is locked out after this many
# failed log-ins, until the cool-off has passed since the last attempt.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "tournament.security.locked_out"
AXES_CLIENT_IP_CALLABLE = "tournament.security.client_ip"
PROXY_COUNT = env_int("PROXY_COUNT", 0)
# X-Forwarded-For is read only from these peers (the proxy's addresses or networks).
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", ["127.0.0.0/8", "::1"])
for _network in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES must list addresses or networks (10.0.0.0/8), not {_network!r}."
        ) from None

# Content-Security-Policy (django-csp 4): only the site's own scripts, styles and fonts; no
# inline script or style attribute anywhere (json_script data blocks are not scripts).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # Bootstrap's form controls draw with data: SVGs
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Errors are logged (a 500 with its traceback, at ERROR): to standard error by default, or to
# a file that logrotate may move (WatchedFileHandler reopens it).
LOG_LEVEL = env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"))
LOG_HANDLER = env_choice("LOG_HANDLER", "console", ("console", "file"))
# Lines as plain text, or one JSON object a line for a host's log service.
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))
LOG_HANDLERS = {
    "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT},
    "file": {
        "class": "logging.handlers.WatchedFileHandler",
        "formatter": LOG_FORMAT,
        "filename": os.environ.get("LOG_FILE", ""),
    },
}
if LOG_HANDLER == "file" and not LOG_HANDLERS["file"]["filename"]:
    raise ImproperlyConfigured("Set LOG_FILE to a path when LOG_HANDLER is file.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "tournament.logs.JsonFormatter"},
    },
    "filters": {"one_line_refusals": {"()": "tournament.logs.OneLineRefusals"}},
    "handlers": {LOG_HANDLER: LOG_HANDLERS[LOG_HANDLER]},
    "root": {"handlers": [LOG_HANDLER], "level": LOG_LEVEL},
    "loggers": {
        # Django's own defaults print only with DEBUG on and mail admins otherwise: here every
        # record goes to the root handler, whatever DEBUG says.
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "django.server": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        # A refusal (403, 404...) is one line without a traceback; a 500 keeps its traceback.
        "django.request": {"filters": ["one_line_refusals"]},
        # So is a request Django refuses as it reads it (too many form fields or files, a body
        # too large, a host not allowed): a 400 from its security logger, not a traceback.
        **{
            f"django.security.{refusal}": {"filters": ["one_line_refusals"]}
            for refusal in (
                "TooManyFieldsSent",
                "TooManyFilesSent",
                "RequestDataTooBig",
                "DisallowedHost",
                "SuspiciousMultipartForm",
            )
        },
        # WeasyPrint reports each step of every PDF at INFO, django-axes each start.
        "weasyprint": {"level": "WARNING"},
        "axes.apps": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
    },
}

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"
DJANGO_TABLES2_TEMPLATE = "django_tables2/bootstrap5-responsive.html"  # wide tables scroll alone

# Backups of every event's file after its changes (scoring/services/backups.py): a folder of the
# laptop or a USB stick's; "off" for none.
BACKUP_DIR = os.environ.get("BACKUP_DIR") or str(BASE_DIR / "backups")
BACKUPS_ON = BACKUP_DIR.lower() != "off"
BACKUP_SECONDS = env_int("BACKUP_SECONDS", 30)  # at most one file per event this often
BACKUP_KEEP = env_int("BACKUP_KEEP", 20, minimum=1)  # the newest kept (and one per closed stage)

# The address `make hall` listens on (the join poster and the big clock's QR code name the
# laptop's addresses on that port).
HALL_BIND = os.environ.get("HOST") or "0.0.0.0:8000"  # noqa: S104 (the hall's network)
# A log-in from the hall's network (with the laptop's code, tournament/hall_login.py) lasts
# this long, on that device only.
HALL_SESSION_HOURS = env_int("HALL_SESSION_HOURS", 8, minimum=1)

if HALL:
    # A closed hall network has no certificates: plain HTTP, cookies not marked secure.
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SESSION_COOKIE_HTTPONLY = True
elif not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
