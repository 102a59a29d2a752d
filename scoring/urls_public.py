"""Public pages of the scoring app: standings, sheets, bracket, results, the clock, PDFs and
exports (PRODUCT.md §9, §10). No login."""

from django.urls import path

from scoring.views import (
    api,
    archive,
    clock,
    event,
    infractions,
    photos,
    ratings,
    results,
    screen,
    seating,
    table_entry,
)
from scoring.views import printing as pdf
from scoring.views import series as series_pages

urlpatterns = [
    path("", archive.HomeView.as_view(), name="home"),  # the events, the past ones' medallists
    path("e/<slug:slug>/", event.EventHomeView.as_view(), name="event"),
    # The public read-only API (issue 50 item 5): JSON, described at /api/openapi.json.
    path("api/", api.IndexView.as_view(), name="api"),
    path("api/openapi.json", api.SchemaView.as_view(), name="api_schema"),
    path("api/events/", api.EventsView.as_view(), name="api_events"),
    path("api/events/<slug:slug>/", api.EventView.as_view(), name="api_event"),
    path("api/events/<slug:slug>/stages/<int:stage>/", api.StageView.as_view(), name="api_stage"),
    path("api/events/<slug:slug>/results/", api.ResultsView.as_view(), name="api_results"),
    path("api/series/", api.SeriesListView.as_view(), name="api_series_list"),
    path("api/series/<slug:slug>/", api.SeriesView.as_view(), name="api_series"),
    path("api/ratings/", api.RatingsView.as_view(), name="api_ratings"),
    # A table's phone (issue 15): the code on the sheet, no account.
    path("t/<str:code>/", table_entry.TableCodeView.as_view(), name="table_code"),
    path("t/<str:code>/enter/", table_entry.TableTerminalView.as_view(), name="table_terminal"),
    path(
        "t/<str:code>/round/<int:number>/confirm/",
        table_entry.TerminalConfirmView.as_view(),
        name="terminal_confirm",
    ),
    path(
        "t/<str:code>/infraction/",
        table_entry.TerminalReportView.as_view(),
        name="terminal_report",
    ),
    path(
        "t/<str:code>/round/<int:number>/send-back/",
        table_entry.TerminalSendBackView.as_view(),
        name="terminal_send_back",
    ),
    # Photos of the table's sheet: a phone that opened the table only (scoring/views/photos.py).
    path("t/<str:code>/photos/", photos.TerminalAddPhotoView.as_view(), name="terminal_photo_add"),
    path(
        "t/<str:code>/photos/<int:pk>.jpg",
        photos.TerminalPhotoView.as_view(),
        name="terminal_photo",
    ),
    path("records/", archive.RecordsView.as_view(), name="records"),
    path("s/", series_pages.SeriesListView.as_view(), name="series_list"),
    path("s/<slug:slug>/", series_pages.SeriesView.as_view(), name="series"),
    path("s/<slug:slug>/export/", series_pages.SeriesExportView.as_view(), name="series_export"),
    path("s/<slug:slug>/standings.pdf", series_pages.SeriesPdfView.as_view(), name="series_pdf"),
    path("ratings/", ratings.LeaderboardView.as_view(), name="ratings"),
    path("e/<slug:slug>/bracket/", results.BracketView.as_view(), name="bracket"),
    path("e/<slug:slug>/results/", results.ResultsView.as_view(), name="results"),
    path(
        "e/<slug:slug>/standings/",
        results.CumulativeStandingsView.as_view(),
        name="cumulative_standings",
    ),
    path("e/<slug:slug>/player/<int:pk>/", infractions.PlayerGamesView.as_view(), name="player"),
    path("e/<slug:slug>/<int:stage>/", results.StandingsView.as_view(), name="standings"),
    path("e/<slug:slug>/<int:stage>/seating/", seating.SeatingView.as_view(), name="seating"),
    path("e/<slug:slug>/<int:stage>/clock/", clock.BigClockView.as_view(), name="big_clock"),
    path("e/<slug:slug>/<int:stage>/screen/", screen.HallScreenView.as_view(), name="hall_screen"),
    path("e/<slug:slug>/<int:stage>/clock.json", clock.ClockJsonView.as_view(), name="clock_json"),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/",
        results.TableSheetView.as_view(),
        name="table",
    ),
    # PDFs and exports: public like the pages that link to them.
    path("e/<slug:slug>/bracket.pdf", pdf.BracketPdfView.as_view(), name="bracket_pdf"),
    path("e/<slug:slug>/results.pdf", pdf.ResultsPdfView.as_view(), name="results_pdf"),
    path(
        "e/<slug:slug>/round-scores/",
        pdf.RoundScoresExportView.as_view(),
        name="round_scores_export",
    ),
    path(
        "e/<slug:slug>/<int:stage>/standings.pdf",
        pdf.StandingsPdfView.as_view(),
        name="standings_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/standings/export/",
        pdf.StandingsExportView.as_view(),
        name="standings_export",
    ),
    path("e/<slug:slug>/<int:stage>/seating.pdf", pdf.SeatingPdfView.as_view(), name="seating_pdf"),
    path(
        "e/<slug:slug>/<int:stage>/sheets.pdf",
        pdf.StageSheetsPdfView.as_view(),
        name="stage_sheets_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/blank-sheets.pdf",
        pdf.StageSheetsPdfView.as_view(blank=True),
        name="stage_blank_sheets_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/sheet.pdf",
        pdf.TableSheetPdfView.as_view(),
        name="table_sheet_pdf",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/blank-sheet.pdf",
        pdf.TableSheetPdfView.as_view(blank=True),
        name="table_blank_sheet_pdf",
    ),
]
