"""A correction says what it changes to the seating (issue 45 item 6): after a progressive
game closed, a correction (70 → 7) changes which player is a table's highest, so another
player moves down. The correction's preview names every seat the corrected totals would change
(who moves up or down, who sits at which table by standing, who makes the cut); while the
next stage has no round, the director saves and reseats it from the preview (once, however
many times the form is sent); once it has rounds, it keeps its seating and the event page and
the history say it was seated on the totals before the correction. Through the director's
pages, posting what the correction form sends."""

import re

import pytest
from django.utils import translation

from scoring.models import Round, ScoreChange
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_event, make_players, seat
from tests.test_advancement import play_totals, short_event
from tests.test_close_page_moves import seats
from tests.test_formats_flow import close, create, enter, names, seat_game_1
from tests.test_formats_pages import FR, text
from tournament.models import Action, Stage, StageKind, Table

pytestmark = pytest.mark.django_db

NOTHING = "Nothing in who advances, who moves, who sits where or who medals; only the totals."


def correct_url(table: Table, number: int = 2) -> str:
    stage = table.stage
    base = f"/director/e/{stage.event.slug}/{stage.number}"
    return f"{base}/table/{table.number}/round/{number}/correct/"


def post(client, url, data, **headers):
    with translation.override(translation.get_language()):  # a French request leaves French on
        response = client.post(url, data, **headers)
    assert response.status_code in (200, 302), response.content.decode()[:2000]
    return response


def effects(page: str) -> list[str]:
    """The preview's lines, "before → after", as the director reads them."""
    box = re.search(
        r'id="effects"[^>]*>\s*<strong>.*?</strong>\s*(<ul class="mb-0">.*?</ul>)?', page, re.S
    )
    assert box, "no preview on the page"
    return [text(li) for li in re.findall(r"<li>(.*?)</li>", box.group(1) or "", re.S)]


def preview_text(page: str) -> str:
    box = re.search(r'id="effects"[^>]*>(.*?)<input type="hidden" name="previewed"', page, re.S)
    return text(box.group(1))


def pressed(page: str) -> dict[str, str]:
    """What the preview's "Save the correction and reseat" button sends when pressed."""
    found = re.search(r'<button[^>]*name="reseat" value="(\d+)"[^>]*id="save-and-reseat"', page)
    assert found, "no reseat button on the page"
    return {"reseat": found.group(1)}


def reseat_button(page: str) -> str:
    found = re.search(r'<button[^>]*id="save-and-reseat"[^>]*>(.*?)</button>', page, re.S)
    return text(found.group(1)) if found else ""


def correction(client, table: Table, pips: dict[str, int], reason="Sheet misread", **headers):
    """The correction page of ``table``'s round 2 with these pips (by name) posted once: the
    preview, and the form to confirm it (the page's key, the pips previewed)."""
    url = correct_url(table)
    players = table_sheet(table).players
    form = {f"p{p.pk}": pips[p.name] for p in players} | {
        "reason": reason,
        "once": form_key(client.get(url)),
    }
    preview = post(client, url, form, **headers)
    return preview, form | {"previewed": preview.context["previewed"]}


def round_2(table: Table) -> dict[str, int]:
    saved = Round.objects.get(table=table, number=2)
    return {s.player.name: s.pips for s in saved.scores.select_related("player")}


def where(stage: Stage) -> dict[str, int]:
    return {name: n for n, table in enumerate(seats(stage), start=1) for name in table}


@pytest.fixture(autouse=True)
def earlier_event(director):
    """An event made before, so that no stage's id is its number."""
    return make_event(director, name="Earlier", slug="earlier")


# -- progressive --------------------------------------------------------------------------------


@pytest.fixture
def progressive(director_client):
    return progressive_event(director_client)


def progressive_event(director_client) -> dict:
    """12 players at three tables of 4, moving 1 up and 1 down; Game 1 closed and Game 2
    seated. At table 1 (seat order a, b, c, d) the totals are 5, 20, 30 and 71 (70 in round
    2): d, the highest, moves down to table 2; corrected to 7, d has 8 and c moves down."""
    event = create(
        director_client, format_kind="cumulative", format_games=2, format_reseat="progressive"
    )
    make_players(event, names(12))
    game1 = seat_game_1(director_client, event)
    tables = seats(game1)
    assert [len(t) for t in tables] == [4, 4, 4]
    totals = {name: [5, 20, 30, 60][seat] for table in tables for seat, name in enumerate(table)}
    totals[tables[0][3]] = 71
    for table in Table.objects.filter(stage=game1):
        enter(director_client, table, totals)
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    a, b, c, d = tables[0]
    assert where(game2)[d] == 2 and where(game2)[c] == 1  # d moved down
    t1 = Table.objects.get(stage=game1, number=1)
    corrected = round_2(t1) | {d: 7}  # 70 → 7
    return {
        "event": event,
        "game1": game1,
        "game2": game2,
        "t1": t1,
        "c": c,
        "d": d,
        "pips": corrected,
    }


