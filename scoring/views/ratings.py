"""The ratings' pages (issue 31, PRODUCT.md §13): the leaderboard of every rated person, and a
player's rating on their page (its history as a chart and a table, their expected place at a
table of chosen opponents). Read only: scoring/services/ratings.py computes the rows in the
background; these pages never compute a rating.

The leaderboard is rendered once per computation of the ratings ({% cache %} keyed by
``state_key``), whatever the number of players: a fixed number of queries when the cache
misses, one when it holds.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from functools import cache

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.views.generic import TemplateView

from scoring.charts import rating_chart
from scoring.forms.ratings import LeaderboardForm, OpponentsForm
from scoring.lists import place_text, url_head
from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState
from tournament.game import ratings as rule
from tournament.models import Event, Player
from tournament.text import name_key

PER_PAGE = 1000  # as the standings list 1,000 rows: a page's fixed cost is paid once per 1,000


def min_games() -> int:
    """Fewer rated games than this and a rating is provisional: off the leaderboard."""
    return getattr(settings, "RATING_MIN_GAMES", 5)


def ratings_state() -> RatingsState | None:
    return RatingsState.objects.order_by("pk").first()


def state_key(state: RatingsState | None) -> str:
    """What the ratings' pages depend on: the last computation (its time and what it read)."""
    if state is None or state.computed_at is None:
        return "none"
    return f"{int(state.computed_at.timestamp() * 1_000_000)}.{state.fingerprint}"


def player_url(head: str, slug: str, pk: int) -> str:
    """A player's page from ``url_head("player", "_")``, without a ``reverse`` per row."""
    return head.replace("/_/", f"/{slug}/", 1) + f"{pk}/"


def qualified():
    return Rating.objects.filter(games__gte=min_games())


def places(scores: list[int], offset: int, filtered: bool) -> list[tuple[int, int]]:
    """(place, how many share it) of each of a page's ``scores`` (highest first) among every
    qualified rating: 1 + how many are higher. One query: on a page of the whole board, only
    its first and last scores are counted beyond it (the rows between are the page's own);
    on a page of a search, every qualified score down to the page's lowest is read."""
    if not scores:
        return []
    first, last = scores[0], scores[-1]
    if filtered:
        below = qualified().filter(score__gte=last).order_by("score")
        ordered = list(below.values_list("score", flat=True))
        return [
            (
                len(ordered) - bisect_right(ordered, s) + 1,
                bisect_right(ordered, s) - bisect_left(ordered, s),
            )
            for s in scores
        ]
    counts = qualified().aggregate(
        above=Count("pk", filter=Q(score__gt=first)),
        first=Count("pk", filter=Q(score=first)),
        last=Count("pk", filter=Q(score=last)),
    )
    mine = Counter(scores)
    out = []
    for i, s in enumerate(scores):
        if s == first:
            place = counts["above"] + 1
        elif s != scores[i - 1]:
            place = offset + i + 1  # every higher rating is before it, on this page or earlier
        sharing = counts["first"] if s == first else counts["last"] if s == last else mine[s]
        out.append((place, sharing))
    return out


FIELDS = (
    "pk",
    "player_id",
    "player__name",
    "player__club",
    "player__event__slug",
    "player__event__name",
    "player__event__date",
    "score",
    "games",
    "events",
)


def page_asked(request) -> str:
    """The leaderboard's page number asked in ``?page=`` (digits, a few), else "1"."""
    page = request.GET.get("page", "")
    return page if page.isascii() and page.isdigit() and len(page) < 9 else "1"


def leaderboard(filters: dict[str, str], page: str | None) -> dict:
    """The page of the leaderboard asked for, as the template shows it: ``rows`` (text: place,
    shared places as T3, name, link...), ``page`` (Django's), ``total``. Four queries whatever
    the size: the count, the page's ids (no join to walk past the pages before), their rows,
    the places."""
    ratings = qualified()
    if filters.get("q"):
        ratings = ratings.filter(player__search_key__contains=name_key(filters["q"]))
    if filters.get("club"):
        ratings = ratings.filter(player__club__iexact=filters["club"])
    paginator = Paginator(ratings.order_by("-score", "pk").values_list("pk", flat=True), PER_PAGE)
    paginator.count = ratings.count()  # not through Paginator's own count: a copy of the query
    shown = paginator.get_page(page)
    ids = list(shown.object_list)
    found = {r["pk"]: r for r in Rating.objects.filter(pk__in=ids).values(*FIELDS)}
    on_page = [found[pk] for pk in ids if pk in found]
    offset = (shown.number - 1) * PER_PAGE
    head = url_head("player", "_")  # "/e/_/player/": each player's event's slug put in
    rows = [
        {
            "place": place_text(place, sharing),
            "name": r["player__name"],
            "url": player_url(head, r["player__event__slug"], r["player_id"]),
            "club": r["player__club"],
            "score": str(r["score"]),
            "games": str(r["games"]),
            "events": str(r["events"]),
            "last": r["player__event__name"],
            # 2026-03-01: the same in every language, and no month's name to translate per row
            "last_date": r["player__event__date"].isoformat(),
        }
        for r, (place, sharing) in zip(
            on_page, places([r["score"] for r in on_page], offset, bool(filters)), strict=True
        )
    ]
    return {"rows": rows, "page": shown, "total": paginator.count}


