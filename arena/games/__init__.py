"""Game registry.

>>> 'bridge' in list_games()
True
>>> get_game('bridge').num_players
4

Each game lives in ``arena/games/<name>/`` and its package exports ``DESCRIPTOR``,
its :class:`~arena.core.descriptor.GameDescriptor` (the
:class:`~arena.core.state.Game` subclass, the observation type and what the layers
above read of the game), and ``GAME``, the Game subclass. Registering a game is one
line in :data:`GAME_MODULES`; the conformance suite then covers every preset of it.

>>> get_descriptor('rummy').bots
'arena.bots.rummy'
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.core.descriptor import GameDescriptor
from arena.core.state import Game

__all__ = ["COMPILABLE_MODULES", "GAME_MODULES", "PROTOCOL_TEST_GAMES", "compiled", "get_descriptor", "get_game", "get_game_class",
           "list_games"]

GAME_MODULES: dict[str, str] = {
    "auction": "arena.games.auction",
    "bridge": "arena.games.bridge",
    "calypso": "arena.games.calypso",
    "canasta": "arena.games.canasta",
    "rummy": "arena.games.rummy",
}
"""Registered games: name -> package exporting ``GAME``."""


PROTOCOL_TEST_GAMES: dict[str, str] = {"highcard": "arena.testing.toy"}
"""Games of the bot protocol that are not played here: ``highcard``
(``proto/arena/bot/v1/highcard.proto``, a two-card test game for bots and for the
gateway's tests). :func:`get_descriptor` finds them, so their observations travel
typed; :func:`list_games` does not list them and :func:`get_game` plays one only once
it is registered in :data:`GAME_MODULES` (``tests/conftest.py``'s ``toy_registered``)."""


def _module(name: str, table: dict[str, str]) -> str:
    try:
        return table[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}") from None


def get_descriptor(name: str) -> GameDescriptor:
    """The descriptor of the game registered as ``name`` (its package's ``DESCRIPTOR``),
    or of a protocol test game (:data:`PROTOCOL_TEST_GAMES`).

    :raises ValueError: for an unknown name, listing the known ones.
    """
    module = _module(name, GAME_MODULES if name in GAME_MODULES else PROTOCOL_TEST_GAMES)
    descriptor: GameDescriptor = importlib.import_module(module).DESCRIPTOR
    return descriptor


def get_game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``.

    :raises ValueError: for an unknown name, listing the known ones.
    """
    cls: type[Game] = importlib.import_module(_module(name, GAME_MODULES)).DESCRIPTOR.game
    return cls


def get_game(name: str, **options: Any) -> Game:
    """A game with options (``preset=`` picks a named option set).

    :raises ValueError: for an unknown game, preset or option.
    """
    return get_game_class(name)(**options)


def list_games() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(GAME_MODULES)


COMPILABLE_MODULES: tuple[str, ...] = (
    "arena.games.bridge.state", "arena.games.bridge.actions", "arena.games.bridge.cardmasks",
    "arena.games.canasta.state", "arena.games.canasta.melds",
    "arena.games.rummy.state", "arena.games.rummy.solver",
)
"""The engines' hot paths that a wheel build compiles with mypyc where it can
(``setup.py``'s ``COMPILED_MODULES``)."""


def compiled() -> list[str]:
    """The modules of :data:`COMPILABLE_MODULES` this installation runs compiled (mypyc
    extension modules), in that order: ``[]`` for pure-Python engines (an editable
    install, a build without a C compiler or with ``ARENA_COMPILE=0``)."""
    return [name for name in COMPILABLE_MODULES
            if not (importlib.import_module(name).__file__ or "").endswith(".py")]