def test_the_preview_names_who_moves_down_instead_and_where_each_would_sit(
    director_client, progressive
):
    c, d = progressive["c"], progressive["d"]
    preview, _form = correction(director_client, progressive["t1"], progressive["pips"])
    page = preview.content.decode()
    assert effects(page) == [
        f"Game 1, table 1 — down to table 2: {d} → Game 1, table 1 — down to table 2: {c}",
        f"Game 2: {c} at table 1 → Game 2: {c} at table 2",
        f"Game 2: {d} at table 2 → Game 2: {d} at table 1",
    ]
    assert NOTHING not in page
    assert reseat_button(page) == "Save the correction and reseat Game 2"
    assert not ScoreChange.objects.exists()  # a preview saves nothing
    french, _form = correction(director_client, progressive["t1"], progressive["pips"], **FR)
    page = french.content.decode()
    assert effects(page)[0] == (
        f"Partie 1, table 1 — descente à la table 2 : {d} → "
        f"Partie 1, table 1 — descente à la table 2 : {c}"
    )
    assert effects(page)[1] == f"Partie 2 : {c} à la table 1 → Partie 2 : {c} à la table 2"
    assert reseat_button(page) == "Enregistrer la correction et replacer Partie 2"


def test_save_and_reseat_seats_the_next_game_from_the_corrected_totals(
    director_client, progressive
):
    c, d, game2 = progressive["c"], progressive["d"], progressive["game2"]
    before = seats(game2)
    preview, form = correction(director_client, progressive["t1"], progressive["pips"])
    saved = post(
        director_client,
        correct_url(progressive["t1"]),
        form | pressed(preview.content.decode()),
        follow=True,
    )
    page = saved.content.decode()
    assert (
        "Round corrected: 1 score changed. Game 2 is seated again from the corrected totals."
        in (page)
    )
    after = where(game2)
    assert after[d] == 1 and after[c] == 2
    moved = {name for name in after if name not in (c, d) and after[name] != where_in(before, name)}
    assert moved == set()  # only the two seats the correction changes
    home = director_client.get(f"/e/{progressive['event'].slug}/").content.decode()
    assert "was seated on the totals before the correction" not in home


def where_in(tables: list[list[str]], name: str) -> int:
    return next(n for n, table in enumerate(tables, start=1) if name in table)


def test_a_double_post_of_save_and_reseat_corrects_and_reseats_once(director_client, progressive):
    game2 = progressive["game2"]
    preview, form = correction(director_client, progressive["t1"], progressive["pips"])
    url = correct_url(progressive["t1"])
    first = post(director_client, url, form | pressed(preview.content.decode()), follow=True)
    second = post(director_client, url, form | pressed(preview.content.decode()), follow=True)
    said = "Round corrected: 1 score changed. Game 2 is seated again from the corrected totals."
    assert said in first.content.decode() and said in second.content.decode()
    assert ScoreChange.objects.count() == 1
    event = progressive["event"]
    assert Action.objects.filter(event=event, verb="round.corrected").count() == 1
    # seated at the close, then once again from the corrected totals
    assert Action.objects.filter(event=event, verb="stage.seated", stage=game2).count() == 2
    assert where(game2)[progressive["d"]] == 1


@pytest.mark.django_db(transaction=True)
def test_the_same_form_sent_twice_at_once_reseats_once(director, director_client, progressive):
    game2 = progressive["game2"]
    preview, form = correction(director_client, progressive["t1"], progressive["pips"])
    sent = form | pressed(preview.content.decode())
    url = correct_url(progressive["t1"])
    clients = [logged_in(director) for _ in range(2)]
    no_errors(at_once([lambda c=c: c.post(url, sent) for c in clients]))
    assert ScoreChange.objects.count() == 1
    assert Action.objects.filter(verb="stage.seated", stage=game2).count() == 2
    assert where(game2)[progressive["d"]] == 1


