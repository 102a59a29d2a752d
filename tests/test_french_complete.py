"""Every word a French reader sees is French (issue 28 item 17): the medal words, the names the
site gives stages (said in the reader's language, a name a director typed shown as typed), the
desk's counts, the tie mark and the refusals a director meets."""

import json
import re
from pathlib import Path

import pytest
from django.utils import translation

from scoring.eventfile import export_event, import_event
from scoring.lists import place_text
from scoring.results import AdvanceError
from scoring.services.archive import PersonRefusal, link_same_person
from scoring.services.stages import close_stage, keep_seating, seat_next_stage
from tests.factories import make_event, make_players, play, seat
from tests.test_translations import pdf_text, visible_text
from tournament.models import Event, Player, Stage, StageKind
from tournament.services.seating import (
    SeatingError,
    clear_seating,
    move_player,
    seat_late_arrival,
    seat_stage,
)
from tournament.stage_names import recognise, say

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data"
FR = {"HTTP_ACCEPT_LANGUAGE": "fr-CA,fr;q=0.9,en;q=0.5"}
# English a French reader must not meet: medal words and the names the site gives stages.
ENGLISH = re.compile(r"\b(Gold|Silver|Game \d|Final|Semifinal|[Pp]layoff|replay)\b")
TIE_MARK = re.compile(r"(?<!\w)T\d")


@pytest.fixture
def medals(director):
    """A finished event read from an English director's file: Game 1, the Final, a gold and
    silver playoff that tied and was replayed, and a bronze playoff."""
    with translation.override("en"):
        return import_event(
            (DATA / "playoff-medals-with-replay.json").read_bytes(), director=director, slug="m"
        )


def french(client, path) -> str:
    response = client.get(path, **FR)
    assert response.status_code == 200, path
    if response["Content-Type"] == "application/pdf":
        return pdf_text(response)
    return visible_text(response.content.decode())


def test_a_finished_event_with_playoffs_reads_french_on_pages_and_pdfs(client, medals):
    final = medals.stages.get(kind=StageKind.FINAL)
    for path in [
        "/e/m/results/",
        "/e/m/bracket/",
        f"/e/m/{final.number}/",
        "/e/m/results.pdf",
        "/e/m/bracket.pdf",
        f"/e/m/{final.number}/standings.pdf",
    ]:
        text = french(client, path)
        assert not ENGLISH.findall(text), (path, ENGLISH.findall(text))
        assert "Finale" in text, path
        if path.startswith("/e/m/results"):
            assert "Or" in text.split() and "Argent" in text.split(), path
        if "bracket" in path or "results" in path:
            assert "Partie 1" in text, path
        if "bracket" not in path:  # the bracket PDF's "T3" is a table's number, French too
            assert not TIE_MARK.findall(text), (path, TIE_MARK.findall(text))
    bracket = french(client, "/e/m/bracket/")
    assert "Barrage pour l'or et l'argent, reprise 1" in bracket
    assert "Barrage pour le bronze" in bracket
    # An English reader still reads the stored English names, the stored names unchanged.
    english = visible_text(client.get("/e/m/bracket/").content.decode())
    assert "Gold and silver playoff, replay 1" in english and "Gold" in english
    names = set(medals.stages.values_list("name", flat=True))
    assert "Gold and silver playoff, replay 1" in names and "Game 1" in names


def test_the_event_file_keeps_the_stored_names(medals):
    data = export_event(Event.objects.get(slug="m"))
    stored = json.loads((DATA / "playoff-medals-with-replay.json").read_text())["stages"]
    assert [s["name"] for s in data["stages"]] == [s["name"] for s in stored]
    with translation.override("fr"):
        again = export_event(import_event(json.dumps(data).encode(), slug="m2"))
    assert again["stages"] == data["stages"]


def test_a_name_a_director_typed_shows_as_typed(client, director):
    data = json.loads((DATA / "playoff-medals-with-replay.json").read_text())
    data["stages"][0]["name"] = "Tuesday Night"
    import_event(json.dumps(data).encode(), director=director, slug="typed")
    text = french(client, "/e/typed/bracket/")
    assert "Tuesday Night" in text and "Partie 1" not in text
    assert french(client, "/e/typed/1/").count("Tuesday Night") >= 1
    # A site-made name a director typed over (in the admin) is shown as typed too.
    final = Stage.objects.get(event__slug="typed", kind=StageKind.FINAL)
    assert final.auto_name == {"kind": "final"}
    Stage.objects.filter(pk=final.pk).update(name="Grande finale")
    text = french(client, "/e/typed/bracket/")
    assert "Grande finale" in text


