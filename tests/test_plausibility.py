""" "Are you sure?" from simulated play (issue 33 item 2): the threshold a losing hand exceeds
once in a thousand rounds, the shipped file the command makes, and the question the round's
form asks (director, table phone, correction) before a legal count above it is saved, once."""

import json
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from scoring import plausibility as kept
from scoring.models import Round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, hidden_fields, logged_in, no_errors
from tests.factories import make_event, make_players, seat
from tournament.game import plausibility
from tournament.game.rules import RuleSet, default_engines
from tournament.game.simulator.stats import simulate
from tournament.models import Event, Table

pytestmark = pytest.mark.django_db

# -- the pure rule ------------------------------------------------------------------------------


def test_the_threshold_of_a_sample_checked_by_hand():
    values = list(range(2000, 0, -1))  # 1..2000, in any order
    found = plausibility.threshold_of(values, rounds=700, seed=3)
    # 0.999 x 2000 = 1998: the 1998th smallest; only 1999 and 2000 (2 in 2,000) are above it
    assert found.rare == 1998
    assert found.typical == 1900  # 0.95 x 2000
    # ranks 1998 -/+ 1.96 x sqrt(2000 x 0.999 x 0.001) = 1998 -/+ 2.77: 1995 to 2000 (clipped)
    assert (found.low, found.high) == (1995, 2000)
    assert (found.hands, found.rounds, found.seed) == (2000, 700, 3)
    assert plausibility.nearest_rank(list(range(1, 1001)), 0.999) == 999
    assert plausibility.nearest_rank([5], 0.999) == 5
    with pytest.raises(ValueError):
        plausibility.nearest_rank([], 0.999)


def test_the_threshold_against_a_simulated_distribution_on_a_fixed_seed():
    rules = RuleSet()  # NVSO: double-12, 15 tiles each
    found = plausibility.simulated(rules, 4, rounds=1000, seed=5)
    results, _ = simulate(rules, 4, 1000, 5)
    hands = [p for r in results for p in r.losing_hands]
    assert found.hands == len(hands) >= 3000  # every losing hand: 3 a round, all 4 if blocked
    # at most one hand in a thousand above it, and it is the least such count
    assert sum(h > found.rare for h in hands) <= len(hands) / 1000
    assert sum(h >= found.rare for h in hands) > len(hands) / 1000
    assert sum(h > found.typical for h in hands) <= len(hands) / 20
    assert found.low <= found.rare <= found.high
    assert plausibility.simulated(rules, 4, rounds=1000, seed=5) == found  # the seed decides


def test_the_likely_typo_drops_a_digit_within_the_typical_range():
    assert plausibility.typos(287, 77) == [28, 27]
    assert plausibility.typos(287, 90) == [28, 27, 87]
    assert plausibility.typos(500, 60) == [50]  # never 0: dominoing is not a typo
    assert plausibility.typos(999, 40) == []
    assert plausibility.typos(2207, 250) == [220, 227, 207]


def test_the_shipped_file_holds_every_rule_set_offered():
    shipped = plausibility.shipped()
    offered = {plausibility.key(r, n) for r, n in plausibility.offered()}
    assert set(shipped) == offered and len(offered) == 32  # any other: the background task
    nvso = shipped[plausibility.key(RuleSet(), 4)]
    assert (nvso.seed, nvso.rounds) == (plausibility.SEED, plausibility.ROUNDS)
    # the figure for the default strategy (an independent engine): 198
    assert 150 <= nvso.rare <= 250 < RuleSet().max_pips(12, 4)
    for t in shipped.values():
        assert t.typical < t.rare and t.low <= t.rare <= t.high


def test_the_command_reproduces_the_shipped_value_of_four_players_at_double_12(capsys):
    call_command("compute_thresholds", "--only", "double-12 x1, 4 players", "--check")
    out = capsys.readouterr().out
    nvso = plausibility.shipped()[plausibility.key(RuleSet(), 4)]
    assert f"double-12 x1, 4 players drawing 15, double-blank 0: {nvso.rare} " in out
    assert "1 thresholds as the file has them." in out


def test_the_command_refuses_a_sample_too_small_to_say_anything():
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="At least 1,000 rounds"):
        call_command("compute_thresholds", "--rounds", "50", "--check")


# -- the round's form ---------------------------------------------------------------------------

NVSO = plausibility.shipped()[plausibility.key(RuleSet(), 4)]


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


