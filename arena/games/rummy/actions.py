"""Robber rummy's actions (:class:`RummyAction`):

``PASS``
    End the turn without a play.
``PLAY [4H 5H 6H 7H 8H] [QC QD QS]``
    The complete table after the play, one bracketed group per meld, each in
    canonical form, melds in canonical order. ``PLAY`` with no groups is the
    empty table (never valid, but well formed).

:meth:`RummyAction.parse` is lenient: any case, ``10`` for ``T``, commas, quotes,
``PLAY(...)`` and the JSON form ``PLAY [["7H","8H","9H"],["QC","QD","QS"]]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from arena.core.cards import parse_card
from arena.core.errors import InvalidActionError
from arena.games.rummy.melds import INDEX, TOKENS, canonical_layout, meld_tokens

__all__ = ["PASS", "RummyAction"]


_GROUP = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True, slots=True)
class RummyAction:
    """``PASS`` (``layout is None``) or ``PLAY(layout)``: the whole table after the play.

    The layout is normalised on construction (tokens upper case, melds and cards
    in canonical order), so equal tables give equal actions.

    >>> a = RummyAction.parse('play [qs qc qd] [9h 7h 8h]')
    >>> str(a)
    'PLAY [7H 8H 9H] [QC QD QS]'
    >>> RummyAction.parse(str(a)) == a, str(PASS)
    (True, 'PASS')

    :raises InvalidActionError: for a token that is not a card or a layout that
        is not a list of lists of tokens.
    """

    layout: tuple[tuple[str, ...], ...] | None = None
    """The melds of the table after the play, or ``None`` for ``PASS``."""

    def __post_init__(self) -> None:
        if self.layout is None:
            return
        if isinstance(self.layout, (str, bytes)) or not isinstance(self.layout, Iterable):
            raise InvalidActionError("a layout must be a list of melds, each a list of card tokens")
        groups: list[list[int]] = []
        for meld in self.layout:
            if isinstance(meld, (str, bytes)) or not isinstance(meld, Iterable):
                raise InvalidActionError(f"meld {meld!r} is not a list of card tokens")
            groups.append([INDEX[parse_card(t)] for t in meld])
        total = sum(len(g) for g in groups)
        if total > 104:
            raise InvalidActionError(f"V1: the layout has {total} cards, more than the 104 that exist")
        object.__setattr__(self, "layout", tuple(tuple(TOKENS[c] for c in m)
                                                 for m in canonical_layout(groups)))

    @classmethod
    def from_canonical(cls, layout: Iterable[tuple[int, ...]]) -> RummyAction:
        """A play from a layout of card ids that is already canonical (every meld in
        canonical form, melds in canonical order), without re-normalising it: the fast
        path of the engine's legal-action lists. Equal to ``play(layout)`` for such input."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "layout", tuple(map(meld_tokens, layout)))
        return obj

    @classmethod
    def _from_tokens(cls, layout: tuple[tuple[str, ...], ...]) -> RummyAction:
        """A play from a canonical layout already in tokens (the engine's listing; equal to
        ``cls(layout)`` for such input)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "layout", layout)
        return obj

    @classmethod
    def play(cls, melds: Iterable[Iterable[int]]) -> RummyAction:
        """A play from melds of card ids."""
        return cls(tuple(tuple(TOKENS[c] for c in m) for m in melds))

    @property
    def is_pass(self) -> bool:
        """Whether this is ``PASS``."""
        return self.layout is None

    def melds(self) -> list[list[int]]:
        """The layout as lists of card ids (empty for ``PASS``)."""
        return [[INDEX[t] for t in m] for m in self.layout or ()]

    def sort_key(self) -> tuple[int, str]:
        """Order of legal actions: ``PASS`` first, then plays by canonical text."""
        return (0, "") if self.layout is None else (1, str(self))

    def __str__(self) -> str:
        if self.layout is None:
            return "PASS"
        if not self.layout:
            return "PLAY"
        return "PLAY " + " ".join("[" + " ".join(m) + "]" for m in self.layout)

    @classmethod
    def parse(cls, text: str) -> RummyAction:
        """Read ``PASS`` or ``PLAY ...`` (lenient; see the module docstring).

        :raises InvalidActionError: if the text is not an action.
        """
        if not isinstance(text, str):
            raise InvalidActionError(f"action text must be a string, got {type(text).__name__}")
        t = text.strip().upper()
        if t == "PASS":
            return PASS
        if not t.startswith("PLAY"):
            raise InvalidActionError(f"{text!r} is not an action: expected PASS or PLAY [..] [..]")
        rest = t[4:].strip()
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1].strip()
        if rest.startswith("[[") or rest.startswith("[ ["):
            rest = rest[1:].rstrip()
            if not rest.endswith("]"):
                raise InvalidActionError(f"{text!r}: unbalanced brackets")
            rest = rest[:-1]
        groups = _GROUP.findall(rest)
        leftover = _GROUP.sub(" ", rest).replace(",", " ").strip()
        if leftover:
            raise InvalidActionError(f"{text!r}: unexpected text {leftover!r} outside [...] groups")
        melds = []
        for g in groups:
            g = g.replace('"', " ").replace("'", " ").replace(",", " ")
            melds.append(tuple(g.split()))
        return cls(tuple(melds))


PASS = RummyAction(None)
"""The pass action."""