def test_a_new_events_default_stages_follow_the_reader(client, director):
    with translation.override("en"):
        event = make_event(director, slug="fresh")
    assert list(event.stages.values_list("name", flat=True)) == ["Game 1", "Final"]
    text = french(client, "/e/fresh/")
    assert "Partie 1" in text and "Finale" in text and not ENGLISH.findall(text)
    assert "Game 1" in visible_text(client.get("/e/fresh/").content.decode())


def test_a_semifinal_the_site_seats_is_said_in_the_readers_language(director_client, director):
    with translation.override("en"):
        event = make_event(director, slug="semi", table_size=4)
    make_players(event, count=32)
    game1 = seat(event)
    for table in game1.tables.all():
        play(table, len(event.rules.engines))
    road = visible_text(director_client.get("/director/e/semi/1/close/", **FR).content.decode())
    assert "Demi-finale" in road and "Finale" in road and not ENGLISH.findall(road)
    close_stage(game1, director)
    with translation.override("en"):
        semi = seat_next_stage(event)
    assert semi.kind == StageKind.SEMIFINAL and semi.name == "Semifinal"
    with translation.override("fr"):
        assert semi.title == "Demi-finale"
        assert say({"kind": "semifinal", "n": 2}) == "Demi-finale 2"


@pytest.mark.parametrize(
    ("name", "kind", "division", "parts"),
    [
        ("Game 3", "qualifying", "", {"kind": "game", "n": 3}),
        ("Partie 2", "qualifying", "", {"kind": "game", "n": 2}),
        ("Final (Juniors)", "final", "Juniors", {"kind": "final"}),
        ("Finale", "final", "", {"kind": "final"}),
        ("Semifinal 2", "semifinal", "", {"kind": "semifinal", "n": 2}),
        ("Demi-finale", "semifinal", "", {"kind": "semifinal"}),
        (
            "Silver and bronze playoff, replay 1",
            "playoff",
            "",
            {"kind": "playoff", "medals": ["silver", "bronze"], "replay": 1},
        ),
        ("Barrage pour le bronze", "playoff", "", {"kind": "playoff", "medals": ["bronze"]}),
        ("Playoff: Game 1, table 3", "playoff", "", {"kind": "playoff"}),
        ("Tuesday Night", "qualifying", "", {}),
        ("Final four", "final", "", {}),
        ("Game 1", "final", "", {}),
    ],
)
def test_the_names_the_site_made_are_recognised(name, kind, division, parts):
    assert recognise(name, kind, division) == parts


def test_the_tie_mark_is_french():
    with translation.override("en"):
        assert place_text(5, 2) == "T5"
    with translation.override("fr"):
        assert place_text(5, 2) == "5 ex."
        assert place_text(5, 1) == "5"


def test_the_desk_counts_agree_in_french(director_client, director):
    event = make_event(director, slug="desk")
    make_players(event, count=25)
    make_players(event, names=["Zoë Late"], checked_in=False)
    page = visible_text(director_client.get("/director/e/desk/desk/", **FR).content.decode())
    assert "25 présents" in page and "26 inscrits" in page and "0 placé" in page
    Player.objects.filter(event=event).exclude(name="Zoë Late").update(checked_in=False)
    Player.objects.filter(name="Zoë Late").update(checked_in=True)
    page = visible_text(director_client.get("/director/e/desk/desk/", **FR).content.decode())
    assert "1 présent " in page and "1 présents" not in page


# -- the refusals a director meets, in French ---------------------------------------------------


def refused(call, error=(AdvanceError, SeatingError, ValueError)) -> str:
    with translation.override("fr"), pytest.raises(error) as caught:
        call()
    return str(caught.value)


