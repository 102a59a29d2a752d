"""The second confirmation is a second person's (issue 27): a phone joining a table says which
seated player holds it; a round entered from a phone is confirmed from another player's phone,
never by the same phone in a private tab (a new cookie jar, the same address and browser), nor
by a phone naming the player who entered it. The director sees which phone did what.

Issue 46: a second browser on the entering phone ("request desktop site": another browser name
and cookie jar, the same address) passed for another phone. Now the confirming phone types the
round's code, shown on the entering phone only: what the second browser posts alone is refused.
"""

import re

import pytest
from django.conf import settings
from django.test import Client

from scoring.models import CodeTries, Round, TableDevice
from scoring.services.table_entry import DEVICE_COOKIE, confirm_code
from tests.concurrency import at_once, hidden_fields, no_errors, said
from tests.test_table_entry import shown_code
from tournament.models import Action, Event, Table

pytestmark = pytest.mark.django_db

ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/131.0 Mobile Safari/537.36"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Version/18.1 Mobile Safari"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36"  # "request desktop site"


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


@pytest.fixture
def players(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def a_phone(address: str, agent: str = ANDROID) -> Client:
    """A phone on the hall's Wi-Fi: its address and browser; a new one is a new cookie jar."""
    return Client(REMOTE_ADDR=address, HTTP_USER_AGENT=agent)


def join(client, table, player):
    """What the "is this your table?" page posts when its holder taps their name."""
    page = client.get(f"/t/{table.code}/")
    assert f'name="player" value="{player.pk}"' in page.content.decode()
    return client.post(f"/t/{table.code}/", {"player": player.pk}, follow=True)


def enter(client, table, values=(0, 5, 6, 7)):
    url = f"/t/{table.code}/enter/"
    fields = hidden_fields(client.get(url))
    players = [s.player for s in table.seats.order_by("position")]
    data = {**fields, **{f"p{p.pk}": v for p, v in zip(players, values, strict=True)}}
    return client.post(url, data, follow=True)


def confirm(client, table, round_, code="", follow=True):
    """What the waiting round's "Confirm" form posts, with the code typed in it."""
    url = f"/t/{table.code}/round/{round_.number}/confirm/"
    return client.post(url, {"round": round_.pk, "code": code}, follow=follow)


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def entered_by(table, players):
    """Ann's phone (the first seated player) joined and entered round 12-12."""
    ann = a_phone("10.0.0.2")
    join(ann, table, players[0])
    enter(ann, table)
    return ann, Round.objects.get(table=table)


def test_joining_without_naming_a_player_is_refused_with_a_clear_message(table, seated):
    client = a_phone("10.0.0.2")
    page = client.get(f"/t/{table.code}/")
    players_list = page.content.decode().split('id="table-players"', 1)[1].split("</ul>", 1)[0]
    assert "tap your own name" in text(page) and 'aria-pressed="true"' not in players_list
    assert "join-as" in players_list  # the buttons are there, none pressed
    elsewhere = Table.objects.get(stage=seated, number=2).seats.first().player
    for posted in ({}, {"player": ""}, {"player": "x"}, {"player": elsewhere.pk}):
        refused = client.post(f"/t/{table.code}/", posted)
        assert refused.status_code == 200
        assert "Tap your name: which player at this table holds this phone?" in text(refused)
    assert not TableDevice.objects.exists()
    assert DEVICE_COOKIE not in client.cookies
    assert client.get(f"/t/{table.code}/enter/")["Location"] == f"/t/{table.code}/"


def test_the_phone_says_who_holds_it_and_changing_asks_again(table, players):
    client = a_phone("10.0.0.2")
    join(client, table, players[0])
    terminal = client.get(f"/t/{table.code}/enter/")
    assert f"You are {players[0].name}" in text(terminal)
    assert f'href="/t/{table.code}/?change=1"' in terminal.content.decode()
    again = client.get(f"/t/{table.code}/?change=1")
    assert again.status_code == 200 and "tap your own name" in text(again)
    changed = client.post(f"/t/{table.code}/", {"player": players[1].pk}, follow=True)
    assert f"You are {players[1].name}" in text(changed)
    device = TableDevice.objects.get(table=table)
    assert device.player == players[1] and len(device.fingerprint) == 16


def test_the_device_id_is_kept_in_a_signed_cookie_when_the_session_is_lost(table, players):
    client = a_phone("10.0.0.2")
    join(client, table, players[0])
    kept = client.cookies[DEVICE_COOKIE]
    assert kept["httponly"] and kept["samesite"] == "Lax" and kept["max-age"] == 365 * 24 * 3600
    device = TableDevice.objects.get().device
    del client.cookies[settings.SESSION_COOKIE_NAME]  # the session is lost (or reset)
    assert client.get(f"/t/{table.code}/enter/").status_code == 302  # asked again
    join(client, table, players[0])
    assert list(TableDevice.objects.values_list("device", flat=True)) == [device]
    client.cookies[DEVICE_COOKIE] = "forged"  # a cookie that is not the site's is ignored
    del client.cookies[settings.SESSION_COOKIE_NAME]
    join(client, table, players[0])
    assert TableDevice.objects.count() == 2


def test_the_same_phone_in_a_private_tab_cannot_confirm_its_own_round(table, players):
    _ann, round_ = entered_by(table, players)
    private = a_phone("10.0.0.2")  # the same phone, no cookies at all
    join(private, table, players[1])  # and it says it is Bo
    page = private.get(f"/t/{table.code}/enter/")
    assert "confirm-round" not in page.content.decode()
    refused = confirm(private, table, round_)
    assert (
        "A second player confirms the round from their own phone: the round was entered from "
        "this phone." in text(refused)
    )
    round_.refresh_from_db()
    assert round_.awaiting_confirmation and not Action.objects.filter(verb="round.confirmed")
    # Sending it back is refused the same way.
    private.post(f"/t/{table.code}/round/1/send-back/", {"note": "mine", "round": round_.pk})
    assert Round.objects.filter(table=table).exists()


def test_a_second_phone_naming_the_player_who_entered_the_round_is_refused(table, players):
    _ann, round_ = entered_by(table, players)
    other = a_phone("10.0.0.3", IPHONE)
    join(other, table, players[0])  # another phone, but it says it is Ann again
    refused = confirm(other, table, round_)
    assert f"This round was entered by {players[0].name}: another player confirms it." in text(
        refused
    )
    round_.refresh_from_db()
    assert round_.awaiting_confirmation


def test_a_second_player_confirms_exactly_once(table, players):
    _ann, round_ = entered_by(table, players)
    assert round_.entered_player == players[0] and len(round_.entered_fingerprint) == 16
    bo = a_phone("10.0.0.3", IPHONE)
    join(bo, table, players[1])
    page = bo.get(f"/t/{table.code}/enter/").content.decode()
    assert "confirm-round" in page and 'id="shown-code-1"' not in page
    assert f"Code shown on {players[0].name}&#x27;s phone" in page
    code = shown_code(_ann, table)
    answers = [confirm(bo, table, round_, code) for _ in range(2)]  # a double tap
    assert "Round 12-12 confirmed." in text(answers[0])
    assert [str(m) for m in answers[1].context["messages"]] == []  # nothing said the second time
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation and round_.confirmed_player == players[1]
    assert round_.confirmed_device == TableDevice.objects.get(player=players[1]).device
    assert round_.confirmed_fingerprint not in ("", round_.entered_fingerprint)
    assert Action.objects.filter(verb="round.confirmed").count() == 1


@pytest.mark.django_db(transaction=True)  # two phones, each its own thread and connection
def test_two_players_confirming_at_once_confirm_once(table, players):
    _ann, round_ = entered_by(table, players)
    bo, cy = a_phone("10.0.0.3", IPHONE), a_phone("10.0.0.4")
    join(bo, table, players[1])
    join(cy, table, players[2])
    code = shown_code(_ann, table)
    results = at_once([lambda c=c: confirm(c, table, round_, code, follow=False) for c in (bo, cy)])
    no_errors(results)
    assert sorted(len(said(r)) for r in results) == [0, 1]  # one says confirmed, one nothing
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation
    assert round_.confirmed_player in (players[1], players[2])
    assert Action.objects.filter(verb="round.confirmed").count() == 1


def test_a_round_entered_before_phones_named_their_player_confirms_as_before(table, players):
    round_ = Round.objects.create(
        table=table, number=1, engine=12, entered_device="a1b2c3d4e5f6", awaiting_confirmation=True
    )
    for n, p in enumerate(players):
        round_.scores.create(player=p, pips=n)
    from scoring.services.rounds import store_totals

    store_totals(Table.objects.filter(pk=table.pk))
    ann = a_phone("10.0.0.2")
    join(ann, table, players[0])
    code = confirm_code(round_)  # what the phone that entered it shows
    assert "Round 12-12 confirmed." in text(confirm(ann, table, round_, code))
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation


def test_the_director_sees_which_phone_entered_and_which_confirmed(
    client, director_client, table, players
):
    ann, round_ = entered_by(table, players)
    bo = a_phone("10.0.0.3", IPHONE)
    join(bo, table, players[1])
    slug = table.stage.event.slug
    url = f"/e/{slug}/1/table/1/"
    ann_device = TableDevice.objects.get(player=players[0]).device[:4]
    bo_device = TableDevice.objects.get(player=players[1]).device[:4]
    waiting = text(director_client.get(url))
    assert (
        f"12-12: entered from {players[0].name}'s phone (device {ann_device}…), "
        "not confirmed yet" in waiting.replace("&#x27;", "'")
    )
    confirm(bo, table, round_, shown_code(ann, table))
    sheet = text(director_client.get(url)).replace("&#x27;", "'")
    assert (
        f"entered from {players[0].name}'s phone (device {ann_device}…), confirmed from "
        f"{players[1].name}'s phone (device {bo_device}…)" in sheet
    )
    # A round the director confirms says so.
    enter(ann, table, (3, 0, 6, 7))
    director_client.post(f"/director/e/{slug}/1/table/1/round/2/confirm/")
    assert "11-11: entered from" in text(director_client.get(url))
    assert "confirmed by director boss" in text(director_client.get(url))
    # Nobody else sees the phones.
    public = client.get(url).content.decode()
    assert 'id="phone-rounds"' not in public and ann_device not in public
    assert "entered from" not in public and "confirmed by director" not in public


# -- issue 46: the code the entering phone shows ------------------------------------------------


def test_a_second_browser_on_the_entering_phone_cannot_confirm_alone(table, players):
    ann, round_ = entered_by(table, players)
    # The same phone's other browser (or "request desktop site"): its own cookie jar and
    # browser name, the same address; it says it is Bo and passes for his phone.
    desktop = a_phone("10.0.0.2", DESKTOP)
    join(desktop, table, players[1])
    page = desktop.get(f"/t/{table.code}/enter/").content.decode()
    assert 'id="confirm-code-1"' in page and 'id="shown-code-1"' not in page  # no code to read
    refused = confirm(desktop, table, round_)  # what its form posts, as it has no code
    assert f"Type the code shown on {players[0].name}&#x27;s phone." in refused.content.decode()
    guessed = "0000" if confirm_code(round_) != "0000" else "1111"
    wrong = confirm(desktop, table, round_, guessed)
    said = (
        f"This is not the code shown on {players[0].name}&#x27;s phone: look at the round "
        "there, then type its 4 digits."
    )
    assert said in wrong.content.decode()
    round_.refresh_from_db()
    assert round_.awaiting_confirmation and not Action.objects.filter(verb="round.confirmed")
    assert CodeTries.objects.get(address="10.0.0.2").count == 1  # the guess counted
    # The entering phone shows the code, large, under its waiting round.
    assert shown_code(ann, table) == confirm_code(round_)


def test_a_wrong_code_is_said_at_its_field_and_the_right_one_confirms(table, players):
    ann, round_ = entered_by(table, players)
    bo = a_phone("10.0.0.3", IPHONE)
    join(bo, table, players[1])
    code = shown_code(ann, table)
    for typed, message in (
        ("", f"Type the code shown on {players[0].name}'s phone."),
        ("١٢٣٤", f"The code is 4 digits, shown on {players[0].name}'s phone."),
        ("12345", f"The code is 4 digits, shown on {players[0].name}'s phone."),
        (f"{(int(code) + 1) % 10000:04d}", f"This is not the code shown on {players[0].name}'s"),
    ):
        page = confirm(bo, table, round_, typed).content.decode()
        field = re.search(r'<input[^>]*id="confirm-code-1"[^>]*>', page).group(0)
        assert 'aria-invalid="true"' in field and "confirm-error-1" in field
        error = re.search(r'id="confirm-error-1"[^>]*>([^<]*)<', page).group(1)
        assert message in error.replace("&#x27;", "'"), error
    assert CodeTries.objects.get(address="10.0.0.3").count == 1  # the wrong code, not the typos
    again = bo.get(f"/t/{table.code}/enter/").content.decode()
    assert 'aria-invalid="true"' not in again  # said once
    done = confirm(bo, table, round_, f" {code[:2]} {code[2:]} ")  # spaces typed are ignored
    assert "Round 12-12 confirmed." in text(done)
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation and round_.confirmed_player == players[1]


def test_a_round_sent_back_and_entered_again_shows_the_new_rounds_code(table, players):
    ann, round_ = entered_by(table, players)
    bo = a_phone("10.0.0.3", IPHONE)
    join(bo, table, players[1])
    hidden = hidden_fields(bo.get(f"/t/{table.code}/enter/"))
    bo.post(
        f"/t/{table.code}/round/1/send-back/",
        {"once": hidden.get("once", ""), "round": round_.pk, "note": "Cy had 9"},
    )
    enter(ann, table, (0, 5, 9, 7))
    entered = Round.objects.get(table=table)
    assert entered.pk != round_.pk
    assert shown_code(ann, table) == confirm_code(entered)
    assert "Round 12-12 confirmed." in text(confirm(bo, table, entered, confirm_code(entered)))
