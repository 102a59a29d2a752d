"""Every write of a score goes through here, one function per user action, in a transaction."""

from __future__ import annotations

from django.db import transaction

from scoring.models import Round, Score, ScoreChange
from scoring.sheets import table_sheet
from tournament.clocks import entry_after_time
from tournament.models import StageKind, Table
from tournament.rules import RoundErrors, round_errors


class RoundRejected(Exception):
    """The round was not saved; ``errors`` says which field is wrong and why."""

    def __init__(self, errors: RoundErrors):
        super().__init__("; ".join(errors.whole + [m for ms in errors.fields.values() for m in ms]))
        self.errors = errors


def _locked(table: Table) -> Table:
    """Lock the table row so two desks cannot save the same round at once."""
    return Table.objects.select_for_update().select_related("stage__event").get(pk=table.pk)


def _check(sheet, engine: int, pips: dict[int, object]) -> dict[int, int]:
    seated = {p.pk for p in sheet.players}
    errors = round_errors(sheet.rules, engine, pips)
    if set(pips) != seated:
        errors.whole.append("Enter a pip count for every player seated at the table.")
    if errors:
        raise RoundRejected(errors)
    return {pid: int(v) for pid, v in pips.items()}


@transaction.atomic
def record_round(
    table: Table, pips: dict[int, object], user, engine: int | None = None, late: bool = False
) -> Round:
    """Save the next round of ``table``: a pip count for every seated player, all or nothing.

    ``engine`` is the engine the scorekeeper saw on the page; when another desk saved that round
    in the meantime, this one is refused rather than filed under the next engine. Once time is
    called, only the round that ``tournament.clocks.entry_after_time`` leaves may be entered,
    unless a director vouches (``late``) that the round was finished before time but typed late.
    """
    table = _locked(table)
    sheet = table_sheet(table)
    next_engine = sheet.next_engine
    if next_engine is None:
        raise RoundRejected(
            RoundErrors(whole=["Every round of this table has been entered: the game is over."])
        )
    if table.stage.closed:
        raise RoundRejected(RoundErrors(whole=["This stage is closed."]))
    after_time = entry_after_time(sheet)
    if after_time is not None and not after_time.may_enter and not late:
        raise RoundRejected(RoundErrors(whole=[after_time.message]))
    if sheet.is_playoff:
        # A playoff is one round with the engine the director picks (default the highest).
        next_engine = next_engine if engine is None else engine
        if not 0 <= next_engine <= sheet.rules.set:
            raise RoundRejected(
                RoundErrors(
                    whole=[f"The engine must be a double of the set, 0 to {sheet.rules.set}."]
                )
            )
    elif engine is not None and engine != next_engine:
        raise RoundRejected(
            RoundErrors(
                whole=[
                    f"Round {engine}-{engine} has already been entered; the next round is "
                    f"{next_engine}-{next_engine}. Reload the page."
                ]
            )
        )
    clean = _check(sheet, next_engine, pips)
    saved = Round.objects.create(
        table=table, number=len(sheet.rounds) + 1, engine=next_engine, entered_by=user
    )
    Score.objects.bulk_create(Score(round=saved, player_id=pid, pips=v) for pid, v in clean.items())
    if sheet.is_playoff:
        from scoring.advancement import settle_playoff

        settle_playoff(table.stage)
    return saved


@transaction.atomic
def correct_round(round: Round, pips: dict[int, object], user, reason: str) -> list[ScoreChange]:
    """A director corrects a saved round; every changed pip count is recorded with the reason."""
    if not reason.strip():
        raise RoundRejected(RoundErrors(whole=["Give the reason for the correction."]))
    _locked(round.table)
    sheet = table_sheet(round.table)
    clean = _check(sheet, round.engine, pips)
    changes = []
    for score in round.scores.select_for_update():
        new = clean[score.player_id]
        if new != score.pips:
            changes.append(
                ScoreChange(
                    round=round,
                    player_id=score.player_id,
                    old_pips=score.pips,
                    new_pips=new,
                    reason=reason.strip(),
                    changed_by=user,
                )
            )
            score.pips = new
            score.save(update_fields=["pips"])
    ScoreChange.objects.bulk_create(changes)
    stage = round.table.stage
    if changes and (stage.closed or stage.kind == StageKind.PLAYOFF):
        from scoring.advancement import sync_playoffs

        sync_playoffs(stage.event)  # a corrected tie may call for a playoff
    return changes
