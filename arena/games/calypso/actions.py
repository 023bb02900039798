"""Calypso's action ids: the only decision is which card to play, id ``suit * 13 + rank``
(:func:`arena.core.cards.card_index`; the four copies of a card share one id). Text
form: the card token (``QS``); :func:`parse_action` also accepts ``play QS``, lower
case and ``10`` for ``T``."""

from __future__ import annotations

from arena.core.cards import STANDARD_TOKENS, card_index, parse_card
from arena.core.errors import InvalidActionError

__all__ = ["ACTION_SPACE_SIZE", "action_text", "parse_action"]

ACTION_SPACE_SIZE = 52


def action_text(action: object) -> str:
    """The card token of an action id.

    :raises InvalidActionError: for anything but an id 0..51.
    """
    if type(action) is not int or not 0 <= action < ACTION_SPACE_SIZE:
        raise InvalidActionError(f"action id {action!r} is outside 0..51")
    return STANDARD_TOKENS[action]


def parse_action(text: object) -> int:
    """The action id of a card's text (``QS``, ``play QS``, ``qs``, ``10S``).

    :raises InvalidActionError: for anything else.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"action text must be a string, got {type(text).__name__}")
    t = text.strip()
    if t[:5].lower() == "play ":
        t = t[5:]
    return card_index(parse_card(t))
