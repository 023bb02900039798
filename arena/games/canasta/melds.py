"""The meld search of canasta: which MELD and TAKE_PILE actions are legal, and why not.

:func:`group_problem` says why a MELD or TAKE_PILE of given groups is illegal (the
rules of sections 7 to 10, with the text :meth:`CanastaState.problem
<arena.games.canasta.state.CanastaState.problem>` reports); :func:`meld_candidates` and
:func:`take_candidates` generate the listed MELD and TAKE_PILE actions of the
package docstring's canonical subset. They read the position through a
:class:`Table`, the part of the state they need (the current seat's hand, its
side's melds and their facts, the pile), which :class:`CanastaState
<arena.games.canasta.state.CanastaState>` builds for every call: this module
never imports the state module. It is compiled with mypyc beside it (``setup.py``).

Speed: the enumeration memoizes pure functions of its inputs (the meld options of a
rank, the generated actions, the per-group facts of :func:`_group_info`, and whether a
one-group meld or pickup is legal, keyed by everything that decides it, the value
computed by :func:`group_problem` itself), checks the generated combinations directly
(:func:`_meld_ok`; an opened side's meld by construction, :func:`_opened_melds`)
against the reference path of ``plain=True``, makes a multi-group action from its
groups' memoized entries, shares the DISCARD actions, and the state accepts a listed
action object without checking it twice;
``tests/games/canasta/test_canasta_golden.py`` pins the lists to what the plain
enumeration gave.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations
from operator import itemgetter
from typing import Any, Final

from arena.core.cards import sort_cards, standard_deck

from arena.games.canasta.actions import _CARD_ORDER, DISCARDS, KIND_ORDER, CanastaAction, Group
from arena.games.canasta.rules import (BLACK3, CANASTA_REQUIRED, KEY_ORDER, NATURAL_RANKS, NATURALS, RED3,
                                       VALUES, WILDS, Rules, is_black3, is_natural, rank_value)


__all__ = ["Table", "Context", "Listed", "Pool", "TOKEN_ORDER", "BY_ORDER", "sorted_tokens", "hand_pool",
           "tokens_pool", "sorted_unique", "listing_context", "group_problem", "meld_candidates",
           "take_candidates"]


class Table:
    """What the meld search reads of a position: the current seat's hand and what its side
    and the pile show. Built by the state for each call and never kept: it refers to the
    state's own hand, melds and pile (the search only reads them), so it is valid until
    the state changes."""

    __slots__ = ("hand", "melds", "canastas", "stats", "opened", "requirement", "frozen", "pile",
                 "pile_red3", "black3_blocker", "rules")

    hand: Counter[str]
    """The current seat's hand."""
    melds: dict[str, list[str]]
    """Its side's melds by key."""
    canastas: int
    """Its side's canastas."""
    stats: dict[str, tuple[int, int]]
    """Per meld key of its side: (cards, wild cards)."""
    opened: bool
    """Whether its side has opened this hand."""
    requirement: int
    """Its side's opening minimum (``CANASTA_REQUIRED``: a canasta)."""
    frozen: bool
    """Whether the pile is frozen for everybody (a wild card in it, or a red-three upcard
    where that freezes); for an unopened side it is frozen anyway."""
    pile: list[str]
    """The discard pile, its top last."""
    pile_red3: int
    """The red threes in the pile."""
    black3_blocker: int
    """The seat whose black three blocks the pile until its next turn, or -1."""
    rules: Rules
    """The game's rules."""

    def __init__(self, hand: Counter[str], melds: dict[str, list[str]], canastas: int,
                 stats: dict[str, tuple[int, int]], opened: bool, requirement: int, frozen: bool,
                 pile: list[str], pile_red3: int, black3_blocker: int, rules: Rules) -> None:
        self.hand = hand
        self.melds = melds
        self.canastas = canastas
        self.stats = stats
        self.opened = opened
        self.requirement = requirement
        self.frozen = frozen
        self.pile = pile
        self.pile_red3 = pile_red3
        self.black3_blocker = black3_blocker
        self.rules = rules


TOKEN_ORDER: Final = {tok: i for i, tok in enumerate(standard_deck(1, 1))}
"""The position of every card token in canonical card order (jokers last)."""


