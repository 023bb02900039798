"""A strength knob for every built-in bot: with probability ``noise`` a decision is
a uniformly random legal action instead of the bot's own choice.

Bot specs
---------
A built-in bot is named by a *spec*: its name, optionally followed by options in
query form, ``heuristic?noise=0.3``. :func:`parse_bot_spec` splits a spec,
:func:`format_bot_spec` writes the canonical form (options sorted by name, numbers
in Python's shortest ``repr``), so ``heuristic?noise=0.30`` and ``heuristic`` with
``options = { noise = 0.3 }`` in a tournament file are the same bot
``builtin:heuristic?noise=0.3`` everywhere (specs, records, ratings).
``noise = 0`` is the bot itself (the canonical spec drops it).

Known options (:data:`BOT_OPTIONS`): ``noise``, a probability in ``[0, 1]``, for
every bot of every game.

Randomness
----------
:class:`NoisyAgent` draws from its own :class:`~arena.core.dealing.SeedStream`,
keyed by the seed the bot was made with and, at each match start, by the match id
and seat (as :class:`~arena.bots.base.RandomAgent` does): the same spec and seed
give the same decisions, and no global random state is used. One draw per decision
decides "noise or not"; a noisy decision draws a second number for the action, and
the wrapped bot is not asked at all (the built-in bots keep no state between
decisions, they read the observation every time).

>>> parse_bot_spec("heuristic?noise=0.30")
('heuristic', {'noise': 0.3})
>>> format_bot_spec("heuristic", {"noise": 0.3}), format_bot_spec("heuristic", {"noise": 0})
('heuristic?noise=0.3', 'heuristic')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.bots.base import Agent, MatchInfo
from arena.core.dealing import SeedStream
from arena.core.state import Action, SeatIndex

__all__ = ["NoisyAgent", "parse_bot_spec", "format_bot_spec", "check_bot_options", "BOT_OPTIONS", "SEARCH_OPTIONS"]

BOT_OPTIONS = ("noise",)
"""Options every built-in bot accepts in its spec."""
SEARCH_OPTIONS = ("depth", "gate", "lead", "ms", "playouts", "pool", "samples", "scoring", "states", "width")
"""Options of the search bots (``pimc``; :mod:`arena.bots.search`, :mod:`arena.bots.bridge.pimc`):
numbers >= 0, or a word (``scoring=mp``). Each bot's factory lists those it takes
(its ``options`` attribute) and checks their values; :func:`arena.bots.check_bot_spec`
refuses one a bot does not take."""


def check_bot_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Validated options (numbers as floats).

    :raises ValueError: naming the option, for an unknown one or a value out of range.
    """
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key in SEARCH_OPTIONS:
            out[key] = _search_value(key, value)
            continue
        if key not in BOT_OPTIONS:
            raise ValueError(f"{key}: unknown bot option; known: {', '.join(BOT_OPTIONS + SEARCH_OPTIONS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{key}: must be a number, got {value!r}")
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"{key}: must be a probability in [0, 1], got {value!r}")
        out[key] = float(value)
    return out


def _search_value(key: str, value: Any) -> float | str:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            if not value.isidentifier():
                raise ValueError(f"{key}: must be a number or a word, got {value!r}") from None
            return str(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value) >= 0.0:
        raise ValueError(f"{key}: must be a number >= 0 or a word, got {value!r}")
    return float(value)


def _format_value(key: str, value: Any) -> str:
    if key in SEARCH_OPTIONS:
        if isinstance(value, str):
            return value
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return repr(value)


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` of ``name?key=value&key=value``.

    :raises ValueError: for a malformed spec or an invalid option.
    """
    name, sep, query = spec.partition("?")
    if not name:
        raise ValueError(f"bot spec {spec!r} has no bot name")
    if not sep:
        return name, {}
    raw: dict[str, Any] = {}
    for part in query.split("&"):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise ValueError(f"bot spec {spec!r}: option {part!r} is not key=value")
        try:
            raw[key] = value if key in SEARCH_OPTIONS else float(value)
        except ValueError:
            raise ValueError(f"bot spec {spec!r}: {key} must be a number, got {value!r}") from None
    return name, check_bot_options(raw)


def format_bot_spec(name: str, options: Mapping[str, Any] | None = None) -> str:
    """The canonical spec of ``name`` with ``options`` (see the module docstring)."""
    opts = check_bot_options(options or {})
    parts = [f"{k}={_format_value(k, opts[k])}" for k in sorted(opts) if not (k == "noise" and opts[k] == 0.0)]
    return name + ("?" + "&".join(parts) if parts else "")


class NoisyAgent(Agent):
    """``inner`` with probability ``noise`` of a random legal action per decision."""

    def __init__(self, inner: Agent, noise: float, seed: int | str = 0) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be a probability in [0, 1], got {noise!r}")
        self.inner = inner
        self.noise = float(noise)
        self.name = format_bot_spec(inner.name, {"noise": self.noise})
        self._seed = seed
        self._rng = SeedStream(f"noise|{seed}")
        self.noisy_decisions = 0
        """Decisions taken at random so far (for tests and curiosity)."""

    def start_match(self, info: MatchInfo) -> None:
        self._rng = SeedStream(f"noise|{self._seed}|{info.get('match_id', '')}|{info.get('seat', '')}")
        self.inner.start_match(info)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        if legal_actions and self._rng.random() < self.noise:
            self.noisy_decisions += 1
            return legal_actions[self._rng.below(len(legal_actions))]
        return self.inner.act(observation, legal_actions)

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        self.inner.action_refused(reason, retry_allowed, kind)

    def end_match(self, seat: SeatIndex, returns: Sequence[float]) -> None:
        self.inner.end_match(seat, returns)

    def close(self) -> None:
        self.inner.close()
