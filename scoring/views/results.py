"""Standings, table sheets, closing a stage, the bracket and the results: PRODUCT.md §4, §6, §7."""

import re
from collections import Counter

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject, cached_property
from django.utils.translation import gettext as _
from django.views.generic import TemplateView

from scoring.charts import spread_chart, totals_chart
from scoring.cumulative import cumulative_standings, out_note
from scoring.dashboard import clock_never_started
from scoring.lists import (
    UNRANKED,
    place_text,
    progress_text,
    rank_keys,
    shown_total,
    standings_headers,
    standings_rows,
    standings_sort,
    table_cards,
    tie_format,
    url_head,
)
from scoring.printing import SHEETS_PER_PDF, cumulative_board, table_blocks
from scoring.results import (
    close_advancers,
    compute_results,
    cut_ties,
    find_conflict,
    game_stages,
    incomplete_tables,
    next_stage_plan,
    not_yet_created,
    progressive_moves,
    short_table_notes,
    table_division,
    walkover,
    walkover_undecided,
)
from scoring.services.printing import blank_on_seating
from scoring.services.rounds import RoundRejected, end_games
from scoring.services.stages import (
    AdvanceError,
    apply_correction,
    close_and_seat,
    keep_seating,
    seat_next_stage,
)
from scoring.services.table_entry import phone_rounds
from scoring.sheets import (
    event_sheets,
    event_summaries,
    settled_places,
    settled_standings,
    stage_progress,
    stage_standings,
    stage_summaries,
    table_sheet,
)
from scoring.views.infractions import sheet_infractions
from scoring.views.seating import DRAFT_NOTE, allow_redirect, posted_size, size_offer
from tournament.caching import LiveMixin, fragment_key, identity_key, kept_read, version_key
from tournament.clock import read_clock, table_clock
from tournament.finals import event_plans, event_roads
from tournament.game import formats
from tournament.mixins import (
    DirectorRequiredMixin,
    EventMixin,
    StageMixin,
    TableMixin,
    not_published_response,
    posted_key,
)
from tournament.models import Medal, StageKind, Table
from tournament.text import name_sort_key, translated


def public_key(view) -> str:
    """The cached parts' key of a page of the event: its version, and what the reader may see
    (a draft seating, results held: issue 49 item 4), so a director's render is never shown
    to the public."""
    hidden = (getattr(view, "seating_hidden", False), view.results_hidden, view.is_director)
    return f"{fragment_key(view.event)}.{''.join(str(int(h)) for h in hidden)}"


class ResultsMixin(LiveMixin, EventMixin):
    """The bracket and the results: computed only when their cached part misses."""

    @cached_property
    def seating_hidden(self) -> bool:
        """A stage's seating is a draft and the reader is no director: the results are made
        as if it were not seated (issue 49 item 4)."""
        return not self.is_director and self.event.stages.filter(seating_draft=True).exists()

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        event = self.event
        drafts = self.seating_hidden
        results = SimpleLazyObject(
            lambda: kept_read(
                f"results:{version_key(event)}:{int(drafts)}",
                lambda: compute_results(event, published(event_summaries(event), drafts)),
            )
        )
        ctx["results"] = results
        ctx["bracket"] = SimpleLazyObject(lambda: bracket(results))
        ctx["medal_rows"] = SimpleLazyObject(lambda: medal_rows(results))
        ctx["board"] = SimpleLazyObject(lambda: cumulative_board(results, ctx["medal_rows"]))
        ctx["fragment_key"] = public_key(self)
        ctx["fragment_seconds"] = settings.FRAGMENT_CACHE_SECONDS
        return ctx


def published(summaries: dict, drafts: bool) -> dict:
    """The stages' sheets as the public may see them: a draft seating's stage with no table
    (``drafts``: some stage is a draft and the reader is no director)."""
    if not drafts:
        return summaries
    return {stage: [] if stage.seating_draft else sheets for stage, sheets in summaries.items()}


