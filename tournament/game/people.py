"""Who is the same person across events (issue 45 item 4): plain Python that knows nothing of
Django. A club's list has no member number, so the same name typed into three nights must be
one person, not three rows of the series.

A player is a ``Someone``: their id, their event, their name and club as the desk folds them
(tournament/text.py ``name_key``: no case, accents, apostrophes, spaces or punctuation) and
their registration id. ``people`` groups them, in this order:

1. **A director's "same person" link** joins two players, and through them everything each
   is joined to (a link shows every event of that person, not only the linked one).
2. **The same registration id within the same club** joins (a club that numbers its members).
3. **The same name within the same club** joins. A club left empty matches nothing: two
   players of no club are only probably the same person (``probable``), as are two of the
   same name in different clubs.

Whatever joins, two players of one event are never one person (nobody plays an event twice),
and a director's "not the same person" link keeps two players apart: a join that would put
either into one person is not made. An event that holds the same name twice in one club
(two people called alike) joins neither of them by name: a director links the right one.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Someone:
    pk: int
    event: Hashable
    name: str  # folded
    club: str = ""  # folded; "" for no club
    ref: str = ""  # registration id, as typed


class _Groups:
    """Union-find over players, each group knowing its events and its members."""

    def __init__(self, players: Iterable[Someone], apart: Iterable[tuple[int, int]]) -> None:
        self.parent: dict[int, int] = {}
        self.members: dict[int, list[int]] = {}
        self.events: dict[int, set[Hashable]] = {}
        for p in players:
            self.parent[p.pk] = p.pk
            self.members[p.pk] = [p.pk]
            self.events[p.pk] = {p.event}
        self.apart: dict[int, set[int]] = {}
        for a, b in apart:
            self.apart.setdefault(a, set()).add(b)
            self.apart.setdefault(b, set()).add(a)

    def root(self, pk: int) -> int:
        parent = self.parent
        while parent[pk] != pk:
            parent[pk] = parent[parent[pk]]
            pk = parent[pk]
        return pk

    def join(self, a: int, b: int) -> bool:
        """Join the groups of ``a`` and ``b`` unless that puts one event twice, or two players
        kept apart, into one person; True when they are (or already were) one."""
        ra, rb = self.root(a), self.root(b)
        if ra == rb:
            return True
        if self.events[ra] & self.events[rb]:
            return False
        small, large = sorted((ra, rb), key=lambda r: len(self.members[r]))
        theirs = set(self.members[large])
        if any(self.apart.get(pk, set()) & theirs for pk in self.members[small]):
            return False
        keep, gone = min(ra, rb), max(ra, rb)  # a person is named by their lowest player id
        self.parent[gone] = keep
        self.members[keep] += self.members.pop(gone)
        self.events[keep] |= self.events.pop(gone)
        return True


def people(
    players: Sequence[Someone], links: Iterable[tuple[int, int, bool]] = ()
) -> dict[int, int]:
    """Every player's person, named by the lowest player id among them. ``links``: the
    directors' (player, player, same person?), each pair's last word, in the order made."""
    links = list(links)
    groups = _Groups(players, [(a, b) for a, b, same in links if not same])
    known = groups.parent
    for a, b, same in links:  # in the order they were made
        if same and a in known and b in known:
            groups.join(a, b)
    by_ref: dict[tuple[str, str], list[int]] = {}
    by_name: dict[tuple[str, str], list[Someone]] = {}
    for p in sorted(players, key=lambda p: p.pk):
        if p.club and p.ref:
            by_ref.setdefault((p.ref, p.club), []).append(p.pk)
        if p.club and p.name:
            by_name.setdefault((p.name, p.club), []).append(p)
    for pks in by_ref.values():
        for pk in pks[1:]:
            groups.join(pks[0], pk)
    for alike in by_name.values():
        per_event: dict[Hashable, int] = {}
        for p in alike:
            per_event[p.event] = per_event.get(p.event, 0) + 1
        alone = [p.pk for p in alike if per_event[p.event] == 1]
        for pk in alone[1:]:
            groups.join(alone[0], pk)
    return {pk: groups.root(pk) for pk in known}


def probable(
    players: Sequence[Someone],
    person: dict[int, int],
    links: Iterable[tuple[int, int, bool]] = (),
    among: set[int] | None = None,
) -> list[list[int]]:
    """The people who are probably one person: the same folded name, as two or more people
    (no club on one side, or other clubs), none of them in one event together and none said
    not to be the same. ``among``: only these people are offered (a series' own); the others
    of ``players`` still say who plays where. Each group lists each person once (by their
    lowest player id), lowest first; the groups by their first person."""
    apart = {frozenset((a, b)) for a, b, same in links if not same}
    events: dict[int, set[Hashable]] = {}
    members: dict[int, list[int]] = {}
    by_name: dict[str, set[int]] = {}
    for p in players:
        who = person[p.pk]
        events.setdefault(who, set()).add(p.event)
        members.setdefault(who, []).append(p.pk)
        if p.name:
            by_name.setdefault(p.name, set()).add(who)
    out = []
    for whom in by_name.values():
        if among is not None:
            whom = whom & among
        if len(whom) < 2:
            continue
        ordered = sorted(whom)
        clash = any(
            events[a] & events[b]
            or any(frozenset((x, y)) in apart for x in members[a] for y in members[b])
            for i, a in enumerate(ordered)
            for b in ordered[i + 1 :]
        )
        if not clash:
            out.append(ordered)
    return sorted(out)