def test_the_refusals_of_closing_and_seating_are_french(director):
    with translation.override("en"):
        event = make_event(director, slug="ref")
    make_players(event, count=8)
    game1 = seat(event)
    assert refused(lambda: seat_next_stage(event)) == "Partie 1 : la phase n'est pas encore close."
    late = Player.objects.create(event=event, name="Léa Tard", checked_in=True)
    t1, t2 = game1.tables.all()
    assert refused(lambda: move_player(game1, late, t1)) == (
        "Léa Tard n'a pas de place dans Partie 1."
    )
    event.tiles_drawn = {"4": 15}
    event.save()
    game1 = Stage.objects.get(pk=game1.pk)
    someone = t1.seats.first().player
    assert refused(lambda: move_player(game1, someone, t2)) == (
        "La table 1 garderait 3 joueurs, que ces règles ne permettent pas de servir."
    )
    event.tiles_drawn = {"3": 15, "4": 15}
    event.save()
    game1 = Stage.objects.get(pk=game1.pk)
    assert refused(lambda: move_player(game1, someone, t2)) == (
        "La table 2 accueillerait 5 joueurs, que ces règles ne permettent pas de servir."
    )
    Player.objects.filter(pk=late.pk).update(division="B")
    late.refresh_from_db()
    assert refused(lambda: seat_late_arrival(game1, late, t1)) == (
        "La table 1 joue dans une autre catégorie que Léa Tard."
    )
    Player.objects.filter(pk=late.pk).update(division="")
    late.refresh_from_db()
    assert refused(lambda: seat_late_arrival(game1, late, t1)) == (
        "La table 1 accueillerait 5 joueurs, que ces règles ne permettent pas de servir."
    )
    play(t1, 1)
    assert refused(lambda: move_player(game1, someone, t2)) == (
        "Des manches ont été saisies à l'une de ces tables : un déplacement laisserait un "
        "joueur sans points."
    )
    for table in game1.tables.all():
        play(table, len(event.rules.engines) - (1 if table == t1 else 0))
    close_stage(game1, director)
    assert refused(lambda: close_stage(game1, director)) == "Partie 1 : la phase est déjà close."
    final = seat_next_stage(event)
    assert refused(lambda: keep_seating(final, "", "", director)) == (
        "Donnez la raison de garder le placement publié."
    )
    assert refused(lambda: keep_seating(final, "", "on l'a affiché", director)) == (
        "Le placement de Finale correspond déjà aux qualifiés."
    )
    assert refused(lambda: clear_seating(final, director, reason="erreur")) == (
        "Une phase suivante est placée à partir des qualifiés : rouvrez plutôt la phase qui la "
        "précède."
    )


def test_a_final_of_too_many_players_is_refused_in_french(director):
    event = make_event(director, slug="big")
    players = make_players(event, count=9)
    final = event.stages.get(kind=StageKind.FINAL)
    assert refused(lambda: seat_stage(final, players)) == (
        "La finale se joue à une seule table : 9 joueurs en demandent 2. Clôturez la phase "
        "précédente pour placer d'abord une demi-finale."
    )


def test_linking_two_players_of_one_event_is_refused_in_french(director):
    event = make_event(director, slug="link")
    a, b = make_players(event, count=2)
    assert refused(lambda: link_same_person(a, b, director), PersonRefusal) == (
        "Deux joueurs d'un même tournoi sont deux personnes."
    )


def test_the_migration_recognises_the_names_existing_events_were_given(client, medals):
    """Events made before the site kept the parts: their English (or French) site names are
    recognised, a typed name left alone."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("tournament.migrations.0017_stage_auto_name")
    Stage.objects.update(auto_name={})
    Stage.objects.filter(event=medals, number=1).update(name="Partie 1")
    typed = make_event(slug="old")
    Stage.objects.filter(event=typed).update(auto_name={})
    Stage.objects.filter(event=typed, number=1).update(name="Tuesday Night")
    migration.recognise_site_names(apps, None)
    assert Stage.objects.get(event=medals, number=1).auto_name == {"kind": "game", "n": 1}
    assert Stage.objects.get(event=typed, number=1).auto_name == {}
    text = french(client, "/e/m/bracket/")
    assert "Barrage pour l'or et l'argent, reprise 1" in text and not ENGLISH.findall(text)