def bracket(results):
    """Stages in play order, each with its tables: players with total, place and outcome."""
    medal_of = results.medal_of()
    pending: dict[int, set[int]] = {}  # stage id -> players whose outcome a playoff decides
    for o in results.owed:
        pending.setdefault(o.stage.pk, set()).update(o.owed.players)
    settled_by = {d.division: d for d in results.medals}
    away = results.out_of_district()
    out = []
    for stage in sorted(results.sheets, key=lambda s: s.number):
        head = url_head("table", results.event.slug, stage.number)
        tables = []
        decides = results.decides(stage)
        # going on by their total: the wildcards, or (nobody goes on by place: the best N
        # overall, a cumulative game's cut) simply the stage's advancers
        wild = results.wildcards_of(stage)
        overall = results.by_total(stage) - wild
        for sheet in results.sheets[stage]:
            adv = results.advancement.get(sheet.table.pk)
            division = table_division(sheet)
            final = division in decides
            places = sheet.places
            totals = sheet.totals
            if final:  # a Final's order as its medals settled it (issue 28 item 18)
                settled = settled_by.get(division)
                places = settled_places(
                    places,
                    settled.result if settled else None,
                    settled.outside if settled else None,
                )
                last = len(places) + 1
                order = {p.pk: (places.get(p.pk, last), totals.get(p.pk, 0)) for p in sheet.players}
            else:
                order = {p.pk: totals.get(p.pk, 0) for p in sheet.players}
            rows = [
                {
                    "player": p,
                    # nothing entered yet (an unplayed playoff): no total, shown "—"
                    "total": sheet.totals.get(p.pk, 0) if sheet.played else None,
                    "shown": str(sheet.totals.get(p.pk, 0)) if sheet.played else "—",
                    "place": places.get(p.pk) if sheet.played else None,
                    "advanced": p.pk in overall or adv is not None and p.pk in adv.advancing,
                    "wildcard": p.pk in wild,
                    "medal": medal_of.get(p.pk) if final else None,
                    "away": p.pk in away,
                    "pending": p.pk in pending.get(stage.pk, ()),
                }
                for p in sorted(sheet.players, key=lambda p: order[p.pk])
            ]
            number = sheet.table.number
            tables.append(
                {
                    "sheet": sheet,
                    "rows": rows,
                    # a medal, a wildcard or a pending playoff beside a name: the printed
                    # bracket gives the box a column for them, on the name's line
                    "marks": any(r["medal"] or r["wildcard"] or r["pending"] for r in rows),
                    "url": f"{head}{number}/",
                    "name": _("Table %(n)s") % {"n": number},
                }
            )
        out.append({"stage": stage, "tables": tables})
    return out


def medal_rows(results):
    """(division, medal, names or None, pending between names, none, and ``away``: the
    out-of-district players holding the same medal by their place among everybody, PRODUCT.md
    §15) for templates. ``players``, ``pending`` and ``none`` are the in-district medal's."""
    players = results.players
    rows = []
    for division in results.medals:
        for award in division.result.medals:
            rows.append(
                {
                    "division": division.division,
                    "medal": award.medal,
                    "players": [players[pk] for pk in award.players],
                    "pending": award.pending,
                    "between": [players[pk] for pk in award.between],
                    "none": award.none,
                    "away": [
                        players[pk]
                        for pk in division.holders(award.medal)
                        if pk not in award.players
                    ],
                }
            )
    return rows


class BracketView(ResultsMixin, TemplateView):
    template_name = "scoring/bracket.html"
    live_regions = {"live-bracket": "scoring/_bracket_live.html"}


class ResultsView(ResultsMixin, TemplateView):
    template_name = "scoring/results.html"
    live_regions = {"live-results": "scoring/_results_live.html"}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stage_standings"] = SimpleLazyObject(lambda: results_standings(ctx["results"]))
        ctx["tie_format"] = tie_format()
        return ctx


