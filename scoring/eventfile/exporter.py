"""An event out to its file: ``export_event`` reads it into the file's shape, ``dumps`` writes it
the one stable way (export, import into an empty site, export again: the same file).

What the site keeps beyond the format goes under ``extra`` keys (see the package's docstring).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from scoring.eventfile.schema import FORMAT, VERSION
from scoring.models import Infraction, Round, ScoreChange
from scoring.qualifiers import division_reports
from scoring.results import ADVANCING_KINDS, EventResults, compute_results
from scoring.sheets import SheetRound, TableSheet, event_sheets
from tournament.models import (
    FORMAT_FIELDS,
    AgeOn,
    ClockEvent,
    Event,
    InfractionPenalty,
    InfractionScope,
    Player,
    QualifierTie,
    Stage,
    Table,
)

# The format's infraction_penalty values are three; a rule the site added since is written as
# the nearest of them, and itself under event.rules.extra.infraction_penalty.
FILE_PENALTY = {InfractionPenalty.SKIP: InfractionPenalty.WARN_THEN_SKIP}
# The finals options a file without them means: each table's winner alone advances.
LEGACY_FINALS = {"top_n": 1, "fill_to": None, "big_final": False}


def dumps(data: dict[str, Any]) -> str:
    """The file's text, always the same for the same event: keys in the documented order."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def player_ids(players: Iterable[Player]) -> dict[int, str]:
    """Each player's id in the file: their ``ref``, else ``p<pk>`` (made unique if a ref took it).

    Import stores the id as the player's ref, so a file read back gives the same ids.
    """
    players = list(players)
    taken = {p.ref for p in players if p.ref}
    ids = {}
    for p in players:
        if p.ref:
            ids[p.pk] = p.ref
            continue
        candidate, n = f"p{p.pk}", 2
        while candidate in taken:
            candidate, n = f"p{p.pk}-{n}", n + 1
        taken.add(candidate)
        ids[p.pk] = candidate
    return ids


def _signup_extra(event: Event) -> dict[str, Any]:
    """``event.extra.signup`` when the event's page takes sign-ups, or did (its settings)."""
    settings = {
        "open": event.signup_open,
        "closes": _moment(event.signup_closes),
        "capacity": event.signup_capacity,
        "approval": event.signup_approval,
    }
    return {"signup": settings} if any(settings.values()) else {}


def _qualifiers_extra(event: Event) -> dict[str, Any]:
    """``event.extra.qualifiers`` when the event sets qualifying places or a next level."""
    if not event.qualifying_places and not event.next_level:
        return {}
    return {
        "qualifiers": {
            "places": event.qualifying_places,
            **({"next_level": event.next_level} if event.next_level else {}),
            **(
                {"tie": event.qualifier_tie}
                if event.qualifier_tie != QualifierTie.ALL_QUALIFY
                else {}
            ),
        }
    }


def _qualifier_report(
    event: Event,
    results: EventResults,
    players: list[Player],
    ids: dict[int, str],
    with_divisions: bool,
) -> dict[str, Any]:
    """``results.extra.qualifiers``: the qualifier and medal report (scoring/qualifiers.py),
    when the event has qualifying places or out-of-district players."""
    if not event.qualifying_places and not any(p.out_of_district for p in players):
        return {}
    reports = division_reports(results, {p.pk: p for p in players})
    return {
        "extra": {
            "qualifiers": [
                {
                    **({"division": row.division or None} if with_divisions else {}),
                    "player": ids[row.player.pk],
                    "place": row.standing.place,
                    **({"medal": row.standing.medal} if row.standing.medal else {}),
                    **({"qualified": row.standing.qualified} if row.standing.qualified else {}),
                    **({"out_of_district": True} if row.standing.out_of_district else {}),
                }
                for report in reports
                for row in report.rows
            ]
        }
    }


def _finals_extra(event: Event) -> dict[str, Any]:
    """The finals options (issue 12), written unless they are what a file without them means:
    each table's winner alone advances."""
    options = {
        "top_n": event.finals_top_n,
        "fill_to": event.finals_fill_to,
        "big_final": event.finals_big_final,
    }
    return {} if options == LEGACY_FINALS else {"finals": options}


def _format(event: Event) -> dict[str, Any]:
    """The event's format (formats/event-file.md), written for the cumulative kinds, every
    setting; a knockout writes none, as every file did before formats."""
    fmt = event.format
    if not fmt.is_cumulative:
        return {}
    return {"format": {name: getattr(fmt, name) for name in FORMAT_FIELDS}}


def _advanced(
    event: Event, results: EventResults, stages: list[Stage], ids: dict[int, str]
) -> dict:
    """``results.advanced``: who goes on from each closed qualifying or semifinal stage; in a
    cumulative event, only from its last game once closed, to the Final (none without one)."""
    fmt = event.format
    if fmt.is_cumulative:
        games = results.games
        last = games[-1] if len(games) == fmt.games else None
        if not fmt.has_final or last is None or not last.closed:
            return {}
        going_on = [last]
    else:
        going_on = [s for s in stages if s.closed and s.kind in ADVANCING_KINDS]
    return {stage.name: [ids[p.pk] for p in results.advancing(stage)] for stage in going_on}


