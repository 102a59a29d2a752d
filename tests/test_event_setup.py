import re
from html import unescape

import pytest

from tournament.models import Event

pytestmark = pytest.mark.django_db

NVSO_FORM = {
    "name": "NVSO 2026",
    "date": "2026-09-19",
    "venue": "Community Center",
    "set_size": 12,
    "engines": "",
    "tiles_drawn": "2:15, 3:15, 4:15, 5:15",
    "table_size": 4,
    "game_minutes": 60,
    "round_in_progress": "finish",
    "double_blank_points": 0,
    "advancement_tie": "all_advance",
    "medal_tie": "nvso",
    "infraction_penalty": "warn_then_draw",
    "infraction_scope": "game",
    "paper_size": "letter",
}


def test_new_event_form_offers_the_nvso_defaults(director_client):
    page = director_client.get("/director/new/").content.decode()
    assert 'value="12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0"' in page
    assert 'value="2:15, 3:15, 4:15, 5:15"' in page
    assert 'value="60"' in page


def test_director_creates_an_event_with_game_1_then_final(director_client, director):
    response = director_client.post("/director/new/", NVSO_FORM)
    event = Event.objects.get(name="NVSO 2026")
    assert response.status_code == 302
    assert response["Location"] == f"/director/e/{event.slug}/players/"
    assert [(s.number, s.name, s.kind) for s in event.stages.all()] == [
        (1, "Game 1", "qualifying"),
        (2, "Final", "final"),
    ]
    assert event.engines == list(range(12, -1, -1))
    assert event.tiles_drawn == {"2": 15, "3": 15, "4": 15, "5": 15}
    assert event.is_director(director)


# The stages each format the form offers starts with (PRODUCT.md §12), as the message after
# creating it names them, in English and in French.
CREATED = {
    ("knockout", 3): (
        "Event created with the stages Game 1 and Final.",
        "Tournoi créé avec les phases Partie 1 et Finale.",
    ),
    ("cumulative", 3): (
        "Event created with the stages Game 1, Game 2 and Game 3.",
        "Tournoi créé avec les phases Partie 1, Partie 2 et Partie 3.",
    ),
    ("cumulative", 1): (
        "Event created with the stage Game 1.",
        "Tournoi créé avec la phase Partie 1.",
    ),
    ("cumulative_final", 2): (
        "Event created with the stages Game 1, Game 2 and Final.",
        "Tournoi créé avec les phases Partie 1, Partie 2 et Finale.",
    ),
}


def offered_formats(page: str) -> set[str]:
    select = re.search(r'<select name="format_kind".*?</select>', page, re.S).group(0)
    return set(re.findall(r'<option value="([^"]+)"', select))


def alerts(response) -> list[str]:
    return [
        unescape(re.sub(r"\s+", " ", m)).strip()
        for m in re.findall(r'role="alert">(.*?)</div>', response.content.decode(), re.S)
    ]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_message_after_creating_an_event_names_the_stages_it_has(director_client, language):
    """A cumulative event of three games has no Final: the message says its three games."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    page = director_client.get("/director/new/", **headers).content.decode()
    assert offered_formats(page) == {kind for kind, _games in CREATED}
    for n, ((kind, games), said) in enumerate(CREATED.items()):
        form = {**NVSO_FORM, "name": f"Night {n}", "format_kind": kind, "format_games": games}
        response = director_client.post("/director/new/", form, follow=True, **headers)
        assert response.redirect_chain, alerts(response)
        assert alerts(response) == [said[language == "fr"]]
        event = Event.objects.get(name=f"Night {n}")
        assert event.stages.count() == said[0].count("Game") + said[0].count("Final")


def test_engines_can_be_set_in_any_play_order(director_client):
    director_client.post("/director/new/", {**NVSO_FORM, "engines": "0, 1, 2, 3, 4, 5"})
    assert Event.objects.get().engines == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"tiles_drawn": "2:15, 3:15, 4:15, 5:15, 6:15"}, "A table of 6 drawing 15 tiles each"),
        ({"set_size": 6}, "a double-6 set has only 27 beside the engine"),
        ({"engines": "12, 13"}, "Engine 13 is not a double of the double-12 set"),
        ({"engines": "12, 12, 11"}, "An engine is listed twice"),
        ({"table_size": 6}, "The usual table size 6 has no tiles-drawn entry"),
        ({"tiles_drawn": "four:15"}, "Write each entry as size:tiles"),
        ({"engines": "12, x"}, "Engines must be whole numbers"),
    ],
)
def test_a_rule_set_that_cannot_be_played_is_refused_with_why(director_client, changes, why):
    response = director_client.post("/director/new/", {**NVSO_FORM, **changes})
    assert response.status_code == 200
    assert why in response.content.decode()
    assert not Event.objects.exists()


def test_editing_the_rules_of_an_event(director_client, event):
    form = {**NVSO_FORM, "name": event.name, "game_minutes": "", "double_blank_points": 50}
    response = director_client.post(f"/director/e/{event.slug}/edit/", form)
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.game_minutes is None and event.rules.double_blank_points == 50


def test_creating_an_event_needs_a_login(client):
    response = client.get("/director/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.post("/director/new/", NVSO_FORM)
    assert not Event.objects.exists()


def test_only_the_event_directors_edit_it(client, event):
    from tests.factories import make_director

    client.force_login(make_director("other"))
    assert client.post(f"/director/e/{event.slug}/edit/", NVSO_FORM).status_code == 403
    assert client.get(f"/director/e/{event.slug}/players/").status_code == 403


def test_an_unknown_event_is_a_404(client):
    assert client.get("/e/no-such-event/").status_code == 404
    assert client.get("/e/no-such-event/9/table/1/").status_code == 404


def test_rules_that_scores_depend_on_are_locked_once_a_round_is_entered(director_client, event):
    from tests.factories import make_players, play, seat
    from tournament.models import Table

    make_players(event, count=4)
    stage = seat(event)
    play(Table.objects.get(stage=stage), 1)
    form = {**NVSO_FORM, "name": event.name, "engines": "12, 11, 10"}
    page = director_client.post(f"/director/e/{event.slug}/edit/", form).content.decode()
    assert "Rounds have been entered under these rules: the engines cannot change now." in page
    event.refresh_from_db()
    assert len(event.engines) == 13
    renamed = {**NVSO_FORM, "name": "Spring Games 2026", "venue": "Gym"}
    assert director_client.post(f"/director/e/{event.slug}/edit/", renamed).status_code == 302
