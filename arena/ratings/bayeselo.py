"""BayesElo's draw model and unit conversions (ratings.md sections 4.1 and 4.2).

BayesElo (Rémi Coulom) models ``P(first wins) = f(R_b - R_a - adv + drawElo)``,
``P(second wins) = f(R_a - R_b + adv + drawElo)``, ``f(Δ) = 1/(1 + 10^(Δ/400))``,
with defaults ``eloAdvantage = 32.8`` and ``eloDraw = 97.3``. Its units are not
logistic Elo: ``logisticElo ≈ scale(drawElo) · bayesElo`` with ``scale = 4x/(1+x)²``,
``x = 10^(-drawElo/400)`` (cutechess ``BayesElo::scale``).

>>> [round(p, 6) for p in bayeselo_probabilities(0.0)]
[0.363523, 0.272953, 0.363523]
"""

from __future__ import annotations

import math

from arena.ratings.errors import RatingError

__all__ = [
    "BAYESELO_ADVANTAGE",
    "BAYESELO_DRAW_ELO",
    "bayeselo_probabilities",
    "bayeselo_from_probabilities",
    "bayeselo_scale",
    "ordo_elo_from_score",
]

BAYESELO_ADVANTAGE = 32.8
"""BayesElo's default first-move advantage (``CBradleyTerry.cpp``)."""
BAYESELO_DRAW_ELO = 97.3
"""BayesElo's default drawElo."""


def bayeselo_probabilities(
    diff: float, draw_elo: float = BAYESELO_DRAW_ELO, advantage: float = 0.0
) -> tuple[float, float, float]:
    """``(P(win), P(draw), P(loss))`` of the first player, ``diff = R_a - R_b`` in BayesElo units."""
    d = diff + advantage
    win = 1.0 / (1.0 + 10.0 ** ((-d + draw_elo) / 400.0))
    loss = 1.0 / (1.0 + 10.0 ** ((d + draw_elo) / 400.0))
    return win, 1.0 - win - loss, loss


def bayeselo_from_probabilities(p_win: float, p_loss: float) -> tuple[float, float]:
    """``(bayesElo, drawElo)`` that give these win and loss probabilities.

    :raises RatingError: unless both probabilities are in (0, 1).
    """
    if not (0 < p_win < 1 and 0 < p_loss < 1):
        raise RatingError(f"probabilities must be in (0, 1), got {p_win}, {p_loss}")
    elo = 200.0 * math.log10(p_win / p_loss * (1 - p_loss) / (1 - p_win))
    draw = 200.0 * math.log10((1 - p_loss) / p_loss * (1 - p_win) / p_win)
    return elo, draw


def bayeselo_scale(draw_elo: float) -> float:
    """Logistic Elo per BayesElo unit near zero: ``4x/(1+x)²``, ``x = 10^(-drawElo/400)``."""
    x = math.pow(10.0, -draw_elo / 400.0)
    return 4.0 * x / (1.0 + x) ** 2


def ordo_elo_from_score(p: float, at76: float = 202.0) -> float:
    """Rating difference for an expected score ``p`` on Ordo's scale (76% = ``at76`` points, default 202).

    >>> round(ordo_elo_from_score(0.76), 6)
    202.0

    :raises RatingError: unless ``p`` is in (0, 1).
    """
    if not 0 < p < 1:
        raise RatingError(f"score fraction must be in (0, 1), got {p}")
    return at76 * math.log(p / (1 - p)) / math.log(0.76 / 0.24)