def results_standings(results):
    """(stage, [(standings row, medal or "playoff pending", text)], shows medals) per stage, in
    play order (issue 12 item 5); a stage that is a division's Final shows the medals. The text
    is the row's place (T3 when shared; a withdrawal says so), table and total, ready to show
    (a number a template shows is localized one by one: 10 ms for 1,000 rows)."""
    medal_of = results.medal_of()
    pending = {pk for o in results.owed if o.table is None for pk in o.owed.players}
    outcome = {
        pk: _("playoff pending")
        if pk in pending
        else (Medal(medal_of[pk]).label if pk in medal_of else "")
        for pk in results.players
    }
    return [
        (
            stage,
            [
                (row, outcome.get(row.player.pk, ""), text)
                for row, text in result_rows(stage, sheets, *stage_medals(results, stage))
            ],
            bool(results.decides(stage)),
        )
        for stage, sheets in sorted(results.sheets.items(), key=lambda kv: kv[0].number)
        if sheets and stage.kind != StageKind.PLAYOFF
    ]


def stage_medals(results, stage):
    """The medals ``stage`` settles when it is the Final of one division, and the duplicate
    medals of its out-of-district players: (result, outside), else (None, None)."""
    decides = results.decides(stage)
    if len(decides) != 1:
        return None, None
    found = next((d for d in results.medals if d.division == decides[0]), None)
    return (found.result, found.outside) if found else (None, None)


def shown_standings(stage, sheets=None):
    """A stage's standings as every page, PDF and export shows them: a closed stage that is a
    division's Final ordered as its medals settled it (a playoff's winner first, issue 28
    item 18), the results computed only then."""
    rows = stage_standings(stage, sheets)
    if not stage.closed or stage.kind == StageKind.PLAYOFF:
        return rows
    results = compute_results(stage.event, event_summaries(stage.event))
    return settled_standings(rows, *stage_medals(results, stage))


def result_rows(stage, sheets, medals=None, outside=None):
    """A stage's standings rows, each with its place, table and total as the page shows them;
    a Final's as its ``medals`` settled them (a playoff's winner first), out-of-district
    medallists (``outside``) at their medal's place."""
    rows = settled_standings(stage_standings(stage, sheets), medals, outside)
    shared = Counter(r.place for r in rows)
    ranks = rank_keys(rows)
    for r in rows:
        place = place_text(r.place, shared[r.place], r.withdrew_after)
        total = str(r.total) if r.rounds else UNRANKED  # no round played: no total yet
        yield (
            r,
            {
                "place": place,
                "table": str(r.table.number),
                "total": total,
                "key": f"s{stage.pk}p{r.player.pk}",  # a live page's piece (tournament/live.py)
                "rank": str(ranks.get(r.player.pk, "")),
            },
        )


# -- a cumulative event's standings (issue 30, PRODUCT.md §12) ---------------------------------


def _outcome_notes(results) -> dict[int, str]:
    """What the standings say beside a player who still contends, once the games decide it: a
    medal, "playoff pending", or "finalist" (plays the Final)."""
    notes = {pk: _("finalist") for g in results.games[-1:] for pk in results.by_total(g)}
    notes.update({pk: _("playoff pending") for o in results.owed for pk in o.owed.players})
    notes.update({pk: str(Medal(m).label) for pk, m in results.medal_of().items()})
    return notes


def _out_note(row, sheet=None) -> str:
    """Why a player has no place in a cumulative event's standings: they withdrew (after
    round N of this game, when ``sheet`` is its table), or missed a game."""
    if sheet is not None and row.player.pk in sheet.left:
        return place_text(None, 1, sheet.left[row.player.pk])
    return out_note(row)


