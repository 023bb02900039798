"""Pick a rating backend per league: :func:`make_rater`.

>>> make_rater("elo", k=16).config.k
16
>>> make_rater("glicko2", tau=0.3).tau
0.3
>>> make_rater("openskill").model_name
'PlackettLuce'
"""

from __future__ import annotations

from typing import Any, Literal

from arena.ratings.book import EloConfig, RatingBook
from arena.ratings.errors import RatingError
from arena.ratings.glicko2 import Glicko2Rater
from arena.ratings.openskill_backend import OpenSkillRater
from arena.ratings.rater import Rater

__all__ = ["BACKENDS", "make_rater"]

BACKENDS = ("elo", "glicko2", "openskill")
"""Names accepted by :func:`make_rater`."""


def make_rater(kind: Literal["elo", "glicko2", "openskill"], **params: Any) -> Rater:
    """A new, empty rater of the given kind.

    * ``"elo"``: :class:`RatingBook`; params ``k``, ``initial``, ``cap`` (see
      :class:`EloConfig`) and ``seeds``.
    * ``"glicko2"``: :class:`Glicko2Rater`; params ``tau``, ``initial``.
    * ``"openskill"``: :class:`OpenSkillRater`; params ``model`` plus the
      openskill model's own arguments.

    :raises RatingError: for an unknown kind or invalid parameters.
    """
    try:
        if kind == "elo":
            seeds = params.pop("seeds", None)
            return RatingBook(EloConfig(**params), seeds)
        if kind == "glicko2":
            return Glicko2Rater(**params)
        if kind == "openskill":
            return OpenSkillRater(**params)
    except TypeError as exc:
        raise RatingError(f"bad parameters for {kind!r}: {exc}") from None
    raise RatingError(f"unknown rating backend {kind!r}; choose from {', '.join(BACKENDS)}")
