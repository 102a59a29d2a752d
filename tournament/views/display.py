"""``/display/``: the reader's text size and contrast (tournament/display.py)."""

from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View

from tournament.display import CONTRAST_COOKIE, CONTRASTS, SIZE_COOKIE, SIZES, YEAR


class DisplayView(View):
    """``POST /display/``: keeps the reader's choice (``size``, ``contrast``; either or both)
    and goes back to the page it came from (``next``, a page of this site)."""

    http_method_names = ["post"]

    def post(self, request):
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            back = "/"
        response = HttpResponseRedirect(back)
        for cookie, value, known in (
            (SIZE_COOKIE, request.POST.get("size"), SIZES),
            (CONTRAST_COOKIE, request.POST.get("contrast"), CONTRASTS),
        ):
            if value in known:
                response.set_cookie(
                    cookie, value, max_age=YEAR, samesite="Lax", secure=request.is_secure()
                )
        return response
