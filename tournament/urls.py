"""The root URLs: the only module that sees both apps. Public pages first, then the directors'
(under director/), then accounts and the admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from tournament.hall_login import HallLoginView, LoginCodesView, LoginCodeView

# Log in, log out and change one's password. No password-reset pages: the site e-mails
# registrants only, and only with EMAIL_HOST (a director resets a password with
# `manage.py changepassword`).
accounts = [
    path("login/", HallLoginView.as_view(), name="login"),  # under HALL: with a code too
    path("login/code/", LoginCodeView.as_view(), name="login_code"),
    path("login/codes/", LoginCodesView.as_view(), name="login_codes"),  # the laptop's screen
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]

urlpatterns = [
    path("", include("tournament.urls_public")),
    path("", include("scoring.urls_public")),
    path("director/", include("tournament.urls_director")),
    path("director/", include("scoring.urls_director")),
    path("accounts/", include(accounts)),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the language switch
    path("admin/", admin.site.urls),
    # Browsers ask /favicon.ico whatever the page's <link rel="icon"> says.
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("img/favicon.svg"))),
]

# The 403 and 404 pages say the site's own reason for the refusal (tournament.refusals).
handler403 = "tournament.views.errors.permission_denied"
handler404 = "tournament.views.errors.page_not_found"
