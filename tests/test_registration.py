"""Registration lists as they come (issue 21): a senior games' export with first and last
names, e-mails and birth dates; French headers; a pasted list; a second import of the same
file; problems shown by line, nothing saved until fixed or skipped. Through the pages."""

import datetime
import io
import random

import pytest
from django.core.management import call_command

from tests.importing import confirm, import_list, preview_fields, upload
from tests.test_players import xlsx_bytes
from tournament.models import Player
from tournament.registration import (
    Bracket,
    age_on,
    bracket_for,
    guess_mapping,
    parse_brackets,
    parse_date,
)

pytestmark = pytest.mark.django_db

BRACKETS = "50-54, 55-59, 60-64, 65-69, 70-74, 75-79, 80-84, 85-89, 90+"


def senior_games_export(count=200, seed=3):
    """A registration export as senior games have it: more columns than the site wants."""
    rng = random.Random(seed)
    firsts = ["Ann", "José", "Zoë", "Jürgen", "Chloé", "Bo", "Cy", "Di"]
    lasts = ["Lee", "Núñez", "Ångström", "Müller", "Dubois", "Diaz", "Young", "Ng"]
    rows = [["First Name", "Last Name", "Email", "Birth Date", "Club", "Shirt Size"]]
    for i in range(count):
        birth = datetime.date(1930 + rng.randrange(45), rng.randrange(1, 13), rng.randrange(1, 29))
        rows.append(
            [
                f"{firsts[i % 8]}{i}",
                lasts[(i // 8) % 8],
                f"player{i}@mail-secret.example",
                birth.strftime("%m/%d/%Y"),
                rng.choice(["Reno Club", "Elko Domino", ""]),
                "L",
            ]
        )
    return rows


def as_csv(rows, delimiter=",") -> bytes:
    return "\n".join(delimiter.join(r) for r in rows).encode()


def expected_division(birth_text: str, day: datetime.date) -> str:
    age = age_on(parse_date(birth_text), day)
    return bracket_for(age, parse_brackets(BRACKETS)) or ""


@pytest.mark.parametrize("age_on_choice", ["event", "dec31"])
def test_a_200_row_export_imports_names_joined_no_email_and_divisions_from_ages(
    director_client, event, age_on_choice
):
    event.age_brackets, event.age_on = BRACKETS, age_on_choice
    event.save()
    rows = senior_games_export()
    response = import_list(director_client, event.slug, xlsx_bytes(rows), "export.xlsx")
    assert response.status_code == 302
    day = event.date if age_on_choice == "event" else datetime.date(event.date.year, 12, 31)
    players = {p.name: p for p in event.players.all()}
    assert len(players) == 200
    for first, last, _mail, birth, club, _size in rows[1:]:
        player = players[f"{first} {last}"]
        assert player.club == club
        assert player.division == expected_division(birth, day), (birth, day)
    # The two age-on days give different divisions to someone (a birthday in between).
    other = datetime.date(event.date.year, 12, 31) if age_on_choice == "event" else event.date
    assert any(expected_division(r[3], day) != expected_division(r[3], other) for r in rows[1:])
    # No e-mail anywhere: not in a row of any table, the session's copy gone.
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    assert "mail-secret" not in out.getvalue()


def test_the_preview_shows_the_guessed_columns_and_saves_nothing(director_client, event):
    rows = senior_games_export(count=5)
    preview = upload(director_client, event.slug, as_csv(rows, ";"))
    page = preview.content.decode()
    fields = preview_fields(page)
    assert fields["map-first"] == "0" and fields["map-last"] == "1"
    # The e-mail column is dropped as the list is read: not kept even for the preview.
    assert "Not even read into this preview: Email." in page
    assert "mail-secret" not in page
    session = director_client.session.load()
    assert "mail-secret" not in str(session) and "Reno Club" in str(session)
    assert fields["map-club"] == "3" and fields["map-birth"] == "2"
    assert fields["map-name"] == fields["map-ref"] == fields["map-division"] == ""
    assert f"{rows[1][0]} {rows[1][1]}" in page
    assert not Player.objects.exists()


def test_a_division_computed_in_the_preview_can_be_changed_there(director_client, event):
    event.age_brackets = BRACKETS
    event.save()
    text = b"Name,Date of birth\nAnn Lee,1950-01-02\nBo Diaz,1940-06-30\n"
    preview = upload(director_client, event.slug, text)
    fields = preview_fields(preview.content.decode())
    line = next(k for k in fields if k.startswith("division-") and fields[k])
    confirm(director_client, event.slug, preview, **{line: "Guests"})
    assert "Guests" in set(event.players.values_list("division", flat=True))


def test_a_file_with_french_headers(director_client, event):
    text = "Nom;Prénom;Club;Catégorie\nDubois;Chloé;Lyon;60-64\nMartin;Léa;Paris;65-69\n"
    response = import_list(director_client, event.slug, text.encode("cp1252"))
    assert response.status_code == 302
    assert list(event.players.values_list("name", "club", "division")) == [
        ("Chloé Dubois", "Lyon", "60-64"),
        ("Léa Martin", "Paris", "65-69"),
    ]


def test_a_pasted_list_for_a_club_night(director_client, event):
    pasted = "Ann Lee, Reno\nBo Diaz\n\n  Cy Young ,Elko\n"
    response = import_list(director_client, event.slug, pasted=pasted)
    assert response.status_code == 302
    assert list(event.players.values_list("name", "club")) == [
        ("Ann Lee", "Reno"),
        ("Bo Diaz", ""),
        ("Cy Young", "Elko"),
    ]


def test_a_second_import_of_the_same_file_adds_nobody(director_client, event):
    rows = senior_games_export(count=20)
    content = as_csv(rows)
    import_list(director_client, event.slug, content)
    assert event.players.count() == 20
    preview = upload(director_client, event.slug, content)
    assert "0 new, 20 registered already" in preview.content.decode()
    confirm(director_client, event.slug, preview)
    assert event.players.count() == 20


def test_an_updated_export_adds_the_new_and_offers_the_changed(director_client, event):
    import_list(director_client, event.slug, b"ID,Name,Club\n1,Ann Lee,Reno\n2,Bo Diaz,Elko\n")
    updated = b"ID,Name,Club\n1,Ann Lee-Smith,Reno\n2,Bo Diaz,Elko\n3,Cy Young,Elko\n"
    preview = upload(director_client, event.slug, updated)
    page = preview.content.decode()
    assert "1 new, 1 registered already (skipped unless ticked), 1 with a changed name" in page
    confirm(director_client, event.slug, preview, **{"apply-2": "1"})
    assert list(event.players.values_list("ref", "name")) == [
        ("1", "Ann Lee-Smith"),
        ("2", "Bo Diaz"),
        ("3", "Cy Young"),
    ]
    assert event.actions.filter(verb="player.edited", data__renamed_from="Ann Lee").exists()


def test_a_bad_date_and_an_empty_name_are_shown_and_nothing_is_saved_until_skipped(
    director_client, event
):
    event.age_brackets = BRACKETS
    event.save()
    text = (
        b"First Name,Last Name,Birth Date\nAnn,Lee,1950-13-45\n,,1950-01-01\nBo,Diaz,1940-06-30\n"
    )
    preview = upload(director_client, event.slug, text)
    page = preview.content.decode()
    assert "“1950-13-45” is not a date: no division" in page
    assert "Line 3: the name is empty." in page
    refused = confirm(director_client, event.slug, preview)
    assert refused.status_code == 200
    assert "Nothing was imported" in refused.content.decode()
    assert not Player.objects.exists()
    done = confirm(director_client, event.slug, preview, skip_problems="1")
    assert done.status_code == 302
    assert list(event.players.values_list("name", "division")) == [
        ("Ann Lee", ""),
        ("Bo Diaz", "85-89"),
    ]


def test_the_mapping_is_remembered_for_the_event(director_client, event):
    text = b"Player,Team,Member #\nAnn Lee,Reno,7\n"
    preview = upload(director_client, event.slug, text)
    fields = preview_fields(preview.content.decode())
    assert (fields["map-name"], fields["map-club"], fields["map-ref"]) == ("0", "1", "2")
    confirm(director_client, event.slug, preview, **{"map-club": "", "map-ref": "1"})
    assert event.players.get().ref == "Reno"
    again = upload(director_client, event.slug, b"Player,Team,Member #\nBo Diaz,Elko,8\n")
    fields = preview_fields(again.content.decode())
    assert (fields["map-name"], fields["map-club"], fields["map-ref"]) == ("0", "", "1")


def test_the_same_name_and_club_twice_in_a_list_is_pointed_out(director_client, event):
    preview = upload(director_client, event.slug, b"Name,Club\nAnn Lee,Reno\nann lee,RENO\n")
    assert "repeats line 2 (same name and club): left out" in preview.content.decode()


def test_a_mapping_without_a_name_says_so(director_client, event):
    preview = upload(director_client, event.slug, b"Name,Club\nAnn,Reno\n")
    answer = confirm(director_client, event.slug, preview, **{"map-name": ""})
    assert "Choose the column that gives the name" in answer.content.decode()
    assert not Player.objects.exists()


def test_the_preview_without_an_upload_goes_back_to_the_upload(director_client, event):
    response = director_client.get(f"/director/e/{event.slug}/players/import/preview/")
    assert response["Location"] == f"/director/e/{event.slug}/players/import/"


def test_brackets_are_checked_on_the_rules_page(director_client, event):
    from tournament.forms import EventForm

    form = EventForm({"age_brackets": "50-54, 52-60"}, instance=event)
    assert not form.is_valid()
    assert "overlap" in str(form.errors["age_brackets"])


# -- the reader's rules, plain ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            ["Full Name", "Member #", "Team", "Age Group"],
            {"name": 0, "ref": 1, "club": 2, "division": 3},
        ),
        (["Given name", "Family name", "Category"], {"first": 0, "last": 1, "division": 2}),
        (["Surname", "First", "DOB"], {"last": 0, "first": 1, "birth": 2}),
        (["Prénom", "Nom", "Catégorie"], {"first": 0, "last": 1, "division": 2}),
        (["Player", "Age"], {"name": 0, "age": 1}),
    ],
)
def test_headers_people_write_are_guessed(header, expected):
    mapping = guess_mapping(header)
    assert {k: v for k, v in mapping.items() if v is not None} == expected


def test_ages_and_brackets():
    brackets = parse_brackets("50-54, 55-59, 90+")
    assert brackets[-1] == Bracket(90, None, "90+")
    assert bracket_for(54, brackets) == "50-54" and bracket_for(97, brackets) == "90+"
    assert bracket_for(60, brackets) is None
    assert age_on(datetime.date(1950, 12, 31), datetime.date(2026, 9, 19)) == 75
    assert age_on(datetime.date(1950, 12, 31), datetime.date(2026, 12, 31)) == 76
    assert parse_date("03/07/1950") == datetime.date(1950, 3, 7)
    assert parse_date("07.03.1950") == datetime.date(1950, 3, 7)
    assert parse_date("1950-02-30") is None and parse_date("soon") is None
    with pytest.raises(ValueError, match="not an age bracket"):
        parse_brackets("fifty")
