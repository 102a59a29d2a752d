"""The 403 and 404 pages: a refusal the site worded itself shows its words
(tournament/refusals.py)."""

from django.shortcuts import render
from django.views.decorators.csrf import requires_csrf_token

from tournament.refusals import detail

# -- refusals --------------------------------------------------------------------------------------


@requires_csrf_token  # the page's language switch posts a form
def permission_denied(request, exception):
    """The 403 page, with the site's reason when it gave one (``tournament.refusals``)."""
    return render(request, "403.html", {"detail": detail(exception)}, status=403)


@requires_csrf_token
def page_not_found(request, exception):
    """The 404 page, with the site's reason when it gave one: never Django's own words."""
    return render(request, "404.html", {"detail": detail(exception)}, status=404)
