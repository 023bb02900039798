"""Built-in bots and the bot registry.

``random`` works for every game. A game's own bots live in
the module its descriptor names (``arena/bots/<game>.py``,
:class:`arena.core.descriptor.GameDescriptor`), which exports ``BOTS``: a mapping from bot name to a
factory ``(seed=..., **kwargs) -> Agent``.

A bot is named by a spec, ``name`` or ``name?noise=p`` (:mod:`arena.bots.noise`):
with ``noise`` every bot of every game plays a random legal action with
probability ``p`` instead of its own choice. The search bots (``pimc``) take
their budget the same way, ``pimc?samples=20&ms=500`` (options their factory
lists in its ``options`` attribute; :data:`arena.bots.noise.SEARCH_OPTIONS`).

>>> make_bot('bridge', 'random', seed=1).name
'random'
>>> make_bot('rummy', 'heuristic?noise=0.25').name
'heuristic?noise=0.25'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from arena.bots.base import Agent, MatchInfo, RandomAgent
from arena.bots.noise import NoisyAgent, format_bot_spec, parse_bot_spec
from arena.games import get_descriptor

__all__ = ["Agent", "MatchInfo", "RandomAgent", "NoisyAgent", "list_bots", "make_bot", "check_bot_spec",
           "parse_bot_spec", "format_bot_spec"]

BotFactory = Callable[..., Agent]


def _game_bots(game: str) -> dict[str, BotFactory]:
    """The game's own bots: ``BOTS`` of the module its descriptor names (none for an
    unknown game or one without bots of its own)."""
    try:
        name = get_descriptor(game).bots
    except ValueError:
        return {}
    if not name:
        return {}
    module = importlib.import_module(name)
    bots: dict[str, BotFactory] = dict(getattr(module, "BOTS", {}))
    return bots


def list_bots(game: str) -> list[str]:
    """Names of the built-in bots for ``game``."""
    return sorted({"random", *_game_bots(game)})


def check_bot_spec(game: str, spec: str, options: dict[str, Any] | None = None) -> str:
    """The canonical spec of a built-in bot of ``game`` (``spec`` may carry options
    itself; ``options`` are added to them).

    :raises ValueError: for an unknown bot name (listing the known ones) or option.
    """
    name, opts = parse_bot_spec(spec)
    if name not in list_bots(game):
        raise ValueError(f"unknown bot {name!r} for {game}; built-in bots: {', '.join(list_bots(game))}")
    canonical = format_bot_spec(name, {**opts, **(options or {})})
    _check_taken(game, name, parse_bot_spec(canonical)[1])
    return canonical


def _check_taken(game: str, name: str, opts: dict[str, Any]) -> None:
    """Refuse a search option (:data:`arena.bots.noise.SEARCH_OPTIONS`) the bot does not take."""
    taken = set(getattr(_game_bots(game).get(name), "options", ()))
    extra = sorted(set(opts) - {"noise"} - taken)
    if extra:
        raise ValueError(f"{', '.join(extra)}: unknown bot option of {game} {name}; "
                         f"it takes: {', '.join(['noise', *sorted(taken)])}")


def make_bot(game: str, name: str, seed: int | str = 0, **kwargs: Any) -> Agent:
    """A new built-in bot from its name or spec (``heuristic?noise=0.3``); a
    ``noise`` keyword does the same as the spec's option.

    :raises ValueError: for an unknown bot name, listing the known ones, or a bad option.
    """
    name, opts = parse_bot_spec(name)
    if "noise" in kwargs:
        opts.update(parse_bot_spec(f"x?noise={kwargs.pop('noise')}")[1])
    noise = float(opts.pop("noise", 0.0))
    if noise > 0.0:
        return NoisyAgent(make_bot(game, format_bot_spec(name, opts), seed, **kwargs), noise, seed)
    factories = _game_bots(game)
    if opts:
        _check_taken(game, name, opts)
    if name in factories:
        agent = factories[name](seed=seed, **opts, **kwargs)
    elif name == "random":
        agent = RandomAgent(seed)
    else:
        raise ValueError(f"unknown bot {name!r} for {game}; built-in bots: {', '.join(list_bots(game))}")
    return agent
