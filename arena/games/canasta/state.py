"""The canasta state: dealing, the turn, validation, enumeration, hand end.

See the package docstring (:mod:`arena.games.canasta`) for the rules summary,
the action text forms, the observation layout and the rule decisions.

Speed: the enumeration memoizes pure functions of its inputs (the meld options of a
rank, the generated actions, the per-group facts of :func:`_group_info`, and whether a
one-group meld or pickup is legal, keyed by everything that decides it, the value
computed by :meth:`CanastaState._group_problem` itself), shares the DISCARD actions,
and accepts a listed meld or pickup without checking it twice;
``tests/games/canasta/test_canasta_golden.py`` pins the lists to what the plain
enumeration gave.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import Enum
from functools import lru_cache
from itertools import combinations
from operator import attrgetter, itemgetter
from typing import Any, Final

from arena.core.cards import sort_cards, standard_deck
from arena.core.dealing import Dealer
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL, Action, Game, State

from arena.games.canasta.actions import _CARD_ORDER, DECLINE, DISCARDS, DRAW, KIND_ORDER, CanastaAction, Group
from arena.games.canasta.observation import CanastaObservation
from arena.games.canasta.rules import (BLACK3, CANASTA_REQUIRED, KEY_ORDER, NATURAL_RANKS, NATURALS, RED3,
                                       VALUES, WILDS, Rules,
                                       card_value, is_black3, is_natural, is_red3, is_wild,
                                       opening_table_value, rank_value)
from arena.games.canasta.scoring import HandScore, is_canasta, score_side


__all__ = ["CanastaState", "CanastaObservation", "Phase"]

_COMPILED: Final = not __file__.endswith(".py")
"""Whether this module runs compiled (mypyc; see ``setup.py``): then ``clone()`` copies
attribute by attribute (compiled instances have no ``__dict__`` to copy)."""


class Phase(str, Enum):
    """Whose decision and what kind (rules section 6)."""

    DRAW = "draw"
    PLAY = "play"
    OVER = "over"


_TOKEN_ORDER: Final = {tok: i for i, tok in enumerate(standard_deck(1, 1))}


def _sorted_tokens(cards: Iterable[str]) -> list[str]:
    """``sort_cards`` with a C-level key (every token valid; falls back otherwise)."""
    cards = list(cards)
    try:
        return sorted(cards, key=_TOKEN_ORDER.__getitem__)
    except KeyError:
        return sort_cards(cards)


_BY_ORDER: Final = list(_TOKEN_ORDER)
"""The tokens in card order (the inverse of ``_TOKEN_ORDER``)."""


def _hand_tokens(hand: Counter[str]) -> list[str]:
    """``_sorted_tokens(hand.elements())``, sorting the distinct cards' positions (plain
    integers) instead of every card by a key function."""
    order = _TOKEN_ORDER
    try:
        positions = [order[c] for c in hand]
    except KeyError:
        return _sorted_tokens(hand.elements())
    positions.sort()
    by_order = _BY_ORDER
    out: list[str] = []
    for i in positions:
        c = by_order[i]
        k = hand[c]
        if k == 1:
            out.append(c)
        elif k > 1:
            out.extend([c] * k)
    return out


_KIND: Final[dict[str, int]] = {"JK": 1}
"""Card kinds for :meth:`CanastaState._pool`: 1 joker, 2 a two, 3 a black three, 4 a natural."""
for _tok in standard_deck(1):
    _KIND[_tok] = 2 if _tok[0] == "2" else 3 if is_black3(_tok) else 4 if is_natural(_tok) else 0


_POS_KIND: Final = [_KIND.get(c, 0) for c in _BY_ORDER]
""":data:`_KIND` by card position (:data:`_TOKEN_ORDER`)."""
_POS_DISCARD: Final = [DISCARDS[c] for c in _BY_ORDER]
"""The DISCARD action of every card position."""

_Pool = tuple[dict[str, list[str]], list[str], int, list[str], list[CanastaAction]]


def _hand_pool(hand: Counter[str]) -> _Pool:
    """A hand by kind, each in card order: naturals by rank, 2s, jokers (a number), black
    threes; and the DISCARD action of each distinct card, in card order. One pass over the
    hand's distinct cards sorted by position (plain integers)."""
    order = _TOKEN_ORDER
    try:
        positions = [order[c] for c in hand]
    except KeyError:  # not a standard token: the plain path
        return _tokens_pool(_sorted_tokens(hand.elements()))
    positions.sort()
    by_order = _BY_ORDER
    kinds = _POS_KIND
    disc = _POS_DISCARD
    nat: dict[str, list[str]] = {}
    twos: list[str] = []
    b3: list[str] = []
    discards: list[CanastaAction] = []
    jokers = 0
    for p in positions:
        c = by_order[p]
        k = hand[c]
        if k < 1:
            continue
        discards.append(disc[p])
        kind = kinds[p]
        if kind == 4:
            lst = nat.get(c[0])
            if lst is None:
                nat[c[0]] = [c] * k
            elif k == 1:
                lst.append(c)
            else:
                lst.extend([c] * k)
        elif kind == 2:
            twos.extend([c] * k)
        elif kind == 1:
            jokers += k
        elif kind == 3:
            b3.extend([c] * k)
    return nat, twos, jokers, b3, discards


def _tokens_pool(tokens: list[str]) -> _Pool:
    """:func:`_hand_pool` of the sorted cards ``tokens`` (any tokens)."""
    nat: dict[str, list[str]] = {}
    twos: list[str] = []
    b3: list[str] = []
    discards: list[CanastaAction] = []
    jokers = 0
    prev = ""
    for c in tokens:
        if c != prev:
            discards.append(_DISCARDS.get(c) or _keyed(CanastaAction("discard", (), c)))
            prev = c
        k = _KIND.get(c, 0)
        if k == 1:
            jokers += 1
        elif k == 2:
            twos.append(c)
        elif k == 3:
            b3.append(c)
        elif k == 4:
            lst = nat.get(c[0])
            if lst is None:
                nat[c[0]] = [c]
            else:
                lst.append(c)
    return nat, twos, jokers, b3, discards


_SORT_KEY: Final = attrgetter("_key")
_FIRST: Final = itemgetter(0)
"""The listing's sort key: every listed action has its sort key set (see ``_trusted``)."""

@lru_cache(maxsize=None)
def _option_shapes(nat: int, twos: int, jokers: int, old_n: int, old_w: int, n_min: int, extra_nat: int,
                   allow_empty: bool, ratio: bool) -> tuple[tuple[int, int, int], ...]:
    """The one-group options of a rank (memoized, on numbers only): ``(n, t, j)`` for the
    group of the rank's first ``n`` naturals, the first ``t`` 2s and ``j`` jokers, given the
    numbers of the rank's naturals, of 2s and of jokers in hand (more than 3 of a wild kind
    never matter) and the existing meld's naturals and wilds."""
    out = []
    comps: list[tuple[int, int]] = []  # (jokers, twos): for each wild count, 2s first and jokers first
    for w in range(0, min(3, jokers + twos) + 1):
        t = min(w, twos)
        comps.append((w - t, t))
        j = min(w, jokers)
        if j != w - t:
            comps.append((j, w - j))
    for n in range(n_min, nat + 1):
        for j, t in comps:
            if n + j + t == 0 and not allow_empty:
                continue
            tn, tw = old_n + n + extra_nat, old_w + j + t
            if tn + tw < 3 or tn < 2 or not (tw <= 3 and (not ratio or tw <= tn)):
                continue
            out.append((n, t, j))
    return tuple(out)