def sorted_tokens(cards: Iterable[str]) -> list[str]:
    """``sort_cards`` with a C-level key (every token valid; falls back otherwise)."""
    cards = list(cards)
    try:
        return sorted(cards, key=TOKEN_ORDER.__getitem__)
    except KeyError:
        return sort_cards(cards)


BY_ORDER: Final = list(TOKEN_ORDER)
"""The tokens in card order (the inverse of ``TOKEN_ORDER``)."""


_KIND: Final[dict[str, int]] = {"JK": 1}
"""Card kinds for :func:`hand_pool`: 1 joker, 2 a two, 3 a black three, 4 a natural."""
for _tok in standard_deck(1):
    _KIND[_tok] = 2 if _tok[0] == "2" else 3 if is_black3(_tok) else 4 if is_natural(_tok) else 0


_TOKEN_INFO: Final = {c: (_KIND.get(c, 0), DISCARDS[c]) for c in BY_ORDER}
"""Per card token: its :data:`_KIND` and its DISCARD action."""

Pool = tuple[dict[str, list[str]], list[str], int, list[str], list[CanastaAction]]
"""A hand by kind (:func:`hand_pool`): naturals by rank, 2s, jokers (a number), black
threes, the DISCARD actions."""


def hand_pool(hand: Counter[str]) -> Pool:
    """A hand by kind, each in card order: naturals by rank, 2s, jokers (a number), black
    threes; and the DISCARD action of each distinct card, in card order. One pass over the
    hand's distinct cards sorted with a C-level key."""
    try:
        tokens = sorted(hand, key=TOKEN_ORDER.__getitem__)
    except KeyError:  # not a standard token: the plain path
        return tokens_pool(sorted_tokens(hand.elements()))
    info = _TOKEN_INFO
    nat: dict[str, list[str]] = {}
    twos: list[str] = []
    b3: list[str] = []
    discards: list[CanastaAction] = []
    jokers = 0
    for c in tokens:
        k = hand[c]
        if k < 1:
            continue
        kind, disc = info[c]
        discards.append(disc)
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


def tokens_pool(tokens: list[str]) -> Pool:
    """:func:`hand_pool` of the sorted cards ``tokens`` (any tokens)."""
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


