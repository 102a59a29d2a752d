"""Public pages of the event app: no login (PRODUCT.md §10)."""

from django.urls import path

from tournament.caching import EventVersionView
from tournament.streams import EventStreamView
from tournament.views import display, events, offline, signup

urlpatterns = [
    path("e/<slug:slug>/version.json", EventVersionView.as_view(), name="event_version"),
    path("e/<slug:slug>/stream/", EventStreamView.as_view(), name="event_stream"),
    path("e/<slug:slug>/find/", events.FindTableView.as_view(), name="find_table"),
    path("e/<slug:slug>/signup/", signup.SignupView.as_view(), name="signup"),
    path(
        "e/<slug:slug>/signup/<str:token>/",
        signup.SignupStatusView.as_view(),
        name="signup_status",
    ),
    path("display/", display.DisplayView.as_view(), name="display"),  # text size, contrast
    path("sw.js", offline.ServiceWorkerView.as_view(), name="service_worker"),
    path("manifest.webmanifest", offline.ManifestView.as_view(), name="manifest"),
]
