"""Turn results into weighted pairwise comparisons of sides.

Every rater in this package sees a result as a list of :class:`Comparison`:
"side ``a`` scored ``score`` against side ``b``" (1 win, 0.5 draw, 0 loss),
counted as ``weight`` games. One rule set, used by the online Elo book, the
batch Bradley-Terry fit and Glicko-2 alike, so they all rate the same evidence:

Ordinary match (``deal_id is None``), ``g`` sides
    Every unordered pair of sides is one comparison of weight ``1/(g-1)``
    (pairwise decomposition with ``K/(n-1)``, ratings.md section 2.1). Two
    sides: one comparison of weight 1. Partnerships are sides (section 2.2).

Duplicate table (``deal_id`` set), ``g`` sides
    The table is *not* compared internally (that would rate the luck of the
    cards). Each side is compared with every side that held the **same seats of
    the same deal** at an earlier table of that deal, by its return from those
    seats; weight ``1/(g(g-1))`` each. A complete seat rotation of ``g`` sides
    over ``g`` tables thus gives each pair of sides a total weight of
    ``1/(g-1)`` per deal, the same as one ordinary table; a two-room team match
    (or a two-player deal played twice with seats swapped) counts as one game
    per board, not one per table (ratings.md section 3). Earlier tables are
    remembered by a :class:`DealLedger`, so comparisons appear online as soon
    as the second table of a deal is recorded; replaying the same results in
    the same order gives the same comparisons.

Sides with the same bots (a bot against its clone) are never compared.

>>> from arena.ratings.result import MatchResult
>>> ledger = DealLedger()
>>> ledger.add(MatchResult("g@1", ["a", "b", "c"], [3, 1, 1]))[0]
Comparison(a=('a',), b=('b',), score=1.0, weight=0.5)
>>> ledger.add(MatchResult("g@1", ["a", "b"], [5, -5], deal_id="d1"))
[]
>>> ledger.add(MatchResult("g@1", ["b", "a"], [2, -2], deal_id="d1"))
[Comparison(a=('b',), b=('a',), score=0.0, weight=0.5), Comparison(a=('a',), b=('b',), score=1.0, weight=0.5)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.ratings.errors import RatingError
from arena.ratings.result import BotId, MatchResult

__all__ = ["Comparison", "DealLedger", "outcome"]


@dataclass(frozen=True, slots=True)
class Comparison:
    """Side ``a`` against side ``b``: ``a`` scored ``score`` (``b`` scored ``1 - score``)."""

    a: tuple[BotId, ...]
    """Bots of the first side (a side's rating is their mean)."""
    b: tuple[BotId, ...]
    """Bots of the second side."""
    score: float
    """1 if ``a`` did better, 0.5 if equal, 0 if worse."""
    weight: float
    """How many games this comparison counts as."""


def outcome(x: float, y: float) -> float:
    """1.0 if ``x > y``, 0.5 if equal, else 0.0.

    >>> outcome(3, 1), outcome(1, 1), outcome(0, 1)
    (1.0, 0.5, 0.0)
    """
    return 1.0 if x > y else 0.5 if x == y else 0.0


@dataclass(slots=True)
class _Table:
    n_seats: int
    by_group: dict[tuple[int, ...], tuple[tuple[BotId, ...], float]]


@dataclass(slots=True)
class DealLedger:
    """Remembers the tables of each duplicate deal and yields the comparisons of new results.

    Keyed by ``(ruleset, deal_id)``. Ordinary results (``deal_id is None``) are
    not stored.
    """

    _deals: dict[tuple[str, str], list[_Table]] = field(default_factory=dict)

    def add(self, result: MatchResult) -> list[Comparison]:
        """Record ``result`` and return its comparisons (see the module docstring).

        :raises RatingError: if a table of the same deal has a different number of seats.
        """
        if result.deal_id is None and result.teams is None and len(result.seats) == 2:  # fast path
            (a, b), (x, y) = result.seats, result.returns
            return [] if a == b else [Comparison((a,), (b,), outcome(x, y), 1.0)]
        sides = result.sides()
        g = len(sides)
        if result.deal_id is None:
            w = 1.0 / (g - 1)
            out = []
            for i in range(g):
                _, bots_i, ret_i = sides[i]
                for j in range(i + 1, g):
                    _, bots_j, ret_j = sides[j]
                    if sorted(bots_i) != sorted(bots_j):
                        out.append(Comparison(bots_i, bots_j, outcome(ret_i, ret_j), w))
            return out
        key = (result.ruleset, result.deal_id)
        earlier = self._deals.setdefault(key, [])
        n = len(result.seats)
        w = 1.0 / (g * (g - 1))
        out = []
        for table in earlier:
            if table.n_seats != n:
                raise RatingError(
                    f"deal {result.deal_id!r}: a table with {n} seats after one with {table.n_seats}"
                )
        for group, bots, ret in sides:
            for table in earlier:
                other = table.by_group.get(group)
                if other is None:
                    continue
                obots, oret = other
                if sorted(bots) != sorted(obots):
                    out.append(Comparison(bots, obots, outcome(ret, oret), w))
        earlier.append(_Table(n, {grp: (bots, ret) for grp, bots, ret in sides}))
        return out

    def clear(self) -> None:
        """Forget every remembered table."""
        self._deals.clear()

    def deals(self, ruleset: str) -> list[str]:
        """The deal ids of ``ruleset`` with remembered tables."""
        return [d for rs, d in self._deals if rs == ruleset]

    def export(self, ruleset: str, deal_id: str) -> list[dict[str, Any]]:
        """The remembered tables of one deal as JSON-ready data (for a store that keeps
        the ledger between runs: :meth:`restore` gives the same ledger back)."""
        return [{"seats": t.n_seats,
                 "sides": [[list(grp), list(bots), ret] for grp, (bots, ret) in t.by_group.items()]}
                for t in self._deals.get((ruleset, deal_id), [])]

    def restore(self, ruleset: str, deal_id: str, tables: list[dict[str, Any]]) -> None:
        """Remember the tables of one deal as :meth:`export` gave them (replacing any)."""
        self._deals[(ruleset, deal_id)] = [
            _Table(int(t["seats"]), {tuple(int(i) for i in grp): (tuple(str(b) for b in bots), float(ret))
                                     for grp, bots, ret in t["sides"]})
            for t in tables]
