"""Online Elo per game and ruleset version: the :class:`RatingBook`.

Ratings are keyed by ``(ruleset, bot)``. Each recorded
:class:`~arena.ratings.result.MatchResult` becomes pairwise comparisons of
sides (:mod:`arena.ratings.comparisons`): pairwise decomposition with
``K/(n-1)`` for multi-player tables, side rating = mean of its members for
partnerships (every member moves by the side's change), and same-seat
comparisons across the tables of a duplicate deal. All comparisons of one
result use the ratings from before that result, so a table is updated
simultaneously and the order of seats does not matter.

Defaults (:class:`EloConfig`): ``K = 32`` (the "commonly used" fixed K of
ratings.md section 1.2; one table moves a player by at most K), initial rating
1500, no cap on rating differences (``cap=400`` gives FIDE's 400-point rule).

>>> from arena.ratings.result import MatchResult
>>> book = RatingBook()
>>> book.record(MatchResult("toy@v1", ["a", "b"], [1, 0]))
{'a': 16.0, 'b': -16.0}
>>> book.rating("toy@v1", "a"), book.rating("other@v1", "a")
(1516.0, 1500.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.comparisons import Comparison
from arena.ratings.elo import expected_score
from arena.ratings.errors import RatingError
from arena.ratings.rater import Rater
from arena.ratings.result import BotId, MatchResult

__all__ = ["EloConfig", "RatingBook"]


@dataclass(frozen=True, slots=True)
class EloConfig:
    """Parameters of the online Elo book.

    :raises RatingError: if ``k`` is not positive or ``cap`` is not positive.
    """

    k: float = 32.0
    """K-factor: the rating change for a full-weight game is ``K (S - E)``."""
    initial: float = 1500.0
    """Rating of a bot before its first result."""
    cap: float | None = None
    """If set, rating differences beyond ``cap`` count as ``cap`` (FIDE: 400)."""

    def __post_init__(self) -> None:
        if not self.k > 0:
            raise RatingError(f"K must be positive, got {self.k}")
        if self.cap is not None and not self.cap > 0:
            raise RatingError(f"cap must be positive, got {self.cap}")


class RatingBook(Rater):
    """Online Elo ratings keyed by ``(ruleset, bot)``; see the module docstring.

    :param config: K, initial rating and cap.
    :param seeds: optional starting ratings ``{(ruleset, bot): rating}`` (e.g.
        an anchor bot); :meth:`recompute` keeps them.
    """

    name = "elo"
    label = "Elo (online)"

    @classmethod
    def from_params(cls, **params: Any) -> RatingBook:
        """``seeds`` plus :class:`EloConfig`'s fields (``k``, ``initial``, ``cap``)."""
        seeds = params.pop("seeds", None)
        return cls(EloConfig(**params), seeds)

    def __init__(
        self,
        config: EloConfig | None = None,
        seeds: Mapping[tuple[str, BotId], float] | None = None,
    ) -> None:
        super().__init__()
        self.config = config if config is not None else EloConfig()
        self._seeds = dict(seeds or {})
        self._ratings: dict[tuple[str, BotId], float] = dict(self._seeds)

    def fresh(self) -> RatingBook:
        """An empty book with the same config and seeds."""
        return RatingBook(self.config, self._seeds)

    def rating(self, ruleset: str, bot: BotId) -> float:
        """Current Elo of ``bot`` in ``ruleset`` (the initial rating if unknown)."""
        return self._ratings.get((ruleset, bot), self.config.initial)

    def ratings(self, ruleset: str) -> dict[BotId, float]:
        """Every rated bot of ``ruleset`` and its Elo."""
        return {b: r for (rs, b), r in self._ratings.items() if rs == ruleset}

    def _value(self, ruleset: str, bot: BotId) -> tuple[float, float | None]:
        return self.rating(ruleset, bot), None

    def _apply(self, result: MatchResult, comparisons: list[Comparison]) -> None:
        rs = result.ruleset
        k, cap = self.config.k, self.config.cap
        deltas: dict[BotId, float] = {}
        ratings, initial = self._ratings, self.config.initial
        for c in comparisons:
            if len(c.a) == 1 and len(c.b) == 1:
                ra = ratings.get((rs, c.a[0]), initial)
                rb = ratings.get((rs, c.b[0]), initial)
            else:
                ra = sum(ratings.get((rs, b), initial) for b in c.a) / len(c.a)
                rb = sum(ratings.get((rs, b), initial) for b in c.b) / len(c.b)
            d = k * c.weight * (c.score - expected_score(ra, rb, cap=cap))
            for b in c.a:
                deltas[b] = deltas.get(b, 0.0) + d
            for b in c.b:
                deltas[b] = deltas.get(b, 0.0) - d
        for b in result.seats:
            self._ratings.setdefault((rs, b), self.config.initial)
        for b, d in deltas.items():
            self._ratings[(rs, b)] = self.rating(rs, b) + d

    @classmethod
    def from_results(
        cls,
        results: Iterable[MatchResult],
        config: EloConfig | None = None,
        seeds: Mapping[tuple[str, BotId], float] | None = None,
    ) -> RatingBook:
        """A book built by recording ``results`` in order.

        :raises RatingError: as :meth:`Rater.record`.
        """
        book = cls(config, seeds)
        book.record_all(results)
        return book

    def snapshot(self) -> dict[tuple[str, BotId], float]:
        """A copy of every rating, keyed by ``(ruleset, bot)``."""
        return dict(self._ratings)
