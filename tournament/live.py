"""A live region sent as its changes, not whole (issue 32 item 1).

A saved round changes one table: a few rows of a 2,000-row standings, one card of a bracket.
A phone that shows a region says which state of it it holds (``X-Live-State``, the digest of
the HTML it was given); the server answers with the pieces that differ from that state, or the
whole region when it no longer knows that state (another server, an expired cache, a phone
back from hours offline) or when the region's frame itself changed.

How a region template marks its pieces (plain HTML comments, cut out before anything is sent):

- ``<!--k-->`` before and ``<!--/k-->`` after an element carrying ``data-k="key"``: a piece,
  compared and sent on its own. Keys are unique within the region.
- ``<!--c:name-->`` ... ``<!--/c-->`` inside an element carrying ``data-kc="name"`` that holds
  nothing but pieces: they may come, go and change order (a standings' rows, a stage's
  tables). A piece outside any such container stays where it is: only its content changes.
- A place shown in a piece that carries ``data-rank="n"``, as ``<td data-place>T3</td>``, is
  left out of what is compared and sent: the page numbers its container's rows from their
  ranks (one more than the number of rows with a lower rank; shared, as the container's
  ``data-places`` format says: "T%s"), so that a player moving down 300 places sends one
  row, not the 300 whose place moved by one. The server chose ranks that give its places.

The answer (JSON): ``{"state": id, "html": ...}`` for the whole region, else ``{"state": id,
"pieces": {key: html}, "gone": [key], "order": {container: {key: previous key or ""}}}``,
where ``order`` lists only the pieces whose previous sibling changed (static/js/live.js
rebuilds each container's order from them).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

MARK = re.compile(r"<!--(k|/k|c:[\w.-]+|/c)-->")
KEY = re.compile(r'\bdata-k="([^"]+)"')
RANK = re.compile(r'\bdata-rank="')
PLACE = re.compile(r"(<[^>]*\bdata-place\b[^>]*>)[^<]*")


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=9).hexdigest()


@dataclass
class State:
    """What the server remembers of a region as a phone holds it: enough to compare."""

    frame: str  # digest of the HTML outside the pieces of containers
    digests: dict[str, str] = field(default_factory=dict)  # key -> digest of its content
    where: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (container, prev)


@dataclass
class Region:
    html: str  # as the page shows it: the marks cut out
    state_id: str
    state: State
    pieces: dict[str, str]  # key -> HTML as sent in a change


@lru_cache(maxsize=20_000)  # a few big events' regions (1,000 players: 2,500 pieces)
def piece(marked: str) -> tuple[str, str, str]:
    """A piece as marked (between ``<!--k-->`` and ``<!--/k-->``): its key, its HTML as sent
    (a ranked row's place left out) and the digest of that HTML. Kept: a saved round changes
    a few of a region's thousand pieces, the rest are the same text at every render."""
    html = marked.strip()
    key = KEY.search(html)
    if key is None:
        raise ValueError(f"A live piece without data-k: {html[:80]!r}")
    if RANK.search(html):
        html = PLACE.sub(r"\1", html)
    return key.group(1), html, digest(html)


@lru_cache(maxsize=8)
def split(marked: str) -> Region:
    """A region's rendered HTML, marks and all, taken apart into its frame and pieces (18 ms
    for 2,000 rows: kept for the regions rendered last, which every visitor's page repeats
    until the event changes)."""
    frame: list[str] = []
    pieces: dict[str, str] = {}
    state = State(frame="")
    container, previous, start, at = "", "", None, 0
    for mark in MARK.finditer(marked):
        name = mark.group(1)
        if name == "k":
            frame.append(marked[at : mark.start()])
            start = mark.end()
        elif name == "/k" and start is not None:
            key, html, digested = piece(marked[start : mark.start()])
            pieces[key] = html
            state.digests[key] = digested
            state.where[key] = (container, previous)
            if container:
                previous = key
            else:
                frame.append(f"<k:{key}>")  # a fixed piece: its coming or going moves the frame
            start = None
        elif name.startswith("c:"):
            frame.append(marked[at : mark.start()])
            container, previous = name[2:], ""
        elif name == "/c":
            frame.append(marked[at : mark.start()])
            container, previous = "", ""
        at = mark.end()
    frame.append(marked[at:])
    html = MARK.sub("", marked)
    state.frame = digest("".join(frame))
    return Region(html=html, state_id=digest(html), state=state, pieces=pieces)


def changes(old: State, new: Region) -> dict | None:
    """What turns a region in state ``old`` into ``new``; None when only the whole will do
    (its frame changed)."""
    if old.frame != new.state.frame:
        return None
    now = new.state
    pieces = {k: new.pieces[k] for k, d in now.digests.items() if old.digests.get(k) != d}
    gone = [k for k in old.digests if k not in now.digests]
    order: dict[str, dict[str, str]] = {}
    for key, (container, previous) in now.where.items():
        if old.where.get(key) != (container, previous) and container:
            order.setdefault(container, {})[key] = previous
    answer: dict = {}
    if pieces:
        answer["pieces"] = pieces
    if gone:
        answer["gone"] = gone
    if order:
        answer["order"] = order
    return answer


def answer(old: State | None, held: str, new: Region | None) -> bytes:
    """The JSON for a phone holding state ``held`` (``old`` if the server remembers it) when
    the region is now ``new`` (None: unchanged)."""
    if new is None or held == new.state_id:
        body: dict = {"state": held}
    else:
        found = changes(old, new) if old is not None else None
        body = {"state": new.state_id, **(found if found is not None else {"html": new.html})}
    return json.dumps(body, separators=(",", ":")).encode()


def check_answer(version: int, answers: dict[str, bytes], extra: dict | None = None) -> bytes:
    """A page's check (tournament/caching.py LiveMixin): the event's version, each region's
    answer as ``answer`` made it, and what else the page says (``extra``)."""
    body = json.dumps({"version": version, **(extra or {})}, separators=(",", ":")).encode()
    if not answers:
        return body
    regions = b",".join(json.dumps(rid).encode() + b":" + text for rid, text in answers.items())
    return body[:-1] + b',"regions":{%s}}' % regions
