"""The input of every rater: one :class:`MatchResult` per recorded match.

A result is plain data, so the tournaments layer can build it from a stored
match record (:meth:`MatchResult.from_record`) and a rating can always be
recomputed from the stored results.

Fields
    ``ruleset``
        Game and ruleset version, e.g. ``"canasta_hu@v1"``. Ratings are kept
        separately per ruleset: the ruleset is the first half of every key.
    ``seats``
        The bot id at each seat (seat ``i`` is ``seats[i]``). A bot may hold
        several seats (clones, self-play).
    ``returns``
        The result of each seat, **higher is better** (points, chips, VPs, or
        ``-place`` for a finish order). Only the order of the sides matters to
        the raters: equal returns are a draw.
    ``teams``
        ``None`` when every seat plays for itself, else a partition of the seat
        indices into sides, e.g. ``[[0, 2], [1, 3]]`` for bridge (N-S, E-W). A
        side's return is the mean of its seats' returns.
    ``deal_id``
        ``None`` for an ordinary match. Otherwise the id of the deal (board)
        this table played: results with the same ``(ruleset, deal_id)`` are
        tables of one duplicate set, and the raters compare the sides that held
        the *same seats of the same deal* with each other instead of comparing
        the sides at one table (see :mod:`arena.ratings.comparisons`).
    ``match_id``
        Optional id of the stored match, for tracing only.

>>> r = MatchResult("toy@v1", ["a", "b"], [1.0, 0.0])
>>> r.seats, r.sides()
(('a', 'b'), [((0,), ('a',), 1.0), ((1,), ('b',), 0.0)])
>>> MatchResult.from_places("toy@v1", ["a", "b", "c"], [2, 1, 3]).returns
(-2.0, -1.0, -3.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from arena.ratings.errors import RatingError

__all__ = ["BotId", "MatchResult", "Side"]

BotId: TypeAlias = str
"""A bot's id (its name in the records)."""

Side: TypeAlias = "tuple[tuple[int, ...], tuple[BotId, ...], float]"
"""One side of a result: (seat indices, bot ids at those seats, side return)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One recorded match (or one table of a duplicate deal); see the module docstring.

    Sequences are stored as tuples, so a result is hashable and immutable.

    :raises RatingError: if seats and returns differ in length, there are fewer
        than two seats or sides, a return is not finite, or ``teams`` is not a
        partition of the seat indices.
    """

    ruleset: str
    """Game and ruleset version; ratings are kept per ruleset."""
    seats: tuple[BotId, ...]
    """Bot id at each seat."""
    returns: tuple[float, ...]
    """Per-seat result, higher is better."""
    teams: tuple[tuple[int, ...], ...] | None = None
    """Partition of the seat indices into sides, or ``None`` (every seat alone)."""
    deal_id: str | None = None
    """Duplicate deal (board) id, or ``None`` for an ordinary match."""
    match_id: str | None = None
    """Optional id of the stored match."""

    def __init__(
        self,
        ruleset: str,
        seats: Sequence[BotId],
        returns: Sequence[float],
        teams: Sequence[Sequence[int]] | None = None,
        deal_id: str | None = None,
        match_id: str | None = None,
    ) -> None:
        setattr_ = object.__setattr__
        seats_t = tuple(map(str, seats))
        returns_t = tuple(map(float, returns))
        setattr_(self, "ruleset", str(ruleset))
        setattr_(self, "seats", seats_t)
        setattr_(self, "returns", returns_t)
        setattr_(self, "teams", None if teams is None else tuple(tuple(map(int, t)) for t in teams))
        setattr_(self, "deal_id", None if deal_id is None else str(deal_id))
        setattr_(self, "match_id", match_id)
        n = len(seats_t)
        if n < 2:
            raise RatingError(f"a result needs at least two seats, got {n}")
        if len(returns_t) != n:
            raise RatingError(f"{n} seats but {len(returns_t)} returns")
        if not all(map(math.isfinite, returns_t)):
            raise RatingError(f"returns must be finite numbers: {returns_t}")
        if self.teams is not None:
            self._validate_teams()

    def _validate_teams(self) -> None:
        n = len(self.seats)
        if self.teams is not None:
            flat = sorted(i for t in self.teams for i in t)
            if flat != list(range(n)) or any(not t for t in self.teams):
                raise RatingError(f"teams {self.teams} are not a partition of seats 0..{n - 1}")
            if len(self.teams) < 2:
                raise RatingError("a result needs at least two sides")

    @classmethod
    def from_places(
        cls,
        ruleset: str,
        seats: Sequence[BotId],
        places: Sequence[int | float],
        **kwargs: Any,
    ) -> MatchResult:
        """A result from finishing places (1 = first; equal places tie).

        :raises RatingError: as the constructor.
        """
        return cls(ruleset, seats, [-float(p) for p in places], **kwargs)

    @classmethod
    def from_record(
        cls,
        record: Any,
        *,
        teams: Sequence[Sequence[int]] | None = None,
        deal_id: str | None = None,
    ) -> MatchResult:
        """A result from a stored match record (anything with ``ruleset``,
        ``seats``, ``returns`` and ``match_id`` attributes, e.g.
        :class:`arena.records.record.MatchRecord`).

        :raises RatingError: as the constructor.
        """
        return cls(
            record.ruleset,
            record.seats,
            record.returns,
            teams=teams,
            deal_id=deal_id,
            match_id=getattr(record, "match_id", None),
        )

    def sides(self) -> list[tuple[tuple[int, ...], tuple[BotId, ...], float]]:
        """The sides of this result: (seat indices, bots, mean return), in team order."""
        groups = self.teams if self.teams is not None else tuple((i,) for i in range(len(self.seats)))
        return [
            (g, tuple(self.seats[i] for i in g), sum(self.returns[i] for i in g) / len(g))
            for g in groups
        ]
