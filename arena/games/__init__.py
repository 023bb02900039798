"""Game registry.

>>> 'bridge' in list_games()
True
>>> get_game('bridge').num_players
4

Each game lives in ``arena/games/<name>/`` and its package exports ``GAME``, the
:class:`~arena.core.state.Game` subclass. Registering a game is one line in
:data:`GAME_MODULES`; the conformance suite then covers every preset of it.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.core.state import Game

__all__ = ["COMPILABLE_MODULES", "GAME_MODULES", "compiled", "get_game", "get_game_class", "list_games"]

GAME_MODULES: dict[str, str] = {
    "auction": "arena.games.auction",
    "bridge": "arena.games.bridge",
    "calypso": "arena.games.calypso",
    "canasta": "arena.games.canasta",
    "rummy": "arena.games.rummy",
}
"""Registered games: name -> package exporting ``GAME``."""


def get_game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``.

    :raises ValueError: for an unknown name, listing the known ones.
    """
    try:
        module = GAME_MODULES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}") from None
    cls: type[Game] = importlib.import_module(module).GAME
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
    "arena.games.bridge.state", "arena.games.bridge.calls", "arena.games.bridge.cardmasks",
    "arena.games.canasta.state", "arena.games.rummy.game", "arena.games.rummy.solver",
)
"""The engines' hot paths that a wheel build compiles with mypyc where it can
(``setup.py``'s ``COMPILED_MODULES``)."""


def compiled() -> list[str]:
    """The modules of :data:`COMPILABLE_MODULES` this installation runs compiled (mypyc
    extension modules), in that order: ``[]`` for pure-Python engines (an editable
    install, a build without a C compiler or with ``ARENA_COMPILE=0``)."""
    return [name for name in COMPILABLE_MODULES
            if not (importlib.import_module(name).__file__ or "").endswith(".py")]
