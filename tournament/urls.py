from django.contrib import admin
from django.urls import include, path

from scoring import eventfile_views as eventfile
from scoring import infraction_views as infractions
from scoring import print_views as printing
from scoring import result_views as results
from scoring import views as scoring
from tournament import clock_views, views

public = [
    path("", views.HomeView.as_view(), name="home"),
    path("e/<slug:slug>/", views.EventHomeView.as_view(), name="event"),
    path("e/<slug:slug>/find/", views.FindTableView.as_view(), name="find_table"),
    path("e/<slug:slug>/bracket/", results.BracketView.as_view(), name="bracket"),
    path("e/<slug:slug>/results/", results.ResultsView.as_view(), name="results"),
    path("e/<slug:slug>/player/<int:pk>/", infractions.PlayerView.as_view(), name="player"),
    path("e/<slug:slug>/<int:stage>/", scoring.StandingsView.as_view(), name="standings"),
    path("e/<slug:slug>/<int:stage>/seating/", views.SeatingView.as_view(), name="seating"),
    path("e/<slug:slug>/<int:stage>/clock/", clock_views.BigClockView.as_view(), name="big_clock"),
    path(
        "e/<slug:slug>/<int:stage>/clock.json",
        clock_views.ClockJsonView.as_view(),
        name="clock_json",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/",
        scoring.TableSheetView.as_view(),
        name="table",
    ),
    # PDFs and exports (PRODUCT.md §9): public like the pages that link to them.
    path("e/<slug:slug>/bracket.pdf", printing.BracketPdfView.as_view(), name="bracket_pdf"),
    path("e/<slug:slug>/results.pdf", printing.ResultsPdfView.as_view(), name="results_pdf"),
    path(
        "e/<slug:slug>/round-scores/",
        printing.RoundScoresExportView.as_view(),
        name="round_scores_export",
    ),
    path(
        "e/<slug:slug>/<int:stage>/standings.pdf",
        printing.StandingsPdfView.as_view(),
        name="standings_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/standings/export/",
        printing.StandingsExportView.as_view(),
        name="standings_export",
    ),
    path(
        "e/<slug:slug>/<int:stage>/seating.pdf",
        printing.SeatingPdfView.as_view(),
        name="seating_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/sheets.pdf",
        printing.StageSheetsPdfView.as_view(),
        name="stage_sheets_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/blank-sheets.pdf",
        printing.StageSheetsPdfView.as_view(blank=True),
        name="stage_blank_sheets_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/sheet.pdf",
        printing.TableSheetPdfView.as_view(),
        name="table_sheet_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/blank-sheet.pdf",
        printing.TableSheetPdfView.as_view(blank=True),
        name="table_blank_sheet_pdf",
    ),
]

directors = [
    path("new/", views.EventCreateView.as_view(), name="event_create"),
    path("import/", eventfile.EventFileUploadView.as_view(), name="event_import"),
    path(
        "e/<slug:slug>/event.json", eventfile.EventFileDownloadView.as_view(), name="event_file"
    ),
    path("e/<slug:slug>/edit/", views.EventUpdateView.as_view(), name="event_edit"),
    path("e/<slug:slug>/players/", views.PlayersView.as_view(), name="players"),
    path("e/<slug:slug>/players/import/", views.CsvImportView.as_view(), name="players_import"),
    path("e/<slug:slug>/players/check-in/", views.CheckInView.as_view(), name="check_in"),
    path("e/<slug:slug>/scorekeepers/", views.ScorekeepersView.as_view(), name="scorekeepers"),
    path("e/<slug:slug>/<int:stage>/seat/", views.SeatStageView.as_view(), name="seat_stage"),
    path(
        "e/<slug:slug>/<int:stage>/clock/",
        clock_views.ClockControlView.as_view(),
        name="clock_control",
    ),
    path("e/<slug:slug>/<int:stage>/close/", results.AdvanceView.as_view(), name="advance"),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/enter/",
        scoring.EnterRoundView.as_view(),
        name="enter_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/round/<int:round>/correct/",
        scoring.CorrectRoundView.as_view(),
        name="correct_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/infraction/",
        infractions.LogInfractionView.as_view(),
        name="log_infraction",
    ),
    path(
        "e/<slug:slug>/infractions/", infractions.InfractionLogView.as_view(), name="infraction_log"
    ),
    path(
        "e/<slug:slug>/infractions/<int:pk>/",
        infractions.ChangeInfractionView.as_view(),
        name="infraction_change",
    ),
]

urlpatterns = [
    *public,
    path("director/", include(directors)),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
