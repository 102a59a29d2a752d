"""The public read-only API (issue 50 item 5): every endpoint answers what its OpenAPI schema
says, on events in each state, a series and ratings; the schema itself is a valid OpenAPI 3.1
document served by the site; ETags give 304 until something changes; the queries do not grow
with the event; nothing private is in any answer; one address is limited; bad addresses are a
JSON 404, never a 500."""

import json
from datetime import date
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from scoring.eventfile import import_event
from scoring.models import Series
from scoring.services.ratings import compute_ratings
from scoring.services.series import add_event, create_series
from tests.factories import make_event, make_players, play, seat
from tests.test_advancement import close
from tournament.models import Table

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parent / "data"
FILES = {
    "rounds": "demo-event.json",
    "closed": "advancement-playoff.json",
    "playoff": "nvso-tie-for-gold-bronze-pending.json",
    "medals": "playoff-medals-with-replay.json",
}


@pytest.fixture
def site(director, settings):
    settings.RATING_MIN_GAMES = 1
    made = {
        slug: import_event((DATA / name).read_bytes(), director=director, slug=slug)
        for slug, name in FILES.items()
    }
    season = create_series(Series(name="Season", slug="season"), director)
    add_event(season, made["closed"], director)
    add_event(season, made["medals"], director)
    compute_ratings()
    return made


def schema() -> dict:
    return Client().get("/api/openapi.json").json()