def game_standings(results, stage) -> list[dict]:
    """A cumulative event's game ``stage`` as its standings page shows it, division by
    division (scoring/cumulative.py): each player's place by the cumulative total after this
    game (T3 when shared), table, this game's total and the running total, with a game in
    progress as it stands; a player who withdrew or missed a game after the places, marked;
    the last game's medals, cut or playoffs beside the names. Text ready to show."""
    event = results.event
    standings = cumulative_standings(results, through=stage)
    index = next((i for i, g in enumerate(standings.games) if g.pk == stage.pk), None)
    seated = {p.pk: sheet for sheet in results.sheets.get(stage, ()) for p in sheet.players}
    is_last = bool(results.games) and results.games[-1].pk == stage.pk
    notes = _outcome_notes(results) if is_last else {}
    player_head = url_head("player", event.slug)
    table_head = url_head("table", event.slug, stage.number)
    by_division: dict[str, list[dict]] = {}

    def show(player, place: str, game, running, note: str, rank="") -> None:
        sheet = seated.get(player.pk)
        number = sheet.table.number if sheet is not None else None
        by_division.setdefault(player.division, []).append(
            {
                "key": f"p{player.pk}",  # a live page's piece (tournament/live.py)
                "rank": str(rank),
                "place": place,
                "name": player.name,
                "player_url": f"{player_head}{player.pk}/",
                "table": "" if number is None else str(number),
                "table_url": "" if number is None else f"{table_head}{number}/",
                # not seated in this game, or their table has not started: no game total
                "game": shown_total(game if sheet is not None and sheet.played else None),
                "running": shown_total(running),
                "note": note,
            }
        )

    for rows in standings.divisions.values():
        shared = Counter(r.place for r in rows)
        ranks = rank_keys(rows)
        for r in rows:
            pk = r.player.pk
            show(
                r.player,
                place_text(r.place, shared[r.place]),
                r.games[index] if index is not None else None,
                r.running[index] if index is not None else r.total,
                _out_note(r, seated.get(pk)) if r.out else notes.get(pk, ""),
                ranks.get(pk, ""),
            )
    # Seated in this game with no total yet anywhere (Game 1 before its first round): unranked.
    listed = {r.player.pk for r in standings.rows}
    newcomers = [p for sheet in results.sheets.get(stage, ()) for p in sheet.players]
    for p in sorted(newcomers, key=lambda p: name_sort_key(p.name)):
        if p.pk not in listed:
            left = p.pk in seated[p.pk].left
            note = place_text(None, 1, seated[p.pk].left[p.pk]) if left else ""
            show(p, UNRANKED, None, None, note)
    return [{"division": d, "rows": by_division[d]} for d in sorted(by_division)]


def event_cumulative(results) -> dict:
    """A cumulative event's standings after every game (scoring/cumulative.py), as its page
    shows them: the games' names, then division by division each player's place by the
    cumulative total, every game's total and the running total after it, the Final's total
    when one is played, the total, and a note (a medal, the cut, a withdrawal). Text ready to
    show."""
    event = results.event
    standings = cumulative_standings(results)
    final = results.final if results.format.has_final else None
    final_sheets = results.sheets.get(final, ()) if final is not None else ()
    final_totals = {pk: t for s in final_sheets if s.played for pk, t in s.totals.items()}
    notes = _outcome_notes(results)
    player_head = url_head("player", event.slug)
    divisions = []
    for division, rows in standings.divisions.items():
        shared = Counter(r.place for r in rows)
        ranks = rank_keys(rows)
        divisions.append(
            {
                "division": division,
                "rows": [
                    {
                        "key": f"p{r.player.pk}",  # a live page's piece (tournament/live.py)
                        "rank": str(ranks.get(r.player.pk, "")),
                        "place": place_text(r.place, shared[r.place]),
                        "name": r.player.name,
                        "player_url": f"{player_head}{r.player.pk}/",
                        "cells": [
                            (shown_total(g), shown_total(run))
                            for g, run in zip(r.games, r.running, strict=True)
                        ],
                        "final": shown_total(final_totals.get(r.player.pk)),
                        "total": str(r.total),
                        "note": _out_note(r) if r.out else notes.get(r.player.pk, ""),
                    }
                    for r in rows
                ],
            }
        )
    return {
        "games": [g.title for g in standings.games],
        "final": final.title if final_totals else "",
        "divisions": divisions,
    }


