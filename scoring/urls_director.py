"""Pages that write scores, seat, close and run the clock (mounted under director/): directors,
and for a table's rounds and infractions, its scorekeepers."""

from django.urls import path

from scoring.views import (
    archive,
    ceremony,
    clock,
    dashboard,
    entry,
    eventfile,
    hall,
    infractions,
    photos,
    print_jobs,
    printing,
    qualifiers,
    results,
    seating,
    seriesfile,
    sheet_reading,
    table_entry,
    undo,
)
from scoring.views import series as series_pages

urlpatterns = [
    path("tables/", entry.MyTablesView.as_view(), name="my_tables"),
    path(
        "e/<slug:slug>/player/<int:pk>/same-person/",
        archive.SamePersonView.as_view(),
        name="same_person",
    ),
    path("import/", eventfile.EventFileUploadView.as_view(), name="event_import"),
    path("import/<int:pk>/", eventfile.ImportJobView.as_view(), name="import_job"),
    path("import/series/", seriesfile.SeriesFileUploadView.as_view(), name="series_import"),
    path(
        "s/<slug:slug>/series.json",
        seriesfile.SeriesFileDownloadView.as_view(),
        name="series_file",
    ),
    path("s/new/", series_pages.SeriesCreateView.as_view(), name="series_create"),
    path("s/<slug:slug>/edit/", series_pages.SeriesUpdateView.as_view(), name="series_edit"),
    path("s/<slug:slug>/events/", series_pages.SeriesEventsView.as_view(), name="series_events"),
    path("s/<slug:slug>/people/", series_pages.SeriesPeopleView.as_view(), name="series_people"),
    path(
        "s/<slug:slug>/events/<slug:event>/remove/",
        series_pages.SeriesRemoveEventView.as_view(),
        name="series_remove_event",
    ),
    path("e/<slug:slug>/event.json", eventfile.EventFileDownloadView.as_view(), name="event_file"),
    path("e/<slug:slug>/poster/", hall.PosterView.as_view(), name="poster"),
    path("e/<slug:slug>/ceremony/", ceremony.CeremonyView.as_view(), name="ceremony"),
    path("e/<slug:slug>/qualifiers/", qualifiers.QualifierReportView.as_view(), name="qualifiers"),
    path(
        "e/<slug:slug>/qualifiers.csv",
        qualifiers.QualifierCsvView.as_view(),
        name="qualifiers_csv",
    ),
    path(
        "e/<slug:slug>/qualifiers.pdf",
        qualifiers.QualifierPdfView.as_view(),
        name="qualifiers_pdf",
    ),
    path(
        "e/<slug:slug>/ceremony.pdf", ceremony.CeremonyScriptPdfView.as_view(), name="ceremony_pdf"
    ),
    path(
        "e/<slug:slug>/certificates.pdf",
        ceremony.CertificatesPdfView.as_view(),
        name="certificates_pdf",
    ),
    path("e/<slug:slug>/sign-in.pdf", printing.SignInSheetPdfView.as_view(), name="sign_in_sheet"),
    path("e/<slug:slug>/<int:stage>/seat/", seating.SeatStageView.as_view(), name="seat_stage"),
    path(
        "e/<slug:slug>/<int:stage>/clock/", clock.ClockControlView.as_view(), name="clock_control"
    ),
    path(
        "e/<slug:slug>/<int:stage>/table-time/",
        clock.TableTimeView.as_view(),
        name="table_time",
    ),
    path(
        "e/<slug:slug>/<int:stage>/dashboard/",
        dashboard.DashboardView.as_view(),
        name="dashboard",
    ),
    path("e/<slug:slug>/<int:stage>/print/", print_jobs.StartPrintView.as_view(), name="print"),
    path(
        "e/<slug:slug>/<int:stage>/print/<int:pk>/",
        print_jobs.PrintJobView.as_view(),
        name="print_job",
    ),
    path(
        "e/<slug:slug>/<int:stage>/print/<int:pk>/sheets.pdf",
        print_jobs.PrintJobPdfView.as_view(),
        name="print_job_pdf",
    ),
    path("e/<slug:slug>/<int:stage>/close/", results.AdvanceView.as_view(), name="advance"),
    path("e/<slug:slug>/<int:stage>/reopen/", undo.ReopenStageView.as_view(), name="reopen_stage"),
    path(
        "e/<slug:slug>/<int:stage>/remove-playoff/",
        undo.RemovePlayoffView.as_view(),
        name="remove_playoff",
    ),
    path(
        "e/<slug:slug>/players/<int:pk>/uncheck/",
        undo.UncheckInView.as_view(),
        name="uncheck_in",
    ),
    path(
        "e/<slug:slug>/<int:stage>/correction/",
        results.SeatingConflictView.as_view(),
        name="seating_conflict",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/enter/",
        entry.EnterRoundView.as_view(),
        name="enter_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/game-over/",
        entry.EndGameView.as_view(),
        name="end_game",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/reopen/",
        entry.ReopenGameView.as_view(),
        name="reopen_game",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/round/<int:round>/remove/",
        entry.RemoveRoundView.as_view(),
        name="remove_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/round/<int:round>/confirm/",
        table_entry.DirectorConfirmView.as_view(),
        name="confirm_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/report/<int:pk>/",
        table_entry.DirectorReportView.as_view(),
        name="infraction_report",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/code/",
        table_entry.ReissueCodeView.as_view(),
        name="reissue_code",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/round/<int:round>/correct/",
        entry.CorrectRoundView.as_view(),
        name="correct_round",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/photos/",
        photos.AddPhotoView.as_view(),
        name="add_photo",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/photos/<int:pk>.jpg",
        photos.PhotoImageView.as_view(),
        name="sheet_photo",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/read/",
        sheet_reading.ReadSheetView.as_view(),
        name="read_sheet",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/read/<int:pk>/",
        sheet_reading.ReadingView.as_view(),
        name="sheet_reading",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/read/<int:pk>/cell/<int:row>-<int:column>.jpg",
        sheet_reading.ReadingCellView.as_view(),
        name="sheet_reading_cell",
    ),
    path(
        "e/<slug:slug>/<int:stage>/table/<int:table>/photos/<int:pk>/remove/",
        photos.RemovePhotoView.as_view(),
        name="remove_photo",
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
