# Two commands for a newcomer: `make run` serves the site, `make test` runs every test.
# Django 6 needs Python 3.12 or newer: the first one found is used (override with PYTHON=...).
PYTHON ?= $(shell for p in python3.13 python3.12 /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3 python3; do \
	"$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v "$$p" || echo "$$p"; } && break; done)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1:8000

.PHONY: run test lint bench install install-dev chromium clean

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

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py setup_site
	$(BIN)/python manage.py runserver $(HOST)

# The browser tests drive Debian's Chromium (never a downloaded browser).
chromium:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else echo "Browser tests need Chromium: sudo apt-get install chromium"; fi; }

test: install-dev chromium
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

lint: install-dev
	$(BIN)/ruff check .

bench: install-dev
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
