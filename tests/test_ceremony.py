"""Issue 50 item 3, the medal ceremony: a projector page that reveals each division's medals
bronze, silver, gold, one press at a time, the NVSO tie said as it was settled; its script and
the certificates in PDF. Through the director's pages, in English and French."""

import html
import io
import re

import pdfplumber
import pytest
from django.test import Client

from tests.factories import make_director, make_players, seat
from tests.test_advancement import close, play_totals, short_event
from tests.test_playoff_order import bronze_playoff, zoe_wins
from tournament.game import awards
from tournament.game import ceremony as rule

pytestmark = pytest.mark.django_db


@pytest.fixture
def final(director):
    event = short_event(director, name="Spring Games", slug="spring")
    make_players(event, ["Ann", "Bo", "Thelma", "Zoë", "Ed"])
    clubs = ["Reno", "Elko", "", "Ely", "Reno"]
    for player, club in zip(event.players.order_by("name"), clubs, strict=True):
        player.club = club
        player.save()
    return seat(event, stage_number=2)


def shown(client, url) -> str:
    """The page's main text, tags out, spaces folded."""
    page = client.get(url)
    assert page.status_code == 200
    main = page.content.decode().split("<main", 1)[1].split("</main>", 1)[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", "<" + main)).split())


def steps(client, slug: str) -> list[str]:
    """Every step of the ceremony, pressing Next from the title to the end."""
    out = []
    url = f"/director/e/{slug}/ceremony/"
    while True:
        page = client.get(url).content.decode()
        out.append(shown(client, url))
        following = re.search(r'id="ceremony-next" rel="next" href="([^"]+)"', page)
        if following is None:
            return out
        url = f"/director/e/{slug}/ceremony/" + html.unescape(following.group(1))


def test_the_ceremony_reveals_bronze_then_silver_then_gold_as_the_nvso_tie_was_settled(
    director_client, final
):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    seen = steps(director_client, "spring")
    assert len(seen) == 5  # the title, bronze, silver, gold, the end
    assert "Medal ceremony" in seen[0] and "3 medals to reveal, bronze first." in seen[0]
    assert "Bronze Zoë Reno 20 points" in seen[1] and "Won in a one-round playoff." in seen[1]
    assert "Thelma" not in seen[1] and "Ann" not in seen[1]
    assert "Silver Not awarded: players tied for gold." in seen[2]
    assert "Bronze – Zoë" in seen[2]  # what this division revealed before, beneath
    assert "Gold Ann Reno 5 points Bo Elko 5 points Tied: 2 players share it." in seen[3]
    assert "Congratulations to every medallist!" in seen[4]


def test_a_medal_whose_playoff_is_owed_is_said_pending(director_client, final):
    bronze_playoff(director_client, final)
    seen = steps(director_client, "spring")
    assert "Playoff pending between Thelma, Zoë." in seen[1]


def test_the_outright_medals_say_nothing_more(director_client, final):
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40))
    close(director_client, final)
    seen = steps(director_client, "spring")
    assert [s.split(" Back ")[0] for s in seen[1:4]] == [
        "Spring Games Medal ceremony Bronze Thelma Ely 20 points",
        "Spring Games Medal ceremony Silver Bo Elko 10 points Bronze – Thelma",
        "Spring Games Medal ceremony Gold Ann Reno 3 points Silver – Bo Bronze – Thelma",
    ]


def test_the_ceremony_in_french(director_client, final):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    director_client.cookies["django_language"] = "fr"
    seen = steps(director_client, "spring")
    assert "Cérémonie des médailles" in seen[0]
    assert "Gagnée lors d'un barrage d'une manche." in seen[1]
    assert "Non attribuée : joueurs à égalité pour l'or." in seen[2]
    assert "Égalité : 2 joueurs la partagent." in seen[3]


def test_the_ceremony_is_the_directors(client, final):
    assert client.get("/director/e/spring/ceremony/").status_code == 302  # to log in
    other = Client()
    other.force_login(make_director("other"))
    for url in ("ceremony/", "ceremony.pdf", "certificates.pdf"):
        assert other.get(f"/director/e/spring/{url}").status_code == 403


@pytest.mark.parametrize("step", ["abc", "-4", "9999", "1e9", ""])
def test_a_step_out_of_range_shows_the_nearest_and_never_fails(director_client, final, step):
    page = director_client.get(f"/director/e/spring/ceremony/?step={step}")
    assert page.status_code == 200


