"""A game's descriptor: what the layers above the engine need to know of a game, in
one place, next to the engine (``arena/games/<game>/__init__.py`` exports it as
``DESCRIPTOR``; :func:`arena.games.get_descriptor` reads it).

>>> from arena.games import get_descriptor
>>> d = get_descriptor("calypso")
>>> d.observation.__name__, d.proto_field, d.bots
('CalypsoObservation', 'calypso', 'arena.bots.calypso')

Who reads what:

* :mod:`arena.remote.convert`: ``observation`` (the engine's observation dataclass)
  and ``proto_field`` (its message: a field of the ``observation`` oneof of
  ``DecisionRequest`` in ``proto/arena/bot/v1/bot.proto``);
* :mod:`arena.bots`: ``bots`` (the module whose ``BOTS`` maps bot names to
  factories; a game's ``pimc`` there is its subclass of
  :class:`arena.bots.search.flat.DeterminizedAgent`: its search hooks);
* :mod:`arena.match.infoset`: ``sampling`` (how the cards hidden from a seat may be
  dealt back, where the game knows more than "anywhere");
* the dashboard's replay (:mod:`arena.dashboard.replay`, ``static/replay.js``):
  ``replay`` (the renderer of the table's centre; ``None``: every public field as a
  list) and ``per_seat`` (public lists indexed by seat, shown with each seat).

A new game: its package under ``arena/games/``, its ``DESCRIPTOR``, one line in
:data:`arena.games.GAME_MODULES`, its bots in ``arena/bots/<game>.py`` and, for a
typed observation, its message in ``proto/`` (the contract bots are written
against). Nothing else names it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.core.state import Game

__all__ = ["DealGroups", "GameDescriptor", "Sampling"]

DealGroups = tuple[int, dict[int, list[int]], dict[int, set[str]]]
"""How hidden cards may be dealt back: (index into the information set's hidden shuffles
of the one constrained, its hidden positions by owner seat (-1: not dealt to a seat),
per owner the suits (card-token suit letters) it is known to hold none of)."""

Sampling = Callable[[Any, Sequence[tuple[int, list[int]]]], DealGroups | None]
"""``(the seat's observation, its hidden positions per shuffle) -> DealGroups`` or
``None`` (no constraint: the hidden cards go anywhere)."""


@dataclass(frozen=True)
class GameDescriptor:
    """One game, as the layers above its engine see it (module docstring)."""

    name: str
    game: type[Game]
    observation: type
    """The frozen dataclass ``State.observation`` returns."""
    proto_field: str | None = None
    """Its message's field in ``DecisionRequest.observation`` (``None``: the observation
    goes to bots only as JSON)."""
    bots: str = ""
    """The module of the game's built-in bots (``arena.bots.<game>``, exporting ``BOTS``)."""
    sampling: Sampling | None = None
    replay: str | None = None
    """The name of the replay page's renderer for the table's centre (``static/replay.js``
    ``CENTER``), or ``None`` for the generic one."""
    per_seat: tuple[str, ...] = ()
    """Public observation fields that are lists indexed by seat (the replay shows each
    entry with its seat)."""
