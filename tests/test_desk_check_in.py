"""A tap at the check-in desk checks a player in, and only in (issue 28, item 8): a second tap,
a double post or a reload changes nothing more; undoing a check-in is its own button, and the
desk says "checked out"."""

import html
import re

import pytest

from tests.factories import make_players
from tournament.models import Action, Player

pytestmark = pytest.mark.django_db


def desk_url(event):
    return f"/director/e/{event.slug}/desk/"


def row_form(page, player, kind: str) -> tuple[str, dict]:
    """The action and fields of one of the player's forms on the desk page, as a browser
    without script posts it (``kind``: "desk-tap" or "desk-undo-form")."""
    row = re.search(
        rf'<li[^>]*data-player="{player.pk}"[^>]*>(.*?)</li>', page.content.decode(), re.S
    ).group(1)
    form = re.search(rf'<form([^>]*class="{kind}[^"]*"[^>]*)>(.*?)</form>', row, re.S)
    action = re.search(r'action="([^"]+)"', form.group(1)).group(1)
    fields = {}
    for tag in re.findall(r"<(?:input|button)[^>]*>", form.group(2)):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if name:
            fields[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return action, fields


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_a_double_tap_on_check_in_keeps_the_player_checked_in(director_client, event):
    (ann,) = make_players(event, ["Ann O'Brien"], checked_in=False)
    action, fields = row_form(director_client.get(desk_url(event)), ann, "desk-tap")
    first = director_client.post(action, fields, follow=True)
    assert "Ann O&#x27;Brien checked in." in first.content.decode()
    # The second tap lands on the page the first one left: its button still checks in.
    action, fields = row_form(first, ann, "desk-tap")
    assert fields["checked_in"] == "1"
    second = director_client.post(action, fields, follow=True)
    assert "was already checked in." in text(second)
    ann.refresh_from_db()
    assert ann.checked_in
    assert Action.objects.filter(verb="players.checked_in").count() == 1
    assert not Action.objects.filter(verb="players.checked_out").exists()


def test_a_repeated_post_from_a_stale_page_never_checks_out(director_client, event):
    (ann,) = make_players(event, ["Ann"], checked_in=False)
    action, fields = row_form(director_client.get(desk_url(event)), ann, "desk-tap")
    for _ in range(3):  # a double tap, then the browser's resend
        director_client.post(action, fields, HTTP_ACCEPT="application/json")
    assert Player.objects.get(pk=ann.pk).checked_in


def test_undo_check_in_is_its_own_button_and_says_checked_out(director_client, event):
    ann, bo = make_players(event, ["Ann", "Bo"], checked_in=True)
    page = director_client.get(desk_url(event))
    action, fields = row_form(page, ann, "desk-undo-form")
    assert fields["checked_in"] == "0"
    assert "Undo check-in" in text(page)
    answer = director_client.post(action, fields, follow=True)
    assert "Ann checked out." in text(answer)
    assert not Player.objects.get(pk=ann.pk).checked_in
    assert Player.objects.get(pk=bo.pk).checked_in
    assert Action.objects.filter(verb="players.checked_out").count() == 1
    # Once out, the row offers Check in again and no undo.
    row = re.search(rf'data-player="{ann.pk}".*?</li>', answer.content.decode(), re.S).group(0)
    assert re.search(r'class="desk-undo-form d-none"', row)


def test_a_post_that_does_not_say_in_or_out_changes_nothing(director_client, event):
    (ann,) = make_players(event, ["Ann"], checked_in=True)
    url = f"/director/e/{event.slug}/players/check-in/"
    answer = director_client.post(url, {"player": ann.pk, "back": "desk"}, follow=True)
    assert "Nothing changed: tap Check in or Undo check-in." in text(answer)
    assert Player.objects.get(pk=ann.pk).checked_in
