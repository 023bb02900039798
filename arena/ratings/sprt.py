"""Sequential probability ratio test for gauntlets: the :class:`Sprt` object.

Feed it results one at a time (:meth:`Sprt.add_game` for single games,
:meth:`Sprt.add_pair` for the two games of a duplicate pair); after each one
:attr:`Sprt.decision` says whether to continue or which hypothesis to accept.
H0: Elo = ``elo0``, H1: Elo = ``elo1``; ``alpha`` = P(accept H1 | H0), ``beta``
= P(accept H0 | H1). Bounds are Wald's ``ln(β/(1-α))`` and ``ln((1-β)/α)``
without fishtest's dynamic overshoot correction.

Models: ``"logistic"`` (fishtest GSPRT, default), ``"normalized"`` (fishtest
normalized Elo), ``"bayeselo"`` (cutechess, trinomial only). With
``pentanomial=True`` the unit of evidence is the duplicate pair (the whole
duplicate set of one deal, ratings.md section 3.2), and only :meth:`add_pair`
is allowed.

>>> t = Sprt(0, 10, 0.05, 0.05)
>>> t.add_counts(wins=60, losses=40, draws=100)
>>> round(t.llr, 6), t.decision
(0.988083, <SprtDecision.CONTINUE: 'continue'>)
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Literal

from arena.ratings.errors import RatingError
from arena.ratings.llr import llr_bayeselo, llr_logistic, llr_normalized, sprt_bounds

__all__ = ["Sprt", "SprtDecision", "SprtModel"]

SprtModel = Literal["logistic", "normalized", "bayeselo"]


class SprtDecision(str, Enum):
    """State of an SPRT."""

    CONTINUE = "continue"
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"


class Sprt:
    """An SPRT you feed results to; see the module docstring.

    :raises RatingError: on invalid α/β, ``elo0 >= elo1``, an unknown model, or
        the BayesElo model with pentanomial data.
    """

    def __init__(
        self,
        elo0: float,
        elo1: float,
        alpha: float = 0.05,
        beta: float = 0.05,
        *,
        model: SprtModel = "logistic",
        pentanomial: bool = False,
    ) -> None:
        if not elo0 < elo1:
            raise RatingError(f"need elo0 < elo1, got {elo0}, {elo1}")
        if model not in ("logistic", "normalized", "bayeselo"):
            raise RatingError(f"unknown SPRT model {model!r}")
        if model == "bayeselo" and pentanomial:
            raise RatingError("the BayesElo model is trinomial only")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.model: SprtModel = model
        self.pentanomial = pentanomial
        self.lower, self.upper = sprt_bounds(alpha, beta)
        self._counts = [0] * (5 if pentanomial else 3)

    @property
    def counts(self) -> list[int]:
        """``[L, D, W]`` or the five pair counts ``[LL, LD, LW+DD, DW, WW]``."""
        return list(self._counts)

    @property
    def samples(self) -> int:
        """Games (trinomial) or pairs (pentanomial) seen."""
        return sum(self._counts)

    def add_game(self, score: float) -> SprtDecision:
        """Add one game of the candidate: 1 win, 0.5 draw, 0 loss.

        :raises RatingError: for a pentanomial test or a score not in {0, 0.5, 1}.
        """
        if self.pentanomial:
            raise RatingError("a pentanomial SPRT takes pairs: use add_pair")
        if score not in (0, 0.5, 1):
            raise RatingError(f"score must be 0, 0.5 or 1, got {score}")
        self._counts[int(2 * score)] += 1
        return self.decision

    def add_pair(self, first: float, second: float) -> SprtDecision:
        """Add the candidate's two games of one duplicate pair (each 0, 0.5 or 1).

        In a trinomial test the two games are added separately.

        :raises RatingError: for scores not in {0, 0.5, 1}.
        """
        for s in (first, second):
            if s not in (0, 0.5, 1):
                raise RatingError(f"score must be 0, 0.5 or 1, got {s}")
        if not self.pentanomial:
            self._counts[int(2 * first)] += 1
            self._counts[int(2 * second)] += 1
        else:
            self._counts[int(round(2 * (first + second)))] += 1
        return self.decision

    def add_counts(
        self,
        *,
        wins: int = 0,
        losses: int = 0,
        draws: int = 0,
        pairs: Sequence[int] | None = None,
    ) -> None:
        """Add aggregated results (W/L/D for trinomial tests, five pair counts for pentanomial).

        :raises RatingError: if the data does not match the test's kind or a count is negative.
        """
        if self.pentanomial:
            if pairs is None or len(pairs) != 5 or wins or losses or draws:
                raise RatingError("a pentanomial SPRT takes five pair counts")
            add = list(pairs)
        else:
            if pairs is not None:
                raise RatingError("a trinomial SPRT takes wins/losses/draws")
            add = [losses, draws, wins]
        if min(add) < 0:
            raise RatingError("counts must be non-negative")
        self._counts = [c + a for c, a in zip(self._counts, add)]

    @property
    def llr(self) -> float:
        """The current log-likelihood ratio (0 before any result)."""
        if self.samples == 0:
            return 0.0
        if self.model == "bayeselo":
            l, d, w = self._counts
            return llr_bayeselo(w, l, d, self.elo0, self.elo1)
        if self.model == "normalized":
            return llr_normalized(self._counts, self.elo0, self.elo1)
        return llr_logistic(self._counts, self.elo0, self.elo1)

    @property
    def decision(self) -> SprtDecision:
        """CONTINUE, ACCEPT_H0 (LLR <= lower) or ACCEPT_H1 (LLR >= upper)."""
        llr = self.llr
        if llr >= self.upper:
            return SprtDecision.ACCEPT_H1
        if llr <= self.lower:
            return SprtDecision.ACCEPT_H0
        return SprtDecision.CONTINUE
