"""Aukció actions: :class:`Bid` (a pass is ``Bid(0)``) and :class:`Pay`.

Text forms (case-insensitive when parsed; parentheses and commas optional)::

    PASS            Bid(0)                 id 0
    BID 4000        Bid(4000)              id 4   (amount // 1000)
    PAY 6H 4C JK    Pay(('6H', '4C', 'JK'))  no id (a multiset of money cards)

>>> parse_action('bid(7000)'), str(parse_action('pass'))
(Bid(amount=7000), 'PASS')
>>> str(parse_action('PAY jk, 4c 6h'))
'PAY 6H 4C JK'
>>> Bid.from_id(4) == Bid(4000), Bid(4000).id
(True, 4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from arena.core.cards import is_card_token, parse_card
from arena.core.errors import InvalidActionError

from arena.games.auction.rules import UNIT, money_key

__all__ = ["Bid", "Pay", "PASS", "AuctionAction", "parse_action", "action_sort_key"]


@dataclass(frozen=True, slots=True, order=True)
class Bid:
    """A bid of ``amount`` points; ``amount == 0`` is ``PASS``.

    Stable id: ``amount // 1000`` (0 is ``PASS``, k is ``BID k*1000``).
    """

    amount: int
    """Points, a multiple of 1000; 0 for a pass."""

    @property
    def is_pass(self) -> bool:
        """Whether this is ``PASS``."""
        return self.amount == 0

    @property
    def id(self) -> int:
        """The stable bid id ``amount // 1000``."""
        return self.amount // UNIT

    @classmethod
    def from_id(cls, action_id: int) -> Bid:
        """The bid with id ``action_id`` (0 is ``PASS``)."""
        if isinstance(action_id, bool) or not isinstance(action_id, int) or action_id < 0:
            raise InvalidActionError(f"bid id must be a non-negative integer, got {action_id!r}")
        return cls(action_id * UNIT)

    @classmethod
    def parse(cls, text: str) -> Bid:
        """``PASS`` or ``BID <amount>``.

        :raises InvalidActionError: for anything else.
        """
        action = parse_action(text)
        if not isinstance(action, Bid):
            raise InvalidActionError(f"{text!r} is not a bid")
        return action

    def __str__(self) -> str:
        return "PASS" if self.amount == 0 else f"BID {self.amount}"


PASS = Bid(0)
"""The pass."""


@dataclass(frozen=True, slots=True)
class Pay:
    """A payment: a multiset of money card tokens, kept in canonical order
    (higher value first, equal values in suit order C D H S, the joker last)."""

    cards: tuple[str, ...]
    """Card tokens (``2C`` .. ``TS``, ``JK``) in canonical order."""

    def __post_init__(self) -> None:
        cards = tuple(self.cards)
        for t in cards:
            if not isinstance(t, str) or not is_card_token(t, jokers=True):
                raise InvalidActionError(f"{t!r} is not a card token")
        object.__setattr__(self, "cards", tuple(sorted(cards, key=_card_key)))

    @classmethod
    def parse(cls, text: str) -> Pay:
        """``PAY <cards>``.

        :raises InvalidActionError: for anything else.
        """
        action = parse_action(text)
        if not isinstance(action, Pay):
            raise InvalidActionError(f"{text!r} is not a payment")
        return action

    def __str__(self) -> str:
        return "PAY " + " ".join(self.cards) if self.cards else "PAY"


AuctionAction = Union[Bid, Pay]
"""Every action of the game."""


def _card_key(token: str) -> tuple[int, int]:
    if token == "JK" or token[0] in "JQKA":  # pictures never pay; keep them sortable for messages
        return (1, 0) if token == "JK" else (0, 100 + "JQKA".index(token[0]) * 4 + "CDHS".index(token[1]))
    return money_key(token)


_SPLIT = re.compile(r"[\s,()]+")


def parse_action(text: str) -> Bid | Pay:
    """Parse ``PASS``, ``BID <amount>`` or ``PAY <cards>``.

    :raises InvalidActionError: naming what is wrong.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"action text must be a string, got {type(text).__name__}")
    words = [w for w in _SPLIT.split(text.strip()) if w]
    if not words:
        raise InvalidActionError("empty action text")
    verb = words[0].upper()
    if verb == "PASS" and len(words) == 1:
        return PASS
    if verb == "BID":
        if len(words) != 2 or not words[1].isdigit():
            raise InvalidActionError(f"{text!r}: write BID <points>, e.g. BID 4000")
        amount = int(words[1])
        if amount % UNIT:
            raise InvalidActionError(f"{text!r}: bids are multiples of {UNIT}")
        if amount == 0:
            raise InvalidActionError(f"{text!r}: the smallest bid is {UNIT}; write PASS to pass")
        return Bid(amount)
    if verb == "PAY":
        if len(words) < 2:
            raise InvalidActionError(f"{text!r}: write PAY <cards>, e.g. PAY 6H 4C")
        return Pay(tuple(parse_card(w, jokers=True) for w in words[1:]))
    raise InvalidActionError(f"{text!r} is not an auction action (PASS, BID <points>, PAY <cards>)")


def action_sort_key(action: Bid | Pay) -> tuple[int, int, int, tuple[tuple[int, int], ...]]:
    """Order of legal actions: bids by amount; payments by value, then card count, then cards."""
    if isinstance(action, Bid):
        return (0, action.amount, 0, ())
    from arena.games.auction.rules import payment_value

    return (1, payment_value(action.cards), len(action.cards), tuple(_card_key(t) for t in action.cards))
