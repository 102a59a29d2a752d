# Three commands for a newcomer: `make run` serves the site on this computer, `make hall` to the
# hall's network (phones on its Wi-Fi), `make test` runs every test.
# Django 6 needs Python 3.12 or newer: the first one found is used (override with PYTHON=...).
PYTHON ?= $(shell for p in python3.13 python3.12 /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3 python3; do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v "$$p" || echo "$$p"; } && break; done)
VENV := .venv
BIN := $(VENV)/bin
# Background workers (a stage's score sheets, in blocks): one per core.
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# Start them in the background; they stop with the site (Ctrl+C reaches them too).
START_WORKERS = pids=""; for i in $$(seq $(WORKERS)); do \
	$(BIN)/python manage.py db_worker --interval 2 & pids="$$pids $$!"; done; \
	trap 'kill $$pids 2>/dev/null' EXIT INT TERM;

.PHONY: run hall test lint bench install install-dev chromium gettext messages translations clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.12 or newer is needed (Django 6)."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# DEBUG is off unless asked for (a deployment that forgets it shows no tracebacks): on here.
run: export DEBUG = 1
run: export TIME_ZONE ?= local
run: HOST ?= 127.0.0.1:8000
run: install translations
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py setup_site
	@$(START_WORKERS) $(BIN)/python manage.py runserver $(HOST)

STATIC_DIR = $(or $(STATIC_ROOT),staticfiles)

# The laptop serves the hall's network: a front that takes each request whole and serves the
# phones' streams (tournament/hall_front.py) before gunicorn (threads), DEBUG off, plain HTTP,
# a secret key kept in .hall-secret-key, backups into BACKUP_DIR (default backups/), the
# laptop's time zone.
hall: export DEBUG = 0
hall: export HALL = 1
hall: export TIME_ZONE ?= local
hall: export HOST ?= 0.0.0.0:8000
hall: install translations $(STATIC_DIR)/.collected
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py setup_site
	@$(START_WORKERS) $(BIN)/python -m tournament.hall_front

# The hall's static files, collected (and compressed: 8 s of CPU) again only when a file of
# static/ or the installed packages changed since: a hall started again answers sooner.
$(STATIC_DIR)/.collected: $(VENV)/.installed $(shell find static -type f)
	$(BIN)/python manage.py collectstatic --noinput -v 0
	touch $@

# The browser tests drive Debian's Chromium (never a downloaded browser): its headless shell,
# or the full chromium where only that is installed (tests/browser.py).
chromium:
	@test -x /usr/bin/chromium-headless-shell || { \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    { apt-get update -qq && apt-get install -y -qq chromium-headless-shell; } || test -x /usr/bin/chromium; \
	  elif [ ! -x /usr/bin/chromium ]; then \
	    echo "Browser tests need Chromium: sudo apt-get install chromium-headless-shell"; fi; }

# The French catalog: locale/fr/LC_MESSAGES/django.po is committed, its compiled .mo is not
# (gettext's msgfmt builds it). `make messages` collects new strings into the catalog and lists
# those still to translate (tests/test_translations.py fails while any is left).
gettext:
	@command -v msgfmt >/dev/null || { \
	  if [ "$$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y -qq gettext; \
	  else echo "Translations need gettext: sudo apt-get install gettext"; exit 1; fi; }

translations: install gettext locale/fr/LC_MESSAGES/django.mo

# Compiled again only when the catalog changed (every `make run`, `make hall`, `make test`).
locale/fr/LC_MESSAGES/django.mo: locale/fr/LC_MESSAGES/django.po $(VENV)/.installed
	HALL= DEBUG=1 $(BIN)/python manage.py compilemessages --ignore=.venv -v 0

MESSAGES := makemessages -l fr --no-obsolete --ignore=.venv --ignore=tests --ignore=staticfiles

messages: install gettext
	DEBUG=1 $(BIN)/python manage.py $(MESSAGES)
	@msgattrib --untranslated --no-obsolete locale/fr/LC_MESSAGES/django.po | grep -c '^msgid ' \
	  | awk '{ n = $$1 - 1; print (n > 0 ? n : 0) " untranslated (msgattrib --untranslated)" }'
	@msgattrib --only-fuzzy --no-obsolete locale/fr/LC_MESSAGES/django.po | grep -c '^msgid ' \
	  | awk '{ n = $$1 - 1; print (n > 0 ? n : 0) " fuzzy (msgattrib --only-fuzzy)" }'

# The tests run on every core (pytest-xdist; TEST_WORKERS=0 for one process): each worker
# has its own test database (test-db.sqlite3_gw0, test_<name>_gw0 on PostgreSQL), live
# servers and halls on free ports, and a test file's tests stay in one worker (its browser),
# but for the few long tests tests/conftest.py hands out one by one. The 15 longest are listed.
TEST_WORKERS ?= auto
test: install-dev chromium translations lint
	$(BIN)/python manage.py makemigrations --check --dry-run --settings=tests.settings
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --durations=15

# The house's layers (import-linter's contracts in pyproject.toml), ruff's checks and format.
lint: install-dev
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: install-dev
	$(BIN)/python -m tests.bench
	$(BIN)/python -m tests.bench --sheets

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles  # backups/ and .hall-secret-key are kept