_FIRST: Final = itemgetter(0)
"""The sort key of generated actions (:data:`Listed`): their bytes."""


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
:func:`meld_candidates`)."""
_SINGLES: Final[dict[int, tuple[tuple[int, int, int], ...]]] = {}
"""The legal one-group MELDs of a rank, as ``(n, t, j)`` (:func:`_option_shapes`), by
everything that decides them (see :func:`meld_candidates`)."""
_WILD_SINGLES: Final[dict[tuple[int, int, tuple[int, int] | None, int, int], tuple[tuple[int, int], ...]]] = {}
"""The legal one-group WILD MELDs, as ``(t, j)`` (2s, jokers), by everything that decides them."""
_BASE_IDS: Final[dict[tuple[Any, ...], int]] = {}
"""A small number for each position context of :func:`meld_candidates` (the
side's canastas up to the number needed to go out, opened, requirement, the rules), a
part of the ``_SINGLES`` keys; few values ever occur (``_BASE_CAP`` bounds them)."""
_BASE_CAP: Final = 1 << 10
_COMBO_VALID: Final[dict[tuple[Any, ...], bool]] = {}
"""Whether a generated multi-group MELD or TAKE_PILE is legal, by its shape and everything
else that decides it (see :func:`_combo_actions`)."""
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
Listed = tuple[bytes, CanastaAction]
"""A generated action with its sort key as bytes (see :func:`_action`)."""

_ONE: Final[dict[Group, Listed]] = {}
"""The one-group MELD of a generated group (cards in the generated order), with its sort
key as bytes (:func:`_action`): the action's ``groups[0]`` is the group's canonical form
(cards in canonical order) and its ``_key[2][0]`` the group's part of the sort key, which
the multi-group actions are made of. Actions are immutable values: a listing shares
them, as it shares the DISCARD actions."""
_MELD_ORDER: Final = KIND_ORDER["meld"]
_ENTRY: Final[dict[Group, tuple[int, bytes, Group, _Part]]] = {}
"""What a multi-group action takes of each memoized group (:func:`_one`, kept and
cleared with ``_ONE``): its key's position, its bytes, its canonical form, its part of
the sort key."""
# The fields' own setters (slot descriptors) of the frozen action type: the engine's
# actions are made without __init__, as CanastaAction._trusted makes them.
_NEW: Final = object.__new__
_SET_KIND: Final = vars(CanastaAction)["kind"].__set__
_SET_GROUPS: Final = vars(CanastaAction)["groups"].__set__
_SET_CARD: Final = vars(CanastaAction)["card"].__set__
_SET_KEY: Final = vars(CanastaAction)["_key"].__set__


def _one(group: Group) -> Listed:
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
        part = (ko, len(cs), tuple(positions))
        obj = _NEW(_ACTION_TYPE)
        _SET_KIND(obj, "meld")
        _SET_GROUPS(obj, (normal,))
        _SET_CARD(obj, "")
        _SET_KEY(obj, (_MELD_ORDER, -1, (part,)))
        raw = bytes([ko, len(cs)] + positions)
        got = (raw, obj)
        if len(_ONE) >= _MEMO_CAP:
            _ONE.clear()
            _ENTRY.clear()
        _ONE[group] = got
        _ENTRY[group] = (ko, raw, normal, part)
    return got


def _action(kind: str, groups: tuple[Group, ...]) -> Listed:
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
        entry = _ENTRY
        ents: list[tuple[int, bytes, Group, _Part]] = []
        for g in groups:
            e = entry.get(g)
            if e is None:
                _one(g)
                e = entry[g]
            ents.append(e)
        ents.sort()  # by key position: the keys are distinct, so nothing else is compared
        _kos, raws, ngroups, parts = zip(*ents)
        raw = b"".join(raws)
    obj = _NEW(_ACTION_TYPE)
    _SET_KIND(obj, kind)
    _SET_GROUPS(obj, ngroups)
    _SET_CARD(obj, "")
    _SET_KEY(obj, (_KIND_ORDER[kind], -1, parts))
    return raw, obj


Context = tuple[int, int, dict[str, tuple[int, int]]]
"""(cards in hand, canastas of the side, per meld key of the side: (cards, wild cards))."""
_NO_MELD: Final = (0, 0)


@lru_cache(maxsize=1 << 15)
def _group_info(key: str, cards: tuple[str, ...]
                ) -> tuple[str | None, tuple[tuple[str, int], ...], int, int, int]:
    """What :func:`group_problem` needs of one group alone (memoized): the first
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


def sorted_unique(listed: list[Listed]) -> list[CanastaAction]:
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
             opened: bool, requirement: int, r: Rules, take: bool = False) -> bool:
    """Whether :func:`group_problem` accepts a MELD (or, ``take``, a TAKE_PILE) generated
    by :func:`_combo_actions`: its groups have distinct keys, are not empty and
    hold only cards of the hand that fit their keys (a pickup's top group two naturals
    of the top card's rank or more), so what is left to check is the
    resulting melds (rule 7), the opening (rule 8) and going out (rules 7.5 and 10).
    A pickup's top group counts the top card among its cards (a natural of the rank,
    worth the rank's value), ``hand_after`` counts the cards the pile brings, and a
    pickup is never exempt from the opening minimum.
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
    if not opened and (take or not going_out):
        meets_by_canasta = r.canasta_meets_opening and new_canasta
        if requirement == _CANASTA_REQUIRED:
            if not meets_by_canasta:
                return False
        elif value < requirement and not meets_by_canasta:
            return False
    return hand_after >= 2 or can_out


def listing_context(table: Table) -> Context:
    """What :func:`group_problem` needs about the position, once per listing: the cards in
    hand, the side's canastas and its melds' facts."""
    return sum(table.hand.values()), table.canastas, table.stats


def group_problem(table: Table, groups: tuple[Group, ...], take: bool,
                  ctx: Context | None = None) -> str | None:
    """Why a TAKE_PILE (``take``) or MELD of ``groups`` is illegal now, or ``None``.

    ``ctx``: :func:`listing_context` when the caller (the legal-action
    enumeration) has it already; computed here otherwise.
    """
    r = table.rules
    hand = table.hand
    melds = table.melds
    keys = [k for k, _ in groups]
    if len(set(keys)) != len(keys):
        return "a key may appear only once in one action (rule 7.6)"
    top = ""
    top_rank = ""
    if take:
        if not table.pile:
            return "the pile is empty (rule 9.1)"
        top = table.pile[-1]
        if top not in NATURALS:
            kind = "a wild card" if top in WILDS else "a three"
            return f"the top card {top} is {kind}; the pile cannot be taken (rule 9.1)"
        if table.black3_blocker >= 0:
            return (f"seat {table.black3_blocker} discarded a black three: nobody may take the pile "
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
        if table.frozen or not table.opened:
            if nat < 2:
                why = "the pile is frozen" if table.frozen else "your side has not opened, so the pile is frozen for it"
                return (f"{why}: taking it needs two natural {top_rank}s from your hand in the top group "
                        f"(rule 9.3)")
        elif not (nat >= 2 or top_rank in melds or (r.natural_plus_wild_pickup and nat >= 1 and wild >= 1)):
            extra = " or a natural and a wild card" if r.natural_plus_wild_pickup else ""
            return (f"taking the pile needs two natural {top_rank}s from your hand{extra}, or a meld of "
                    f"{top_rank}s on your side (rule 9.3)")
    # Resulting melds.
    if ctx is None:
        ctx = listing_context(table)
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
        hand_after += len(table.pile) - 1 - table.pile_red3
    can_out = canastas >= r.canastas_to_go_out
    if "BLACK3" in keys and not (hand_after <= 1 and can_out):
        return ("a BLACK3 meld is allowed only when going out: after it you may hold at most 1 card and your "
                f"side needs {r.canastas_to_go_out} canasta(s) (rule 7.5)")
    if not table.opened:
        exempt = not take and hand_after <= 1 and can_out
        if not exempt:
            req = table.requirement
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


def _valid_one(table: Table, key: str, opt: tuple[str, ...], twos: int, jokers: int,
               stat: tuple[int, int] | None, left: int, bid: int, take: bool, ctx: Context) -> bool:
    """Whether the generated one-group MELD (or TAKE_PILE, ``take``) ``key: opt`` is legal,
    memoized (``_VALID``) on what decides it: the key (``WILD``, or a natural rank's value),
    the group's numbers of cards, 2s (``twos``) and jokers, the side's meld of that key
    (``stat``), whether 0, 1 or more cards stay in hand (``left``, at most 2) and ``bid``
    (the number ``_BASE_IDS`` gives the side's canastas up to the number needed to go out,
    opened, requirement, the rules; for a pickup also the pile's frozenness for the side). The naturals of one
    rank are alike, and so are the 2s; the value comes from :func:`group_problem`."""
    vkey = (_RANK_CLASS.get(key, 0), len(opt), twos, jokers, stat, left, bid)
    ok = _VALID.get(vkey)
    if ok is None:
        if len(_VALID) >= _MEMO_CAP:
            _VALID.clear()
        ok = _VALID[vkey] = group_problem(table, ((key, opt),), take, ctx) is None
    return ok


def _combo_actions(table: Table, kind: str, nat: dict[str, list[str]], twos: list[str], jokers: int,
                   b3: list[str], exclude: str, bases: list[Group], ctx: Context, vbase: tuple[Any, ...],
                   gain: int, out: list[Listed], plain: bool = False) -> None:
    """Append the legal multi-group candidates of ``kind`` to ``out``: subsets of ranks
    melded with all their naturals (a new meld of two naturals gets a 2, else a joker),
    each as it is and with the remaining wild cards added where the limits allow
    (largest meld first, jokers first) plus a WILD group of the wild cards left and,
    with three or more black threes, the latter also with a BLACK3 group.

    Whether a candidate is legal is memoized (``_COMBO_VALID``) on its shape, before
    its cards are gathered: every group holds only cards of the hand that fit its key,
    and cards of one kind are alike in value and in the rules, so
    :func:`group_problem` decides by each group's key, numbers of cards, 2s and jokers
    and the side's meld of that key, by whether 0, 1 or more cards stay in hand
    (``gain``: the cards a pickup brings) and by ``vbase`` (see :func:`_valid_one`;
    for a pickup also the top card's rank). Unless ``plain``, a candidate is checked
    directly instead (:func:`_meld_ok`): the shapes of melds are too many to memoize
    well, and the memo of pickups is slow to warm (``plain`` is the reference path the
    tests compare it with). The second
    variant, with no wild card left to add and no black threes to meld, is the first
    again, so it is not generated twice.
    """
    r = table.rules
    melds = table.melds
    hand_size, canastas, stats = ctx
    # checked by _meld_ok (``plain``: by the memo and group_problem; the tests compare
    # the two)
    direct = not plain
    take = kind == "take"
    opened = table.opened
    req = table.requirement
    rank_index = _RANK_INDEX
    dec = [(-len(cs), rank_index[k], k) for k, cs in nat.items()
           if k != exclude and (len(cs) >= 2 or k in melds)]
    dec.sort()
    ranks = [d[2] for d in dec]
    sizes: list[int]
    if opened:
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
        # a pickup's top group (its only base) with the top card, for _meld_ok
        bshape.append((bk, len(bcs) + (1 if direct and take else 0), b2, bj, stats.get(bk)))
    ntw = len(twos)
    nb3 = len(b3)
    ratio = r.ratio
    wild_allowed = r.wild_meld_allowed
    wstat = stats.get("WILD")
    b3stat = stats.get("BLACK3")
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
                        valid: bool | None = _meld_ok(shape, hand_size - nused + gain, canastas, opened, req, r,
                                                      take)
                    else:
                        valid = memo.get((vbase, min(hand_size - nused + gain, 2), tuple(shape)))
                    if valid is None:
                        groups = _combo_groups(bases, subset, cards_l, twos, ti, jk, wild_group,
                                               b3 if with_b3 else None)
                        if len(memo) >= _MEMO_CAP:
                            memo.clear()
                        valid = group_problem(table, groups, take, ctx) is None
                        memo[(vbase, min(hand_size - nused + gain, 2), tuple(shape))] = valid
                    if valid:
                        if groups is None:
                            groups = _combo_groups(bases, subset, cards_l, twos, ti, jk, wild_group,
                                                   b3 if with_b3 else None)
                        out.append(_action(kind, groups))


def _opened_melds(nat: dict[str, list[str]], twos: list[str], jokers: int, b3: list[str],
                  melds: dict[str, list[str]], stats: dict[str, tuple[int, int]], hand_size: int, canastas: int,
                  r: Rules, out: list[Listed]) -> None:
    """:func:`_combo_actions` for the MELD of an opened side, the common case, without
    building shapes: its one subset is every rank that can meld (two or more naturals in
    hand, or melded), and every group it makes fits its key's limits by construction (a
    new pair gets one wild card, the greedy wild cards stop at the limits, a WILD group
    has three or more cards or a meld to join, the side's melds already fit theirs), so
    all that is left of :func:`_meld_ok` for an opened side is going out: a candidate is
    legal when 2 or more cards stay in hand or the side can go out after it (its
    canastas counted with the ones it completes), one with a BLACK3 group only when at
    most 1 card stays and the side can go out. The same candidates, in the same order,
    as :func:`_combo_actions` (``tests/games/canasta/test_canasta_golden.py`` compares
    the listings with the full check of every candidate)."""
    dec = [(-len(cs), _RANK_INDEX[k], k) for k, cs in nat.items() if len(cs) >= 2 or k in melds]
    if not dec:
        return
    dec.sort()
    ntw = len(twos)
    ti = 0
    jk = jokers
    keys: list[str] = []
    cards_l: list[list[str]] = []
    wild_l: list[int] = []  # the wild cards of each group's meld, the side's and the added ones
    prior_l: list[int] = []  # the cards of the side's meld of each group's rank
    nused = 0
    for _neg, _i, k in dec:
        cs = nat[k]
        st = stats.get(k)
        if st is None:
            if len(cs) == 2:  # a new meld of two naturals: a 2, else a joker
                if ti < ntw:
                    cl = cs + [twos[ti]]
                    ti += 1
                elif jk:
                    jk -= 1
                    cl = cs + ["JK"]
                else:
                    return
                wild_l.append(1)
            else:
                cl = list(cs)
                wild_l.append(0)
            prior_l.append(0)
        else:
            cl = list(cs)
            wild_l.append(st[1])
            prior_l.append(st[0])
        keys.append(k)
        cards_l.append(cl)
        nused += len(cl)
    need = r.canastas_to_go_out
    made = canastas + _completed(prior_l, cards_l)
    if hand_size - nused >= 2 or made >= need:
        out.append(_action("meld", tuple([(keys[gi], tuple(cards_l[gi])) for gi in range(len(keys))])))
    nb3 = len(b3)
    if ti >= ntw and not jk:
        if nb3 < 3:
            return  # nothing to add: the plain candidate again
    else:  # the greedy variant: wild cards added, largest meld first, jokers first
        ratio = r.ratio
        for _neg, gi in sorted([(-len(cl), gi) for gi, cl in enumerate(cards_l)]):
            cl = cards_l[gi]
            while ti < ntw or jk:
                w = wild_l[gi]
                if w >= 3 or (ratio and w + 1 > len(cl) + prior_l[gi] - w):
                    break
                if jk:
                    jk -= 1
                    cl.append("JK")
                else:
                    cl.append(twos[ti])
                    ti += 1
                wild_l[gi] = w + 1
                nused += 1
    made = canastas + _completed(prior_l, cards_l)
    groups = [(keys[gi], tuple(cards_l[gi])) for gi in range(len(keys))]
    rem = ntw - ti
    wstat = stats.get("WILD")
    if r.wild_meld_allowed and (jk + rem >= 3 or (wstat is not None and jk + rem > 0)):
        groups.append(("WILD", tuple(twos[ti:]) + ("JK",) * jk))
        before = wstat[0] if wstat is not None else 0
        if before < 7 <= before + rem + jk:
            made += 1
        nused += rem + jk
    hand_after = hand_size - nused
    if hand_after >= 2 or made >= need:
        out.append(_action("meld", tuple(groups)))
    if nb3 >= 3 and hand_after - nb3 <= 1 and made >= need:
        groups.append(("BLACK3", tuple(b3)))
        out.append(_action("meld", tuple(groups)))


def _completed(prior_l: list[int], cards_l: list[list[str]]) -> int:
    """The canastas a meld completes: groups that bring their rank's meld (``prior_l``
    cards before) from under 7 cards to 7 or more."""
    return sum(1 for gi in range(len(cards_l)) if prior_l[gi] < 7 <= prior_l[gi] + len(cards_l[gi]))


def _combo_groups(bases: list[Group], subset: tuple[str, ...], cards_l: list[list[str]], twos: list[str],
                  ti: int, jk: int, wild_group: bool, b3: list[str] | None) -> tuple[Group, ...]:
    """The groups of a candidate of :func:`_combo_actions`."""
    groups = list(bases)
    for gi in range(len(cards_l)):
        groups.append((subset[gi], tuple(cards_l[gi])))
    if wild_group:
        groups.append(("WILD", tuple(twos[ti:]) + ("JK",) * jk))
    if b3 is not None:
        groups.append(("BLACK3", tuple(b3)))
    return tuple(groups)


def meld_candidates(table: Table, ctx: Context, plain: bool = False, pool: Pool | None = None
                    ) -> list[Listed]:
    """Every listed legal MELD action of the current player, with its sort key as bytes
    (:func:`_action`; a combination may repeat a one-group meld: the caller
    deduplicates). ``pool``: :func:`hand_pool` of the hand, when the caller has it.

    One-group melds of a rank are made from the first ``n`` naturals of the rank, the
    first ``t`` 2s and ``j`` jokers (:func:`_option_shapes`); which of them are legal
    depends on the cards only through their numbers (see :func:`_valid_one`), so the
    legal ``(n, t, j)`` are memoized (``_SINGLES``) on those numbers, packed in one
    integer, and only legal melds are made into actions (memoized ones, :func:`_one`).
    Only the ranks that can meld are visited: two or more naturals in hand, or a meld
    of the rank on the side's table and a card to add to it.
    """
    if pool is None:
        pool = hand_pool(table.hand)
    nat, twos, jokers, b3, _discards = pool
    r = table.rules
    hand_size, canastas, stats = ctx
    # only whether 0, 1 or 2+ cards stay in hand matters, and canastas up to the number
    # needed to go out (one-group melds make at most one more)
    base = (min(canastas, r.canastas_to_go_out), table.opened, table.requirement, r.ratio,
            r.substituted, r.wild_meld_allowed, r.canastas_to_go_out, r.canasta_meets_opening)
    bid = _BASE_IDS.get(base)
    if bid is None:
        if len(_BASE_IDS) >= _BASE_CAP:
            _BASE_IDS.clear()
            _SINGLES.clear()
            _WILD_SINGLES.clear()
            _VALID.clear()
        bid = _BASE_IDS[base] = len(_BASE_IDS)
    out: list[Listed] = []
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
                if _valid_one(table, k, opt, t, j, stat, min(hand_size - n - t - j, 2), bid, False, ctx):
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
                            if _valid_one(table, "WILD", tw[:t] + ("JK",) * j, t, j, wstat,
                                          min(hand_size - t - j, 2), bid, False, ctx):
                                wkeep.append((t, j))
                wshapes = tuple(wkeep)
                if len(_WILD_SINGLES) >= _MEMO_CAP:
                    _WILD_SINGLES.clear()
                _WILD_SINGLES[wkey] = wshapes
            for t, j in wshapes:
                out.append(_action("meld", (("WILD", tw[:t] + ("JK",) * j),)))
    if table.opened and not plain:
        _opened_melds(nat, twos, jokers, b3, table.melds, stats, hand_size, canastas, r, out)
    else:
        _combo_actions(table, "meld", nat, twos, jokers, b3, "", [], ctx, ("meld",) + base, 0, out, plain)
    return out


def take_candidates(table: Table, plain: bool = False) -> list[CanastaAction]:
    """Every listed legal TAKE_PILE action of the current player (possibly none), in the
    listing's order. ``plain``: the combinations of an unopened side checked by
    :func:`group_problem` (see :func:`_combo_actions`), for the tests."""
    pile = table.pile
    if not pile or table.black3_blocker >= 0:
        return []
    top = pile[-1]
    if not is_natural(top):
        return []
    rank = top[0]
    r = table.rules
    opened = table.opened
    frozen_for = table.frozen or not opened
    hand = table.hand
    # Every pickup needs two naturals of the top card's rank from the hand when the pile
    # is frozen for the side, and otherwise two, or a meld of the rank, or (where allowed)
    # one and a wild card (rule 9.3; _group_problem): without them there is none.
    have = hand.get(rank + "C", 0) + hand.get(rank + "D", 0) + hand.get(rank + "H", 0) + hand.get(rank + "S", 0)
    if have < 2:
        if frozen_for:
            return []
        if rank not in table.melds and not (
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
    ctx = listing_context(table)
    # One-group pickups are checked like one-group melds (see _valid_one), with what a
    # pickup adds: the top card is of the group's rank, whether the pile is frozen for
    # the side, and the cards the pile brings into the hand.
    hand_size, canastas, stats = ctx
    gain = len(pile) - 1 - table.pile_red3
    tbase = ("take", frozen_for, r.natural_plus_wild_pickup, min(canastas, r.canastas_to_go_out),
             opened, table.requirement, r.ratio, r.substituted, r.canastas_to_go_out,
             r.canasta_meets_opening)
    stat = stats.get(rank)
    old_n = stat[0] - stat[1] if stat is not None else 0
    old_w = stat[1] if stat is not None else 0
    ncards = tuple(cards)
    tw = tuple(twos)
    out: list[Listed] = []
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
            if _valid_one(table, rank, opt, t, j, stat, min(hand_size - n - t - j + gain, 2), bid, True,
                          ctx):
                keep.append(shp)
        shapes = tuple(keep)
        if len(_SINGLES) >= _MEMO_CAP:
            _SINGLES.clear()
        _SINGLES[tkey] = shapes
    for n, t, j in shapes:
        out.append(_action("take", ((rank, ncards[:n] + tw[:t] + ("JK",) * j),)))
    if not opened and len(ncards) >= 2:
        nat, twos, jokers, b3, _discards = hand_pool(hand)
        cbase = tbase + (r.wild_meld_allowed, rank)
        for jj in range(0, min(jokers, 3) + 1):
            _combo_actions(table, "take", nat, twos, jokers, b3, rank, [(rank, ncards + ("JK",) * jj)],
                                ctx, cbase, gain, out, plain)
    return sorted_unique(out)

