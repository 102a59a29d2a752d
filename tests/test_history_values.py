"""The history says what changed, not only that something did (issue 28 item 9): a
correction's old → new pips per player, a removed round's pips, an event setting's old → new
value under its label; who, when and why beside each. Its words count right (item 23)."""

import re

import pytest

from scoring.sheets import table_sheet
from tests.concurrency import form_key
from tests.test_event_setup import NVSO_FORM
from tests.test_undo import remove_url, round_post
from tournament.models import Action, Table

pytestmark = pytest.mark.django_db


def history(client, event) -> str:
    """The history page's rows as text, tags stripped."""
    page = client.get(f"/director/e/{event.slug}/history/").content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def correct(client, table, number, values, reason):
    """What the correction page posts: the pips typed, the reason, its key."""
    url = (
        f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}"
        f"/round/{number}/correct/"
    )
    players = table_sheet(table).players
    form = {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}
    return client.post(url, form | {"reason": reason, "once": form_key(client.get(url))})


@pytest.fixture
def table(seated):
    return Table.objects.get(stage=seated, number=1)


def test_a_correction_shows_each_changed_score_old_and_new(director_client, table):
    round_post(director_client, table, [0, 5, 6, 7])
    ann, bo, cy, di = table_sheet(table).players
    response = correct(director_client, table, 1, [0, 15, 6, 9], "Misread the sheet")
    assert response.status_code in (200, 302)
    text = history(director_client, table.stage.event)
    assert "round 12-12 corrected (2 scores changed)" in text
    assert f"{bo.name}: 5 → 15" in text and f"{di.name}: 7 → 9" in text
    assert f"{cy.name}: 6 →" not in text  # an unchanged score is not listed
    assert "Misread the sheet" in text and "boss" in text


def test_one_changed_score_is_said_in_the_singular(director_client, table):
    round_post(director_client, table, [0, 5, 6, 7])
    response = correct(director_client, table, 1, [0, 5, 6, 8], "Typo")
    assert "Round corrected: 1 score changed." in response.content.decode() or any(
        "Round corrected: 1 score changed." in str(m)
        for m in response.wsgi_request._messages  # a redirect carries it as a message
    )
    assert "(1 score changed)" in history(director_client, table.stage.event)


def test_a_removed_round_keeps_its_scores_in_the_history(director_client, table):
    round_post(director_client, table, [0, 5, 6, 7])
    round_post(director_client, table, [0, 9, 10, 11])
    ann, bo, cy, di = table_sheet(table).players
    key = form_key(director_client.get(remove_url(table, 2)))
    director_client.post(remove_url(table, 2), {"reason": "wrong table", "once": key})
    text = history(director_client, table.stage.event)
    removed = text[text.index("round 11-11 removed") :]
    assert f"{ann.name}: 0" in removed and f"{bo.name}: 9" in removed
    assert f"{cy.name}: 10" in removed and f"{di.name}: 11" in removed
    assert "wrong table" in removed


def test_a_saved_round_shows_its_scores(director_client, table):
    round_post(director_client, table, [0, 5, 6, 7])
    bo = table_sheet(table).players[1]
    text = history(director_client, table.stage.event)
    assert "round 12-12 saved" in text and f"{bo.name}: 5" in text


def test_a_settings_change_says_which_setting_from_what_to_what(director_client, event):
    form = {**NVSO_FORM, "name": event.name, "game_minutes": 90, "medal_tie": "playoff"}
    event.refresh_from_db()
    form["date"] = event.date.isoformat()
    assert director_client.post(f"/director/e/{event.slug}/edit/", form).status_code == 302
    text = history(director_client, event)
    assert "Event details or rules changed" in text
    assert "Time limit (minutes): 60 → 90" in text
    field = event._meta.get_field("medal_tie")
    labels = dict(field.flatchoices)
    assert f"{field.verbose_name[:1].upper()}{field.verbose_name[1:]}: " in text
    assert f"→ {labels['playoff']}" in text  # the choice's label, not its code
    assert "Name:" not in text  # an unchanged field is not listed