def is_game(event, stage, stages) -> bool:
    """Whether ``stage`` is one of a cumulative event's games (its standings add up)."""
    fmt = event.format
    return fmt.is_cumulative and any(g.pk == stage.pk for g in game_stages(fmt, stages))


def closing_text(results, stage) -> str:
    """What closing ``stage`` of a cumulative event does (its close page): the next game seated
    by the reseating rule; after the last game, the medals or the cut to the Final; the
    Final's medals."""
    fmt, games = results.format, results.games
    at = next((i for i, g in enumerate(games) if g.pk == stage.pk), None)
    if at is not None and at + 1 < len(games):
        return _("Closing %(s)s seats %(next)s: everyone still playing is reseated %(rule)s.") % {
            "s": stage.title,
            "next": games[at + 1].title,
            "rule": translated(formats.reseat_rule(fmt)),
        }
    final = results.final
    if at is not None and (not fmt.has_final or final is None):
        return _(
            "%(s)s is the last game: closing it gives the medals from the cumulative totals."
        ) % {"s": stage.title}
    if at is not None:
        return _(
            "%(s)s is the last game: closing it sends the %(n)s lowest cumulative totals of each "
            "division to the Final (a tie at the cut is played off)."
        ) % {"s": stage.title, "n": fmt.final_players(results.event.rules)}
    if final is not None and stage.pk == final.pk:
        if fmt.medals_from == formats.CUMULATIVE_PLUS_FINAL:
            return _(
                "Closing %(s)s gives the medals from each finalist's cumulative total plus their "
                "total in it."
            ) % {"s": stage.title}
        return _("Closing %(s)s gives the medals from its totals alone.") % {"s": stage.title}
    return ""


def finalists(results, stage) -> list[tuple[str, list[str]]]:
    """(division, "name (cumulative total)" in order) of the players a cumulative event's last
    game sends to the Final, as its close decides them (a tie at the cut: those clear of it,
    the playoff deciding the rest)."""
    if not results.format.has_final or not results.games or results.games[-1].pk != stage.pk:
        return []
    if not stage.closed:  # the close page's preview closes it in the results it shows
        return []
    totals = results.cumulative.get(stage.pk, {})
    by_division: dict[str, list] = {}
    for player in results.advancing(stage):
        by_division.setdefault(player.division, []).append(player)
    return [
        (
            division,
            [
                f"{p.name} ({totals.get(p.pk, 0)})"
                for p in sorted(players, key=lambda p: (totals.get(p.pk, 0), name_sort_key(p.name)))
            ],
        )
        for division, players in sorted(by_division.items())
    ]


class CumulativeStandingsView(ResultsMixin, TemplateView):
    """A cumulative event's standings after every game: each game's total and the running
    total, places by the cumulative total per division (issue 30). A knockout has none: its
    bracket shows its stages."""

    template_name = "scoring/cumulative_standings.html"
    live_regions = {"live-cumulative": "scoring/_cumulative_live.html"}

    def get_context_data(self, **kwargs):
        if not self.event.format.is_cumulative:
            raise Http404(_("This event is a knockout: its bracket shows every stage."))
        ctx = super().get_context_data(**kwargs)
        results = ctx["results"]
        ctx["cumulative"] = SimpleLazyObject(lambda: event_cumulative(results))
        ctx["tie_format"] = tie_format()
        ctx["roads"] = event_roads(self.event)
        return ctx


