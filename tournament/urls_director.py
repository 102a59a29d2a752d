"""Directors' pages of the event app: events, players, scorekeepers (mounted under director/)."""

from django.urls import path

from tournament import views

urlpatterns = [
    path("new/", views.EventCreateView.as_view(), name="event_create"),
    path("e/<slug:slug>/edit/", views.EventUpdateView.as_view(), name="event_edit"),
    path("e/<slug:slug>/archive/", views.EventArchiveView.as_view(), name="event_archive"),
    path("e/<slug:slug>/delete/", views.EventDeleteView.as_view(), name="event_delete"),
    path("e/<slug:slug>/players/", views.PlayersView.as_view(), name="players"),
    path("e/<slug:slug>/players/import/", views.CsvImportView.as_view(), name="players_import"),
    path(
        "e/<slug:slug>/players/import/reading/<int:pk>/",
        views.ListReadingView.as_view(),
        name="players_import_reading",
    ),
    path(
        "e/<slug:slug>/players/import/preview/",
        views.ImportPreviewView.as_view(),
        name="players_import_preview",
    ),
    path("e/<slug:slug>/players/check-in/", views.CheckInView.as_view(), name="check_in"),
    path("e/<slug:slug>/players/<int:pk>/", views.PlayerView.as_view(), name="player_edit"),
    path(
        "e/<slug:slug>/players/<int:pk>/delete/",
        views.PlayerDeleteView.as_view(),
        name="player_delete",
    ),
    path("e/<slug:slug>/desk/", views.DeskView.as_view(), name="desk"),
    path("e/<slug:slug>/scorekeepers/", views.ScorekeepersView.as_view(), name="scorekeepers"),
    path("e/<slug:slug>/history/", views.HistoryView.as_view(), name="history"),
]
