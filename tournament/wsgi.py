import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
application = get_wsgi_application()

# The objects loaded at startup (Django, the apps, the URL patterns: some 200,000) live as long
# as the worker: freezing them keeps the collector's full passes to what requests create. A
# full pass over them took a quarter of a second, about once every few large pages
# (issue 14; tests/bench.py freezes the same way after building its events).
gc.freeze()