def test_a_plain_confirm_keeps_the_seating_and_the_event_page_says_so(director_client, progressive):
    game2, event = progressive["game2"], progressive["event"]
    _preview, form = correction(director_client, progressive["t1"], progressive["pips"])
    post(director_client, correct_url(progressive["t1"]), form)
    assert where(game2)[progressive["d"]] == 2  # kept as seated
    note = "Game 2 was seated on the totals before the correction of table 1 (Game 1)."
    assert note in text(director_client.get(f"/e/{event.slug}/").content.decode())
    # the seating page draws it again from the corrected totals: the note has gone
    director_client.post(f"/director/e/{event.slug}/{game2.number}/seat/", {})
    assert where(game2)[progressive["d"]] == 1
    assert note not in text(director_client.get(f"/e/{event.slug}/").content.decode())


def test_a_correction_back_to_the_old_totals_ends_the_note(director_client, progressive):
    event, t1, d = progressive["event"], progressive["t1"], progressive["d"]
    _preview, form = correction(director_client, t1, progressive["pips"])
    post(director_client, correct_url(t1), form)
    note = "Game 2 was seated on the totals before the correction of table 1 (Game 1)."
    assert note in text(director_client.get(f"/e/{event.slug}/").content.decode())
    preview, form = correction(director_client, t1, progressive["pips"] | {d: 70}, "Was right")
    page = preview.content.decode()
    assert effects(page) == [  # the seating in place is the one these totals give
        f"Game 1, table 1 — down to table 2: {progressive['c']} → "
        f"Game 1, table 1 — down to table 2: {d}"
    ]
    assert reseat_button(page) == ""
    post(director_client, correct_url(t1), form)
    assert note not in text(director_client.get(f"/e/{event.slug}/").content.decode())
    assert Action.objects.filter(verb="stage.seated_on_old_totals").count() == 1


def test_with_rounds_in_the_next_game_no_reseat_and_the_event_page_and_history_say_so(
    client, director, director_client, progressive
):
    game2, event = progressive["game2"], progressive["event"]
    table = Table.objects.get(stage=game2, number=3)
    players = table_sheet(table).players
    record_round(table, {p.pk: n for p, n in zip(players, [0, 5, 7, 9], strict=True)}, director)
    preview, form = correction(director_client, progressive["t1"], progressive["pips"])
    page = preview.content.decode()
    assert f"Game 2: {progressive['d']} at table 2 → Game 2: {progressive['d']} at table 1" in (
        effects(page)
    )
    assert reseat_button(page) == ""
    assert (
        "Game 2 has rounds entered: it keeps its seating, and the event page will say that it "
        "was seated on the totals before this correction."
    ) in preview_text(page)
    # a reseat posted anyway (a page left open) does not reseat a game with rounds
    saved = post(
        director_client, correct_url(progressive["t1"]), form | {"reseat": game2.pk}, follow=True
    )
    assert (
        "Round corrected: 1 score changed. Game 2 keeps its seating, and the event page says it "
        "was seated on the totals before this correction."
    ) in text(saved.content.decode())
    assert where(game2)[progressive["d"]] == 2
    assert Round.objects.filter(table__stage=game2).count() == 1
    note = "Game 2 was seated on the totals before the correction of table 1 (Game 1)."
    for reader in (client, director_client):  # the public event page too
        assert note in text(reader.get(f"/e/{event.slug}/").content.decode())
    history = text(director_client.get(f"/director/e/{event.slug}/history/").content.decode())
    assert note[:-1] in history
    french = text(director_client.get(f"/e/{event.slug}/", **FR).content.decode())
    assert (
        "Partie 2 a été placée sur les totaux d'avant la correction de la table 1 (Partie 1)."
    ) in french


def test_a_correction_that_changes_no_seat_says_so(director_client, progressive):
    t1 = progressive["t1"]
    pips = round_2(t1)
    b = next(
        name
        for name in pips
        if name not in (progressive["c"], progressive["d"]) and pips[name] > 10
    )
    preview, form = correction(director_client, t1, pips | {b: pips[b] + 1})  # 20 → 21
    page = preview.content.decode()
    assert NOTHING in preview_text(page) and reseat_button(page) == ""
    before = seats(progressive["game2"])
    saved = post(director_client, correct_url(t1), form, follow=True)
    assert "Round corrected: 1 score changed." in saved.content.decode()
    assert seats(progressive["game2"]) == before
    assert not Action.objects.filter(verb="stage.seated_on_old_totals").exists()


# -- by standing ----------------------------------------------------------------------------------