_VALID: Final[dict[tuple[int, int, int, int, tuple[int, int] | None, int, int], bool]] = {}
"""Whether a generated one-group MELD is legal, by everything that decides it (see
:meth:`CanastaState._meld_candidates`)."""
_SINGLES: Final[dict[int, tuple[tuple[int, int, int], ...]]] = {}
"""The legal one-group MELDs of a rank, as ``(n, t, j)`` (:func:`_option_shapes`), by
everything that decides them (see :meth:`CanastaState._meld_candidates`)."""
_WILD_SINGLES: Final[dict[tuple[int, int, tuple[int, int] | None, int, int], tuple[tuple[int, int], ...]]] = {}
"""The legal one-group WILD MELDs, as ``(t, j)`` (2s, jokers), by everything that decides them."""
_BASE_IDS: Final[dict[tuple[Any, ...], int]] = {}
"""A small number for each position context of :meth:`CanastaState._meld_candidates` (the
side's canastas up to the number needed to go out, opened, requirement, the rules), a
part of the ``_SINGLES`` keys; few values ever occur (``_BASE_CAP`` bounds them)."""
_BASE_CAP: Final = 1 << 10
_COMBO_VALID: Final[dict[tuple[Any, ...], bool]] = {}
"""Whether a generated multi-group MELD or TAKE_PILE is legal, by its shape and everything
else that decides it (see :meth:`CanastaState._combo_actions`)."""
_MEMO_CAP: Final = 1 << 14
"""Entries per memo before it is cleared: a long-running worker keeps at most this many
(the memos saturate: 1200 two-player matches fill _ONE with about 14000 groups)."""
# Imported constants the hot paths use, as final names of this module (a compiled module
# reads those directly instead of looking them up in its namespace every time).
_ACTION_TYPE: Final = CanastaAction
_KIND_ORDER: Final = KIND_ORDER
_KEY_ORDER: Final = KEY_ORDER
_ORDER: Final = _CARD_ORDER
_DISCARDS: Final = DISCARDS
_CANASTA_REQUIRED: Final = CANASTA_REQUIRED
_RANK_CLASS: Final = {k: rank_value(k) for k in NATURAL_RANKS}
_RANK_INDEX: Final = {k: i for i, k in enumerate(NATURAL_RANKS)}
"""Natural ranks by value: the validity of a meld depends on its rank only through it."""


_Part = tuple[int, int, tuple[int, ...]]
_Listed = tuple[bytes, CanastaAction]
"""A generated action with its sort key as bytes (see :func:`_action`)."""

_ONE: Final[dict[Group, _Listed]] = {}
"""The one-group MELD of a generated group (cards in the generated order), with its sort
key as bytes (:func:`_action`): the action's ``groups[0]`` is the group's canonical form
(cards in canonical order) and its ``_key[2][0]`` the group's part of the sort key, which
the multi-group actions are made of. Actions are immutable values: a listing shares
them, as it shares the DISCARD actions."""
_MELD_ORDER: Final = KIND_ORDER["meld"]


def _one(group: Group) -> _Listed:
    got = _ONE.get(group)
    if got is None:
        key, cards = group
        order = _ORDER
        cs = tuple(sorted(cards, key=order.__getitem__))
        # already in canonical order (as generated groups often are): the memo's key is the
        # action's group too
        normal = group if cs == cards else (key, cs)
        positions = [order[c] for c in cs]
        ko = _KEY_ORDER[key]
        obj = object.__new__(_ACTION_TYPE)
        object.__setattr__(obj, "kind", "meld")
        object.__setattr__(obj, "groups", (normal,))
        object.__setattr__(obj, "card", "")
        object.__setattr__(obj, "_key", (_MELD_ORDER, -1, ((ko, len(cs), tuple(positions)),)))
        got = (bytes([ko, len(cs)] + positions), obj)
        if len(_ONE) >= _MEMO_CAP:
            _ONE.clear()
        _ONE[group] = got
    return got


def _action(kind: str, groups: tuple[Group, ...]) -> _Listed:
    """The engine's action of ``kind`` (``meld`` or ``take``) and ``groups`` (distinct keys):
    equal to ``CanastaAction(kind, groups)``, normalized as ``CanastaAction._trusted`` does
    (groups by key, cards in canonical order, the sort key set), from memoized groups
    (:func:`_one`; a one-group MELD is the memoized action itself).

    With it, the part of its sort key after the kind (the same for every generated one) as
    bytes: per group its key's position, its number of cards and the cards' positions
    (all below 256). The groups' lengths come before their cards, so bytes compare as
    the sort keys do, and equal bytes mean equal actions."""
    if len(groups) == 1:
        got = _one(groups[0])
        if kind == "meld":
            return got
        raw, single = got
        ngroups: tuple[Group, ...] = single.groups
        parts: tuple[_Part, ...] = single._key[2]  # type: ignore[index]
    else:
        normals = [_one(g) for g in groups]
        dec = [(normals[i][1]._key[2][0][0], i) for i in range(len(normals))]  # type: ignore[index]
        dec.sort()
        ngroups = tuple([normals[i][1].groups[0] for _k, i in dec])
        parts = tuple([normals[i][1]._key[2][0] for _k, i in dec])  # type: ignore[index]
        raw = b"".join([normals[i][0] for _k, i in dec])
    obj = object.__new__(_ACTION_TYPE)
    object.__setattr__(obj, "kind", kind)
    object.__setattr__(obj, "groups", ngroups)
    object.__setattr__(obj, "card", "")
    object.__setattr__(obj, "_key", (_KIND_ORDER[kind], -1, parts))
    return raw, obj


_Context = tuple[int, int, dict[str, tuple[int, int]]]
"""(cards in hand, canastas of the side, per meld key of the side: (cards, wild cards))."""
_NO_MELD: Final = (0, 0)


@lru_cache(maxsize=1 << 15)
def _group_info(key: str, cards: tuple[str, ...]
                ) -> tuple[str | None, tuple[tuple[str, int], ...], int, int, int]:
    """What :meth:`CanastaState._group_problem` needs of one group alone (memoized): the first
    card that may not go in a group of ``key`` (as the problem text) or ``None``, the card
    counts in first-seen order, the wild cards, the face value and the substituted value
    (wild cards at the rank's value) of the cards."""
    used: dict[str, int] = {}
    for c in cards:
        if c in RED3:
            return f"a red three ({c}) is never melded (rule 2)", (), 0, 0, 0
        if key == "BLACK3":
            if c not in BLACK3:
                return f"{c} cannot go in a BLACK3 meld: only black threes, no wild cards (rule 7.5)", (), 0, 0, 0
        elif key == "WILD":
            if c not in WILDS:
                return f"{c} cannot go in a WILD meld: only jokers and 2s (rule 7.4)", (), 0, 0, 0
        elif c in BLACK3:
            return (f"a black three ({c}) can be melded only in a BLACK3 group when going out (rule 7.5)",
                    (), 0, 0, 0)
        elif c not in WILDS and c[0] != key:
            return f"{c} does not belong in a meld of rank {key} (rule 7.1)", (), 0, 0, 0
        used[c] = used.get(c, 0) + 1
    wild = sum(1 for c in cards if c in WILDS)
    face = sum(VALUES[c] for c in cards)
    if key in NATURAL_RANKS:
        sub = rank_value(key)
        subst = sum(sub if c in WILDS else VALUES[c] for c in cards)
    else:
        subst = face
    return None, tuple(used.items()), wild, face, subst


def _sorted_unique(listed: list[_Listed]) -> list[CanastaAction]:
    """The generated actions (of one kind) in the listing's order, without repeats."""
    if len(listed) < 2:
        return [a for _raw, a in listed]
    listed.sort(key=_FIRST)
    prev = listed[0][0]
    out = [listed[0][1]]
    for raw, a in listed:
        if raw != prev:
            out.append(a)
            prev = raw
    return out


def _keyed(action: CanastaAction) -> CanastaAction:
    action.sort_key()
    return action


_TWO_VALUE: Final = VALUES["2C"]
_JOKER_VALUE: Final = VALUES["JK"]
_BLACK3_VALUE: Final = VALUES["3C"]
assert VALUES["3S"] == _BLACK3_VALUE and all(VALUES["2" + s] == _TWO_VALUE for s in "CDHS")


