"""The road of an event as it stands: a knockout's finals plan (issue 12), a cumulative
format's road (issue 30). Counts the players from the rows and asks tournament/game/finals.py
or tournament/game/formats.py. Reads only."""

from __future__ import annotations

from collections import Counter

from tournament.game.finals import FinalsPlan, plan_finals
from tournament.game.formats import road
from tournament.game.message import Message
from tournament.models import Event, Seat, Stage, StageKind


def current_stage(event: Event) -> Stage | None:
    """The last seated stage that is not a playoff: where the road to the Final stands."""
    return (
        event.stages.exclude(kind=StageKind.PLAYOFF)
        .filter(tables__isnull=False)
        .order_by("-number")
        .first()
    )


def event_plans(
    event: Event, stage: Stage | None = None, advancers: dict[str, int] | None = None
) -> list[tuple[str, FinalsPlan]]:
    """(division, plan) for each division, from ``stage`` (default: the current one) to the
    Final; before anyone is seated, from the players checked in. ``advancers``: by division,
    how many ``stage`` really sends on (its close, ties included)."""
    advancers = advancers or {}
    rules, options = event.rules, event.finals_options
    stage = stage or current_stage(event)
    seats = Seat.objects.filter(stage=stage) if stage is not None else Seat.objects.none()
    counts = Counter(seats.values_list("player__division", flat=True))
    if not counts:
        counts = Counter(event.players.present().values_list("division", flat=True))
        stage = None
    if stage is None:
        return [(d, plan_finals(n, rules, options)) for d, n in sorted(counts.items())]
    semifinals = event.stages.filter(kind=StageKind.SEMIFINAL, number__lt=stage.number).count()
    return [
        (
            division,
            plan_finals(
                n,
                rules,
                options,
                first=stage.title,
                seeded=stage.kind != StageKind.QUALIFYING,
                semifinals=semifinals,
                advancers=advancers.get(division),
            ),
        )
        for division, n in sorted(counts.items())
    ]


def event_roads(event: Event) -> list[tuple[str, Message]]:
    """(division, road) of a cumulative event (tournament/game/formats.py ``road``), from the
    players of its last seated game, or the players checked in before Game 1 is seated; [] for
    a knockout (its road is ``event_plans``). Two queries."""
    fmt = event.format
    if not fmt.is_cumulative:
        return []
    game = (
        event.stages.filter(kind=StageKind.QUALIFYING, tables__isnull=False)
        .order_by("-number")
        .first()
    )
    seats = Seat.objects.filter(stage=game) if game is not None else Seat.objects.none()
    counts = Counter(seats.values_list("player__division", flat=True))
    if not counts:
        counts = Counter(event.players.present().values_list("division", flat=True))
    if not counts:
        return [("", road(fmt, event.rules))]
    return [(d, road(fmt, event.rules, n)) for d, n in sorted(counts.items())]