class AdvanceView(DirectorRequiredMixin, StageMixin, TemplateView):
    """Close a stage: see who advances and the playoffs owed, then confirm; seat the next."""

    template_name = "scoring/advance.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheets = event_sheets(self.event)
        stage = next(s for s in sheets if s.pk == self.stage.pk)
        ctx["waiting"] = incomplete_tables(stage, sheets[stage])
        ctx["unconfirmed"] = [s for s in sheets[stage] if s.awaiting]
        alone = [s for s in sheets[stage] if walkover(s)]
        ctx["walkovers"] = [(s.table.number, s.players[0].name) for s in alone]
        if not self.stage.closed and any(
            find_conflict(self.event, self.stage, table_division(s)) for s in alone
        ):
            ctx["walkover_undecided"] = walkover_undecided(self.stage)
        if read_clock(self.stage).called_at is not None and not self.stage.closed:
            # A table with minutes of its own is marked over once its own time is called.
            waiting = {t.pk for t in ctx["waiting"]}
            now = timezone.now()
            ctx["unmarked"] = [
                s
                for s in sheets[stage]
                if s.table.pk in waiting
                and table_clock(s.table, self.stage).effective_time_called_at(now) is not None
            ]
        ctx["short_tables"] = short_table_notes(stage, sheets[stage])
        if not stage.closed:
            stage.closed = True  # preview: the results as if the director confirmed
        results = compute_results(self.event, sheets)
        ctx["preview"] = not self.stage.closed
        ctx["results"] = results
        if results.format.is_cumulative:  # the format's road, and what this close does
            ctx["roads"] = event_roads(self.event)
            ctx["closing"] = closing_text(results, stage)
            ctx["finalists"] = finalists(results, stage)
            ctx["cut_ties"] = cut_ties(results, stage)
            ctx["moves"] = progressive_moves(results, stage)
            if any(g.pk == stage.pk for g in results.games):
                ctx["cumulative"] = game_standings(results, stage)
        else:
            advancers = close_advancers(results, stage)
            ctx["finals_plans"] = event_plans(self.event, self.stage, advancers)
        ctx["bracket"] = [b for b in bracket(results) if b["stage"].pk == stage.pk]
        owed = [
            o
            for o in not_yet_created(self.event, results.owed_for(stage))
            if not (ctx.get("cut_ties") and o.table is None and o.medal == Medal.ADVANCE)
        ]  # a tie at a cumulative event's cut is named with the finalists
        players = results.players
        ctx["owed"] = [(o, [players[pk].name for pk in o.owed.players]) for o in owed]
        decides = results.decides(stage)
        ctx["medal_rows"] = [r for r in medal_rows(results) if r["division"] in decides]
        ctx["decides"] = decides
        try:
            target, semifinal, players = next_stage_plan(self.event, results)
            ctx["plan"] = {"stage": target, "semifinal": semifinal, "players": players}
        except AdvanceError as why:
            ctx["plan_blocked"] = translated(why)
        ctx["size_offer"] = size_offer(self.event.rules, self.request.GET.get("allow"))
        return ctx

    def post(self, request, *args, **kwargs):
        key = posted_key(request)
        try:
            if request.POST.get("action") == "end_games":
                marks = {}
                for mark in request.POST.getlist("over"):
                    number, _sep, rounds = mark.partition(":")
                    if re.fullmatch(r"[0-9]{1,4}", number) and re.fullmatch(r"[0-9]{1,3}", rounds):
                        marks[int(number)] = int(rounds)
                marked = end_games(self.stage, marks, request.user, key)
                if marked:
                    messages.success(
                        request,
                        _("Game over at tables %(t)s.") % {"t": ", ".join(map(str, marked))},
                    )
                return redirect("advance", self.event.slug, self.stage.number)
            if request.POST.get("action") == "seat_next":
                allow = posted_size(request.POST.get("allow"))
                seated = seat_next_stage(
                    self.event, user=request.user, key=key, allow=allow, publish=False
                )
                drafted(request, seated)
                blank_on_seating(seated, request.build_absolute_uri("/"))
                return redirect("seating", self.event.slug, seated.number)
            closed = close_and_seat(
                self.stage,
                request.user,
                key,
                override=request.POST.get("override", "")[:300],
                publish=False,
            )
        except (AdvanceError, RoundRejected) as refusal:
            self.refused(refusal)
            offer = allow_redirect("advance", self.event, self.stage.number, refusal)
            return redirect(offer or reverse("advance", args=[self.event.slug, self.stage.number]))
        messages.success(request, _("%(s)s closed.") % {"s": self.stage.title})
        for playoff in closed.playoffs:
            messages.info(request, _("Playoff created: %(s)s.") % {"s": playoff.title})
        if closed.seat_error:
            messages.error(request, closed.seat_error)
            offer = allow_redirect("advance", self.event, self.stage.number, closed)
            if offer:
                return redirect(offer)
        if closed.seated is not None:
            drafted(request, closed.seated)
            blank_on_seating(closed.seated, request.build_absolute_uri("/"))
            return redirect("seating", self.event.slug, closed.seated.number)
        return redirect("advance", self.event.slug, self.stage.number)


