"""The site as an installable app that keeps its last copies offline (issue 33): the service
worker (static/js/sw.js), served from the site's root so that its scope is every page, and the
web app manifest. static/js/offline.js registers the worker; README, "Offline copies"."""

from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import View


class ServiceWorkerView(View):
    """``/sw.js``: the worker's script, asked again each time (a new version is taken at once)."""

    def get(self, request):
        found = finders.find("js/sw.js")
        if not found:
            raise Http404
        with open(found, encoding="utf-8") as script:
            response = HttpResponse(script.read(), content_type="text/javascript; charset=utf-8")
        response["Cache-Control"] = "no-cache"
        response["Service-Worker-Allowed"] = "/"
        return response


class ManifestView(View):
    """``/manifest.webmanifest``: the app a phone installs; it opens at the page it was
    installed from (``?start=``, a path of this site), or at the home page."""

    def get(self, request):
        start = request.GET.get("start", "")
        if not (start.startswith("/") and url_has_allowed_host_and_scheme(start, None)):
            start = "/"
        manifest = {
            "id": "/",
            "name": _("Mexican Train scorekeeping"),
            "short_name": _("Mexican Train"),
            "start_url": start,
            "scope": "/",
            "display": "standalone",
            "background_color": "#ffffff",
            "theme_color": "#212529",
            "icons": [
                {
                    "src": static(f"img/icon-{size}.png"),
                    "sizes": f"{size}x{size}",
                    "type": "image/png",
                }
                for size in (192, 512)
            ],
        }
        response = JsonResponse(manifest, content_type="application/manifest+json")
        response["Cache-Control"] = "no-cache"
        return response
