"""Glicko-2 (Mark Glickman), the algorithm and an online :class:`Glicko2Rater`.

:func:`glicko2_update` follows "Example of the Glicko-2 system" step by step
(ratings.md section 6.1), with the Illinois iteration for the volatility.
Scale 173.7178; an unrated player starts at r = 1500, RD = 350, σ = 0.06; the
system constant τ defaults to 0.5.

The rater treats **each match as one rating period** for the bots in it: a bot's
games of the period are its comparisons in that result (pairwise for
multi-player tables, sides for partnerships, same-seat comparisons for duplicate
deals, see :mod:`arena.ratings.comparisons`), each weighted by its comparison
weight in ``v`` and ``Δ``. A side is one opponent with the mean rating and the
root-mean-square RD of its members; every member of a side is updated against
the other side. Bots not in a result keep their RD (no idle-period inflation
between matches; call :meth:`Glicko2Rater.idle` to apply one).

>>> new = glicko2_update(Glicko2Rating(1500, 200, 0.06), [(1400, 30), (1550, 100), (1700, 300)], [1, 0, 0])
>>> round(new.r, 2), round(new.rd, 2), round(new.sigma, 5)
(1464.05, 151.52, 0.06)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ratings.comparisons import Comparison
from arena.ratings.errors import RatingError
from arena.ratings.rater import Rater
from arena.ratings.result import BotId, MatchResult

__all__ = ["GLICKO2_SCALE", "Glicko2Rating", "glicko2_update", "glicko2_idle", "Glicko2Rater"]

GLICKO2_SCALE = 173.7178
"""Rating points per Glicko-2 unit."""


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    """A Glicko-2 rating on the Glicko scale."""

    r: float = 1500.0
    """Rating."""
    rd: float = 350.0
    """Rating deviation (one standard deviation)."""
    sigma: float = 0.06
    """Volatility."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float, eps: float = 1e-6) -> float:
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    A = a
    if delta * delta > phi * phi + v:
        B = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    while abs(B - A) > eps:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB < 0:
            A, fA = B, fB
        else:
            fA /= 2.0
        B, fB = C, fC
    return math.exp(A / 2.0)


def glicko2_update(
    player: Glicko2Rating,
    opponents: Sequence[tuple[float, float]],
    scores: Sequence[float],
    *,
    tau: float = 0.5,
    weights: Sequence[float] | None = None,
) -> Glicko2Rating:
    """One rating period of ``player`` against ``opponents`` ``(r, RD)`` with ``scores``.

    ``weights`` (default 1 each) scale each game's contribution to ``v`` and
    ``Δ`` (fractional games). With no games the RD grows as for an idle period.

    :raises RatingError: if the lengths differ, τ is not positive or a score is outside [0, 1].
    """
    if len(opponents) != len(scores) or (weights is not None and len(weights) != len(scores)):
        raise RatingError("opponents, scores and weights must have one length")
    if not tau > 0:
        raise RatingError(f"tau must be positive, got {tau}")
    if any(not 0 <= s <= 1 for s in scores):
        raise RatingError(f"scores must be in [0, 1]: {list(scores)}")
    if not opponents:
        return glicko2_idle(player)
    w = [1.0] * len(scores) if weights is None else list(weights)
    mu = (player.r - 1500.0) / GLICKO2_SCALE
    phi = player.rd / GLICKO2_SCALE
    inv_v = 0.0
    total = 0.0
    for (r_j, rd_j), s_j, w_j in zip(opponents, scores, w):
        g = _g(rd_j / GLICKO2_SCALE)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (r_j - 1500.0) / GLICKO2_SCALE)))
        inv_v += w_j * g * g * e * (1.0 - e)
        total += w_j * g * (s_j - e)
    if inv_v == 0.0:
        return glicko2_idle(player)
    v = 1.0 / inv_v
    delta = v * total
    sigma = _volatility(player.sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return Glicko2Rating(GLICKO2_SCALE * mu_new + 1500.0, GLICKO2_SCALE * phi_new, sigma)


def glicko2_idle(player: Glicko2Rating) -> Glicko2Rating:
    """A player who did not compete in a period: ``φ' = sqrt(φ² + σ²)``.

    >>> round(glicko2_idle(Glicko2Rating(1500, 200, 0.06)).rd, 2)
    200.27
    """
    phi = player.rd / GLICKO2_SCALE
    return Glicko2Rating(player.r, GLICKO2_SCALE * math.sqrt(phi * phi + player.sigma**2), player.sigma)


class Glicko2Rater(Rater):
    """Online Glicko-2 per ``(ruleset, bot)``; see the module docstring.

    Displayed rating: r; 95% half-width: 1.96 RD.

    :raises RatingError: if ``tau`` is not positive.
    """

    name = "glicko2"
    label = "Glicko-2 r"
    interval_label = "± 1.96 RD"

    def __init__(self, *, tau: float = 0.5, initial: Glicko2Rating | None = None) -> None:
        super().__init__()
        if not tau > 0:
            raise RatingError(f"tau must be positive, got {tau}")
        self.tau = tau
        self.initial = initial if initial is not None else Glicko2Rating()
        self._ratings: dict[tuple[str, BotId], Glicko2Rating] = {}

    def fresh(self) -> Glicko2Rater:
        """An empty rater with the same τ and initial rating."""
        return Glicko2Rater(tau=self.tau, initial=self.initial)

    def get(self, ruleset: str, bot: BotId) -> Glicko2Rating:
        """Current rating of ``bot`` (the initial rating if unknown)."""
        return self._ratings.get((ruleset, bot), self.initial)

    def idle(self, ruleset: str) -> None:
        """Apply one idle rating period (RD inflation) to every bot of ``ruleset``."""
        for key in [k for k in self._ratings if k[0] == ruleset]:
            self._ratings[key] = glicko2_idle(self._ratings[key])

    def _value(self, ruleset: str, bot: BotId) -> tuple[float, float | None]:
        g = self.get(ruleset, bot)
        return g.r, 1.959964 * g.rd

    def _side(self, ruleset: str, side: tuple[BotId, ...]) -> tuple[float, float]:
        rs = [self.get(ruleset, b) for b in side]
        return sum(x.r for x in rs) / len(rs), math.sqrt(sum(x.rd**2 for x in rs) / len(rs))

    def _apply(self, result: MatchResult, comparisons: list[Comparison]) -> None:
        rs = result.ruleset
        games: dict[BotId, tuple[list[tuple[float, float]], list[float], list[float]]] = {}
        for c in comparisons:
            for mine, theirs, score in ((c.a, c.b, c.score), (c.b, c.a, 1.0 - c.score)):
                opp = self._side(rs, theirs)
                for b in mine:
                    o, s, w = games.setdefault(b, ([], [], []))
                    o.append(opp)
                    s.append(score)
                    w.append(c.weight)
        new = {b: glicko2_update(self.get(rs, b), o, s, tau=self.tau, weights=w) for b, (o, s, w) in games.items()}
        for b in result.seats:
            self._ratings.setdefault((rs, b), self.initial)
        for b, g in new.items():
            self._ratings[(rs, b)] = g