def _meld_ok(shape: list[tuple[str, int, int, int, tuple[int, int] | None]], hand_after: int, canastas: int,
             opened: bool, requirement: int, r: Rules) -> bool:
    """Whether :meth:`CanastaState._group_problem` accepts a MELD generated by
    :meth:`CanastaState._combo_actions`: its groups have distinct keys, are not empty and
    hold only cards of the hand that fit their keys, so what is left to check is the
    resulting melds (rule 7), the opening (rule 8) and going out (rules 7.5 and 10).
    ``shape``: per group its key, cards, 2s, jokers and the side's meld of that key
    (cards, wild cards); ``hand_after``: the cards left in hand; ``canastas``,
    ``opened``, ``requirement``: the side's."""
    has_b3 = False
    new_canasta = False
    value = 0
    substituted = r.substituted
    for key, nc, n2, nj, stat in shape:
        size_before = stat[0] if stat is not None else 0
        total = size_before + nc
        if total < 3:
            return False
        if key == "BLACK3":
            has_b3 = True
            value += nc * _BLACK3_VALUE
            continue
        if key == "WILD":
            value += n2 * _TWO_VALUE + nj * _JOKER_VALUE
        else:
            wild = n2 + nj + (stat[1] if stat is not None else 0)
            nat = total - wild
            if nat < 2 or wild > 3 or (r.ratio and wild > nat):
                return False
            rv = _RANK_CLASS[key]
            if substituted:
                value += nc * rv
            else:
                value += (nc - n2 - nj) * rv + n2 * _TWO_VALUE + nj * _JOKER_VALUE
        if total >= 7 and size_before < 7:
            canastas += 1
            new_canasta = True
    can_out = canastas >= r.canastas_to_go_out
    going_out = hand_after <= 1 and can_out
    if has_b3 and not going_out:
        return False
    if not opened and not going_out:
        meets_by_canasta = r.canasta_meets_opening and new_canasta
        if requirement == _CANASTA_REQUIRED:
            if not meets_by_canasta:
                return False
        elif value < requirement and not meets_by_canasta:
            return False
    return hand_after >= 2 or can_out


