"""Public pages of the event app: no login (PRODUCT.md §10)."""

from django.urls import path

from tournament import views
from tournament.caching import EventVersionView

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("e/<slug:slug>/", views.EventHomeView.as_view(), name="event"),
    path("e/<slug:slug>/version.json", EventVersionView.as_view(), name="event_version"),
    path("e/<slug:slug>/find/", views.FindTableView.as_view(), name="find_table"),
]
