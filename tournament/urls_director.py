"""Directors' pages of the event app: events, players, scorekeepers (mounted under director/)."""

from django.urls import path

from tournament.views import events, players, registration, signup

urlpatterns = [
    path("new/", events.EventCreateView.as_view(), name="event_create"),
    path("e/<slug:slug>/edit/", events.EventUpdateView.as_view(), name="event_edit"),
    path("e/<slug:slug>/archive/", events.EventArchiveView.as_view(), name="event_archive"),
    path("e/<slug:slug>/delete/", events.EventDeleteView.as_view(), name="event_delete"),
    path(
        "e/<slug:slug>/results/release/",
        events.ResultsReleaseView.as_view(),
        name="results_release",
    ),
    path("e/<slug:slug>/players/", players.PlayersView.as_view(), name="players"),
    path(
        "e/<slug:slug>/players/import/", registration.CsvImportView.as_view(), name="players_import"
    ),
    path(
        "e/<slug:slug>/players/import/reading/<int:pk>/",
        registration.ListReadingView.as_view(),
        name="players_import_reading",
    ),
    path(
        "e/<slug:slug>/players/import/preview/",
        registration.ImportPreviewView.as_view(),
        name="players_import_preview",
    ),
    path("e/<slug:slug>/players/check-in/", players.CheckInView.as_view(), name="check_in"),
    path("e/<slug:slug>/players/signups/", signup.SignupsView.as_view(), name="signups"),
    path("e/<slug:slug>/players/<int:pk>/", players.PlayerView.as_view(), name="player_edit"),
    path(
        "e/<slug:slug>/players/<int:pk>/delete/",
        players.PlayerDeleteView.as_view(),
        name="player_delete",
    ),
    path("e/<slug:slug>/desk/", players.DeskView.as_view(), name="desk"),
    path("e/<slug:slug>/scorekeepers/", events.ScorekeepersView.as_view(), name="scorekeepers"),
    path("e/<slug:slug>/history/", events.HistoryView.as_view(), name="history"),
]
