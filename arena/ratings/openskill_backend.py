"""OpenSkill (Weng-Lin) ratings through the ``openskill`` package (tested with 6.2.0).

This module only adapts :class:`~arena.ratings.result.MatchResult` to
``openskill``'s ``model.rate(teams, ranks=...)``; the rating math is the
package's. Ratings are kept per ``(ruleset, bot)`` as ``(mu, sigma)``.

* Ordinary match: one ``rate`` call with every side as a team, ranked by the
  side returns (ties share a rank). A team's skill is the sum of its members'
  (openskill's model, unlike Elo's mean).
* Duplicate table, or a bot on several sides: the comparisons of the result
  (:mod:`arena.ratings.comparisons`) between the same two sides are netted
  (weighted mean score above, at or below ½) and each pair of sides is rated
  once as a two-team match, against the pre-result ratings.

Displayed rating: ``mu``; 95% half-width ``1.96 sigma``; :meth:`OpenSkillRater.ordinal`
gives the conservative ``mu - 3 sigma`` many leaderboards sort by.
"""

from __future__ import annotations

from typing import Any

from openskill.models import MODELS

from arena.ratings.comparisons import Comparison
from arena.ratings.errors import RatingError
from arena.ratings.rater import Rater
from arena.ratings.result import BotId, MatchResult

__all__ = ["OpenSkillRater"]

_MODELS = {m.__name__: m for m in MODELS}


class OpenSkillRater(Rater):
    """Online OpenSkill ratings; see the module docstring.

    :param model: an ``openskill.models`` class name (``"PlackettLuce"``,
        ``"BradleyTerryFull"``, ``"BradleyTerryPart"``, ``"ThurstoneMostellerFull"``,
        ``"ThurstoneMostellerPart"``).
    :param model_args: keyword arguments of the model (``mu``, ``sigma``, ``beta``, ``tau`` ...).
    :raises RatingError: on an unknown model name.
    """

    name = "openskill"
    label = "OpenSkill mu"
    interval_label = "± 1.96 sigma"

    def __init__(self, model: str = "PlackettLuce", **model_args: Any) -> None:
        super().__init__()
        if model not in _MODELS:
            raise RatingError(f"unknown openskill model {model!r}; choose from {sorted(_MODELS)}")
        self.model_name = model
        self.model_args = dict(model_args)
        self.model = _MODELS[model](**model_args)
        default = self.model.rating()
        self._initial = (float(default.mu), float(default.sigma))
        self._ratings: dict[tuple[str, BotId], tuple[float, float]] = {}

    def fresh(self) -> OpenSkillRater:
        """An empty rater with the same model and parameters."""
        return OpenSkillRater(self.model_name, **self.model_args)

    def get(self, ruleset: str, bot: BotId) -> tuple[float, float]:
        """``(mu, sigma)`` of ``bot`` (the model's initial values if unknown)."""
        return self._ratings.get((ruleset, bot), self._initial)

    def ordinal(self, ruleset: str, bot: BotId, z: float = 3.0) -> float:
        """``mu - z sigma``."""
        mu, sigma = self.get(ruleset, bot)
        return mu - z * sigma

    def _value(self, ruleset: str, bot: BotId) -> tuple[float, float | None]:
        mu, sigma = self.get(ruleset, bot)
        return mu, 1.959964 * sigma

    def _rate(self, ruleset: str, sides: list[tuple[BotId, ...]], returns: list[float]) -> dict[BotId, tuple[float, float]]:
        teams = [[self.model.rating(*self.get(ruleset, b), name=b) for b in side] for side in sides]
        distinct = sorted(set(returns), reverse=True)
        ranks = [distinct.index(r) + 1 for r in returns]
        out = self.model.rate(teams, ranks=ranks)
        return {p.name: (float(p.mu), float(p.sigma)) for team in out for p in team}

    def _apply(self, result: MatchResult, comparisons: list[Comparison]) -> None:
        rs = result.ruleset
        sides = result.sides()
        bots = [b for _, side, _ in sides for b in side]
        new: dict[BotId, tuple[float, float]] = {}
        if result.deal_id is None and len(set(bots)) == len(bots):
            new = self._rate(rs, [side for _, side, _ in sides], [ret for _, _, ret in sides])
        else:
            net: dict[tuple[tuple[BotId, ...], tuple[BotId, ...]], list[float]] = {}
            for c in comparisons:
                acc = net.setdefault((c.a, c.b), [0.0, 0.0])
                acc[0] += c.weight
                acc[1] += c.weight * c.score
            for (a, b), (w, s) in net.items():
                if set(a) & set(b):
                    continue  # openskill cannot rate a player against itself
                mean = s / w
                ret = [1.0, 0.0] if mean > 0.5 else [0.0, 1.0] if mean < 0.5 else [0.0, 0.0]
                for bot, val in self._rate(rs, [a, b], ret).items():
                    old = self.get(rs, bot)
                    cur = new.get(bot, old)
                    new[bot] = (cur[0] + val[0] - old[0], min(cur[1], val[1]))
        for seat_bot in result.seats:
            self._ratings.setdefault((rs, seat_bot), self._initial)
        self._ratings.update({(rs, bot): v for bot, v in new.items()})
