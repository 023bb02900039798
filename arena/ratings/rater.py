"""The common interface of the online raters (Elo, Glicko-2, OpenSkill).

A league picks its backend with :func:`make_rater` (see :mod:`arena.ratings.factory`).
Every :class:`Rater` is fed :class:`~arena.ratings.result.MatchResult` objects
one at a time with :meth:`Rater.record`, keeps ratings per ``(ruleset, bot)``,
records a rating history, and can be rebuilt from all results with
:meth:`Rater.recompute`, which gives exactly the same ratings as recording them
online in the same order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from arena.ratings.comparisons import Comparison, DealLedger
from arena.ratings.result import BotId, MatchResult

__all__ = ["HistoryPoint", "RatingSummary", "Rater"]

R = TypeVar("R", bound="Rater")


@dataclass(frozen=True, slots=True)
class RatingSummary:
    """What a leaderboard shows for one bot."""

    bot: BotId
    rating: float
    """The displayed rating (Elo; Glicko-2 r; OpenSkill mu)."""
    error: float | None
    """Half-width of a 95% interval, or ``None`` when the backend has none (Elo)."""
    games: int
    """Number of results the bot took part in (in this ruleset)."""
    last_change: float
    """Change of ``rating`` caused by the last result that moved it."""


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A bot's rating after the ``step``-th result of its ruleset (1-based)."""

    step: int
    rating: float
    error: float | None


class Rater(ABC):
    """Base class: bookkeeping of games, last changes, history and duplicate deals.

    Subclasses implement :meth:`_apply` (update ratings for one result) and
    :meth:`_value` (display rating and 95% half-width of one bot), and
    :meth:`fresh` (an empty rater with the same parameters).
    """

    name: ClassVar[str] = "rater"
    """The system's name: what :func:`arena.ratings.make_rater`, ``arena ratings
    --system`` and the tournament files take."""
    label: ClassVar[str] = "rating"
    """What its displayed rating is called in a table's column (``Glicko-2 r``)."""
    interval_label: ClassVar[str | None] = None
    """What its own 95% half-width is (``± 1.96 RD``), or ``None`` when it has none."""

    @classmethod
    def from_params(cls: type[R], **params: Any) -> R:
        """A new, empty rater from a configuration's parameters (by default the
        constructor's keyword arguments)."""
        return cls(**params)

    def __init__(self) -> None:
        self._ledger = DealLedger()
        self._games: dict[tuple[str, BotId], int] = {}
        self._last: dict[tuple[str, BotId], float] = {}
        self._steps: dict[str, int] = {}
        self._history: dict[str, dict[BotId, list[HistoryPoint]]] = {}

    # -- to implement -----------------------------------------------------
    @abstractmethod
    def _apply(self, result: MatchResult, comparisons: list[Comparison]) -> None:
        """Update the ratings for one result (``comparisons`` from the deal ledger)."""

    @abstractmethod
    def _value(self, ruleset: str, bot: BotId) -> tuple[float, float | None]:
        """(display rating, 95% half-width or None) of a bot; a new bot's initial values."""

    @abstractmethod
    def fresh(self: R) -> R:
        """An empty rater of the same kind and parameters."""

    # -- public API -------------------------------------------------------
    @property
    def ledger(self) -> DealLedger:
        """The duplicate deals' earlier tables this rater compares new tables with."""
        return self._ledger

    def record(self, result: MatchResult) -> dict[BotId, float]:
        """Update the ratings with one result; return each touched bot's rating change.

        Touched bots are those of ``result`` plus, for a duplicate table, the
        bots of earlier tables of the same deal it was compared with.

        :raises RatingError: on an inconsistent duplicate deal (see :class:`DealLedger`).
        """
        rs = result.ruleset
        comparisons = self._ledger.add(result)
        touched = dict.fromkeys(result.seats)
        for c in comparisons:
            touched.update(dict.fromkeys(c.a + c.b))
        before = {b: self._value(rs, b)[0] for b in touched}
        self._apply(result, comparisons)
        step = self._steps.get(rs, 0) + 1
        self._steps[rs] = step
        for b in dict.fromkeys(result.seats):
            self._games[(rs, b)] = self._games.get((rs, b), 0) + 1
        hist = self._history.setdefault(rs, {})
        changes = {}
        for b in touched:
            value, err = self._value(rs, b)
            changes[b] = value - before[b]
            if changes[b] != 0.0 or (rs, b) not in self._last:
                self._last[(rs, b)] = changes[b]
            hist.setdefault(b, []).append(HistoryPoint(step, value, err))
        return changes

    def record_all(self, results: Iterable[MatchResult]) -> None:
        """Record every result in order.

        :raises RatingError: as :meth:`record`.
        """
        for r in results:
            self.record(r)

    def recompute(self: R, results: Iterable[MatchResult]) -> R:
        """A new rater of the same parameters fed ``results`` in order.

        :raises RatingError: as :meth:`record`.
        """
        new = self.fresh()
        new.record_all(results)
        return new

    def rulesets(self) -> list[str]:
        """Rulesets with at least one recorded result."""
        return sorted(self._steps)

    def bots(self, ruleset: str) -> list[BotId]:
        """Bots with a rating in ``ruleset``."""
        return sorted(b for (rs, b) in self._last if rs == ruleset)

    def summary(self, ruleset: str, bot: BotId) -> RatingSummary:
        """The leaderboard entry of one bot (initial values for an unknown bot)."""
        value, err = self._value(ruleset, bot)
        return RatingSummary(
            bot, value, err, self._games.get((ruleset, bot), 0), self._last.get((ruleset, bot), 0.0)
        )

    def standings(self, ruleset: str) -> list[RatingSummary]:
        """Every bot of ``ruleset``, best rating first (ties by name)."""
        rows = [self.summary(ruleset, b) for b in self.bots(ruleset)]
        return sorted(rows, key=lambda s: (-s.rating, s.bot))

    def history(self, ruleset: str) -> dict[BotId, list[HistoryPoint]]:
        """Each bot's rating after every result that touched it, in order."""
        return {b: list(pts) for b, pts in self._history.get(ruleset, {}).items()}