def drafted(request, stage) -> None:
    """The messages of a stage seated from the close page: seated, a draft until published."""
    messages.success(request, _("%(s)s seated.") % {"s": stage.title})
    messages.info(request, DRAFT_NOTE)


class StandingsView(LiveMixin, StageMixin, TemplateView):
    """A stage's standings and its tables. The rows and the tables are rendered once per
    version of the event ({% cache %} in the live templates): the sheets are loaded only when
    the cache misses."""

    template_name = "scoring/standings.html"
    live_regions = {
        "live-standings": "scoring/_standings_live.html",
        "live-tables": "scoring/_tables_live.html",
    }

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        stage, event = self.stage, self.event
        stage.event = event
        sort = standings_sort(self.request.GET.get("sort", ""))
        if self.seating_hidden:  # a draft: nobody seated as far as the public knows
            sheets = []
        elif is_game(event, stage, ctx["stages"]):
            # A cumulative event's game: its totals beside the running totals (issue 30).
            results = SimpleLazyObject(lambda: compute_results(event, event_summaries(event)))
            sheets = SimpleLazyObject(lambda: results.sheets[stage])
            ctx["cumulative"] = SimpleLazyObject(lambda: game_standings(results, stage))
            sort = "place"
        else:
            sheets = SimpleLazyObject(lambda: stage_summaries(stage))
        standings = SimpleLazyObject(lambda: shown_standings(stage, sheets))
        if self.results_hidden:
            standings = []
        ctx.update(
            sheets=sheets,
            rows=standings,
            table_count=0 if self.seating_hidden else stage.tables.count(),
            sort=sort,
            headers=standings_headers(sort),
            tie_format=tie_format(),
            plain_rows=SimpleLazyObject(lambda: standings_rows(event, stage, standings, sort)),
            cards=SimpleLazyObject(lambda: table_cards(event, stage, sheets)),
            progress_note=SimpleLazyObject(lambda: progress_text(stage_progress(stage, sheets))),
            fragment_key=public_key(self),
            fragment_seconds=settings.FRAGMENT_CACHE_SECONDS,
            spread=SimpleLazyObject(
                lambda: spread_chart(
                    [s.totals[p.pk] for s in sheets if s.played for p in s.players]
                )
            ),
        )
        # A draft's page has no region to follow: it loads itself again once the event moves.
        ctx["live_reload"] = self.seating_hidden
        if ctx["table_count"] > SHEETS_PER_PDF:  # one PDF of every sheet would take minutes
            ctx["sheet_blocks"] = table_blocks(ctx["table_count"])
        return ctx

    def live_extra(self) -> dict:
        """The stage's clock's mark: its clock reads clock.json again only when it changed, not
        at every saved round (static/js/clock.js). Kept per version of the event."""
        key = f"clock-mark:{version_key(self.event)}:{self.kwargs['stage']}"
        return {"clock": cache.get_or_set(key, lambda: read_clock(self.stage).mark)}


