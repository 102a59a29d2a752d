"""A registration list that holds the same person twice (issue 28, item 2): the repeated rows
are left out unless the director ticks them, and the preview counts only what it will import.

Through the pages, as a director brings a sign-up export: upload, the preview as shown, then
confirm (tests/importing.py)."""

import io
import re

from django.core.management import call_command

from tests.importing import confirm, preview_fields, upload
from tests.test_players import xlsx_bytes
from tournament.models import Player

HEADER = "First Name,Last Name,Email,Phone,Birth Date,Club,T-Shirt Size"
SIGN_UP = "\n".join(
    [
        HEADER,
        "Chloé,Martin,chloe@mail-secret.example,555-0101,03/07/1950,Reno Club,M",  # line 2
        "Zoë,Ångström,zoe@mail-secret.example,555-0102,1948-11-30,Elko Domino,L",  # 3
        "José,Núñez,jose@mail-secret.example,555-0103,02/30/1951,Reno Club,XL",  # 4: no date
        "Sean,O'Brien,sean@mail-secret.example,555-0104,07/04/1949,Reno Club,L",  # 5
        "",  # 6: a blank line
        "Chloé,Martin,chloe@mail-secret.example,555-0101,03/07/1950,Reno Club,M",  # 7: line 2
        "Jose,Nunez, JOSE@Mail-Secret.example ,555-0199,02/01/1951,,XL",  # 8: line 4's e-mail
        "sean,OBRIEN,sean.o@mail-secret.example,555-0105,07/04/1949,RENO CLUB.,L",  # 9: line 5
        "Ann,Lee,ann@mail-secret.example,555-0106,1952-05-05,Elko Domino,S",  # 10
    ]
).encode()


def status_of(html: str, line: int) -> str:
    """The text of a preview row's status cell, tags removed."""
    row = re.search(rf'<tr data-line="{line}"[^>]*>(.*?)</tr>', html, re.S).group(1)
    cell = re.findall(r"<td>(.*?)</td>", row, re.S)[-1]
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


def confirm_button(html: str) -> str:
    found = re.search(r'<button[^>]*id="confirm-import"[^>]*>(.*?)</button>', html, re.S)
    return " ".join(found.group(1).split())


def test_repeated_rows_of_a_sign_up_export_are_left_out_and_said_why(director_client, event):
    event.age_brackets = "50-54, 55-59, 60-64, 65-69, 70-74, 75-79, 80+"
    event.save()
    preview = upload(director_client, event.slug, SIGN_UP, "signup.csv")
    html = preview.content.decode()
    assert status_of(html, 7) == (
        "repeats line 2 (same name and club): left out; tick to import anyway"
    )
    assert status_of(html, 8) == "repeats line 4 (same e-mail): left out; tick to import anyway"
    assert status_of(html, 9) == (
        "repeats line 5 (same name and club): left out; tick to import anyway"
    )
    for line in (2, 3, 4, 5, 10):
        assert status_of(html, line) == "new"
    fields = preview_fields(html)
    assert not {"add-7", "add-8", "add-9"} & set(fields)  # unticked
    assert "3 rows repeat earlier ones: left out unless ticked." in html
    assert confirm_button(html) == "Confirm: import 5 players"
    assert "“02/30/1951” is not a date: no division" in html

    done = confirm(director_client, event.slug, preview)
    assert done.status_code == 302
    assert sorted(event.players.values_list("name", "club")) == [
        ("Ann Lee", "Elko Domino"),
        ("Chloé Martin", "Reno Club"),
        ("José Núñez", "Reno Club"),
        ("Sean O'Brien", "Reno Club"),
        ("Zoë Ångström", "Elko Domino"),
    ]
    assert "5 players imported, 0 changed, 3 skipped." in director_client.get(
        done["Location"]
    ).content.decode("utf-8")
    # The e-mail served only to compare: in no table, not in the session's copy of the list.
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    assert "mail-secret" not in out.getvalue()


