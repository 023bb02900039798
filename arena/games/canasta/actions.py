"""Canasta actions: one frozen value type with a canonical text form.

Text forms (case-insensitive on input; ``10`` is accepted for ``T``)::

    draw                          DRAW_STOCK
    decline                       DECLINE (stock exhausted, taking optional)
    take K:KC,KD  A:AC,AD,AS      TAKE_PILE; the group keyed by the top card's rank is the
    take K:                       top group (the engine adds the top card); it alone may be empty
    meld 7:7C,7D,2H  K:KS,KH,JK   MELD one or more groups (keys 4..9,T,J,Q,K,A,WILD,BLACK3)
    discard 7H                    DISCARD

Groups are separated by spaces, a group is ``KEY:card,card,...``. The canonical
text sorts groups by key (4 .. A, WILD, BLACK3) and cards in canonical card order
(section 4 of the rules; jokers last), so equal actions have equal text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.core.cards import sort_cards
from arena.core.errors import InvalidActionError

from arena.games.canasta.rules import KEY_ORDER, KEYS

__all__ = ["CanastaAction", "Group", "KIND_ORDER", "DRAW", "DECLINE", "DISCARDS"]

Group = tuple[str, tuple[str, ...]]
"""A meld group: key and cards (canonical order)."""

KIND_ORDER = {"draw": 0, "take": 1, "decline": 2, "meld": 3, "discard": 4}

_CARD_ORDER: dict[str, int] = {}
for _i, _s in enumerate("CDHS"):
    for _j, _r in enumerate("23456789TJQKA"):
        _CARD_ORDER[_r + _s] = _i * 13 + _j
_CARD_ORDER["JK"] = 52


def _norm_card(token: str) -> str:
    t = token.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if t not in _CARD_ORDER:
        raise InvalidActionError(f"{token!r} is not a card (rank 2-9,T,J,Q,K,A then suit C,D,H,S, or JK)")
    return t


def _norm_key(key: str) -> str:
    k = key.strip().upper()
    if k == "10":
        k = "T"
    if k not in KEY_ORDER:
        raise InvalidActionError(f"{key!r} is not a meld key (4-9, T, J, Q, K, A, WILD, BLACK3)")
    return k


@dataclass(frozen=True, slots=True)
class CanastaAction:
    """One canasta action; see the module docstring for the text forms.

    ``groups`` and ``card`` are normalized on construction (groups sorted by key,
    cards in canonical order), so equal actions compare and hash equal.
    """

    kind: str
    """``draw``, ``take``, ``decline``, ``meld`` or ``discard``."""
    groups: tuple[Group, ...] = ()
    """``(key, cards)`` pairs for ``take`` and ``meld``."""
    card: str = ""
    """The discarded card for ``discard``."""
    _key: tuple[Any, ...] | None = field(default=None, compare=False, hash=False, repr=False)
    """The memoized :meth:`sort_key` (not part of the value)."""

    def __post_init__(self) -> None:
        if self.kind not in KIND_ORDER:
            raise InvalidActionError(f"unknown action kind {self.kind!r}")
        groups = tuple(sorted(((k, tuple(sort_cards(c))) for k, c in self.groups),
                              key=lambda g: KEY_ORDER.get(g[0], 99)))
        object.__setattr__(self, "groups", groups)

    # -- construction ----------------------------------------------------
    @classmethod
    def _trusted(cls, kind: str, groups: tuple[Group, ...] = (), card: str = "") -> CanastaAction:
        """The engine's constructor: ``kind`` known, every key and card a valid token.

        Normalizes exactly as ``__post_init__`` does (groups by key, cards in canonical
        order), with C-level sort keys; the result is equal to ``cls(kind, groups, card)``.
        """
        obj = object.__new__(cls)
        order = _CARD_ORDER.__getitem__
        setattr_ = object.__setattr__
        setattr_(obj, "kind", kind)
        # each group with its part of the sort key, made once (as sort_key makes it)
        parts = []
        for k, c in groups:
            cs = tuple(sorted(c, key=order))
            parts.append(((KEY_ORDER[k], len(cs), tuple(map(order, cs))), k, cs))
        parts.sort(key=_first_of_first)  # by key order, stable: as sorted(groups, key=_group_order)
        setattr_(obj, "groups", tuple([(k, cs) for _key, k, cs in parts]))
        setattr_(obj, "card", card)
        # set now (equal to sort_key()): the engine sorts its listings by the attribute
        setattr_(obj, "_key", (KIND_ORDER[kind], _CARD_ORDER.get(card, -1), tuple([p[0] for p in parts])))
        return obj

    @classmethod
    def meld(cls, groups: Any) -> CanastaAction:
        """A MELD action from ``{key: cards}`` or ``[(key, cards), ...]``."""
        items = groups.items() if isinstance(groups, dict) else groups
        return cls("meld", tuple((k, tuple(c)) for k, c in items))

    @classmethod
    def take(cls, groups: Any) -> CanastaAction:
        """A TAKE_PILE action from ``{key: cards}`` or ``[(key, cards), ...]``."""
        items = groups.items() if isinstance(groups, dict) else groups
        return cls("take", tuple((k, tuple(c)) for k, c in items))

    @classmethod
    def discard(cls, card: str) -> CanastaAction:
        return cls("discard", (), card)

    @classmethod
    def parse(cls, text: str) -> CanastaAction:
        """Parse the text form.

        :raises InvalidActionError: if the text is not a canasta action.
        """
        if not isinstance(text, str):
            raise InvalidActionError(f"a canasta action is text, got {type(text).__name__}")
        parts = text.split()
        if not parts:
            raise InvalidActionError("empty action text")
        kind = parts[0].lower()
        rest = parts[1:]
        if kind in ("draw", "decline"):
            if rest:
                raise InvalidActionError(f"{kind} takes no arguments")
            return cls(kind)
        if kind == "discard":
            if len(rest) != 1:
                raise InvalidActionError("discard takes exactly one card, e.g. 'discard 7H'")
            return cls("discard", (), _norm_card(rest[0]))
        if kind in ("meld", "take"):
            if not rest:
                raise InvalidActionError(f"{kind} needs at least one group, e.g. '{kind} K:KC,KD,KS'")
            groups = []
            for g in rest:
                if ":" not in g:
                    raise InvalidActionError(f"group {g!r} must be KEY:card,card,...")
                key, _, cards = g.partition(":")
                toks = [c for c in cards.split(",") if c.strip()]
                groups.append((_norm_key(key), tuple(_norm_card(c) for c in toks)))
            return cls(kind, tuple(groups))
        raise InvalidActionError(f"{text!r}: unknown action (draw, take, decline, meld, discard)")

    # -- text --------------------------------------------------------------
    def __str__(self) -> str:
        if self.kind == "discard":
            return f"discard {self.card}"
        if self.kind in ("meld", "take"):
            return self.kind + " " + " ".join(f"{k}:{','.join(c)}" for k, c in self.groups)
        return self.kind

    def sort_key(self) -> tuple[Any, ...]:
        """The order of :meth:`CanastaState.legal_actions` (memoized)."""
        key = self._key
        if key is None:
            key = (KIND_ORDER[self.kind], _CARD_ORDER.get(self.card, -1),
                   tuple((KEY_ORDER.get(k, 99), len(c), tuple(_CARD_ORDER.get(x, 99) for x in c))
                         for k, c in self.groups))
            object.__setattr__(self, "_key", key)
        return key

    @property
    def cards(self) -> list[str]:
        """Every hand card the action uses."""
        if self.kind == "discard":
            return [self.card]
        return [c for _, cs in self.groups for c in cs]


def _group_order(group: Group) -> int:
    return KEY_ORDER.get(group[0], 99)


def _first_of_first(part: tuple[tuple[int, int, tuple[int, ...]], str, tuple[str, ...]]) -> int:
    return part[0][0]


DISCARDS: dict[str, CanastaAction] = {tok: CanastaAction("discard", (), tok) for tok in _CARD_ORDER}
"""The DISCARD action of every card (shared: actions are immutable values)."""
DRAW = CanastaAction("draw")
DECLINE = CanastaAction("decline")
for _a in (*DISCARDS.values(), DRAW, DECLINE):
    _a.sort_key()  # set now: the engine sorts its listings by the attribute
assert KEYS[0] == "4"
