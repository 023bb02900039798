"""Feed a gauntlet's results to an :class:`~arena.ratings.sprt.Sprt`: :class:`SprtFeeder`.

A gauntlet plays one candidate against a field in two-sided matches (two
players, or two partnerships). The candidate's score in a result is 1, 0.5 or
0 against the other side. For a trinomial SPRT every result is one game. For a
pentanomial SPRT the two tables of one duplicate deal (same ``deal_id``, seats
swapped) are one pair, added when the second table arrives: the unit of
evidence is the duplicate set, never the single table (ratings.md section 3.2).

>>> from arena.ratings.result import MatchResult
>>> from arena.ratings.sprt import Sprt
>>> feeder = SprtFeeder(Sprt(0, 10, pentanomial=True), "cand")
>>> feeder.add(MatchResult("g@1", ["cand", "ref"], [3, -3], deal_id="1")).value
'continue'
>>> _ = feeder.add(MatchResult("g@1", ["ref", "cand"], [1, -1], deal_id="1"))
>>> feeder.sprt.counts, feeder.pending
([0, 0, 1, 0, 0], 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.ratings.comparisons import outcome
from arena.ratings.errors import RatingError
from arena.ratings.result import BotId, MatchResult
from arena.ratings.sprt import Sprt, SprtDecision

__all__ = ["candidate_score", "SprtFeeder"]


def candidate_score(result: MatchResult, candidate: BotId) -> float:
    """The candidate's score (1, 0.5, 0) against the other side of a two-sided result.

    :raises RatingError: if the result does not have exactly two sides or the
        candidate is not on exactly one of them.
    """
    sides = result.sides()
    if len(sides) != 2:
        raise RatingError(f"a gauntlet result needs two sides, got {len(sides)}")
    (_, bots0, ret0), (_, bots1, ret1) = sides
    in0, in1 = candidate in bots0, candidate in bots1
    if in0 == in1:
        raise RatingError(f"{candidate!r} must be on exactly one side of {result.seats}")
    return outcome(ret0, ret1) if in0 else outcome(ret1, ret0)


@dataclass
class SprtFeeder:
    """Adds a candidate's results to ``sprt``; see the module docstring."""

    sprt: Sprt
    candidate: BotId
    _first: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)
    _done: set[tuple[str, str]] = field(default_factory=set, repr=False)

    @property
    def pending(self) -> int:
        """Duplicate deals with only one table seen so far (pentanomial tests)."""
        return len(self._first)

    def add(self, result: MatchResult) -> SprtDecision:
        """Add one result; return the SPRT's decision.

        :raises RatingError: as :func:`candidate_score`; for a pentanomial test,
            also if the result has no ``deal_id`` or a third table of a deal arrives.
        """
        score = candidate_score(result, self.candidate)
        if not self.sprt.pentanomial:
            return self.sprt.add_game(score)
        if result.deal_id is None:
            raise RatingError("a pentanomial SPRT needs duplicate results (deal_id)")
        key = (result.ruleset, result.deal_id)
        if key not in self._first:
            if key in self._done:
                raise RatingError(f"deal {result.deal_id!r} already has two tables")
            self._first[key] = score
            return self.sprt.decision
        first = self._first.pop(key)
        self._done.add(key)
        return self.sprt.add_pair(first, score)

