"""The seating-conflict check (scoring/results.py seating_conflicts) in linear time (issue 32
item 2): the conflicts the pairwise check of model instances found, found by ids, without one
model compared with another whatever the size. Plain results, no database: stages, tables and
players are unsaved model instances, the sheets carry what the check reads."""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.db.models import Model
from hypothesis import given
from hypothesis import strategies as st

from scoring.results import (
    ADVANCING_KINDS,
    EventResults,
    PlayoffOwed,
    SeatingConflict,
    by_division,
    seating_conflicts,
)
from tournament.game import awards
from tournament.models import Player, Stage, StageKind, Table


@dataclass
class Sheet:
    """What the check reads of a table's sheet: the table and its players in seat order."""

    table: Table
    players: list[Player]


def pairwise(results: EventResults) -> list[SeatingConflict]:
    """The check as it was before issue 32: each stage's divisions found again per earlier
    stage, the advancers per division, players compared as model instances, one list with
    another."""
    conflicts = []
    ordered = sorted(results.sheets, key=lambda s: s.number)
    for stage in ordered:
        if stage.kind not in (StageKind.SEMIFINAL, StageKind.FINAL) or not results.sheets[stage]:
            continue
        for division, tables in by_division(results.sheets[stage]).items():
            source = None
            for earlier in ordered:
                if earlier.number >= stage.number or earlier.kind not in ADVANCING_KINDS:
                    continue
                if division in by_division(results.sheets[earlier]):
                    source = earlier
            if source is None or not source.closed:
                continue
            if any(o.division == division for o in results.owed_for(source)):
                continue
            now = [p for p in results.advancing(source) if p.division == division]
            ids = sorted(p.pk for p in now)
            if stage.kept_advancers.get(division) == ids:
                continue
            seated = [p for s in tables for p in s.players]
            out = [p for p in seated if p.pk not in set(ids)]
            in_ = [p for p in now if p not in seated]
            if out or in_:
                conflicts.append(SeatingConflict(stage, source, division, out, in_, ids))
    return conflicts


def shown(conflicts: list[SeatingConflict]) -> list[tuple]:
    return [
        (c.stage.pk, c.source.pk, c.division, [p.pk for p in c.out], [p.pk for p in c.in_])
        + (c.advancers,)
        for c in conflicts
    ]


def event(seed: int, players: int, divisions: int, semifinal: bool) -> EventResults:
    """Game 1, a semifinal or not, a Final, seated division by division at tables of four: the
    top of each table advances, then some corrections change who (a seated player swapped
    for one who now advances, or one more advancer), a director keeps one seating, a playoff
    is owed in one division, a source still open."""
    rng = random.Random(seed)
    names = [chr(ord("A") + d) for d in range(divisions)] if divisions > 1 else [""]
    field = [
        Player(pk=i + 1, name=f"P{i + 1}", division=names[i % len(names)]) for i in range(players)
    ]
    kinds = [StageKind.QUALIFYING] + [StageKind.SEMIFINAL] * semifinal + [StageKind.FINAL]
    stages = [
        Stage(pk=n + 1, number=n + 1, kind=kind, closed=rng.random() < 0.9, kept_advancers={})
        for n, kind in enumerate(kinds)
    ]
    results = EventResults(event=None, sheets={s: [] for s in stages})
    table_ids = iter(range(1, 10**6))
    playing = {d: [p for p in field if p.division == d] for d in names}
    for stage in stages:
        nxt = {}
        for d in names:
            group = playing[d]
            tables = [group[i : i + 4] for i in range(0, len(group), 4)]
            advancing = []
            for seated in tables:
                table = Table(pk=next(table_ids), number=len(results.sheets[stage]) + 1)
                results.sheets[stage].append(Sheet(table, seated))
                top = tuple(p.pk for p in seated[: rng.choice([1, 1, 2])])
                results.advancement[table.pk] = awards.Advancement(top)
                advancing += [p for p in seated if p.pk in top]
            seated_next = list(advancing)
            if advancing and rng.random() < 0.5:  # a correction: one seated no longer advances
                gone = rng.choice(advancing)
                others = [p for p in group if p not in advancing]
                if others:
                    seated_next[seated_next.index(gone)] = rng.choice(others)
            if stage is not stages[-1] and rng.random() < 0.2:  # the next stage kept
                stages[stages.index(stage) + 1].kept_advancers[d] = sorted(p.pk for p in advancing)
            if rng.random() < 0.1:
                results.owed.append(PlayoffOwed(None, d, stage=stage))
            rng.shuffle(seated_next)
            nxt[d] = seated_next
        playing = nxt
    return results


@given(
    st.integers(0, 10**6),
    st.integers(0, 60),
    st.integers(1, 3),
    st.booleans(),
)
def test_the_same_conflicts_as_the_pairwise_check(seed, players, divisions, semifinal):
    results = event(seed, players, divisions, semifinal)
    assert shown(seating_conflicts(results)) == shown(pairwise(results))


def test_corrections_and_a_kept_seating_make_conflicts_in_the_generated_events():
    """The generated events are not all without conflicts, nor all with."""
    found = [bool(seating_conflicts(event(seed, 40, 2, True))) for seed in range(30)]
    assert any(found) and not all(found)


def test_no_player_is_compared_with_another_whatever_the_size(monkeypatch):
    """Model.__eq__ was called 532,974 times in one view of a 4,000-player event's home."""
    compared = []
    equal = Model.__eq__

    def counted(self, other):
        compared.append(1)
        return equal(self, other)

    monkeypatch.setattr(Model, "__eq__", counted)
    calls = {}
    for players in (200, 2000):
        results = event(5, players, 2, True)
        compared.clear()
        conflicts = seating_conflicts(results)
        calls[players] = len(compared)
        assert conflicts  # the check had something to find
    assert calls[2000] == calls[200]
