"""The canasta state: dealing, the turn, validation, enumeration, hand end.

See the package docstring (:mod:`arena.games.canasta`) for the rules summary,
the action text forms, the observation layout and the rule decisions.

The meld search (why a MELD or TAKE_PILE is illegal, which ones are listed, and its
memos) is :mod:`arena.games.canasta.melds`: the state builds its
:class:`~arena.games.canasta.melds.Table` of the position for every call (:meth:`CanastaState._table`).
``validate`` accepts a listed meld or pickup without checking it twice (the very object
listed now).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, Final

from arena.core.cards import sort_cards, standard_deck
from arena.core.dealing import Dealer
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL, Action, Game, State

from arena.games.canasta.actions import DECLINE, DRAW, CanastaAction, Group
from arena.games.canasta.melds import (BY_ORDER, TOKEN_ORDER, Table, group_problem, hand_pool, listing_context,
                                       meld_candidates, sorted_tokens, sorted_unique, take_candidates)
from arena.games.canasta.observation import CanastaObservation
from arena.games.canasta.rules import (KEY_ORDER, WILDS, Rules, is_black3, is_natural, is_red3, is_wild,
                                       opening_table_value)
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


def _hand_tokens(hand: Counter[str]) -> list[str]:
    """``sorted_tokens(hand.elements())``, sorting the distinct cards' positions (plain
    integers) instead of every card by a key function."""
    order = TOKEN_ORDER
    try:
        positions = [order[c] for c in hand]
    except KeyError:
        return sorted_tokens(hand.elements())
    positions.sort()
    by_order = BY_ORDER
    out: list[str] = []
    for i in positions:
        c = by_order[i]
        k = hand[c]
        if k == 1:
            out.append(c)
        elif k > 1:
            out.extend([c] * k)
    return out


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
        if cache is not None:
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
                return group_problem(self._table(), a.groups, True)
            return f"{a.kind} is not allowed in the draw phase: draw from the stock or take the pile first (rule 6.2)"
        # PLAY phase
        if a.kind == "meld":
            if not a.groups:
                return "a meld needs at least one group (rule 7.6)"
            return group_problem(self._table(), a.groups, False)
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

    def _table(self) -> Table:
        """What the meld search (:mod:`.melds`) reads of the position now: the current
        seat's hand, its side's melds and their facts (:meth:`_side_facts`), the pile."""
        seat = self.current
        side = self.side_of[seat]
        melds, canastas, stats = self._side_facts(side)
        return Table(self.hands[seat], melds, canastas, stats, self.opened[side], self.requirement[side],
                     self._frozen(), self.pile, self.pile_red3, self.black3_blocker, self.rules)

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
        out: list[Action] = []
        if self.phase is Phase.DRAW:
            if self.stock_pos < len(self.deck):
                out.append(DRAW)
            out.extend(self._take_candidates())
            if self.decline_allowed:
                out.append(DECLINE)
            return out
        table = self._table()
        pool = hand_pool(table.hand)
        out.extend(sorted_unique(meld_candidates(table, listing_context(table), False, pool)))
        out.extend(pool[4])
        return out

    def _take_candidates(self) -> list[CanastaAction]:
        """Every listed legal TAKE_PILE action of the current player (possibly none), in the
        listing's order (:func:`~arena.games.canasta.melds.take_candidates`)."""
        return take_candidates(self._table())

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
            melds=tuple(tuple((k, tuple(sorted_tokens(m[k]))) for k in sorted(m, key=KEY_ORDER.__getitem__))
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