def test_by_standing_the_preview_says_who_would_sit_at_which_table(director_client):
    event = create(
        director_client, format_kind="cumulative", format_games=2, format_reseat="by_standing"
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    for table in Table.objects.filter(stage=game1):
        enter(director_client, table, {f"P{i}": 10 * i for i in range(1, 9)})
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    assert seats(game2) == [["P1", "P2", "P3", "P4"], ["P5", "P6", "P7", "P8"]]
    table = Table.objects.get(seats__player__name="P4", stage=game1)
    pips = round_2(table)
    preview, form = correction(director_client, table, pips | {"P4": pips["P4"] + 50})  # 40 → 90
    page = preview.content.decode()
    assert effects(page) == [
        "Game 2: P4 at table 1 → Game 2: P4 at table 2",
        "Game 2: P5 at table 2 → Game 2: P5 at table 1",
    ]
    assert reseat_button(page) == "Save the correction and reseat Game 2"
    post(director_client, correct_url(table), form | pressed(page))
    assert [sorted(t) for t in seats(game2)] == [["P1", "P2", "P3", "P5"], ["P4", "P6", "P7", "P8"]]


def test_removing_a_closed_games_round_says_what_it_changes_to_the_seating(director_client):
    event = create(
        director_client, format_kind="cumulative", format_games=2, format_reseat="by_standing"
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    for table in Table.objects.filter(stage=game1):
        enter(director_client, table, {f"P{i}": 10 * i for i in range(1, 9)})
    close(director_client, game1)
    game2 = event.stages.get(number=2)
    before = seats(game2)
    table = Table.objects.get(seats__player__name="P8", stage=game1)
    url = f"/director/e/{event.slug}/1/table/{table.number}/round/2/remove/"
    page = director_client.get(url).content.decode()
    assert "Game 2: P8 at table 2 → Game 2: P8 at table 1" in effects(page)
    saved = post(
        director_client, url, {"reason": "Wrong table", "once": form_key(director_client.get(url))}
    )
    assert saved.status_code == 302 and seats(game2) == before
    note = (
        f"Game 2 was seated on the totals before the correction of table {table.number} (Game 1)."
    )
    assert note in text(director_client.get(f"/e/{event.slug}/").content.decode())


# -- the cut to the Final, and a knockout's Final ---------------------------------------------


def test_the_preview_names_who_makes_the_cut_and_reseats_the_final(director_client):
    event = create(
        director_client, format_kind="cumulative_final", format_games=1, format_final_size=4
    )
    make_players(event, names(8))
    game1 = seat_game_1(director_client, event)
    totals = {"P1": 5, "P2": 6, "P3": 7, "P4": 8, "P5": 9, "P6": 20, "P7": 21, "P8": 22}
    for table in Table.objects.filter(stage=game1):
        enter(director_client, table, totals)
    close(director_client, game1)
    final = event.stages.get(kind=StageKind.FINAL)
    assert sorted(where(final)) == ["P1", "P2", "P3", "P4"]
    table = Table.objects.get(seats__player__name="P4", stage=game1)
    pips = round_2(table)
    preview, form = correction(director_client, table, pips | {"P4": pips["P4"] + 22})  # 8 → 30
    page = preview.content.decode()
    assert "Final seats P4 → Final seats P5" in effects(page)
    assert "Game 1: P1, P2, P3, P4 advance → Game 1: P1, P2, P3, P5 advance" in effects(page)
    assert reseat_button(page) == "Save the correction and reseat Final"
    saved = post(director_client, correct_url(table), form | pressed(page), follow=True)
    assert "Final is seated again from the corrected totals." in saved.content.decode()
    assert sorted(where(final)) == ["P1", "P2", "P3", "P5"]
    assert "changed who advances" not in director_client.get(f"/e/{event.slug}/").content.decode()


def test_a_knockout_correction_names_the_final_seat_it_changes(director, director_client):
    event = short_event(director)
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    a = play_totals(t1, [3, 10, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    close(director_client, game1)
    pips = round_2(t1)
    preview, form = correction(director_client, t1, pips | {a[1].name: 1})  # 10 → 2: a[1] wins
    page = preview.content.decode()
    assert f"Final seats {a[0].name} → Final seats {a[1].name}" in effects(page)
    assert reseat_button(page) == "Save the correction and reseat Final"
    post(director_client, correct_url(t1), form)  # saved without the reseat
    home = director_client.get(f"/e/{event.slug}/").content.decode()
    assert "A correction to Game 1 changed who advances, but Final is already seated." in home
