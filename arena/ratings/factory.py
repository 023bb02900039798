"""Pick a rating system by name: :data:`RATERS`, the one place a system is registered,
and :func:`make_rater`.

A system is a :class:`~arena.ratings.rater.Rater` subclass: its ``name`` (what
``make_rater``, ``arena ratings --system``, a ladder's ``rating`` and the admin API's
``RatingSystem`` take), its column ``label`` and ``interval_label``, and
``from_params`` (a configuration's parameters to a new rater). A new system is its
module plus one line in :data:`RATERS`; everything that lists, validates or labels
systems reads them from here (the admin API also needs its ``RATING_SYSTEM_<NAME>``
value in ``proto/arena/admin/v1/admin.proto``, the wire contract).

>>> make_rater("elo", k=16).config.k
16
>>> make_rater("glicko2", tau=0.3).tau
0.3
>>> make_rater("openskill").model_name
'PlackettLuce'
>>> BACKENDS
('elo', 'glicko2', 'openskill')
"""

from __future__ import annotations

from typing import Any

from arena.ratings.book import RatingBook
from arena.ratings.errors import RatingError
from arena.ratings.glicko2 import Glicko2Rater
from arena.ratings.openskill_backend import OpenSkillRater
from arena.ratings.rater import Rater

__all__ = ["BACKENDS", "RATERS", "make_rater", "rater_class"]

RATERS: tuple[type[Rater], ...] = (RatingBook, Glicko2Rater, OpenSkillRater)
"""Every rating system, the default (Elo) first."""

BACKENDS: tuple[str, ...] = tuple(r.name for r in RATERS)
"""Names accepted by :func:`make_rater`."""


def rater_class(kind: str) -> type[Rater]:
    """The system named ``kind``.

    :raises RatingError: for an unknown name, listing the known ones.
    """
    for cls in RATERS:
        if cls.name == kind:
            return cls
    raise RatingError(f"unknown rating backend {kind!r}; choose from {', '.join(r.name for r in RATERS)}")


def make_rater(kind: str, **params: Any) -> Rater:
    """A new, empty rater of the given kind.

    * ``"elo"``: :class:`RatingBook`; params ``k``, ``initial``, ``cap`` (see
      :class:`~arena.ratings.book.EloConfig`) and ``seeds``.
    * ``"glicko2"``: :class:`Glicko2Rater`; params ``tau``, ``initial``.
    * ``"openskill"``: :class:`OpenSkillRater`; params ``model`` plus the
      openskill model's own arguments.

    :raises RatingError: for an unknown kind or invalid parameters.
    """
    cls = rater_class(kind)
    try:
        return cls.from_params(**params)
    except TypeError as exc:
        raise RatingError(f"bad parameters for {kind!r}: {exc}") from None
