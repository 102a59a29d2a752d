"""The public API's description (OpenAPI 3.1), served at /api/openapi.json: what each endpoint
of scoring/views/api.py answers. tests/test_api.py validates this document and checks every
answer against its schema."""

from __future__ import annotations

from typing import Any

VERSION = "1.0.0"

_STRING = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_URL = {"type": "string", "description": "A path on this site."}


def _object(properties: dict[str, Any], description: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


# A stage as the event lists it; its own document adds the standings.
_STAGE = {
    "number": _INT,
    "title": {"type": "string", "description": "In the reader's language."},
    "kind": {"enum": ["qualifying", "semifinal", "final", "playoff"]},
    "division": _STRING,
    "closed": _BOOL,
    "published": {
        "type": "boolean",
        "description": "Its seating is published: false while the directors' draft (no "
        "standings are given then).",
    },
    "url": _URL,
}
_RESULTS_PUBLISHED = {
    "type": "boolean",
    "description": "False while the directors hold the standings and results back (no "
    "standings or medals are given then).",
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "Error": _object({"error": _STRING}),
    "Index": _object({"events": _URL, "series": _URL, "ratings": _URL, "schema": _URL}),
    "Player": _object(
        {"name": _STRING, "club": _STRING, "division": _STRING},
        "A player as the public pages show them: no e-mail, birth date or code.",
    ),
    "EventSummary": _object(
        {
            "slug": _STRING,
            "name": _STRING,
            "date": {"type": "string", "format": "date"},
            "venue": _STRING,
            "url": _URL,
        }
    ),
    "Events": _object({"events": _list(_ref("EventSummary"))}),
    "StageSummary": _object(_STAGE),
    "Event": _object(
        {
            "slug": _STRING,
            "name": _STRING,
            "date": {"type": "string", "format": "date"},
            "venue": _STRING,
            "medal_tie": {"enum": ["nvso", "shared", "playoff"]},
            "players": _INT,
            "stages": _list(_ref("StageSummary")),
            "results": _URL,
            "results_published": _RESULTS_PUBLISHED,
        }
    ),
    "StandingsRow": _object(
        {
            "place": {"type": ["integer", "null"], "description": "Shared when tied; null: none."},
            "player": _ref("Player"),
            "table": _INT,
            "rounds": _INT,
            "total": _INT,
            "withdrew": _BOOL,
        }
    ),
    "Stage": _object(
        {
            **_STAGE,
            "results_published": _RESULTS_PUBLISHED,
            "standings": _list(_ref("StandingsRow")),
        }
    ),
    "Medal": _object(
        {
            "division": _STRING,
            "medal": {"enum": ["gold", "silver", "bronze"]},
            "players": _list(_ref("Player")),
            "pending": {"type": "boolean", "description": "A playoff is owed for it."},
            "between": _list(_ref("Player")),
            "awarded": _BOOL,
            "out_of_district": {
                **_list(_ref("Player")),
                "description": "Players from outside the district who hold the same medal by "
                "their place among everybody (duplicate medals: senior games).",
            },
        }
    ),
    "Results": _object(
        {"slug": _STRING, "published": _RESULTS_PUBLISHED, "medals": _list(_ref("Medal"))}
    ),
    "SeriesSummary": _object({"slug": _STRING, "name": _STRING, "url": _URL}),
    "SeriesList": _object({"series": _list(_ref("SeriesSummary"))}),
    "SeriesRow": _object(
        {
            "place": _INT,
            "shared": _BOOL,
            "name": _STRING,
            "total": {"type": "number", "description": "Points, or pips per round played."},
            "wins": _INT,
            "events": _INT,
        }
    ),
    "Series": _object(
        {
            "slug": _STRING,
            "name": _STRING,
            "scoring": _STRING,
            "events": _list(_object({"slug": _STRING, "name": _STRING, "counted": _BOOL})),
            "divisions": _list(_object({"division": _STRING, "rows": _list(_ref("SeriesRow"))})),
        }
    ),
    "Rating": _object(
        {
            "place": {"type": "string", "description": "T3 when shared."},
            "name": _STRING,
            "club": _STRING,
            "score": {"type": "number"},
            "games": _INT,
            "events": _INT,
        }
    ),
    "Ratings": _object(
        {"page": _INT, "pages": _INT, "count": _INT, "ratings": _list(_ref("Rating"))}
    ),
}

# path -> (summary, schema of a 200, path parameters, query parameters)
ENDPOINTS: dict[str, tuple[str, str, list[str], list[str]]] = {
    "/api/": ("The API's entry points", "Index", [], []),
    "/api/openapi.json": ("This description", "", [], []),
    "/api/events/": ("The events listed on the home page", "Events", [], []),
    "/api/events/{slug}/": ("An event and its stages", "Event", ["slug"], []),
    "/api/events/{slug}/stages/{stage}/": (
        "A stage's standings, as its page shows them",
        "Stage",
        ["slug", "stage"],
        [],
    ),
    "/api/events/{slug}/results/": (
        "An event's medals, division by division",
        "Results",
        ["slug"],
        [],
    ),
    "/api/series/": ("Every series", "SeriesList", [], []),
    "/api/series/{slug}/": ("A series' standings", "Series", ["slug"], []),
    "/api/ratings/": ("The ratings leaderboard, a page of it", "Ratings", [], ["page"]),
}


def _operation(summary: str, schema: str, path: list[str], query: list[str]) -> dict[str, Any]:
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _INT if name == "stage" else _STRING,
        }
        for name in path
    ] + [{"name": name, "in": "query", "required": False, "schema": _INT} for name in query]
    ok = {"schema": _ref(schema)} if schema else {"schema": {"type": "object"}}
    error = {"application/json": {"schema": _ref("Error")}}
    return {
        "summary": summary,
        "parameters": parameters,
        "responses": {
            "200": {
                "description": "The document; its ETag header, sent back in If-None-Match, "
                "gets 304 until it changes.",
                "content": {"application/json": ok},
            },
            "304": {"description": "Not modified since the ETag sent."},
            "404": {"description": "No such event, stage or series.", "content": error},
            "429": {"description": "Too many requests from this address.", "content": error},
        },
    }


def document() -> dict[str, Any]:
    """The OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Mexican Train scorekeeping: public API",
            "version": VERSION,
            "description": "Read-only: what the public pages show, in JSON. Nothing private.",
        },
        "paths": {path: {"get": _operation(*endpoint)} for path, endpoint in ENDPOINTS.items()},
        "components": {"schemas": SCHEMAS},
    }
