import pytest

from scoring.models import Round, Score, ScoreChange
from scoring.services import RoundRejected, record_round
from scoring.sheets import table_sheet
from tests.factories import make_director, play
from tournament.models import Table

pytestmark = pytest.mark.django_db


def entry_url(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def pips_form(table, values):
    players = table_sheet(table).players
    return {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}


@pytest.fixture
def table(seated):
    return Table.objects.get(stage=seated, number=1)


def test_the_grid_has_a_row_per_engine_and_a_column_per_player(director_client, table):
    page = director_client.get(entry_url(table)).content.decode()
    for engine in range(13):
        assert f'data-engine="{engine}"' in page
    for seat in table.seats.all():
        assert seat.player.name in page
    assert "Round 12-12" in page


def test_a_whole_round_is_saved_at_once_with_running_totals(director_client, table):
    response = director_client.post(entry_url(table), pips_form(table, [0, 12, 30, 7]))
    assert response.status_code == 302
    director_client.post(entry_url(table), pips_form(table, [5, 0, 10, 20]))
    sheet = table_sheet(table)
    assert [r.engine for r in sheet.rounds] == [12, 11]
    assert list(sheet.totals.values()) == [5, 12, 40, 27]
    page = director_client.get(entry_url(table)).content.decode()
    assert "Round 10-10" in page and ">40<" in page


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0, 12, "x", 7], "Enter a whole number of pips."),
        ([0, 12, "3.5", 7], "Enter a whole number of pips."),
        ([0, 12, -1, 7], "Pips left in hand cannot be negative."),
        ([0, 12, 2000, 7], "1068 is the most pips that can be left."),
        ([0, 12, "", 7], "Enter this player&#x27;s pips"),
        ([0, 0, 3, 7], "2 players have 0: at most one player dominoes in a round."),
        ([0, 500, 500, 100], "The round adds up to 1100, more than the 1068 pips"),
    ],
)
def test_a_wrong_round_saves_nothing_and_says_why(director_client, table, values, message):
    response = director_client.post(entry_url(table), pips_form(table, values))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Round.objects.exists() and not Score.objects.exists()


def test_the_message_is_at_the_wrong_field(director_client, table):
    form = pips_form(table, [0, 12, 2000, 7])
    response = director_client.post(entry_url(table), form)
    wrong = response.context["form"].errors
    assert list(wrong) == [list(form)[2]]


def test_a_blocked_round_may_have_no_zero(director_client, table):
    director_client.post(entry_url(table), pips_form(table, [3, 12, 30, 7]))
    assert Round.objects.count() == 1


def test_the_double_blank_at_50_raises_the_bound(director_client, table):
    director_client.post(entry_url(table), pips_form(table, [0, 1110, 3, 4]))
    assert Round.objects.count() == 0
    event = table.stage.event
    event.double_blank_points = 50
    event.save()
    response = director_client.post(entry_url(table), pips_form(table, [0, 1119, 3, 4]))
    assert "1118 is the most pips that can be left." in response.content.decode()
    director_client.post(entry_url(table), pips_form(table, [0, 1110, 3, 4]))
    assert Round.objects.count() == 1


def test_rounds_are_entered_in_play_order(table):
    play(table, 2)
    assert list(Round.objects.values_list("engine", flat=True)) == [12, 11]
    with pytest.raises(RoundRejected, match="Round 12-12 has already been entered"):
        record_round(table, {p.pk: 1 for p in table_sheet(table).players}, None, engine=12)


def test_two_desks_saving_the_same_round_save_it_once(director_client, table):
    form = {**pips_form(table, [0, 12, 30, 7])}
    director_client.post(entry_url(table), form)
    # the second desk still shows round 12-12: its page posted the same engine
    with pytest.raises(RoundRejected):
        record_round(table, {p.pk: 5 for p in table_sheet(table).players}, None, engine=12)
    assert Round.objects.count() == 1


def test_no_round_after_the_table_is_finished(director_client, table):
    event = table.stage.event
    event.engines = [2, 1, 0]
    event.save()
    play(table, 3)
    page = director_client.get(entry_url(table)).content.decode()
    assert "Every round of this table has been entered: the game is over." in page
    response = director_client.post(entry_url(table), pips_form(table, [0, 1, 2, 3]), follow=True)
    assert "the game is over" in response.content.decode()
    assert Round.objects.count() == 3


def test_a_score_for_every_seated_player_is_required(table):
    players = table_sheet(table).players
    with pytest.raises(RoundRejected, match="every player seated"):
        record_round(table, {p.pk: 3 for p in players[:-1]}, None)
    assert not Round.objects.exists()


def test_entry_needs_a_login(client, table):
    response = client.post(entry_url(table), pips_form(table, [0, 1, 2, 3]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Round.objects.exists()


def test_a_stranger_cannot_enter_scores(client, table):
    client.force_login(make_director("stranger"))
    assert client.post(entry_url(table), pips_form(table, [0, 1, 2, 3])).status_code == 403
    assert not Round.objects.exists()


def test_the_tables_scorekeeper_can_enter_scores(client, table):
    from django.contrib.auth import get_user_model

    keeper = get_user_model().objects.create_user("keeper")
    table.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.post(entry_url(table), pips_form(table, [0, 1, 2, 3])).status_code == 302
    assert Round.objects.count() == 1


def correct_url(table, number):
    return (
        f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}"
        f"/round/{number}/correct/"
    )


def test_a_director_corrects_a_saved_round_with_a_reason(director_client, director, table):
    director_client.post(entry_url(table), pips_form(table, [0, 12, 30, 7]))
    form = {**pips_form(table, [0, 12, 25, 7]), "reason": "Misread a 5 as a 0"}
    assert director_client.post(correct_url(table, 1), form).status_code == 302
    change = ScoreChange.objects.get()
    assert (change.old_pips, change.new_pips, change.reason, change.changed_by) == (
        30,
        25,
        "Misread a 5 as a 0",
        director,
    )
    assert sorted(table_sheet(table).totals.values()) == [0, 7, 12, 25]


def test_a_correction_is_validated_like_an_entry(director_client, table):
    director_client.post(entry_url(table), pips_form(table, [0, 12, 30, 7]))
    form = {**pips_form(table, [0, 0, 30, 7]), "reason": "typo"}
    response = director_client.post(correct_url(table, 1), form)
    assert "at most one player dominoes" in response.content.decode()
    assert not ScoreChange.objects.exists()
    response = director_client.post(correct_url(table, 1), pips_form(table, [0, 1, 30, 7]))
    assert "This field is required" in response.content.decode()
    assert Score.objects.filter(pips=12).exists()


def test_a_scorekeeper_cannot_correct(client, table):
    from django.contrib.auth import get_user_model

    play(table, 1)
    keeper = get_user_model().objects.create_user("keeper")
    table.scorekeepers.add(keeper)
    client.force_login(keeper)
    form = {**pips_form(table, [0, 1, 2, 3]), "reason": "mine"}
    assert client.post(correct_url(table, 1), form).status_code == 403
    assert not ScoreChange.objects.exists()


def test_an_unknown_round_or_table_is_a_404(director_client, table):
    assert director_client.get(correct_url(table, 5)).status_code == 404
    slug = table.stage.event.slug
    assert director_client.get(f"/director/e/{slug}/1/table/99/enter/").status_code == 404
    assert director_client.get(f"/director/e/{slug}/7/table/1/enter/").status_code == 404