def _cumulative(event: Event, results: EventResults, ids: dict[int, str]) -> dict:
    """``results.cumulative`` (cumulative kinds): after each closed game, by its name, every
    player's cumulative total, lowest first (then in the order of ``players``)."""
    if not event.format.is_cumulative:
        return {}
    order = {pk: n for n, pk in enumerate(ids)}
    return {
        "cumulative": {
            game.name: {
                ids[pk]: total
                for pk, total in sorted(
                    results.cumulative[game.pk].items(), key=lambda kv: (kv[1], order[kv[0]])
                )
            }
            for game in results.games
            if game.pk in results.cumulative
        }
    }


def export_event(event: Event) -> dict[str, Any]:
    """The whole event in the event file's shape, ``results`` computed as the site shows them."""
    sheets = event_sheets(event)
    results = compute_results(event, sheets)
    players = list(event.players.select_related("signup").order_by("pk"))
    ids = player_ids(players)
    stages = sorted(sheets, key=lambda s: s.number)
    stage_index = {stage.pk: index for index, stage in enumerate(stages)}
    table_refs = {
        sheet.table.pk: {"stage": index, "table": sheet.table.number}
        for index, stage in enumerate(stages)
        for sheet in sheets[stage]
    }
    entered: dict[tuple[int, int], datetime] = {
        (table_id, number): at
        for table_id, number, at in Round.objects.filter(table__stage__event=event).values_list(
            "table_id", "number", "entered_at"
        )
    }
    changes: dict[tuple[int, int], list[dict]] = {}
    for change in (
        ScoreChange.objects.filter(round__table__stage__event=event)
        .select_related("round")
        .order_by("changed_at", "pk")
    ):
        changes.setdefault((change.round.table_id, change.round.number), []).append(
            {
                "player": ids[change.player_id],
                "old_pips": change.old_pips,
                "new_pips": change.new_pips,
                "reason": change.reason,
                "changed_at": _moment(change.changed_at),
            }
        )
    clock_events: dict[int, list[dict]] = {}
    for e in ClockEvent.objects.filter(stage__event=event).order_by("at", "pk"):
        pressed = {"action": e.action, "at": _moment(e.at)}
        if e.minutes is not None:
            pressed["minutes"] = e.minutes
        if e.reason:
            pressed["reason"] = e.reason
        clock_events.setdefault(e.stage_id, []).append(pressed)

    def export_round(table: Table, r: SheetRound, seated: list[int]) -> dict:
        order = [pk for pk in seated if pk not in r.filled]
        order += [pk for pk in r.pips if pk not in seated and pk not in r.filled]
        extra: dict[str, Any] = {"entered_at": _moment(entered.get((table.pk, r.number)))}
        if (table.pk, r.number) in changes:
            extra["changes"] = changes[table.pk, r.number]
        if r.awaiting:
            extra["awaiting_confirmation"] = True
        return {
            "engine": r.engine,
            "pips": {ids[pk]: r.pips[pk] for pk in order if pk in r.pips},
            "extra": extra,
        }

    def export_infraction(i: Infraction) -> dict:
        extra: dict[str, Any] = {"logged_at": _moment(i.logged_at)}
        if i.original_action != i.action:
            extra["original_action"] = i.original_action
        if i.change_reason:
            extra["reason"] = i.change_reason
        if i.changed_at is not None:
            extra["changed_at"] = _moment(i.changed_at)
        return {
            "player": ids[i.player_id],
            "engine": i.engine,
            "kind": i.kind,
            "action": i.action,
            "note": i.note,
            "extra": extra,
        }

    def export_table(sheet: TableSheet) -> dict:
        seated = [p.pk for p in sheet.players]
        out = {
            "number": sheet.table.number,
            "players": [ids[pk] for pk in seated],
            "rounds": [export_round(sheet.table, r, seated) for r in sheet.rounds],
            "infractions": [export_infraction(i) for i in sheet.infractions],
        }
        extra = {}
        if sheet.table.game_over_after is not None:
            extra["game_over_after"] = sheet.table.game_over_after
        if sheet.left:
            extra["withdrew"] = {ids[pk]: n for pk, n in sheet.left.items()}
        if sheet.joined:
            extra["joined"] = {ids[pk]: n for pk, n in sheet.joined.items()}
        if sheet.table.clock_added:
            extra["added_minutes"] = round(sheet.table.clock_added.total_seconds() / 60)
        if extra:
            out["extra"] = extra
        return out

    def export_stage(stage: Stage) -> dict:
        out: dict[str, Any] = {"name": stage.name, "kind": stage.kind}
        if stage.medal:
            out["medal"] = stage.medal
        out["closed"] = stage.closed
        out["tables"] = [export_table(sheet) for sheet in sheets[stage]]
        extra: dict[str, Any] = {}
        if stage.division:
            extra["division"] = stage.division
        if stage.playoff_table_id is not None:
            extra["table"] = table_refs[stage.playoff_table_id]
        if stage.wildcards_of_id is not None:
            extra["wildcards_of"] = stage_index[stage.wildcards_of_id]
        clock = {
            "started_at": _moment(stage.clock_started_at),
            "paused_at": _moment(stage.clock_paused_at),
            "paused_total": (
                None
                if stage.clock_paused_total is None
                else stage.clock_paused_total.total_seconds()
            ),
            "time_called_at": _moment(stage.time_called_at),
        }
        if stage.clock_added:
            clock["added_minutes"] = round(stage.clock_added.total_seconds() / 60)
        if any(v is not None for v in clock.values()):
            extra["clock"] = clock
        if stage.pk in clock_events:
            extra["clock_events"] = clock_events[stage.pk]
        if stage.allowed_size:
            extra["allowed_size"] = stage.allowed_size
        if stage.seating_draft:
            extra["draft"] = True
        if stage.kept_advancers:
            extra["kept_seating"] = {
                division: [ids[pk] for pk in advancers if pk in ids]
                for division, advancers in sorted(stage.kept_advancers.items())
            }
        if extra:
            out["extra"] = extra
        return out

    former: dict[int, list[str]] = {}
    for data in (
        event.actions.filter(verb="player.edited")
        .order_by("at", "pk")
        .values_list("data", flat=True)
    ):
        if data.get("renamed_from") and data.get("player_pk") in ids:
            former.setdefault(data["player_pk"], []).append(data["renamed_from"])
    with_divisions = any(p.division for p in players)
    medals = []
    for division in results.medals:
        for award in division.result.medals:
            entry = award.as_dict()
            entry["players"] = [ids[pk] for pk in entry["players"]]
            if "between" in entry:
                entry["between"] = [ids[pk] for pk in entry["between"]]
            if with_divisions:
                entry = {"division": division.division or None, **entry}
            medals.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "event": {
            "name": event.name,
            "date": event.date.isoformat(),
            "venue": event.venue,
            "rules": {
                "set": event.set_size,
                **({"sets": event.sets} if event.sets != 1 else {}),
                "engines": list(event.engines),
                "tiles_drawn": {
                    str(size): drawn
                    for size, drawn in sorted(((int(k), v) for k, v in event.tiles_drawn.items()))
                },
                "game_minutes": event.game_minutes,
                "round_in_progress": event.round_in_progress,
                "double_blank_points": event.double_blank_points,
                "advancement_tie": event.advancement_tie,
                "medal_tie": event.medal_tie,
                "infraction_penalty": FILE_PENALTY.get(
                    event.infraction_penalty, event.infraction_penalty
                ),
                "extra": {
                    "table_size": event.table_size,
                    **(
                        {"infraction_penalty": event.infraction_penalty}
                        if event.infraction_penalty in FILE_PENALTY
                        else {}
                    ),
                    **(
                        {"infraction_scope": event.infraction_scope}
                        if event.infraction_scope != InfractionScope.GAME
                        else {}
                    ),
                    **({"late_arrivals": True} if event.late_arrivals else {}),
                },
            },
            **_format(event),
            "extra": {
                "paper_size": event.paper_size,
                **({"time_zone": event.time_zone} if event.time_zone else {}),
                **_finals_extra(event),
                **({"sheet_language": event.sheet_language} if event.sheet_language else {}),
                **({"seed_by_rating": True} if event.seed_by_rating else {}),
                **({"table_entry": True} if event.table_entry else {}),
                **({"age_brackets": event.age_brackets} if event.age_brackets else {}),
                **({"age_on": event.age_on} if event.age_on != AgeOn.EVENT_DATE else {}),
                **({"archived": True} if event.archived else {}),
                **_qualifiers_extra(event),
                **({"results_held": True} if event.results_held else {}),
                **_signup_extra(event),
            },
        },
        "players": [
            {
                "id": ids[p.pk],
                "name": p.name,
                "division": p.division or None,
                "extra": {
                    **({"club": p.club} if p.club else {}),
                    **({"keep_apart": p.keep_apart} if p.keep_apart else {}),
                    "checked_in": p.checked_in,
                    **({"withdrawn": True} if p.withdrawn else {}),
                    **({"former_names": former[p.pk]} if p.pk in former else {}),
                    **({"signed_up": p.signup.place} if hasattr(p, "signup") else {}),
                    **({"waiting": p.waiting} if p.waiting else {}),
                    **({"out_of_district": True} if p.out_of_district else {}),
                    **({"birth_date": p.birth_date.isoformat()} if p.birth_date else {}),
                },
            }
            for p in players
        ],
        "stages": [export_stage(stage) for stage in stages],
        "results": {
            "advanced": _advanced(event, results, stages, ids),
            **_cumulative(event, results, ids),
            "medals": medals,
            **_qualifier_report(event, results, players, ids, with_divisions),
        },
    }