class CanastaState(State):
    """One canasta match (a game to the target, or ``deals`` hands)."""

    game: Game
    # The base class's attributes, declared again so that a compiled module keeps them
    # in native slots (no effect on the pure-Python class).
    dealer: Dealer
    history: list[Action]
    _legal_cache: list[Action] | None
    _init_kwargs: dict[str, Any]

    def __init__(self, game: Game, dealer: Dealer, first_dealer: int | None = None,
                 start_scores: Any = None, *, rules: Rules | None = None,
                 _copy_of: CanastaState | None = None) -> None:
        """A new match of ``game`` under ``rules`` (the game's, :class:`CanastaGame`
        passes them), or a copy of ``_copy_of`` (``clone()`` when compiled)."""
        if _copy_of is not None:  # clone() when compiled (see there)
            self._copy_state(_copy_of)
            return
        init: dict[str, Any] = {}
        if first_dealer is not None:
            init["first_dealer"] = first_dealer
        if start_scores is not None:
            init["start_scores"] = list(start_scores)
        super().__init__(game, dealer, init)
        if rules is None:
            raise TypeError("CanastaState needs the game's rules (CanastaGame makes its states)")
        r = self.rules = rules
        self.n = r.players
        self.side_of = r.side_of
        self.nsides = r.num_sides
        fd = r.first_dealer if first_dealer is None else int(first_dealer)
        if not 0 <= fd < self.n:
            raise ValueError(f"first_dealer must be a seat 0..{self.n - 1}")
        self.first_dealer = fd
        self.scores = [0] * self.nsides
        if start_scores is not None:
            if len(start_scores) != self.nsides:
                raise ValueError(f"start_scores needs {self.nsides} entries (one per side)")
            self.scores = [int(x) for x in start_scores]
        self.hand_scores: list[tuple[int, ...]] = []
        self.hand_details: list[dict[str, Any]] = []
        self.hand_number = 0
        self.over = False
        self.hidden_done: list[tuple[int, int]] = []
        self.revealed: tuple[tuple[str, ...], ...] = ()
        self._canonical = standard_deck(r.packs, r.jokers)
        self._deal()

    # ------------------------------------------------------------------ deal
    def _deal(self) -> None:
        r = self.rules
        n = self.n
        self.dealer_seat = (self.first_dealer + self.hand_number) % n
        self.shuffle_idx = len(self.dealer.realized)
        deck = self.deck = self.dealer.shuffle(self._canonical)
        self.hands: list[Counter[str]] = [Counter() for _ in range(n)]
        self.private: list[list[int]] = [[] for _ in range(n)]
        first = (self.dealer_seat + 1) % n
        for i in range(n * r.hand_size):
            s = (first + i) % n
            self.hands[s][deck[i]] += 1
            self.private[s].append(i)
        self.stock_pos = n * r.hand_size
        self.pile: list[str] = []
        self.pile_wild = 0
        self.pile_red3 = 0
        self.melds: list[dict[str, list[str]]] = [{} for _ in range(self.nsides)]
        self._facts: list[tuple[dict[str, list[str]], int, dict[str, tuple[int, int]]] | None] = [None] * self.nsides
        self.concealed_melds: list[set[str]] = [set() for _ in range(self.nsides)]
        self.red3: list[list[str]] = [[] for _ in range(self.nsides)]
        self.opened = [False] * self.nsides
        self.requirement = [opening_table_value(r.opening_table, s) for s in self.scores]
        self.has_melded = [False] * n
        self.first_turn_done = [False] * n
        self.black3_blocker = -1
        self.last_take_turn = False
        self.decline_allowed = False
        self.forced_take = False
        self.hand_active = True
        self.phase = Phase.DRAW
        self.current = first
        self.melded_before_turn = False
        self.start_keys: frozenset[str] = frozenset()
        self._start_sizes: dict[str, int] = {}
        # Upcards (section 4.4).
        while self.stock_pos < len(deck):
            c = deck[self.stock_pos]
            self.stock_pos += 1
            self._to_pile(c)
            if is_natural(c):
                break
        if not r.first_turn_red3:
            for k in range(n):
                s = (first + k) % n
                if self._place_dealt_red3(s):
                    return
        self._start_turn(first)

    def _to_pile(self, c: str) -> None:
        self.pile.append(c)
        if is_wild(c):
            self.pile_wild += 1
        elif is_red3(c):
            self.pile_red3 += 1

    def _reveal(self, seat: int, card: str) -> None:
        """A card of ``seat`` became public: forget one private position holding it."""
        priv = self.private[seat]
        deck = self.deck
        for i, p in enumerate(priv):
            if deck[p] == card:
                del priv[i]
                return

    def _draw_one(self, seat: int) -> str:
        c = self.deck[self.stock_pos]
        self.stock_pos += 1
        if not is_red3(c):
            self.hands[seat][c] += 1
            self.private[seat].append(self.stock_pos - 1)
        else:
            self.red3[self.side_of[seat]].append(c)
        return c

    def _place_dealt_red3(self, seat: int) -> bool:
        """Place the red threes in ``seat``'s hand with replacements; True if the hand ended."""
        hand = self.hands[seat]
        side = self.side_of[seat]
        need = 0
        for c in ("3D", "3H"):
            k = hand.get(c, 0)
            if k:
                del hand[c]
                for _ in range(k):
                    self._reveal(seat, c)
                    self.red3[side].append(c)
                need += k
        while need and self.stock_pos < len(self.deck):
            c = self._draw_one(seat)
            if not is_red3(c):
                need -= 1
            elif self.stock_pos == len(self.deck):
                self._end_hand(-1, False)
                return True
        return False

    # ------------------------------------------------------------------ turns
    def _start_turn(self, seat: int) -> None:
        r = self.rules
        self.current = seat
        self.phase = Phase.DRAW
        if self.black3_blocker == seat:
            self.black3_blocker = -1
        self.melded_before_turn = self.has_melded[seat]
        melds = self.melds[self.side_of[seat]]
        self.start_keys = frozenset(melds)
        self._start_sizes = {k: len(v) for k, v in melds.items()}
        self.decline_allowed = False
        self.forced_take = False
        if not self.first_turn_done[seat]:
            self.first_turn_done[seat] = True
            if r.first_turn_red3 and self._place_dealt_red3(seat):
                return
        if self.stock_pos < len(self.deck):
            return
        # Stock exhausted (section 11).
        if r.last_take:
            if self.last_take_turn:  # the last take is over (cannot happen: handled at turn end)
                self._end_hand(-1, False)
                return
            self.last_take_turn = True
        takes = self._take_candidates()
        if not takes:
            self._end_hand(-1, False)
            return
        side = self.side_of[seat]
        if (not r.last_take and not self._frozen_for(side) and self.pile[-1][0] in self.melds[side]):
            self.forced_take = True
        else:
            self.decline_allowed = True

    def _end_turn(self) -> None:
        if self.last_take_turn:
            self._end_hand(-1, False)
            return
        self._start_turn((self.current + 1) % self.n)

    def _frozen(self) -> bool:
        return self.pile_wild > 0 or (self.rules.red3_upcard_freezes and self.pile_red3 > 0)

    def _frozen_for(self, side: int) -> bool:
        return self._frozen() or not self.opened[side]

    def _canastas(self, side: int) -> int:
        return self._side_facts(side)[1]

    def _side_facts(self, side: int) -> tuple[dict[str, list[str]], int, dict[str, tuple[int, int]]]:
        """(the side's melds dict, its canastas, per meld key (cards, wild cards)), kept until
        the side melds again (``_apply_groups`` drops it; another melds dict recomputes it)."""
        facts = self._facts[side]
        melds = self.melds[side]
        if facts is None or facts[0] is not melds:
            stats = {k: (len(v), sum(1 for c in v if c in WILDS)) for k, v in melds.items()}
            facts = self._facts[side] = (melds, sum(1 for k, c in melds.items() if is_canasta(k, c)), stats)
        return facts

    # ------------------------------------------------------------------ protocol
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.current

    def is_terminal(self) -> bool:
        return self.over or len(self.history) >= self.rules.max_actions

    def returns(self) -> list[float]:
        sc = self.scores
        ns = self.nsides
        if ns < 2:
            return [0.0] * self.n
        side_ret = [(sum(1 for o in sc if o < s) - sum(1 for o in sc if o > s)) / (ns - 1) for s in sc]
        return [side_ret[self.side_of[seat]] for seat in range(self.n)]

    def action_to_string(self, action: Action) -> str:
        return str(action)

    def string_to_action(self, text: str) -> Action:
        return CanastaAction.parse(text)

    def validate(self, action: Action) -> None:
        if not isinstance(action, CanastaAction):
            raise InvalidActionError(f"a canasta action must be a CanastaAction, got {action!r}")
        cache = self._legal_cache
        if cache is not None and (action.kind == "meld" or action.kind == "take"):
            for listed in cache:  # the very object listed now: legal by construction
                if listed is action:
                    return
        problem = self.problem(action)
        if problem is not None:
            raise IllegalActionError(problem)

    def illegal_reason(self, action: Action) -> str:
        if not isinstance(action, CanastaAction):
            return f"{action!r} is not a canasta action"
        return self.problem(action) or f"{action} is legal"

    def default_action(self) -> Action:
        """Section 16: draw / decline / take onto the own meld / discard the first card."""
        if self.phase is Phase.DRAW:
            if self.stock_pos < len(self.deck):
                return DRAW
            if self.decline_allowed:
                return DECLINE
            top = self.pile[-1][0]
            plain = CanastaAction("take", ((top, ()),))
            if self.problem(plain) is None:
                return plain
            hand = self.hands[self.current]
            if sum(hand.values()) == 1:  # meld the single card too: first meld in key order
                card = next(iter(hand))
                for key in sorted(self.melds[self.side_of[self.current]], key=KEY_ORDER.__getitem__):
                    groups = {top: [], key: [card]} if key != top else {top: [card]}
                    cand = CanastaAction.take(groups)
                    if self.problem(cand) is None:
                        return cand
            return self.legal_actions()[0]
        return CanastaAction.discard(sort_cards(self.hands[self.current].elements())[0])

    # ------------------------------------------------------------------ validation
    def problem(self, a: CanastaAction) -> str | None:
        """Why ``a`` is illegal now, or ``None`` if it is legal."""
        if self.is_terminal():
            return "the match is over"
        seat = self.current
        stock_left = self.stock_pos < len(self.deck)
        if self.phase is Phase.DRAW:
            if a.kind == "draw":
                if a.groups or a.card:
                    return "draw takes no cards"
                if not stock_left:
                    return "the stock is empty (rule 11)"
                return None
            if a.kind == "decline":
                if a.groups or a.card:
                    return "decline takes no cards"
                if stock_left:
                    return "decline exists only when the stock is exhausted (rule 11); draw or take the pile"
                if not self.decline_allowed:
                    return ("you must take the pile: the stock is empty, the pile is not frozen for your side "
                            "and your side has a meld of its top card's rank (rule 11.2)")
                return None
            if a.kind == "take":
                return self._group_problem(seat, a.groups, take=True)
            return f"{a.kind} is not allowed in the draw phase: draw from the stock or take the pile first (rule 6.2)"
        # PLAY phase
        if a.kind == "meld":
            if not a.groups:
                return "a meld needs at least one group (rule 7.6)"
            return self._group_problem(seat, a.groups, take=False)
        if a.kind == "discard":
            hand = self.hands[seat]
            if hand.get(a.card, 0) < 1:
                return f"{a.card} is not in your hand"
            if is_red3(a.card):
                return "a red three is never discarded (rule 2)"
            if sum(hand.values()) == 1 and self._canastas(self.side_of[seat]) < self.rules.canastas_to_go_out:
                return (f"going out needs {self.rules.canastas_to_go_out} canasta(s) for your side (rule 10)")
            return None
        return f"{a.kind} is not allowed in the play phase: meld or discard (rule 6.3)"

    def _listing_context(self, seat: int) -> _Context:
        """What :meth:`_group_problem` needs about the position, once per listing."""
        _melds, canastas, stats = self._side_facts(self.side_of[seat])
        return sum(self.hands[seat].values()), canastas, stats

    def _group_problem(self, seat: int, groups: tuple[Group, ...], take: bool,
                       ctx: _Context | None = None) -> str | None:
        """Why a TAKE_PILE (``take``) or MELD of ``groups`` is illegal now, or ``None``.

        ``ctx``: :meth:`_listing_context` when the caller (the legal-action
        enumeration) has it already; computed here otherwise.
        """
        r = self.rules
        side = self.side_of[seat]
        hand = self.hands[seat]
        melds = self.melds[side]
        keys = [k for k, _ in groups]
        if len(set(keys)) != len(keys):
            return "a key may appear only once in one action (rule 7.6)"
        top = ""
        top_rank = ""
        if take:
            if not self.pile:
                return "the pile is empty (rule 9.1)"
            top = self.pile[-1]
            if top not in NATURALS:
                kind = "a wild card" if top in WILDS else "a three"
                return f"the top card {top} is {kind}; the pile cannot be taken (rule 9.1)"
            if self.black3_blocker >= 0:
                return (f"seat {self.black3_blocker} discarded a black three: nobody may take the pile "
                        f"until that seat's next turn (rule 9.1, full_round)")
            top_rank = top[0]
            if top_rank not in keys:
                return f"taking the pile needs a group of the top card's rank {top_rank} (rule 9.3)"
        used: dict[str, int] = {}
        nused = 0
        infos = []
        for key, cards in groups:
            if not cards and key != top_rank:
                return f"group {key} has no cards; only the top group of a pickup may be empty (rule 16)"
            if key == "WILD" and not r.wild_meld_allowed:
                return "a meld of only wild cards is not allowed in this preset (rule 7.4)"
            info = _group_info(key, cards)
            if info[0] is not None:
                return info[0]
            infos.append(info)
            if len(groups) == 1:
                used = dict(info[1])
            else:
                for c, k in info[1]:
                    used[c] = used.get(c, 0) + k
            nused += len(cards)
        for c, k in used.items():
            have = hand.get(c, 0)
            if have < k:
                return f"{c} is not in your hand" if have == 0 else f"you hold only {have} x {c}"
        if take:
            tcards = next(c for k, c in groups if k == top_rank)
            wild = sum(1 for c in tcards if c in WILDS)
            nat = len(tcards) - wild
            if self._frozen_for(side):
                if nat < 2:
                    why = "the pile is frozen" if self._frozen() else "your side has not opened, so the pile is frozen for it"
                    return (f"{why}: taking it needs two natural {top_rank}s from your hand in the top group "
                            f"(rule 9.3)")
            elif not (nat >= 2 or top_rank in melds or (r.natural_plus_wild_pickup and nat >= 1 and wild >= 1)):
                extra = " or a natural and a wild card" if r.natural_plus_wild_pickup else ""
                return (f"taking the pile needs two natural {top_rank}s from your hand{extra}, or a meld of "
                        f"{top_rank}s on your side (rule 9.3)")
        # Resulting melds.
        if ctx is None:
            ctx = self._listing_context(seat)
        hand_size, canastas, stats = ctx
        opening_value = VALUES[top] if take else 0
        new_canasta = False
        substituted = r.substituted
        for (key, cards), info in zip(groups, infos):
            size_before, old_wild = stats.get(key, _NO_MELD)
            extra_top = 1 if key == top_rank and take else 0
            total = size_before + len(cards) + extra_top
            if key == "WILD" or key == "BLACK3":
                if total < 3:
                    return f"a new {key} meld needs at least 3 cards (rule 7.{4 if key == 'WILD' else 5})"
            else:
                wild = info[2] + old_wild
                nat = total - wild
                if total < 3:
                    return f"a new meld of {key}s needs at least 3 cards (rule 7.1)"
                if nat < 2:
                    return f"a meld of {key}s needs at least 2 natural cards (rule 7.1)"
                if wild > 3:
                    return f"a meld of {key}s may hold at most 3 wild cards (rule 7.1)"
                if r.ratio and wild > nat:
                    return f"a meld of {key}s may not hold more wild cards than natural cards (rule 7.1)"
            if key != "BLACK3" and total >= 7 and size_before < 7:
                canastas += 1
                new_canasta = True
            opening_value += info[4] if substituted and key in NATURAL_RANKS else info[3]
        hand_after = hand_size - nused
        if take:
            hand_after += len(self.pile) - 1 - self.pile_red3
        can_out = canastas >= r.canastas_to_go_out
        if "BLACK3" in keys and not (hand_after <= 1 and can_out):
            return ("a BLACK3 meld is allowed only when going out: after it you may hold at most 1 card and your "
                    f"side needs {r.canastas_to_go_out} canasta(s) (rule 7.5)")
        if not self.opened[side]:
            exempt = not take and hand_after <= 1 and can_out
            if not exempt:
                req = self.requirement[side]
                meets_by_canasta = r.canasta_meets_opening and new_canasta
                if req == CANASTA_REQUIRED:
                    if not meets_by_canasta:
                        return "your side's opening needs a canasta in this action (cumulative score 4000+, rule 8)"
                elif opening_value < req and not meets_by_canasta:
                    how = "this pickup" if take else "this meld"
                    return (f"your side has not opened: {how} counts {opening_value}, below the minimum {req} "
                            f"(rule 8; one action must meet it)")
        if hand_after < 2 and not can_out:
            if hand_after == 0:
                return f"going out needs {r.canastas_to_go_out} canasta(s) for your side (rule 10)"
            return (f"you must keep at least 2 cards after melding unless your side can go out "
                    f"(needs {r.canastas_to_go_out} canasta(s); rule 6.3)")
        return None

    # ------------------------------------------------------------------ apply
    def _apply_action(self, action: Action) -> None:
        assert isinstance(action, CanastaAction)
        kind = action.kind
        if kind == "draw":
            self._apply_draw()
        elif kind == "decline":
            self._end_hand(-1, False)
        elif kind == "discard":
            self._apply_discard(action.card)
        else:
            self._apply_groups(action.groups, take=kind == "take")

    def _apply_draw(self) -> None:
        seat = self.current
        got = 0
        deck = self.deck
        while got < self.rules.stock_draw and self.stock_pos < len(deck):
            c = self._draw_one(seat)
            if is_red3(c):
                if self.stock_pos == len(deck):
                    self._end_hand(-1, False)  # rule 11.1
                    return
            else:
                got += 1
        self.phase = Phase.PLAY

    def _apply_discard(self, card: str) -> None:
        seat = self.current
        hand = self.hands[seat]
        k = hand[card] - 1
        if k:
            hand[card] = k
        else:
            hand.pop(card)  # dict's own: Counter's __delitem__ is Python code
        self._reveal(seat, card)
        self._to_pile(card)
        if is_black3(card) and self.rules.full_round_block:
            self.black3_blocker = seat
        if not hand:
            self._going_out(seat)
        else:
            self._end_turn()

    def _apply_groups(self, groups: tuple[Group, ...], take: bool) -> None:
        seat = self.current
        side = self.side_of[seat]
        hand = self.hands[seat]
        melds = self.melds[side]
        top_rank = ""
        if take:
            top = self.pile[-1]
            top_rank = top[0]
        # the side's facts (_side_facts) brought up to date group by group: a new stats
        # dict (clones share the old one), the canastas counted as melds reach 7 cards
        _m, canastas, old_stats = self._side_facts(side)
        stats = dict(old_stats)
        wilds = WILDS
        for key, cards in groups:
            nwild = 0
            for c in cards:
                k = hand[c] - 1
                if k:
                    hand[c] = k
                else:
                    hand.pop(c)
                self._reveal(seat, c)
                if c in wilds:
                    nwild += 1
            old = stats.get(key)
            existed = key in melds
            meld = melds.setdefault(key, [])
            meld.extend(cards)
            if key == top_rank:
                meld.append(top)
            if not existed and len(meld) >= 7 and key != "BLACK3":
                self.concealed_melds[side].add(key)
            if len(meld) >= 7 and key != "BLACK3" and (old is None or old[0] < 7):
                canastas += 1
            stats[key] = (len(meld), nwild + (old[1] if old is not None else 0))
        self._facts[side] = (melds, canastas, stats)
        if take:
            for c in self.pile[:-1]:
                if is_red3(c):
                    self.red3[side].append(c)
                else:
                    hand[c] += 1
            self.pile = []
            self.pile_wild = self.pile_red3 = 0
            self.phase = Phase.PLAY
        self.has_melded[seat] = True
        self.opened[side] = True
        if not hand:
            self._going_out(seat)

    def _going_out(self, seat: int) -> None:
        side = self.side_of[seat]
        melds = self.melds[side]
        start = self.start_keys
        added_old = False  # any card added this turn to a meld that existed before it
        # A meld that existed at the start of the turn and grew: compare is not tracked
        # per card, so we use the turn-start snapshot of sizes.
        for k in start:
            if len(melds[k]) != self._start_sizes.get(k, 0):
                added_old = True
                break
        made = any(k not in start and is_canasta(k, c) for k, c in melds.items())
        concealed = not self.melded_before_turn and not added_old and made
        self._end_hand(seat, concealed)

    # ------------------------------------------------------------------ hand end
    def _end_hand(self, out_seat: int, concealed: bool) -> None:
        r = self.rules
        for s in range(self.n):  # dealt red threes never placed (rule 6.1)
            hand = self.hands[s]
            for c in ("3D", "3H"):
                k = hand.pop(c, 0)
                self.red3[self.side_of[s]].extend([c] * k)
        out_side = self.side_of[out_seat] if out_seat >= 0 else -1
        details: list[HandScore] = []
        for side in range(self.nsides):
            cards = [c for s in range(self.n) if self.side_of[s] == side for c in self.hands[s].elements()]
            doubled = r.concealed_out_doubles and concealed and out_side >= 0 and side != out_side
            details.append(score_side(r, self.melds[side], self.concealed_melds[side], len(self.red3[side]),
                                      side == out_side, concealed and side == out_side, cards, doubled))
        totals = tuple(d.total for d in details)
        self.hand_scores.append(totals)
        self.hand_details.append({"hand": self.hand_number, "dealer": self.dealer_seat, "went_out": out_seat,
                                  "concealed": concealed, "sides": [d.to_dict() for d in details]})
        for side in range(self.nsides):
            self.scores[side] += totals[side]
        self.revealed = tuple(tuple(_hand_tokens(h)) for h in self.hands)
        k = self.shuffle_idx
        self.hidden_done.extend((k, p) for p in range(self.stock_pos, len(self.deck)) if not is_red3(self.deck[p]))
        self.hand_active = False
        self.hand_number += 1
        if r.deals:
            done = self.hand_number >= r.deals
        else:
            done = max(self.scores) >= r.target or self.hand_number >= r.max_hands
        if done:
            self.over = True
            self.phase = Phase.OVER
        else:
            self._deal()

    # ------------------------------------------------------------------ enumeration
    def _legal_actions(self) -> list[Action]:
        # In the listing's order (CanastaAction.sort_key): DRAW, the pickups, DECLINE; the
        # melds, then the discards in card order (the hand's distinct cards, already sorted).
        seat = self.current
        if self.phase is Phase.DRAW:
            out: list[CanastaAction] = []
            if self.stock_pos < len(self.deck):
                out.append(DRAW)
            out.extend(self._take_candidates())
            if self.decline_allowed:
                out.append(DECLINE)
            return list[Action](out)
        pool = _hand_pool(self.hands[seat])
        out = _sorted_unique(self._meld_candidates(self._listing_context(seat), False, pool))
        out.extend(pool[4])
        return list[Action](out)

    def _pool(self, seat: int) -> tuple[dict[str, list[str]], list[str], int, list[str]]:
        """The hand of ``seat`` by kind, each in card order: naturals by rank, 2s, jokers (a
        number), black threes (:func:`_hand_pool`)."""
        nat, twos, jokers, b3, _discards = _hand_pool(self.hands[seat])
        return nat, twos, jokers, b3

    def _valid_one(self, seat: int, key: str, opt: tuple[str, ...], twos: int, jokers: int,
                   stat: tuple[int, int] | None, left: int, bid: int, take: bool, ctx: _Context) -> bool:
        """Whether the generated one-group MELD (or TAKE_PILE, ``take``) ``key: opt`` is legal,
        memoized (``_VALID``) on what decides it: the key (``WILD``, or a natural rank's value),
        the group's numbers of cards, 2s (``twos``) and jokers, the side's meld of that key
        (``stat``), whether 0, 1 or more cards stay in hand (``left``, at most 2) and ``bid``
        (the number ``_BASE_IDS`` gives the side's canastas up to the number needed to go out,
        opened, requirement, the rules; for a pickup also the pile's frozenness for the side). The naturals of one
        rank are alike, and so are the 2s; the value comes from :meth:`_group_problem`."""
        vkey = (_RANK_CLASS.get(key, 0), len(opt), twos, jokers, stat, left, bid)
        ok = _VALID.get(vkey)
        if ok is None:
            if len(_VALID) >= _MEMO_CAP:
                _VALID.clear()
            ok = _VALID[vkey] = self._group_problem(seat, ((key, opt),), take, ctx) is None
        return ok

    def _combo_actions(self, kind: str, nat: dict[str, list[str]], twos: list[str], jokers: int, b3: list[str],
                       side: int, exclude: str, bases: list[Group], ctx: _Context, vbase: tuple[Any, ...],
                       gain: int, out: list[_Listed], plain: bool = False) -> None:
        """Append the legal multi-group candidates of ``kind`` to ``out``: subsets of ranks
        melded with all their naturals (a new meld of two naturals gets a 2, else a joker),
        each as it is and with the remaining wild cards added where the limits allow
        (largest meld first, jokers first) plus a WILD group of the wild cards left and,
        with three or more black threes, the latter also with a BLACK3 group.

        Whether a candidate is legal is memoized (``_COMBO_VALID``) on its shape, before
        its cards are gathered: every group holds only cards of the hand that fit its key,
        and cards of one kind are alike in value and in the rules, so
        :meth:`_group_problem` decides by each group's key, numbers of cards, 2s and jokers
        and the side's meld of that key, by whether 0, 1 or more cards stay in hand
        (``gain``: the cards a pickup brings) and by ``vbase`` (see :meth:`_valid_one`;
        for a pickup also the top card's rank). A MELD is checked directly instead
        (:func:`_meld_ok`): its shapes are too many to memoize well. The second
        variant, with no wild card left to add and no black threes to meld, is the first
        again, so it is not generated twice.
        """
        r = self.rules
        seat = self.current
        melds = self.melds[side]
        hand_size, canastas, stats = ctx
        # a MELD: checked by _meld_ok (``plain``: by the memo and _group_problem, as a
        # pickup; the tests compare the two)
        direct = kind == "meld" and not plain
        opened = self.opened[side]
        req = self.requirement[side]
        rank_index = _RANK_INDEX
        dec = [(-len(cs), rank_index[k], k) for k, cs in nat.items()
               if k != exclude and (len(cs) >= 2 or k in melds)]
        dec.sort()
        ranks = [d[2] for d in dec]
        sizes: list[int]
        if self.opened[side]:
            sizes = [len(ranks)] if ranks else []
        else:
            ranks = ranks[:5]
            sizes = list(range(1 if bases else 2, len(ranks) + 1))
        if not sizes:
            return
        used_twos = 0
        used_jk = 0
        bused = 0
        bshape: list[tuple[str, int, int, int, tuple[int, int] | None]] = []
        for bk, bcs in bases:
            b2 = 0
            bj = 0
            for c in bcs:
                if c == "JK":
                    bj += 1
                elif c[0] == "2":
                    b2 += 1
            used_twos += b2
            used_jk += bj
            bused += len(bcs)
            bshape.append((bk, len(bcs), b2, bj, stats.get(bk)))
        ntw = len(twos)
        nb3 = len(b3)
        ratio = r.ratio
        wild_allowed = r.wild_meld_allowed
        wstat = stats.get("WILD")
        b3stat = stats.get("BLACK3")
        take = kind == "take"
        memo = _COMBO_VALID
        # per rank: its naturals, whether it is a new meld of two naturals (which gets a 2,
        # else a joker), the side's meld of it and that meld's cards and wild cards
        info: dict[str, tuple[list[str], bool, tuple[int, int] | None, int, int]] = {}
        for k in ranks:
            cs = nat[k]
            st = stats.get(k)
            if st is None:
                info[k] = (cs, len(cs) == 2, None, 0, 0)
            else:
                info[k] = (cs, False, st, st[0], st[1])
        for size in sizes:
            for subset in combinations(ranks, size):
                ti = used_twos
                jk = jokers - used_jk
                cards_l: list[list[str]] = []
                n2_l: list[int] = []
                nj_l: list[int] = []
                ok = True
                for k in subset:
                    cs, pair, _st, _pl, _pw = info[k]
                    if pair:
                        if ti < ntw:
                            cards_l.append(cs + [twos[ti]])
                            ti += 1
                            n2_l.append(1)
                            nj_l.append(0)
                        elif jk:
                            jk -= 1
                            cards_l.append(cs + ["JK"])
                            n2_l.append(0)
                            nj_l.append(1)
                        else:
                            ok = False
                            break
                    else:
                        cards_l.append(list(cs))
                        n2_l.append(0)
                        nj_l.append(0)
                if not ok:
                    continue
                for greedy in (False, True):
                    if greedy:
                        if ti >= ntw and not jk:
                            if nb3 < 3:
                                break  # nothing to add: the plain candidate again
                        else:
                            order = sorted([(-len(cl), gi) for gi, cl in enumerate(cards_l)])
                            for _neg, gi in order:
                                _cs, _pair, _st, prior_len, prior_w = info[subset[gi]]
                                cl = cards_l[gi]
                                while ti < ntw or jk:
                                    w = n2_l[gi] + nj_l[gi] + prior_w
                                    # room for one more wild card (_wild_ok)
                                    if w >= 3 or (ratio and w + 1 > len(cl) + prior_len - w):
                                        break
                                    if jk:
                                        jk -= 1
                                        cl.append("JK")
                                        nj_l[gi] += 1
                                    else:
                                        cl.append(twos[ti])
                                        ti += 1
                                        n2_l[gi] += 1
                    shape = list(bshape)
                    nused = bused
                    for gi in range(len(cards_l)):
                        k = subset[gi]
                        nc = len(cards_l[gi])
                        shape.append((k, nc, n2_l[gi], nj_l[gi], info[k][2]))
                        nused += nc
                    rem = ntw - ti
                    # the greedy variant only: a WILD group of the wild cards left, and the
                    # same with a BLACK3 group
                    wild_group = greedy and wild_allowed and (jk + rem >= 3 or (wstat is not None and jk + rem > 0))
                    if wild_group:
                        shape.append(("WILD", rem + jk, rem, jk, wstat))
                        nused += rem + jk
                    for with_b3 in (False, True):
                        if with_b3:
                            if not greedy or nb3 < 3:
                                break
                            shape.append(("BLACK3", nb3, 0, 0, b3stat))
                            nused += nb3
                        groups: tuple[Group, ...] | None = None
                        if direct:
                            valid: bool | None = _meld_ok(shape, hand_size - nused, canastas, opened, req, r)
                        else:
                            valid = memo.get((vbase, min(hand_size - nused + gain, 2), tuple(shape)))
                        if valid is None:
                            groups = self._combo_groups(bases, subset, cards_l, twos, ti, jk, wild_group,
                                                        b3 if with_b3 else None)
                            if len(memo) >= _MEMO_CAP:
                                memo.clear()
                            valid = self._group_problem(seat, groups, take, ctx) is None
                            memo[(vbase, min(hand_size - nused + gain, 2), tuple(shape))] = valid
                        if valid:
                            if groups is None:
                                groups = self._combo_groups(bases, subset, cards_l, twos, ti, jk, wild_group,
                                                            b3 if with_b3 else None)
                            out.append(_action(kind, groups))

    @staticmethod
    def _combo_groups(bases: list[Group], subset: tuple[str, ...], cards_l: list[list[str]], twos: list[str],
                      ti: int, jk: int, wild_group: bool, b3: list[str] | None) -> tuple[Group, ...]:
        """The groups of a candidate of :meth:`_combo_actions`."""
        groups = list(bases)
        for gi in range(len(cards_l)):
            groups.append((subset[gi], tuple(cards_l[gi])))
        if wild_group:
            groups.append(("WILD", tuple(twos[ti:]) + ("JK",) * jk))
        if b3 is not None:
            groups.append(("BLACK3", tuple(b3)))
        return tuple(groups)

    def _meld_candidates(self, ctx: _Context, plain: bool = False, pool: _Pool | None = None
                         ) -> list[_Listed]:
        """Every listed legal MELD action of the current player, with its sort key as bytes
        (:func:`_action`; a combination may repeat a one-group meld: the caller
        deduplicates). ``pool``: :func:`_hand_pool` of the hand, when the caller has it.

        One-group melds of a rank are made from the first ``n`` naturals of the rank, the
        first ``t`` 2s and ``j`` jokers (:func:`_option_shapes`); which of them are legal
        depends on the cards only through their numbers (see :meth:`_valid_one`), so the
        legal ``(n, t, j)`` are memoized (``_SINGLES``) on those numbers, packed in one
        integer, and only legal melds are made into actions (memoized ones, :func:`_one`).
        Only the ranks that can meld are visited: two or more naturals in hand, or a meld
        of the rank on the side's table and a card to add to it.
        """
        seat = self.current
        side = self.side_of[seat]
        if pool is None:
            pool = _hand_pool(self.hands[seat])
        nat, twos, jokers, b3, _discards = pool
        r = self.rules
        hand_size, canastas, stats = ctx
        # only whether 0, 1 or 2+ cards stay in hand matters, and canastas up to the number
        # needed to go out (one-group melds make at most one more)
        base = (min(canastas, r.canastas_to_go_out), self.opened[side], self.requirement[side], r.ratio,
                r.substituted, r.wild_meld_allowed, r.canastas_to_go_out, r.canasta_meets_opening)
        bid = _BASE_IDS.get(base)
        if bid is None:
            if len(_BASE_IDS) >= _BASE_CAP:
                _BASE_IDS.clear()
                _SINGLES.clear()
                _WILD_SINGLES.clear()
                _VALID.clear()
            bid = _BASE_IDS[base] = len(_BASE_IDS)
        out: list[_Listed] = []
        ntw = len(twos)
        tw = tuple(twos)
        t3 = min(ntw, 3)
        j3 = min(jokers, 3)
        ratio = r.ratio
        singles = _SINGLES
        # the ranks to visit: two or more naturals in hand, or melded (with a card to add)
        ranks = [k for k, cs in nat.items() if len(cs) >= 2 or k in stats]
        if ntw or jokers:
            for k in stats:
                if k not in nat and k in _RANK_CLASS:
                    ranks.append(k)
        bpart = (bid * 4 + t3) * 4 + j3
        for k in ranks:
            cards = nat.get(k)
            stat = stats.get(k)
            ncards = tuple(cards) if cards else ()
            nn = len(ncards)
            # (base, wild cards, rank value, naturals, the meld, cards in hand up to nn + 5)
            # in one integer: every field is below its factor (nn <= 16 with 4 packs)
            if stat is None:
                mkey = ((((bpart * 32 + _RANK_CLASS[k]) * 32 + nn) * 1024) * 64
                        + min(hand_size, nn + 5))
            else:
                mkey = ((((bpart * 32 + _RANK_CLASS[k]) * 32 + nn) * 1024 + 1 + stat[0] * 4 + stat[1]) * 64
                        + min(hand_size, nn + 5))
            shapes = singles.get(mkey)
            if shapes is None:
                if stat is None:
                    opts = _option_shapes(nn, t3, j3, 0, 0, 2, 0, False, ratio)
                else:
                    opts = _option_shapes(nn, t3, j3, stat[0] - stat[1], stat[1], 0, 0, False, ratio)
                keep: list[tuple[int, int, int]] = []
                for shp in opts:
                    n, t, j = shp
                    opt = ncards[:n] + tw[:t] + ("JK",) * j
                    if self._valid_one(seat, k, opt, t, j, stat, min(hand_size - n - t - j, 2), bid, False, ctx):
                        keep.append(shp)
                shapes = tuple(keep)
                if len(singles) >= _MEMO_CAP:
                    singles.clear()
                singles[mkey] = shapes
            for n, t, j in shapes:
                if t or j:
                    out.append(_one((k, ncards[:n] + tw[:t] + ("JK",) * j)))
                else:
                    out.append(_one((k, ncards[:n])))
        if r.wild_meld_allowed:
            wstat = stats.get("WILD")
            lo = 1 if wstat is not None else 3
            if jokers + ntw >= lo:
                wkey = (ntw, jokers, wstat, min(hand_size - jokers - ntw, 2), bid)
                wshapes = _WILD_SINGLES.get(wkey)
                if wshapes is None:
                    wkeep: list[tuple[int, int]] = []
                    for j in range(0, jokers + 1):
                        for t in range(0, ntw + 1):
                            if lo <= j + t <= 7 or (j == jokers and t == ntw and j + t >= lo):
                                if self._valid_one(seat, "WILD", tw[:t] + ("JK",) * j, t, j, wstat,
                                                   min(hand_size - t - j, 2), bid, False, ctx):
                                    wkeep.append((t, j))
                    wshapes = tuple(wkeep)
                    if len(_WILD_SINGLES) >= _MEMO_CAP:
                        _WILD_SINGLES.clear()
                    _WILD_SINGLES[wkey] = wshapes
                for t, j in wshapes:
                    out.append(_action("meld", (("WILD", tw[:t] + ("JK",) * j),)))
        mbase = ("meld",) + base
        self._combo_actions("meld", nat, twos, jokers, b3, side, "", [], ctx, mbase, 0, out, plain)
        return out

    def _take_candidates(self) -> list[CanastaAction]:
        """Every listed legal TAKE_PILE action of the current player (possibly none), in the
        listing's order."""
        if not self.pile or self.black3_blocker >= 0:
            return []
        top = self.pile[-1]
        if not is_natural(top):
            return []
        seat = self.current
        side = self.side_of[seat]
        rank = top[0]
        r = self.rules
        frozen_for = self._frozen_for(side)
        hand = self.hands[seat]
        # Every pickup needs two naturals of the top card's rank from the hand when the pile
        # is frozen for the side, and otherwise two, or a meld of the rank, or (where allowed)
        # one and a wild card (rule 9.3; _group_problem): without them there is none.
        have = hand.get(rank + "C", 0) + hand.get(rank + "D", 0) + hand.get(rank + "H", 0) + hand.get(rank + "S", 0)
        if have < 2:
            if frozen_for:
                return []
            if rank not in self.melds[side] and not (
                    r.natural_plus_wild_pickup and have >= 1
                    and (hand.get("JK", 0) or hand.get("2C", 0) or hand.get("2D", 0) or hand.get("2H", 0)
                         or hand.get("2S", 0))):
                return []
        # the rank's naturals, the 2s and the jokers, in card order, read off the hand (the
        # whole pool only for the combinations of an unopened side)
        cards: list[str] = []
        twos: list[str] = []
        for suit in "CDHS":
            k = hand.get(rank + suit, 0)
            if k > 0:
                cards.extend([rank + suit] * k)
            k = hand.get("2" + suit, 0)
            if k > 0:
                twos.extend(["2" + suit] * k)
        jokers = max(hand.get("JK", 0), 0)
        ctx = self._listing_context(seat)
        # One-group pickups are checked like one-group melds (see _valid_one), with what a
        # pickup adds: the top card is of the group's rank, whether the pile is frozen for
        # the side, and the cards the pile brings into the hand.
        hand_size, canastas, stats = ctx
        gain = len(self.pile) - 1 - self.pile_red3
        tbase = ("take", frozen_for, r.natural_plus_wild_pickup, min(canastas, r.canastas_to_go_out),
                 self.opened[side], self.requirement[side], r.ratio, r.substituted, r.canastas_to_go_out,
                 r.canasta_meets_opening)
        stat = stats.get(rank)
        old_n = stat[0] - stat[1] if stat is not None else 0
        old_w = stat[1] if stat is not None else 0
        ncards = tuple(cards)
        tw = tuple(twos)
        out: list[_Listed] = []
        # the legal shapes memoized as the one-group melds' (_SINGLES, same packing): what
        # decides them is tbase, the rank's value, the numbers of its naturals, 2s and jokers,
        # its meld and the cards in hand after the pickup up to 2 (n + t + j <= nn + 6)
        bid = _BASE_IDS.get(tbase)
        if bid is None:
            if len(_BASE_IDS) >= _BASE_CAP:
                _BASE_IDS.clear()
                _SINGLES.clear()
                _WILD_SINGLES.clear()
                _VALID.clear()
            bid = _BASE_IDS[tbase] = len(_BASE_IDS)
        nn = len(ncards)
        t3 = min(len(tw), 3)
        j3 = min(jokers, 3)
        tkey = ((((((bid * 4 + t3) * 4 + j3) * 32 + _RANK_CLASS[rank]) * 32 + nn) * 1024
                 + (1 + stat[0] * 4 + stat[1] if stat is not None else 0)) * 64 + min(hand_size + gain, nn + 8))
        shapes = _SINGLES.get(tkey)
        if shapes is None:
            keep: list[tuple[int, int, int]] = []
            for shp in _option_shapes(nn, t3, j3, old_n, old_w, 0, 1, True, r.ratio):
                n, t, j = shp
                opt = ncards[:n] + tw[:t] + ("JK",) * j
                if self._valid_one(seat, rank, opt, t, j, stat, min(hand_size - n - t - j + gain, 2), bid, True,
                                   ctx):
                    keep.append(shp)
            shapes = tuple(keep)
            if len(_SINGLES) >= _MEMO_CAP:
                _SINGLES.clear()
            _SINGLES[tkey] = shapes
        for n, t, j in shapes:
            out.append(_action("take", ((rank, ncards[:n] + tw[:t] + ("JK",) * j),)))
        if not self.opened[side] and len(ncards) >= 2:
            nat, twos, jokers, b3 = self._pool(seat)
            cbase = tbase + (r.wild_meld_allowed, rank)
            for jj in range(0, min(jokers, 3) + 1):
                self._combo_actions("take", nat, twos, jokers, b3, side, rank, [(rank, ncards + ("JK",) * jj)],
                                    ctx, cbase, gain, out)
        return _sorted_unique(out)

    # ------------------------------------------------------------------ observation
    def observation(self, seat: int) -> CanastaObservation:
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is not a seat of this table (0..{self.n - 1})")
        term = self.is_terminal()
        return CanastaObservation(
            seat=seat,
            side=self.side_of[seat],
            seat_sides=tuple(self.side_of),
            hand_number=self.hand_number,
            dealer=self.dealer_seat,
            current_player=TERMINAL if term else self.current,
            phase=Phase.OVER.value if term else self.phase.value,
            hand=tuple(_hand_tokens(self.hands[seat])),
            hand_sizes=tuple(sum(h.values()) for h in self.hands),
            melds=tuple(tuple((k, tuple(_sorted_tokens(m[k]))) for k in sorted(m, key=KEY_ORDER.__getitem__))
                        for m in self.melds),
            red_threes=tuple(tuple(r3) for r3 in self.red3),
            pile=tuple(self.pile),
            pile_top=self.pile[-1] if self.pile else "",
            pile_size=len(self.pile),
            pile_frozen=self._frozen(),
            black3_block_seat=self.black3_blocker,
            stock_size=len(self.deck) - self.stock_pos,
            last_take=self.last_take_turn,
            scores=tuple(self.scores),
            requirements=tuple(self.requirement),
            opened=tuple(self.opened),
            melded=tuple(self.has_melded),
            hand_scores=tuple(self.hand_scores),
            last_hand_hands=self.revealed,
        )

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        out: dict[str, Iterable[str]] = {f"hand{s}": list(h.elements()) for s, h in enumerate(self.hands)}
        out["stock"] = self.deck[self.stock_pos:]
        out["pile"] = list(self.pile)
        for side in range(self.nsides):
            out[f"melds{side}"] = [c for m in self.melds[side].values() for c in m]
            out[f"red3_{side}"] = list(self.red3[side])
        return out

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        out = list(self.hidden_done)
        if self.hand_active:
            k = self.shuffle_idx
            deck = self.deck
            for s in range(self.n):
                if s != seat:
                    out.extend((k, p) for p in self.private[s] if not is_red3(deck[p]))
            out.extend((k, p) for p in range(self.stock_pos, len(deck)) if not is_red3(deck[p]))
        return out

    def clone(self) -> CanastaState:
        """An independent copy: immutable attributes shared, mutable ones copied
        (:meth:`_copy_mutables`)."""
        if _COMPILED:
            return CanastaState(self.game, self.dealer, _copy_of=self)
        other = CanastaState.__new__(CanastaState)
        other.__dict__.update(self.__dict__)
        other._copy_mutables(self)
        return other

    def _copy_state(self, src: CanastaState) -> None:
        """Make this state a copy of ``src``, attribute by attribute: ``clone()`` of the
        compiled module, whose instances keep their attributes in native slots, not in a
        ``__dict__``. Shares and copies exactly what the ``__dict__`` path of ``clone()``
        does (``tests/games/test_compiled_engines.py`` checks that both give the same
        attributes)."""
        self.game = src.game
        self._init_kwargs = src._init_kwargs
        self.rules = src.rules
        self.n = src.n
        self.side_of = src.side_of
        self.nsides = src.nsides
        self.first_dealer = src.first_dealer
        self.hand_number = src.hand_number
        self.over = src.over
        self.revealed = src.revealed
        self._canonical = src._canonical
        self.dealer_seat = src.dealer_seat
        self.shuffle_idx = src.shuffle_idx
        self.deck = src.deck
        self.stock_pos = src.stock_pos
        self.pile_wild = src.pile_wild
        self.pile_red3 = src.pile_red3
        self.black3_blocker = src.black3_blocker
        self.last_take_turn = src.last_take_turn
        self.decline_allowed = src.decline_allowed
        self.forced_take = src.forced_take
        self.hand_active = src.hand_active
        self.phase = src.phase
        self.current = src.current
        self.melded_before_turn = src.melded_before_turn
        self.start_keys = src.start_keys
        self._copy_mutables(src)

    def _copy_mutables(self, src: CanastaState) -> None:
        """The copies both paths of :meth:`clone` make (everything that changes in place)."""
        self.history = list(src.history)
        self._legal_cache = None
        dealer = Dealer.__new__(Dealer)
        dealer.seed = src.dealer.seed
        dealer.stacked = src.dealer.stacked
        dealer.realized = list(src.dealer.realized)
        self.dealer = dealer
        self.scores = list(src.scores)
        self.hand_scores = list(src.hand_scores)
        self.hand_details = list(src.hand_details)
        self.hidden_done = list(src.hidden_done)
        self.hands = [Counter(h) for h in src.hands]
        self.private = [list(p) for p in src.private]
        self.pile = list(src.pile)
        self.melds = melds = [{k: list(v) for k, v in m.items()} for m in src.melds]
        self._facts = [None if f is None else (melds[i], f[1], f[2]) for i, f in enumerate(src._facts)]
        self.concealed_melds = [set(x) for x in src.concealed_melds]
        self.red3 = [list(x) for x in src.red3]
        self.opened = list(src.opened)
        self.requirement = list(src.requirement)
        self.has_melded = list(src.has_melded)
        self.first_turn_done = list(src.first_turn_done)
        self._start_sizes = dict(src._start_sizes)
