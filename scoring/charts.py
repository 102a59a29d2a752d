"""Small pictures drawn by the server as SVG (no script, no CDN): a table's running totals round
by round, and the spread of a stage's totals. Pure arithmetic on loaded sheets; the templates
``scoring/_totals_chart.html`` and ``scoring/_spread_chart.html`` draw what these return.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.sheets import TableSheet

# Line colours with at least 4.5:1 contrast on white, told apart by dash pattern too.
COLOURS = ("#0b5394", "#9a3412", "#047857", "#6d28d9", "#be123c", "#374151")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "4 4")
WIDTH, HEIGHT = 320, 180
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 28  # room for the axis labels


def nice_ceiling(value: int) -> int:
    """The axis's top: ``value`` rounded up to 1, 2 or 5 times a power of ten (at least 10)."""
    if value <= 10:
        return 10
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power  # pragma: no cover (the loop always returns)


class _Frame:
    """What every chart's template reads of its frame: where the plot's bottom and left are."""

    height: int

    @property
    def plot_bottom(self) -> int:
        return self.height - BOTTOM

    @property
    def left(self) -> int:
        return LEFT


@dataclass(frozen=True)
class Line:
    label: str
    values: tuple[int, ...]  # the running total after each round
    points: str  # "x,y x,y ..." for <polyline points>
    colour: str
    dash: str


@dataclass(frozen=True)
class TotalsChart(_Frame):
    """Running totals of a table's players, one line each, from 0 before the first round."""

    lines: tuple[Line, ...]
    top: int  # the y axis runs from 0 to this
    x_labels: tuple[tuple[float, str], ...]  # (x, "12") for each engine played
    y_ticks: tuple[tuple[float, int], ...]  # (y, value)
    width: int = WIDTH
    height: int = HEIGHT


def _x(i: int, steps: int) -> float:
    return round(LEFT + (WIDTH - LEFT - RIGHT) * i / max(steps, 1), 1)


def _y(value: int, top: int) -> float:
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top), 1)