def test_the_list_kept_for_the_preview_holds_no_e_mail(director_client, event):
    upload(director_client, event.slug, SIGN_UP, "signup.csv")
    kept = director_client.session[f"players-import-{event.pk}"]
    assert "mail-secret" not in repr(kept).casefold()
    assert kept["same_email"] == [[7, 2], [8, 4]] or kept["same_email"] == [(7, 2), (8, 4)]


def test_a_ticked_repeat_is_imported_and_counted(director_client, event):
    preview = upload(director_client, event.slug, SIGN_UP, "signup.csv")
    ticked = confirm(director_client, event.slug, preview, action="remap", **{"add-8": "1"})
    html = ticked.content.decode()
    assert confirm_button(html) == "Confirm: import 6 players"
    assert 'name="add-8" id="add-8" value="1" data-adds checked' in html
    done = confirm(director_client, event.slug, ticked)
    assert done.status_code == 302
    assert event.players.count() == 6
    assert event.players.filter(name="Jose Nunez", club="").exists()
    assert event.players.filter(name="Chloé Martin").count() == 1


def test_a_repeated_id_with_the_same_name_is_a_repeat(director_client, event):
    text = b"Name,Id,Club\nAnn Lee,12,Reno\nANN LEE,12,\nBo Diaz,13,Elko\n"
    preview = upload(director_client, event.slug, text)
    html = preview.content.decode()
    assert status_of(html, 3) == "repeats line 2 (same id): left out; tick to import anyway"
    assert confirm_button(html) == "Confirm: import 2 players"
    assert confirm(director_client, event.slug, preview).status_code == 302
    imported = sorted(event.players.values_list("name", "ref"))
    assert imported == [("Ann Lee", "12"), ("Bo Diaz", "13")]


def test_a_ticked_repeat_of_an_id_is_imported_without_the_id(director_client, event):
    text = b"Name,Id\nAnn Lee,12\nAnn Lee,12\n"
    preview = upload(director_client, event.slug, text)
    assert confirm(director_client, event.slug, preview, **{"add-3": "1"}).status_code == 302
    assert sorted(event.players.values_list("ref", flat=True)) == ["", "12"]


def test_a_repeat_of_a_registered_player_keeps_the_registered_choice(director_client, event):
    Player.objects.create(event=event, name="Ann Lee", club="Reno")
    preview = upload(director_client, event.slug, b"Name,Club\nAnn Lee,Reno\nann lee,RENO\n")
    html = preview.content.decode()
    assert status_of(html, 2) == "registered already; add anyway"
    assert status_of(html, 3) == "registered already; add anyway"
    assert confirm_button(html) == "Confirm: import 0 players"


def test_a_workbook_with_repeats(director_client, event):
    rows = [
        ["Name", "E-mail", "Club"],
        ["Ann Lee", "ann@mail-secret.example", "Reno"],
        ["Annie Lee", "ANN@mail-secret.example", "Reno"],
    ]
    preview = upload(director_client, event.slug, xlsx_bytes(rows), "list.xlsx")
    html = preview.content.decode()
    assert status_of(html, 3) == "repeats line 2 (same e-mail): left out; tick to import anyway"
    confirm(director_client, event.slug, preview)
    assert list(event.players.values_list("name", flat=True)) == ["Ann Lee"]


def test_a_large_list_read_in_the_background_leaves_its_repeats_out(
    director_client, event, settings, django_capture_on_commit_callbacks
):
    from tournament.models import ListReading
    from tournament.tasks import read_registration_list

    settings.REGISTRATION_IN_REQUEST_BYTES = 200  # the sign-up export is read in the background
    url = f"/director/e/{event.slug}/players/import/"
    answer = upload(director_client, event.slug, SIGN_UP, "signup.csv")
    reading = ListReading.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        read_registration_list.enqueue(reading.pk)
    reading.refresh_from_db()
    assert "mail-secret" not in str(reading.sheet)
    preview = director_client.get(f"{url}reading/{reading.pk}/", follow=True)
    html = preview.content.decode()
    assert answer.status_code == 200
    assert status_of(html, 8) == "repeats line 4 (same e-mail): left out; tick to import anyway"
    assert confirm_button(html) == "Confirm: import 5 players"
    assert confirm(director_client, event.slug, preview).status_code == 302
    assert event.players.count() == 5