def validator(document: dict, name: str) -> Draft202012Validator:
    """A validator of one of the document's schemas, its references resolved in the document."""
    resource = DRAFT202012.create_resource(document)
    registry = Registry().with_resource("urn:api", resource)
    return Draft202012Validator(
        {"$ref": f"urn:api#/components/schemas/{name}"},
        registry=registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def every_path(made) -> list[tuple[str, str]]:
    """(path, schema name) of every endpoint, for every event and every stage."""
    paths = [("/api/", "Index"), ("/api/events/", "Events"), ("/api/series/", "SeriesList")]
    paths += [("/api/series/season/", "Series"), ("/api/ratings/", "Ratings")]
    paths += [("/api/ratings/?page=2", "Ratings"), ("/api/ratings/?page=x", "Ratings")]
    for event in made.values():
        paths += [(f"/api/events/{event.slug}/", "Event")]
        paths += [(f"/api/events/{event.slug}/results/", "Results")]
        for stage in event.stages.all():
            paths += [(f"/api/events/{event.slug}/stages/{stage.number}/", "Stage")]
    return paths


def test_the_schema_is_a_valid_openapi_document_naming_every_endpoint(site):
    document = schema()
    validate(document)  # openapi-spec-validator: OpenAPI 3.1 and JSON Schema 2020-12
    named = {path.split("{")[0] for path in document["paths"]}
    assert "/api/events/" in named and "/api/ratings/" in named


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_endpoint_answers_what_its_schema_says(site, language):
    document = schema()
    client = Client(headers={"accept-language": language})
    for path, name in every_path(site):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["Content-Type"] == "application/json"
        errors = [e.message for e in validator(document, name).iter_errors(response.json())]
        assert not errors, (path, errors)


def test_the_answers_hold_what_the_pages_show(site):
    client = Client()
    events = client.get("/api/events/").json()["events"]
    assert {e["slug"] for e in events} == set(FILES)
    medals = client.get("/api/events/medals/results/").json()["medals"]
    assert [m["medal"] for m in medals[:3]] == ["gold", "silver", "bronze"]
    assert all(m["players"] for m in medals if m["awarded"])
    page = client.get("/e/medals/results/").content.decode()
    for medal in medals:
        for player in medal["players"]:
            assert player["name"] in page
    pending = client.get("/api/events/playoff/results/").json()["medals"]
    assert any(m["pending"] and len(m["between"]) >= 2 for m in pending)
    stage = client.get("/api/events/rounds/stages/1/").json()
    assert stage["standings"] and stage["standings"][0]["place"] == 1
    totals = [row["total"] for row in stage["standings"] if row["place"] is not None]
    assert totals == sorted(totals)
    series = client.get("/api/series/season/").json()
    assert [e["slug"] for e in series["events"]] and series["divisions"][0]["rows"]


def test_nothing_private_is_in_any_answer(site):
    """A player's registration id, e-mail and birth date, and the tables' codes, are the
    director's: none is in any answer."""
    private = {"ref", "email", "birth"}  # no key of these names, whatever the document
    secrets = []
    for n, event in enumerate(site.values()):
        player = event.players.order_by("pk").first()
        fields = {f.name for f in player._meta.get_fields()}
        player.ref = f"SECRET-REF-{n}"
        if "email" in fields:
            player.email = f"secret{n}@example.org"
        if "birth_date" in fields:
            player.birth_date = date(1931, 2, 3)
        player.save()
        secrets += [player.ref, f"secret{n}@example.org", "1931-02-03"]
        secrets += [t.code for t in Table.objects.filter(stage__event=event) if t.code]
    client = Client()
    for path, _name in every_path(site):
        answer = client.get(path)
        assert not private & keys(answer.json()), path
        text = answer.content.decode()
        assert not [s for s in secrets if s in text], path


def keys(document) -> set[str]:
    if isinstance(document, dict):
        return set(document) | {k for v in document.values() for k in keys(v)}
    if isinstance(document, list):
        return {k for v in document for k in keys(v)}
    return set()


def test_an_etag_gives_304_until_the_event_changes(director_client, site):
    client = Client()
    first = client.get("/api/events/rounds/stages/1/")
    tag = first["ETag"]
    again = client.get("/api/events/rounds/stages/1/", headers={"if-none-match": tag})
    assert again.status_code == 304 and again["ETag"] == tag and not again.content
    # A change to the event moves its version (as every write does): a new answer, a new tag.
    event = site["rounds"]
    event.name = "Renamed Games"
    event.version += 1
    event.save(update_fields=["name", "version"])
    changed = client.get("/api/events/rounds/", headers={"if-none-match": tag})
    assert changed.status_code == 200 and changed.json()["name"] == "Renamed Games"
    assert changed["ETag"] != tag


@pytest.mark.parametrize(
    "path",
    [
        "/api/events/nowhere/",
        "/api/events/nowhere/results/",
        "/api/events/rounds/stages/99/",
        "/api/events/rounds/stages/99999999999999999999/",
        "/api/series/nowhere/",
    ],
)
def test_a_bad_address_is_a_json_404(site, path):
    response = Client().get(path)
    assert response.status_code == 404
    assert response.json() == {"error": "Not found."}


def test_writes_are_refused(site):
    assert Client().post("/api/events/").status_code == 405


def test_one_address_is_limited_and_told_when_to_come_back(site, settings):
    settings.API_REQUESTS_PER_MINUTE = 5
    client = Client(REMOTE_ADDR="192.0.2.7")
    statuses = [client.get("/api/events/").status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    refused = client.get("/api/events/")
    assert refused["Retry-After"] == "60" and "Too many requests" in refused.json()["error"]
    assert Client(REMOTE_ADDR="192.0.2.8").get("/api/events/").status_code == 200


def played_event(director, slug: str, players: int):
    event = make_event(director, slug=slug, engines=[1, 0], game_minutes=None)
    make_players(event, count=players)
    stage = seat(event)
    for table in stage.tables.all():
        play(table, 2)
    return event


def queries(path: str) -> int:
    client = Client()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_the_queries_do_not_grow_with_the_event(director, director_client):
    small, large = played_event(director, "small", 8), played_event(director, "large", 48)
    for path in ("/api/events/{e}/", "/api/events/{e}/stages/1/", "/api/events/{e}/results/"):
        assert queries(path.format(e="small")) == queries(path.format(e="large")), path
    for event in (small, large):
        close(director_client, event.stages.get(number=1))
    assert queries("/api/events/small/results/") == queries("/api/events/large/results/")
    assert queries("/api/events/") == queries("/api/events/")


def test_the_schema_is_served_as_json_for_tools(site):
    response = Client().get("/api/openapi.json")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert json.loads(response.content)["openapi"] == "3.1.0"
