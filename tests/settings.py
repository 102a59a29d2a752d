"""The tests' settings: the project's, read as on a developer's machine.

DEBUG is off unless the environment turns it on (tournament/settings.py); the tests read the
settings with it on, as `make run` does (no manifest of collected static files, the
development key), and pytest-django then runs every test with DEBUG off. Commands the tests
start (manage.py in a subprocess) inherit the same environment. The production settings are
tested by the tests that start manage.py with DEBUG=0, and by .ci/deploy-check.
"""

import os

os.environ.setdefault("DEBUG", "1")
# No backup thread behind every test's writes: the backup tests turn backups on themselves.
os.environ.setdefault("BACKUP_DIR", "off")
# The site's zone is UTC whatever the machine's (a test names its event's zone).
os.environ.setdefault("TIME_ZONE", "UTC")

from tournament.settings import *  # noqa: E402, F403

# Tasks run inside the request that enqueues them (the print job's blocks render at once).
TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
# Seating does not render blank sheets behind every test (the print tests turn it on).
PRINT_BLANK_ON_SEATING = False
# A custom rule set's "are you sure?" threshold is not simulated behind every test's page
# (scoring/plausibility.py); tests/test_plausibility.py turns it on.
PLAUSIBILITY_ROUNDS = 0
