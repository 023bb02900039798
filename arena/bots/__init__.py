"""Built-in bots and the bot registry.

``random`` works for every game. A game's own bots live in
``arena/bots/<game>.py``, which exports ``BOTS``: a mapping from bot name to a
factory ``(seed=..., **kwargs) -> Agent``.

>>> make_bot('bridge', 'random', seed=1).name
'random'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from arena.bots.base import Agent, MatchInfo, RandomAgent

__all__ = ["Agent", "MatchInfo", "RandomAgent", "list_bots", "make_bot"]

BotFactory = Callable[..., Agent]


def _game_bots(game: str) -> dict[str, BotFactory]:
    try:
        module = importlib.import_module(f"arena.bots.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"arena.bots.{game}":
            raise
        return {}
    bots: dict[str, BotFactory] = dict(getattr(module, "BOTS", {}))
    return bots


def list_bots(game: str) -> list[str]:
    """Names of the built-in bots for ``game``."""
    return sorted({"random", *_game_bots(game)})


def make_bot(game: str, name: str, seed: int | str = 0, **kwargs: Any) -> Agent:
    """A new built-in bot.

    :raises ValueError: for an unknown bot name, listing the known ones.
    """
    factories = _game_bots(game)
    if name in factories:
        agent = factories[name](seed=seed, **kwargs)
    elif name == "random":
        agent = RandomAgent(seed)
    else:
        raise ValueError(f"unknown bot {name!r} for {game}; built-in bots: {', '.join(list_bots(game))}")
    return agent
