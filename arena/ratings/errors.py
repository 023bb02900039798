"""Errors raised by the rating code.

:class:`RatingError` subclasses :class:`arena.core.errors.ArenaError` (and so
:class:`ValueError`): every one of them means "bad input", e.g. a result whose
seats and returns differ in length, a probability outside (0, 1), or an unknown
rating backend.
"""

from __future__ import annotations

from arena.core.errors import ArenaError

__all__ = ["RatingError"]


class RatingError(ArenaError):
    """Invalid input to a rating, statistics or SPRT function."""