def totals_chart(sheet: TableSheet) -> TotalsChart | None:
    """The table's running totals as lines, or None before the first round."""
    if not sheet.rounds:
        return None
    steps = len(sheet.engines)  # the x axis is the whole game, so the lines grow into it
    top = nice_ceiling(max(max(r.totals.values(), default=0) for r in sheet.rounds))
    lines = []
    for i, player in enumerate(sheet.players):
        values = tuple(r.totals.get(player.pk, 0) for r in sheet.rounds)
        coords = [(_x(0, steps), _y(0, top))]
        coords += [(_x(n, steps), _y(v, top)) for n, v in enumerate(values, start=1)]
        lines.append(
            Line(
                player.name,
                values,
                " ".join(f"{x},{y}" for x, y in coords),
                COLOURS[i % len(COLOURS)],
                DASHES[i % len(DASHES)],
            )
        )
    x_labels = tuple((_x(n, steps), str(r.engine)) for n, r in enumerate(sheet.rounds, start=1))
    y_ticks = tuple((_y(v, top), v) for v in (0, top // 2, top))
    return TotalsChart(tuple(lines), top, x_labels, y_ticks)


@dataclass(frozen=True)
class Bar:
    low: int
    high: int  # the bin holds totals from low to high, both included
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class SpreadChart(_Frame):
    """How many players finished a stage with a total in each range (a histogram)."""

    bars: tuple[Bar, ...]
    players: int
    most: int  # the tallest bar's count
    width: int = WIDTH
    height: int = HEIGHT


def spread_chart(totals: list[int], bins: int = 8) -> SpreadChart | None:
    """The spread of ``totals`` in at most ``bins`` equal ranges, or None with no total."""
    if not totals:
        return None
    low, high = min(totals), max(totals)
    size = max(1, math.ceil((high - low + 1) / bins))
    counts: dict[int, int] = {}
    for total in totals:
        counts[(total - low) // size] = counts.get((total - low) // size, 0) + 1
    n = max(counts) + 1
    most = max(counts.values())
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bars = []
    for i in range(n):
        count = counts.get(i, 0)
        h = round(plot_h * count / most, 1)
        bars.append(
            Bar(
                low + i * size,
                low + (i + 1) * size - 1,
                count,
                round(LEFT + plot_w * i / n, 1),
                round(TOP + plot_h - h, 1),
                round(plot_w / n - 2, 1),
                h,
            )
        )
    return SpreadChart(tuple(bars), len(totals), most)


@dataclass(frozen=True)
class GameBar:
    label: str  # the stage's name (in the legend under the chart: too long to stand under a bar)
    total: int
    x: float
    y: float
    width: float
    height: float
    number: int = 0  # 1 for the first game: under the bar and before its name in the legend

    @property
    def centre(self) -> float:
        return round(self.x + self.width / 2, 1)


@dataclass(frozen=True)
class GamesChart(_Frame):
    """A player's total in each game they played, a bar per game, in play order."""

    bars: tuple[GameBar, ...]
    top: int
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def label_size(self) -> float:
        """The font size of the labels (a bar's total above it, its number under it): at most
        10, and small enough that the widest fits its bar's slot, so that no two overlap."""
        slot = (WIDTH - LEFT - RIGHT) / len(self.bars)
        widest = max(len(str(len(self.bars))), *(len(str(bar.total)) for bar in self.bars))
        return round(min(10.0, (slot - 2) / (CHAR_WIDTH * widest)), 1)


CHAR_WIDTH = 0.6  # a digit's width, in font sizes (a conservative bound for sans-serif digits)


def games_chart(games: list[tuple[str, int]]) -> GamesChart | None:
    """Bars of ``(label, total)`` on one scale from 0; None without a game."""
    if not games:
        return None
    top = nice_ceiling(max(total for _, total in games))
    slot = (WIDTH - LEFT - RIGHT) / len(games)
    bars = []
    for i, (label, total) in enumerate(games):
        y = _y(total, top)
        bars.append(
            GameBar(
                label,
                total,
                round(LEFT + slot * i, 1),
                y,
                round(slot - 4, 1),
                round(HEIGHT - BOTTOM - y, 1),
                i + 1,
            )
        )
    return GamesChart(tuple(bars), top)


@dataclass(frozen=True)
class RatingDot:
    label: str  # the event's name (in the table beside the chart)
    score: int  # the shown rating after the event
    x: float
    y: float
    number: int  # 1 for the first event: under the dot


@dataclass(frozen=True)
class RatingChart(_Frame):
    """A person's shown rating after each event they played, a line through a dot per event."""

    dots: tuple[RatingDot, ...]
    points: str  # "x,y x,y ..." for <polyline points>
    low: int
    top: int  # the y axis runs from low to top
    y_ticks: tuple[tuple[float, int], ...]
    width: int = WIDTH
    height: int = HEIGHT


def rating_chart(events: list[tuple[str, int]]) -> RatingChart | None:
    """``(label, rating)`` after each event, in date order, on an axis from a round number
    below the lowest (0 if none is below) to one above the highest; None without an event.
    Ratings may fall below 0: the axis then starts below it."""
    if not events:
        return None
    scores = [score for _, score in events]
    top = nice_ceiling(max(max(scores), 1))
    low = -nice_ceiling(-min(scores)) if min(scores) < 0 else 0
    span = top - low
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    # One event alone stands in the middle; more spread over the width.
    steps = len(events) - 1

    def x(i: int) -> float:
        return round(LEFT + plot_w * (i / steps if steps else 0.5), 1)

    def y(value: int) -> float:
        return round(TOP + plot_h * (top - value) / span, 1)

    dots = tuple(
        RatingDot(label, score, x(i), y(score), i + 1) for i, (label, score) in enumerate(events)
    )
    ticks = sorted({low, 0, top}) if low < 0 else [0, top // 2, top]
    return RatingChart(
        dots,
        " ".join(f"{d.x},{d.y}" for d in dots),
        low,
        top,
        tuple((y(v), v) for v in ticks),
    )