def pdf_pages(response) -> list:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    return pdfplumber.open(io.BytesIO(response.content)).pages


def test_the_script_reads_each_medal_in_the_ceremonys_order_on_one_page(director_client, final):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    pages = pdf_pages(director_client.get("/director/e/spring/ceremony.pdf"))
    assert len(pages) == 1
    text = pages[0].extract_text()
    lines = text.splitlines()
    bronze = next(i for i, line in enumerate(lines) if line.startswith("Bronze Zoë Reno 20"))
    silver = next(i for i, line in enumerate(lines) if line.startswith("Silver Not awarded"))
    gold = next(i for i, line in enumerate(lines) if line.startswith("Gold Ann Reno 5"))
    assert bronze < silver < gold
    assert lines[gold + 1] == "Bo Elko 5"
    assert lines[bronze + 1] == "Won in a one-round playoff."


def test_a_certificate_a_page_for_each_medallist_or_every_player(director_client, final):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    pages = pdf_pages(director_client.get("/director/e/spring/certificates.pdf"))
    texts = [page.extract_text() for page in pages]
    assert len(texts) == 3
    for text, title, name in zip(
        texts, ["Gold medal", "Gold medal", "Bronze medal"], ["Ann", "Bo", "Zoë"], strict=True
    ):
        assert "Spring Games" in text and title in text and name in text.splitlines()
        assert "/" not in text  # no page numbers on a certificate
    pages = pdf_pages(director_client.get("/director/e/spring/certificates.pdf?everyone=1"))
    texts = [page.extract_text() for page in pages]
    assert len(texts) == 5
    assert "Place 4" in texts[3] and "Thelma" in texts[3].splitlines()
    assert "Place 5" in texts[4] and "Ed" in texts[4].splitlines()


def test_the_results_page_leads_a_director_to_the_ceremony(client, director_client, final):
    assert (
        "/director/e/spring/ceremony/" in director_client.get("/e/spring/results/").content.decode()
    )
    assert "/director/e/spring/ceremony/" not in client.get("/e/spring/results/").content.decode()


# The rule, plain: the order and the words for each way a medal is settled.


def test_the_order_is_bronze_silver_gold_division_by_division():
    first = awards.medals({"a": 1, "b": 2, "c": 3})
    second = awards.medals({"d": 1, "e": 2, "f": 3})
    order = rule.ceremony([("Men", first), ("Women", second)], {})
    assert [(r.division, r.medal, r.players, r.how) for r in order] == [
        ("Men", "bronze", ("c",), rule.OUTRIGHT),
        ("Men", "silver", ("b",), rule.OUTRIGHT),
        ("Men", "gold", ("a",), rule.OUTRIGHT),
        ("Women", "bronze", ("f",), rule.OUTRIGHT),
        ("Women", "silver", ("e",), rule.OUTRIGHT),
        ("Women", "gold", ("d",), rule.OUTRIGHT),
    ]


def test_each_tie_rule_is_said_as_it_settled():
    three_for_gold = awards.medals({"a": 1, "b": 1, "c": 1, "d": 4})
    assert [r.how for r in rule.ceremony([("", three_for_gold)], {})] == [
        rule.TIE_FOR_GOLD,
        rule.TIE_FOR_GOLD,
        rule.SHARED,
    ]
    shared = awards.medals({"a": 1, "b": 2, "c": 2, "d": 4}, tie_rule="shared")
    assert [r.how for r in rule.ceremony([("", shared)], {})] == [
        rule.NOBODY,  # 1, 2, 2: the third place is taken by the tie for second
        rule.SHARED,
        rule.OUTRIGHT,
    ]
    owed = awards.medals({"a": 1, "b": 2, "c": 2, "d": 4}, tie_rule="playoff")
    assert [r.how for r in rule.ceremony([("", owed)], {})][:2] == [rule.PENDING, rule.PENDING]
    played = awards.medals(
        {"a": 1, "b": 2, "c": 2, "d": 4},
        tie_rule="playoff",
        playoffs={"silver": [{"b": 0, "c": 5}]},
    )
    assert [(r.how, r.players) for r in rule.ceremony([("", played)], {"": {"b", "c"}})] == [
        (rule.PLAYOFF, ("c",)),
        (rule.PLAYOFF, ("b",)),
        (rule.OUTRIGHT, ("a",)),
    ]