def entry_url(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def players(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def posted(client, url, table, values, **extra):
    """What the page's form sends: its hidden fields (the key, the round shown), the cells."""
    data = hidden_fields(client.get(url))
    data.update({f"p{p.pk}": v for p, v in zip(players(table), values, strict=True)})
    data.update(extra)
    return data


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_a_count_above_the_threshold_asks_first_and_is_saved_once_confirmed(director_client, table):
    url = entry_url(table)
    third = players(table)[2]
    data = posted(director_client, url, table, [0, 12, 287, 7])
    asked = director_client.post(url, data)
    assert asked.status_code == 200 and not Round.objects.exists()
    page = text(asked).replace("&#x27;", "'")
    assert (
        f"{third.name}: 287 is more than 999 hands in 1,000 leave at this table "
        f"(19 in 20 leave 0 to {NVSO.typical}): is it 28 or 27?" in page
    )
    assert f"Yes, save 287 for {third.name}" in page
    box = f'name="sure" value="p{third.pk}:287"'
    assert box in asked.content.decode()  # the box to tick, without a script

    data["sure"] = f"p{third.pk}:287"
    saved = director_client.post(url, data)
    assert saved.status_code == 302
    again = director_client.post(url, data)  # the same form sent twice: one round
    assert again.status_code == 302
    assert Round.objects.count() == 1
    assert table_sheet(table).rounds[0].pips[third.pk] == 287


def test_a_confirmation_is_of_that_count_only(director_client, table):
    url = entry_url(table)
    third = players(table)[2]
    data = posted(director_client, url, table, [0, 12, 286, 7], sure=f"p{third.pk}:287")
    asked = director_client.post(url, data)
    assert asked.status_code == 200 and "286 is more than 999 hands" in text(asked)
    assert not Round.objects.exists()


def test_counts_at_or_under_the_threshold_ask_nothing(director_client, table):
    url = entry_url(table)
    saved = director_client.post(url, posted(director_client, url, table, [0, NVSO.rare, 3, 4]))
    assert saved.status_code == 302 and Round.objects.count() == 1


def test_a_legal_count_near_the_bound_is_never_refused(director_client, table):
    url = entry_url(table)
    first, second = players(table)[:2]
    data = posted(director_client, url, table, [0, 700, 250, 10])
    asked = director_client.post(url, data, HTTP_ACCEPT="application/json").json()
    assert asked["saved"] is False
    assert [(q["cell"], q["value"]) for q in asked["questions"]] == [
        (f"p{players(table)[1].pk}", 700),
        (f"p{players(table)[2].pk}", 250),
    ]
    assert asked["questions"][0]["yes"] == "Yes, save 700"
    assert list(asked["fields"]) == ["sure"]
    data["sure"] = [f"p{players(table)[1].pk}:700", f"p{players(table)[2].pk}:250"]
    answer = director_client.post(url, data, HTTP_ACCEPT="application/json").json()
    assert answer["saved"] is True
    assert sorted(Round.objects.get().scores.values_list("pips", flat=True)) == [0, 10, 250, 700]
    assert first and second


def test_the_page_gives_its_script_the_same_threshold_and_question(director_client, table):
    page = director_client.get(entry_url(table)).content.decode()
    found = re.search(r'<script id="entry-config" type="application/json">(.*?)</script>', page)
    config = json.loads(found.group(1))["plausible"]
    assert (config["rare"], config["typical"]) == (NVSO.rare, NVSO.typical)
    assert config["question"] == (
        "{name}: {value} is more than 999 hands in 1,000 leave at this table (19 in 20 leave "
        "0 to {typical}): is it {typos}?"
    )
    assert config["yes"] == "Yes, save {value}" and config["or"] == "{some} or {last}"


def phone(table) -> Client:
    client = Client(REMOTE_ADDR="10.0.0.9", HTTP_USER_AGENT="Mozilla/5.0 (Android 14)")
    client.get(f"/t/{table.code}/")
    client.post(f"/t/{table.code}/", {"player": players(table)[0].pk})
    return client


def test_a_phone_is_asked_the_same_and_its_confirmed_round_saved_once(table):
    client = phone(table)
    url = f"/t/{table.code}/enter/"
    third = players(table)[2]
    data = posted(client, url, table, [0, 12, 287, 7])
    # the table's phone sends its rounds as JSON (a queued one too): the question, nothing saved
    asked = client.post(url, data, HTTP_ACCEPT="application/json").json()
    assert asked["saved"] is False and asked["questions"][0]["typos"] == [28, 27]
    assert not Round.objects.exists()
    data["sure"] = f"p{third.pk}:287"
    assert client.post(url, data, HTTP_ACCEPT="application/json").json()["saved"] is True
    assert client.post(url, data, HTTP_ACCEPT="application/json").json()["saved"] is True
    assert Round.objects.count() == 1


def test_a_correction_asks_only_about_the_counts_it_changes(director_client, table):
    url = entry_url(table)
    third = players(table)[2]
    data = posted(director_client, url, table, [0, 12, 287, 7], sure=f"p{third.pk}:287")
    assert director_client.post(url, data).status_code == 302
    correct = f"{url.removesuffix('enter/')}round/1/correct/"
    form = posted(director_client, correct, table, [0, 13, 287, 7], reason="typo")
    assert director_client.post(correct, form).status_code == 302  # 287 kept: not asked again
    form = posted(director_client, correct, table, [0, 13, 300, 7], reason="typo")
    asked = director_client.post(correct, form)
    assert asked.status_code == 200 and "300 is more than 999 hands" in text(asked)
    assert table_sheet(table).rounds[0].pips[third.pk] == 287
    form["sure"] = f"p{third.pk}:300"
    assert director_client.post(correct, form).status_code == 302
    assert table_sheet(table).rounds[0].pips[third.pk] == 300


def test_a_custom_rule_set_is_simulated_once_in_the_background_and_asks_from_then(
    director_client, director, settings
):
    settings.PLAUSIBILITY_ROUNDS = 1000  # the tests' settings turn it off
    event = make_event(director, slug="custom", tiles_drawn={"4": 12, "5": 12})
    make_players(event, count=8)
    table = seat(event).tables.get(number=1)
    url = entry_url(table)
    rules = event.rules
    key = plausibility.key(rules, 4)
    assert key not in plausibility.shipped()
    first = director_client.get(url).content.decode()
    assert '"plausible": null' in first  # not known yet: nothing asked
    # the task ran (tasks run at once in the tests) and kept it
    expected = plausibility.simulated(rules, 4, 1000)
    assert kept.threshold_for(rules, 4) == expected
    assert cache.get(kept.cache_key(key))["rare"] == expected.rare
    value = expected.rare + 1
    data = posted(director_client, url, table, [0, 3, value, 4])
    asked = director_client.post(url, data)
    assert asked.status_code == 200 and f"{value} is more than 999 hands" in text(asked)


def test_a_custom_rule_set_is_asked_for_once(director, settings, monkeypatch):
    settings.PLAUSIBILITY_ROUNDS = 1000
    asked = []
    # the task (run at once in the tests) calls this: counted, not simulated
    monkeypatch.setattr(kept, "compute", lambda *args: asked.append(args))
    rules = RuleSet(set=9, engines=default_engines(9), tiles_drawn={3: 14}, table_size=3)
    assert kept.threshold_for(rules, 3) is None
    assert kept.threshold_for(rules, 3) is None  # still computing: not asked again
    assert asked == [(9, 1, list(range(9, -1, -1)), 14, 0, 3)]


def test_a_busy_task_queue_leaves_the_page_as_it_was(director, settings, monkeypatch):
    from django.db import OperationalError

    from scoring import tasks

    class Busy:
        def enqueue(self, **kwargs):
            raise OperationalError("database is locked")

    settings.PLAUSIBILITY_ROUNDS = 1000
    monkeypatch.setattr(tasks, "compute_threshold", Busy())
    rules = RuleSet(set=9, engines=default_engines(9), tiles_drawn={3: 14}, table_size=3)
    assert kept.threshold_for(rules, 3) is None  # no warning, no error
    asked = kept.cache_key(plausibility.key(rules, 3)) + ":asked"
    assert cache.get(asked) is None  # asked again on the next page


@pytest.mark.django_db(transaction=True)
def test_a_confirmed_round_sent_from_two_devices_at_once_is_saved_once(director, table):
    url = entry_url(table)
    third = players(table)[2]
    first = logged_in(director)
    page = first.get(url)
    data = {**hidden_fields(page), "once": form_key(page), "sure": f"p{third.pk}:287"}
    data.update({f"p{p.pk}": v for p, v in zip(players(table), [0, 12, 287, 7], strict=True)})
    others = [logged_in(director) for _ in range(3)]
    results = at_once([lambda c=c: c.post(url, data) for c in [first, *others]])
    no_errors(results)
    assert Round.objects.filter(table=table).count() == 1