class TableSheetView(LiveMixin, TableMixin, TemplateView):
    template_name = "scoring/table_sheet.html"

    def page_response(self, request, *args, **kwargs):
        """A draft seating's table says "not published yet" to a reader who is no director
        (asked once the cached answers missed: a phone's check costs the event's query alone;
        none is kept for a draft, which no public render made)."""
        if self.seating_hidden:
            return not_published_response(request, self.event, "seating", self.stage)
        return super().page_response(request, *args, **kwargs)

    live_regions = {"live-sheet": "scoring/_sheet_live.html"}

    @cached_property
    def _live_key(self) -> str:
        """The page changes with its table's own writes and with every write that is not one
        other table's alone (tournament/history.py TABLE_VERBS): a round saved at another
        table answers its phones' checks from the cache."""
        table = (
            self.tables_asked(self.event, self.kwargs).values_list("pk", "version").first()
        )  # one query, the stage's and the table's rows being loaded only for the page itself
        if table is None:  # no such table: the page answers 404
            return version_key(self.event)
        event = self.event
        return f"{identity_key(event)}.s{event.shared_version}.t{table[0]}.{table[1]}"

    def live_key(self) -> str:
        return self._live_key

    @staticmethod
    def tables_asked(event, kwargs):
        """The table the page's address names (none when there is no such table)."""
        return Table.objects.filter(
            stage__event=event, stage__number=kwargs["stage"], number=kwargs["table"]
        )

    @classmethod
    def live_watch(cls, event, kwargs) -> int:
        return get_object_or_404(cls.tables_asked(event, kwargs).values_list("pk", flat=True))

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["sheet"] = table_sheet(self.table)
        ctx["chart"] = totals_chart(ctx["sheet"])
        ctx["can_score"] = self.table.can_score(self.request.user)
        ctx["can_correct"] = self.is_director
        if self.is_director:  # which phones entered and confirmed its rounds (issue 27)
            ctx["phone_rounds"] = phone_rounds(self.table)
            ctx["last_round"] = ctx["sheet"].rounds[-1] if ctx["sheet"].rounds else None
            ctx["clock_warning"] = clock_never_started(self.stage, [ctx["sheet"]])
        if self.is_director and self.event.table_entry:
            ctx["devices"] = self.table.devices.count()
            reports = self.table.infraction_reports.open()
            ctx["reports"] = list(reports.select_related("player", "table__stage"))
        ctx.update(
            sheet_infractions(self.request, ctx["sheet"], ctx["can_score"], self.is_director)
        )
        return ctx


class SeatingConflictView(DirectorRequiredMixin, StageMixin, TemplateView):
    """A correction changed who advances after this stage was seated: the director applies it
    (seats swapped, changed tables replay) or keeps the published seating with a reason."""

    template_name = "scoring/seating_conflict.html"

    def division(self) -> str:
        return (self.request.POST.get("division") or self.request.GET.get("division") or "")[:60]

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        division = self.division()
        conflict = find_conflict(self.event, self.stage, division)
        ctx.update(division=division, conflict=conflict, conflict_list=[conflict])
        if conflict is not None:
            out = {p.pk for p in conflict.out}
            tables = {s.table.number for s in conflict.seats if s.player_id in out}
            if len(conflict.in_) > len(conflict.out):
                tables.add(min(s.table.number for s in conflict.seats))
            ctx["replay"] = sorted(tables)
        return ctx

    def post(self, request, *args, **kwargs):
        key = posted_key(request)
        try:
            if request.POST.get("action") == "keep":
                keep_seating(
                    self.stage, self.division(), request.POST.get("reason", ""), request.user, key
                )
                messages.success(request, _("The published seating is kept."))
            else:
                replay = apply_correction(self.stage, self.division(), request.user, key)
                messages.success(request, _("The corrected advancers are seated."))
                if replay:
                    messages.warning(
                        request,
                        _("Tables that must replay: %(t)s.") % {"t": ", ".join(map(str, replay))},
                    )
        except AdvanceError as refusal:
            self.refused(refusal)
            return redirect(request.get_full_path())
        return redirect("seating", self.event.slug, self.stage.number)