class LeaderboardView(TemplateView):
    """Every rated person with enough games, by their shown rating (public)."""

    template_name = "scoring/ratings.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        state = ratings_state()
        form = LeaderboardForm(self.request.GET)
        filters = form.filters()
        page = page_asked(self.request)
        ctx.update(
            state=state,
            min_games=min_games(),
            form=form,
            filters=filters,
            board=SimpleLazyObject(lambda: leaderboard(filters, page)),
            # Asked only when nobody is listed: players rated but still provisional. A
            # callable the template calls (once), so that the plural is given an int: a lazy
            # object is no number to French's plural formula (issue 45 item 3).
            provisional=cache(Rating.objects.count),
            fragment_key=f"{state_key(state)}.{min_games()}.{get_language()}",
            fragment_seconds=settings.FRAGMENT_CACHE_SECONDS,
            vary=[filters.get("q", ""), filters.get("club", ""), page],
        )
        return ctx


# -- a player's page: their rating, its history, their expected place ----------------------


def player_rating(request, event: Event, player: Player, tables: list[list[Player]]) -> dict:
    """The "Rating" part of a player's page, or {} when their person is not rated.

    ``tables`` are the tablemates of each of their games in this event, in play order: the
    last is the default opponents, all of them the opponents offered. A fixed number of
    queries: the rating, its history, and with opponents chosen, their players and ratings.
    """
    rated = RatedPlayer.objects.select_related("rating").filter(player=player).first()
    if rated is None:
        return {}
    rating = rated.rating
    points = RatingPoint.objects.filter(rating=rating).select_related("event")
    # In the order the events were rated (scoring/ratings.py: by date, then short name): each
    # point holds the games rated up to it, so that order is the games' (issue 45 item 7).
    points = list(points.order_by("games", "pk"))
    head = url_head("player", "_")
    history = [
        {
            "date": p.event.date,
            "event": p.event.name,
            "url": player_url(head, p.event.slug, p.player_id),
            "score": p.score,
            "games": p.games,
        }
        for p in points
    ]
    out = {
        "rating": rating,
        "provisional": rating.games < min_games(),
        "min_games": min_games(),
        "rating_history": history,
        "rating_chart": rating_chart([(p.event.name, p.score) for p in points]),
    }
    out.update(expected_place(request, event, player, rating, tables))
    return out


def theirs_event(player, event: Event) -> Event:
    """The event of an opponent: this one for a tablemate, their own for one added from
    another event (loaded with them)."""
    if getattr(player, "event_id", event.pk) == event.pk:
        return event
    return player.event


def expected_place(request, event, player, rating: Rating, tables) -> dict:
    """The opponents' form and, for the opponents chosen, each player's expected place and
    chance of winning (tournament/game/ratings.py), best first."""
    asked = "vs" in request.GET or "add" in request.GET
    form = OpponentsForm(request.GET if asked else None, event=event, player=player)
    if asked:
        opponents = form.cleaned_data["opponents"] if form.is_valid() else []
    else:
        opponents = list(tables[-1]) if tables else []
    offered: dict[int, Player] = {}
    for mates in reversed(tables):  # the latest table first
        for mate in mates:
            offered.setdefault(mate.pk, mate)
    for mate in opponents:
        offered.setdefault(mate.pk, mate)
    chosen = {p.pk for p in opponents}
    choices = [{"pk": p.pk, "name": p.name, "checked": p.pk in chosen} for p in offered.values()]
    ctx = {"opponents_form": form, "opponent_choices": choices, "expected": []}
    if not opponents or (asked and not form.is_valid()):
        return ctx
    found = RatedPlayer.objects.filter(player__in=[p.pk for p in opponents])
    theirs = {r.player_id: r.rating for r in found.select_related("rating")}
    theirs[player.pk] = rating
    table = [player, *opponents]
    models = [
        rule.Rating(r.mu, r.sigma, r.games) if (r := theirs.get(p.pk)) else rule.Rating()
        for p in table
    ]
    places = rule.expected_places(models)
    chances = rule.win_chances(models)
    rows = []
    for p, (place, _), chance in zip(table, places, chances, strict=True):
        known = theirs.get(p.pk)
        rows.append(
            {
                "pk": p.pk,
                "name": p.name,
                "me": p.pk == player.pk,
                "score": known.score if known else None,
                "provisional": known is None or known.games < min_games(),
                "place": place,
                "chance": round(100 * chance),
                "url": reverse("player", args=[theirs_event(p, event).slug, p.pk]),
                "event": theirs_event(p, event).name if theirs_event(p, event) != event else "",
            }
        )
    ctx["expected"] = sorted(rows, key=lambda r: (r["place"], -r["chance"], r["name"]))
    return ctx