def test_an_entry_written_before_values_were_kept_shows_what_it_has(director_client, table):
    event = table.stage.event
    Action.objects.create(
        event=event, verb="round.corrected", data={"stage": "Game 1", "table": 1, "engine": 9}
    )
    Action.objects.create(event=event, verb="event.edited", data={})
    text = history(director_client, event)
    assert "table 1: round 9-9 corrected" in text
    assert "Event details or rules changed" in text


def test_counts_in_the_history_are_singular_or_plural(director_client, event):
    from tests.factories import make_players, seat

    make_players(event, count=4)
    seat(event)
    Action.objects.create(event=event, verb="players.added", data={"count": 1})
    Action.objects.create(event=event, verb="players.checked_in", data={"count": 7})
    text = history(director_client, event)
    assert "1 player added" in text and "7 players checked in" in text
    assert "seated at 1 table " in text or text.rstrip().endswith("seated at 1 table")
    assert "(s)" not in text


def test_a_round_sent_back_from_a_phone_keeps_its_scores_in_the_history(director_client, seated):
    from tests.test_table_entry import enter, phone
    from tournament.models import Event

    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    table = Table.objects.select_related("stage__event").get(stage=seated, number=1)
    first, second = phone(table), phone(table)
    enter(first, table, [0, 5, 6, 7])
    bo = table.seats.order_by("position")[1].player
    page = second.get(f"/t/{table.code}/enter/").content.decode()
    key = re.search(
        r'action="/t/\w+/round/1/send-back/".*?name="once" value="([^"]+)"', page, re.S
    ).group(1)
    from scoring.models import Round

    round_ = Round.objects.get(table=table)
    data = {"note": "Bo had 15, not 5", "once": key, "round": round_.pk}
    second.post(f"/t/{table.code}/round/1/send-back/", data)
    assert not Round.objects.filter(table=table).exists()
    text = history(director_client, table.stage.event)
    sent_back = text[text.index("round 12-12 sent back") :]
    assert f"{bo.name}: 5" in sent_back and "Bo had 15, not 5" in sent_back


def test_a_phones_rounds_say_whose_phone_and_check_ins_name_the_players(director_client, seated):
    from scoring.models import Round
    from tests.test_desk_check_in import row_form
    from tests.test_table_entry import enter, phone, shown_code
    from tournament.models import Event

    event = seated.event
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    table = Table.objects.select_related("stage__event").get(stage=seated, number=1)
    ann, bo = [s.player for s in table.seats.order_by("position")][:2]
    first, second = phone(table, ann), phone(table, bo)
    enter(first, table, [0, 5, 6, 7])
    round_ = Round.objects.get(table=table)
    code = shown_code(first, table)
    second.post(f"/t/{table.code}/round/1/confirm/", {"round": round_.pk, "code": code})
    saved, confirmed = (
        Action.objects.get(event=event, verb=verb) for verb in ("round.saved", "round.confirmed")
    )
    page = director_client.get(f"/director/e/{event.slug}/history/").content.decode()
    for action, holder in ((saved, ann), (confirmed, bo)):
        row = re.search(rf'<tr data-verb="{action.verb}">.*?</tr>', page, re.S).group(0)
        assert f"{holder.name}&#x27;s phone" in row or f"{holder.name}'s phone" in row, row

    late = event.players.create(name="Émile Zola")
    desk = director_client.get(f"/director/e/{event.slug}/desk/")
    director_client.post(*row_form(desk, late, "desk-tap"))  # as the desk's page posts
    desk = director_client.get(f"/director/e/{event.slug}/desk/")
    director_client.post(*row_form(desk, late, "desk-undo-form"))
    text = history(director_client, event)
    assert "1 player checked in Émile Zola" in text and "1 player checked out Émile Zola" in text


def test_the_history_says_the_stages_the_site_named_in_the_readers_language(director_client, table):
    event = table.stage.event
    english = history(director_client, event)
    assert "Game 1 seated at 2 tables" in english
    french = director_client.get(
        f"/director/e/{event.slug}/history/", HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()
    assert "Partie 1" in french and "Game 1" not in french
