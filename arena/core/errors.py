"""Typed errors shared by every engine and by the arena around them.

All of them subclass :class:`ValueError` so that callers who only care about
"bad input" can catch one type. The split matters to the referee and to bots:

* :class:`InvalidActionError` -- the action cannot even be read: malformed text,
  an id outside the action space, a value of the wrong type. (Syntax.)
* :class:`IllegalActionError` -- the action is well formed but the rules forbid it
  in this position: a card not in hand, a revoke, an insufficient bid. (Rules.)
* :class:`AmbiguousActionError` -- the text matches more than one action.
* :class:`DecodeError` -- a record or file format (JSON Lines, PBN) could not be
  parsed; it carries the offending line and its 1-based number.

Every error carries a human-readable ``reason`` that is safe to send to the bot
that caused it (it never mentions another seat's hidden cards).
"""

from __future__ import annotations

__all__ = [
    "ArenaError",
    "InvalidActionError",
    "IllegalActionError",
    "AmbiguousActionError",
    "DecodeError",
    "GameOverError",
]


class ArenaError(ValueError):
    """Base class of every error raised by the arena on bad input."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidActionError(ArenaError):
    """An action that cannot be parsed or lies outside the action space."""


class IllegalActionError(ArenaError):
    """A well-formed action that the rules forbid in the current position."""


class AmbiguousActionError(InvalidActionError):
    """An action text that matches more than one action."""


class GameOverError(IllegalActionError):
    """An action was applied to a terminal state."""


class DecodeError(ArenaError):
    """A line of a record or file format could not be decoded."""

    def __init__(self, reason: str, line: str = "", lineno: int = 0) -> None:
        super().__init__(f"line {lineno}: {reason}" if lineno else reason)
        self.line = line
        self.lineno = lineno
