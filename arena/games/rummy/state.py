"""The robber rummy state, :class:`RummyState`: deals, turns, legal plays and scoring
(see the package docstring). A hot path: compiled with mypyc where it can be (``setup.py``)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL, Action, Game, State
from arena.games.rummy import solver
from arena.games.rummy.actions import PASS, RummyAction
from arena.games.rummy.melds import (INDEX, TOKENS, VALUE, format_meld, meld_key_of, meld_problem, meld_text,
                                     meld_tokens)
from arena.games.rummy.observation import RummyEvent, RummyObservation
from arena.games.rummy.rules import HAND_SIZE, TURN_CAP, max_deals

__all__ = ["RummyState"]

_COMPILED = not __file__.endswith(".py")
"""Whether this module runs compiled (mypyc; see ``setup.py``): then ``clone()`` copies
attribute by attribute (compiled instances have no ``__dict__`` to copy)."""

LEGAL_MAX_STATES = 600
"""Solver budget used by ``legal_actions()`` (keeps random playouts fast)."""
MAX_SIMPLE_PLAYS = 24
"""At most this many single-meld and single-card plays are listed besides the solver's best."""


_MeldInfo = tuple[Any, str, tuple[str, ...], tuple[int, tuple[tuple[int, tuple[int, ...]], ...]]]


@lru_cache(maxsize=1 << 16)
def _meld_info(meld: tuple[int, ...]) -> _MeldInfo:
    """What :class:`_TableInfo` keeps of a table meld: its order key, text, tokens and
    :func:`solver.extension_table` (one memo lookup instead of four)."""
    return meld_key_of(meld), meld_text(meld), meld_tokens(meld), solver.extension_table(meld)


@lru_cache(maxsize=1 << 16)
def _meld_entry(meld: tuple[int, ...]) -> tuple[Any, str, tuple[str, ...], tuple[int, ...]]:
    """What a listed play needs of a new meld: its order key, text, tokens and cards
    (ascending: the hand cards it lays)."""
    return meld_key_of(meld), meld_text(meld), meld_tokens(meld), tuple(sorted(meld))


class _TableInfo:
    """What the legal-action listing needs of one table (the table is an immutable tuple
    that changes only by a play, so states and clones share it): per meld its canonical
    order key, its text inside an action, its tokens and the cards that extend it. A
    listed simple play makes the next table's by one insertion (:meth:`inserted`)."""

    __slots__ = ("table", "keys", "texts", "toks", "exts")

    def __init__(self, table: tuple[tuple[int, ...], ...], keys: list[Any] | None = None,
                 texts: list[str] | None = None, toks: tuple[tuple[str, ...], ...] | None = None,
                 exts: list[tuple[int, tuple[tuple[int, tuple[int, ...]], ...]]] | None = None) -> None:
        self.table = table
        if keys is None or texts is None or toks is None or exts is None:
            infos = list(map(_meld_info, table))
            keys = [x[0] for x in infos]
            texts = [x[1] for x in infos]
            toks = tuple([x[2] for x in infos])
            exts = [x[3] for x in infos]
        self.keys = keys
        self.texts = texts
        self.toks = toks
        self.exts = exts
        """Per meld: (mask of the cards that extend it, ((card, new meld), ...))."""

    def inserted(self, i: int, pos: int, meld: tuple[int, ...]) -> _TableInfo:
        """The info of this table without meld ``i`` (none if ``i < 0``) and with ``meld`` at ``pos``."""
        keys, texts, toks, exts, table = self.keys, self.texts, self.toks, self.exts, self.table
        if i >= 0:
            table = table[:i] + table[i + 1:]
            keys = keys[:i] + keys[i + 1:]
            texts = texts[:i] + texts[i + 1:]
            toks = toks[:i] + toks[i + 1:]
            exts = exts[:i] + exts[i + 1:]
        k, text, tok, ext = _meld_info(meld)
        return _TableInfo(table[:pos] + (meld,) + table[pos:], keys[:pos] + [k] + keys[pos:],
                          texts[:pos] + [text] + texts[pos:], toks[:pos] + (tok,) + toks[pos:],
                          exts[:pos] + [ext] + exts[pos:])


_Recipe = tuple[int, int, tuple[int, ...]] | tuple[tuple[int, ...], ...]
"""How a listed play makes the new table: (index of the replaced meld or -1, position, new
meld) for a simple play, or the whole new table."""
_Listed = tuple[RummyAction, _Recipe, tuple[int, ...]]
"""A listed play, its recipe and the hand cards it lays (ascending)."""


def _by_text(item: tuple[list[str], Any, Any, Any]) -> list[str]:
    return item[0]


class RummyState(State):
    """A position of a robber rummy match (one or more deals)."""

    game: Game
    # The base class's attributes, declared again so that a compiled module keeps them
    # in native slots (no effect on the pure-Python class).
    dealer: Dealer
    history: list[Action]
    _legal_cache: list[Action] | None
    _init_kwargs: dict[str, Any]

    def __init__(self, game: Game, dealer: Dealer, *, _copy_of: RummyState | None = None) -> None:
        if _copy_of is not None:  # clone() when compiled (see there)
            self._copy_state(_copy_of)
            return
        super().__init__(game, dealer)
        n = game.num_players
        self.n = n
        self.strict = bool(game.options["strict_table"])
        self.loss_limit: int | None = game.options["loss_limit"]
        self.max_deals = max_deals(game.options)
        self.scores = [0] * n
        self.deals_won = [0] * n
        self.deal_results: list[dict[str, Any]] = []
        self.deal_index = -1
        self.dealer_seat = n - 1
        self.terminal = False
        self._checked: tuple[RummyAction, int, tuple[tuple[tuple[int, ...], ...] | None, list[int]],
                             tuple[int, ...] | None, _Recipe | None] | None = None
        """The play ``validate`` accepted (with the history length), its new table (``None``
        for a listed play: its recipe makes it) and hand, and for a listed play the hand
        cards it lays and its recipe."""
        self._listed: tuple[int, dict[int, _Listed]] | None = None
        """The plays of the last legal-action list (with the history length it was made at),
        by ``id`` of the listed action object."""
        self._tab: _TableInfo | None = None
        self._masks: list[tuple[list[int], int, int] | None] = [None] * n
        """Per seat: (the hand list they describe, cards held once or more, twice), kept
        up to date by the draw and by plays; recomputed when the hand list is another."""
        self._start_deal()

    # -- deal flow -------------------------------------------------------
    def _start_deal(self) -> None:
        n = self.n
        self.deal_index += 1
        self.dealer_seat = 0 if self.deal_index == 0 else (self.dealer_seat + 1) % n
        self.deck: list[str] = self.dealer.shuffle(standard_deck(2))
        self.hands: list[list[int]] = [[0] * 52 for _ in range(n)]
        self._masks = [None] * n
        self.hand_size = [0] * n
        for j in range(HAND_SIZE * n):
            seat = (self.dealer_seat + 1 + j) % n
            self.hands[seat][INDEX[self.deck[j]]] += 1
            self.hand_size[seat] += 1
        self.stock_pos = HAND_SIZE * n
        self.table: tuple[tuple[int, ...], ...] = ()
        self.melded = [False] * n
        self.blocked = 0
        self.turn = 0
        self.log: list[RummyEvent] = []
        self.draw_pos: list[int] = []  # deck position drawn on each turn of the log (-1: none)
        self.player = (self.dealer_seat + 1) % n
        self._start_turn()

    def _start_turn(self) -> None:
        if self.stock_pos < len(self.deck):
            tok = self.deck[self.stock_pos]
            p = self.player
            hand = self.hands[p]
            c = INDEX[tok]
            k = hand[c]
            hand[c] = k + 1
            m = self._masks[p]
            if m is not None and m[0] is hand:
                if k == 0:
                    self._masks[p] = (hand, m[1] | 1 << c, m[2])
                elif k == 1:
                    self._masks[p] = (hand, m[1], m[2] | 1 << c)
                else:
                    self._masks[p] = None
            self.hand_size[p] += 1
            self.drawn: str | None = tok
            self.cur_draw_pos = self.stock_pos
            self.stock_pos += 1
        else:
            self.drawn = None
            self.cur_draw_pos = -1

    def _end_deal(self, winner: int | None, end: str) -> None:
        deal_scores = []
        for s in range(self.n):
            if s == winner:
                v = 20
            elif self.melded[s]:
                v = -sum(VALUE[c] * k for c, k in enumerate(self.hands[s]) if k)
            else:
                v = -10 * self.hand_size[s]
            deal_scores.append(v)
            self.scores[s] += v
        if winner is not None:
            self.deals_won[winner] += 1
        self.deal_results.append({
            "deal": self.deal_index, "dealer": self.dealer_seat, "end": end, "winner": winner,
            "turns": self.turn, "scores": deal_scores,
            "hands": [" ".join(TOKENS[c] for c in range(52) for _ in range(h[c])) for h in self.hands],
        })
        done = self.deal_index + 1 >= self.max_deals
        if self.loss_limit is not None and min(self.scores) <= -self.loss_limit:
            done = True
        if done:
            self.terminal = True
            self.drawn = None
        else:
            self._start_deal()

    # -- protocol --------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.terminal else self.player

    def is_terminal(self) -> bool:
        return self.terminal

    def returns(self) -> list[float]:
        return [float(s) for s in self.scores]

    def default_action(self) -> Action:
        return PASS

    def _legal_actions(self) -> list[Action]:
        seat = self.player
        hand = self.hands[seat]
        mk = self._masks[seat]
        if mk is None or mk[0] is not hand:
            masks = solver.presence(hand)
            assert masks is not None  # two packs: at most 2 copies of a card
            mk = self._masks[seat] = (hand, masks[0], masks[1])
        once, twice = mk[1], mk[2]
        table = self.table
        tab = self._tab
        if tab is None or tab.table is not table:
            tab = self._tab = _TableInfo(table)
        # The table is canonical (melds canonical, in canonical order) and every new meld
        # is canonical: a simple play is the table with one meld inserted (or one replaced)
        # at its place by meld_key; its text is the table's texts with one inserted, its
        # layout in tokens the table's with one inserted.
        key = meld_key_of
        text = meld_text
        entry = _meld_entry
        keys, texts, toks = tab.keys, tab.texts, tab.toks
        # (meld texts, layout in tokens, recipe, hand cards laid), one per distinct layout
        found: list[tuple[list[str], tuple[tuple[str, ...], ...], _Recipe, tuple[int, ...]]] = []
        # the best play from the hand alone (see solver.best_initial_meld_of) and the melds
        # of the hand (distinct melds give distinct layouts)
        best, hand_melds = solver.listing_melds(
            once, twice, MAX_SIMPLE_PLAYS if not self.melded[seat] else MAX_SIMPLE_PLAYS // 2, LEGAL_MAX_STATES)
        best_meld: tuple[int, ...] | None = None
        if best is not None:
            if len(best) == 1:
                # one meld: a simple play (below, the same meld from the hand is skipped)
                m = best_meld = best[0]
                mkey, mtext, mtoks, mcards = entry(m)
                pos = bisect_right(keys, mkey)
                t = texts.copy()
                t.insert(pos, mtext)
                found.append((t, toks[:pos] + (mtoks,) + toks[pos:], (-1, pos, m), mcards))
            else:
                # each meld inserted at its place: the stable sort of table + best by meld_key
                lkeys, t, ntoks, layout = keys.copy(), texts.copy(), list(toks), list(table)
                for m in best:
                    k = key(m)
                    pos = bisect_right(lkeys, k)
                    lkeys.insert(pos, k)
                    t.insert(pos, text(m))
                    ntoks.insert(pos, meld_tokens(m))
                    layout.insert(pos, m)
                found.append((t, tuple(ntoks), tuple(layout), tuple(sorted([c for m in best for c in m]))))
        for m in hand_melds:
            if m == best_meld:
                continue  # the same layout as the best play
            mkey, mtext, mtoks, mcards = entry(m)
            pos = bisect_right(keys, mkey)
            t = texts.copy()
            t.insert(pos, mtext)
            found.append((t, toks[:pos] + (mtoks,) + toks[pos:], (-1, pos, m), mcards))
        if self.melded[seat]:
            # single hand cards extending a table meld: meld i replaced by the longer one
            left = min(MAX_SIMPLE_PLAYS // 2, MAX_SIMPLE_PLAYS - len(hand_melds))
            seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
            for i, (mask, pairs) in enumerate(tab.exts):
                if not left:
                    break
                if not mask & once:
                    continue
                rest_keys = rest_texts = None
                rest_toks: tuple[tuple[str, ...], ...] = ()
                for c, new in pairs:
                    if not once >> c & 1:
                        continue
                    left -= 1
                    dup = (table[i], new)  # equal table melds extended alike give one layout
                    if dup in seen:
                        if not left:
                            break
                        continue
                    seen.add(dup)
                    if rest_keys is None:
                        rest_keys = keys[:i] + keys[i + 1:]
                        rest_texts = texts[:i] + texts[i + 1:]
                        rest_toks = toks[:i] + toks[i + 1:]
                    assert rest_texts is not None
                    mkey, mtext, mtoks, _cards = entry(new)
                    pos = bisect_right(rest_keys, mkey)
                    t = rest_texts.copy()
                    t.insert(pos, mtext)
                    found.append((t, rest_toks[:pos] + (mtoks,) + rest_toks[pos:], (i, pos, new), (c,)))
                    if not left:
                        break
        # Actions sorted by their text (RummyAction.sort_key; a canonical layout has one
        # text), built without re-normalising their layouts (equal to RummyAction.play(layout)).
        # The texts are compared as lists of meld texts: no meld text is a prefix of another
        # ("]" ends each), so the first difference of two joined texts lies in their first
        # differing meld texts, and a layout that extends another sorts after it either way.
        found.sort(key=_by_text)
        out: list[Action] = [PASS]
        listed: dict[int, _Listed] = {}
        new_action = object.__new__
        set_layout = object.__setattr__
        for _text, ltoks, recipe, laid in found:
            # RummyAction._from_tokens(ltoks), inlined
            action = new_action(RummyAction)
            set_layout(action, "layout", ltoks)
            out.append(action)
            listed[id(action)] = (action, recipe, laid)
        self._listed = (len(self.history), listed)
        return out

    def _recipe_layout(self, recipe: _Recipe) -> tuple[tuple[int, ...], ...]:
        """The new table of a listed play."""
        if len(recipe) == 3 and type(recipe[0]) is int:
            i, pos, m = recipe
            rest = self.table if i < 0 else self.table[:i] + self.table[i + 1:]
            return rest[:pos] + (m,) + rest[pos:]
        return recipe  # type: ignore[return-value]

    def validate(self, action: Action) -> None:
        if not isinstance(action, RummyAction):
            raise InvalidActionError(f"a rummy action is PASS or PLAY(layout), got {action!r}")
        if action.layout is not None:
            listed = self._listed
            entry = None
            if listed is not None and listed[0] == len(self.history):
                entry = listed[1].get(id(action))
                if entry is None or entry[0] is not action:
                    entry = next((e for e in listed[1].values() if e[0] == action), None)
            if entry is not None:
                # a listed play: valid by construction (tests/games/rummy check every listed
                # play against _check_play); only the new hand is needed
                new_hand = list(self.hands[self.player])
                laid = entry[2]
                for c in laid:
                    new_hand[c] -= 1
                self._checked = (action, len(self.history), (None, new_hand), laid, entry[1])
            else:
                self._checked = (action, len(self.history), self._check_play(action), None, None)

    def _check_play(self, action: RummyAction) -> tuple[tuple[tuple[int, ...], ...], list[int]]:
        """Validate a play (section 8); return the new table and the new hand.

        :raises IllegalActionError: naming the check (V2-V6, strict_table) it fails.
        """
        seat = self.player
        hand = self.hands[seat]
        melds = action.melds()
        for group in melds:
            problem = meld_problem(group)
            if problem is not None:
                raise IllegalActionError(f"V2: {format_meld(group)} is not a valid set or run: {problem}")
        tcount = [0] * 52
        for m in self.table:
            for c in m:
                tcount[c] += 1
        lcount = [0] * 52
        for group in melds:
            for c in group:
                lcount[c] += 1
        if not self.melded[seat]:
            remaining = [tuple(m) for m in melds]
            for tm in self.table:
                if tm in remaining:
                    remaining.remove(tm)
                else:
                    raise IllegalActionError(
                        f"V5: an initial meld must leave table meld {format_meld(tm)} unchanged")
            used = [0] * 52
            for m in remaining:
                for c in m:
                    used[c] += 1
            for c in range(52):
                if used[c] > hand[c]:
                    raise IllegalActionError(
                        f"V6: an initial meld may use only cards from your hand; {TOKENS[c]} is not in it")
        for c in range(52):
            if lcount[c] > hand[c] + tcount[c]:
                raise IllegalActionError(
                    f"V3: card {TOKENS[c]} not available: the layout uses {lcount[c]}, "
                    f"your hand and the table hold {hand[c] + tcount[c]}")
        new_size = self.hand_size[seat] + sum(tcount) - sum(lcount)
        if new_size > self.hand_size[seat] - 1:
            raise IllegalActionError(
                f"V4: hand would not shrink: it would hold {new_size} cards, "
                f"at most {self.hand_size[seat] - 1} allowed")
        if self.strict:
            for c in range(52):
                if lcount[c] < tcount[c]:
                    raise IllegalActionError(
                        f"strict_table: table card {TOKENS[c]} may not be taken into the hand")
        new_hand = [hand[c] + tcount[c] - lcount[c] for c in range(52)]
        return tuple(tuple(m) for m in melds), new_hand

    def illegal_reason(self, action: Action) -> str:
        try:
            self.validate(action)
        except (IllegalActionError, InvalidActionError) as exc:
            return exc.reason
        return f"{action} is legal"

    def _apply_action(self, action: Action) -> None:
        assert isinstance(action, RummyAction)
        seat = self.player
        drew = self.cur_draw_pos >= 0
        if action.layout is None:
            self.log.append(RummyEvent(seat, drew, True, (), ()))
            if not drew:
                self.blocked += 1
        else:
            checked = self._checked
            laid: tuple[int, ...] | None = None
            recipe: _Recipe | None = None
            new_table: tuple[tuple[int, ...], ...] | None
            if checked is not None and checked[0] is action and checked[1] == len(self.history):
                new_table, new_hand = checked[2]
                laid, recipe = checked[3], checked[4]
            else:
                new_table, new_hand = self._check_play(action)
            self._checked = None
            m = self._masks[seat]
            if laid is not None:
                # a listed play only lays hand cards (ascending): the net change
                played: tuple[str, ...] = tuple([TOKENS[c] for c in laid])
                taken: tuple[str, ...] = ()
                self.hand_size[seat] -= len(laid)
                if m is not None and m[0] is self.hands[seat]:
                    once, twice = m[1], m[2]
                    for c in laid:
                        k = new_hand[c]
                        if k == 1:
                            twice &= ~(1 << c)
                        elif k == 0:
                            once &= ~(1 << c)
                    self._masks[seat] = (new_hand, once, twice)
            else:
                old = self.hands[seat]
                played_l: list[str] = []
                taken_l: list[str] = []
                for c in range(52):
                    diff = old[c] - new_hand[c]
                    if diff > 0:
                        played_l.extend([TOKENS[c]] * diff)
                    elif diff < 0:
                        taken_l.extend([TOKENS[c]] * -diff)
                played, taken = tuple(played_l), tuple(taken_l)
                self.hand_size[seat] = sum(new_hand)
                self._masks[seat] = None
            self.hands[seat] = new_hand
            tab = self._tab
            if (recipe is not None and tab is not None and tab.table is self.table and len(recipe) == 3
                    and type(recipe[0]) is int):
                i, pos, meld = recipe
                tab = self._tab = tab.inserted(i, pos, meld)
                new_table = tab.table
            elif new_table is None:
                assert recipe is not None
                new_table = self._recipe_layout(recipe)
            self.table = new_table
            self.melded[seat] = True
            self.blocked = 0
            self.log.append(RummyEvent(seat, drew, False, played, taken))
        self.draw_pos.append(self.cur_draw_pos)
        self.turn += 1
        if self.hand_size[seat] == 0:
            self._end_deal(seat, "out")
        elif self.blocked >= self.n:
            self._end_deal(None, "blocked")
        elif self.turn >= TURN_CAP:
            self._end_deal(None, "cap")
        else:
            self.player = (seat + 1) % self.n
            self._start_turn()

    def action_to_string(self, action: Action) -> str:
        return str(action)

    def string_to_action(self, text: str) -> Action:
        return RummyAction.parse(text)

    def observation(self, seat: int) -> RummyObservation:
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is not a seat of this {self.n}-player game")
        hand = self.hands[seat]
        tab = self._tab
        return RummyObservation(
            seat=seat,
            num_players=self.n,
            deal=self.deal_index,
            dealer=self.dealer_seat,
            current_player=self.current_player(),
            hand=tuple(TOKENS[c] for c in range(52) for _ in range(hand[c])),
            drawn=self.drawn if (not self.terminal and seat == self.player) else None,
            table=(tab.toks if tab is not None and tab.table is self.table
                   else tuple(map(meld_tokens, self.table))),
            stock_size=len(self.deck) - self.stock_pos,
            hand_sizes=tuple(self.hand_size),
            melded=tuple(self.melded),
            initial_meld_pending=not self.melded[seat],
            blocked_turns=self.blocked,
            turn=self.turn,
            scores=tuple(self.scores),
            deals_won=tuple(self.deals_won),
            strict_table=self.strict,
            log=tuple(self.log),
        )

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        out: dict[str, Iterable[str]] = {}
        for s in range(self.n):
            out[f"hand{s}"] = [TOKENS[c] for c in range(52) for _ in range(self.hands[s][c])]
        out["table"] = [TOKENS[c] for m in self.table for c in m]
        out["stock"] = self.deck[self.stock_pos:]
        return out

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        d = len(self.dealer.realized) - 1
        hidden = [(d, q) for q in range(self.stock_pos, len(self.deck))]
        if self.terminal:
            return hidden  # hands are revealed by the final scores
        n = self.n
        owned: list[list[int]] = [[] for _ in range(n)]
        for j in range(HAND_SIZE * n):
            owned[(self.dealer_seat + 1 + j) % n].append(j)
        for ev, pos in zip(self.log, self.draw_pos):
            if pos >= 0:
                owned[ev.seat].append(pos)
        if self.cur_draw_pos >= 0:
            owned[self.player].append(self.cur_draw_pos)
        shown: list[dict[str, int]] = [{} for _ in range(n)]
        for ev in self.log:
            for tok in ev.played:
                shown[ev.seat][tok] = shown[ev.seat].get(tok, 0) + 1
        for t in range(n):
            if t == seat:
                continue
            left = dict(shown[t])
            for q in owned[t]:
                tok = self.deck[q]
                if left.get(tok, 0) > 0:
                    left[tok] -= 1  # a card of this kind went to the table: treat it as seen
                    continue
                hidden.append((d, q))
        return sorted(hidden)

    def clone(self) -> RummyState:
        """An independent copy: immutable attributes shared (the deck, the table and its
        :class:`_TableInfo`), mutable ones copied (:meth:`_copy_mutables`)."""
        if _COMPILED:
            return RummyState(self.game, self.dealer, _copy_of=self)
        other = RummyState.__new__(RummyState)
        other.__dict__.update(self.__dict__)
        other._copy_mutables(self)
        return other

    def _copy_state(self, src: RummyState) -> None:
        """Make this state a copy of ``src``, attribute by attribute: ``clone()`` of the
        compiled module, whose instances keep their attributes in native slots, not in a
        ``__dict__``. Shares and copies exactly what the ``__dict__`` path of ``clone()``
        does (``tests/games/test_compiled_engines.py`` checks that both give the
        same attributes)."""
        self.game = src.game
        self._init_kwargs = src._init_kwargs
        self.n = src.n
        self.strict = src.strict
        self.loss_limit = src.loss_limit
        self.max_deals = src.max_deals
        self.deal_index = src.deal_index
        self.dealer_seat = src.dealer_seat
        self.terminal = src.terminal
        self._tab = src._tab
        self.deck = src.deck
        self.stock_pos = src.stock_pos
        self.table = src.table
        self.blocked = src.blocked
        self.turn = src.turn
        self.player = src.player
        self.drawn = src.drawn
        self.cur_draw_pos = src.cur_draw_pos
        self._copy_mutables(src)

    def _copy_mutables(self, src: RummyState) -> None:
        """The copies both paths of :meth:`clone` make (everything that changes in place)."""
        dealer = Dealer(src.dealer.seed, ())
        dealer.stacked = src.dealer.stacked
        dealer.realized = list(src.dealer.realized)
        self.dealer = dealer
        self.history = list(src.history)
        self._legal_cache = None
        self._checked = None
        self._listed = None
        self.hands = hands = [list(h) for h in src.hands]
        masks = self._masks = list(src._masks)
        for s, m in enumerate(masks):
            if m is not None:
                masks[s] = (hands[s], m[1], m[2]) if m[0] is src.hands[s] else None
        self.hand_size = list(src.hand_size)
        self.melded = list(src.melded)
        self.scores = list(src.scores)
        self.deals_won = list(src.deals_won)
        self.deal_results = list(src.deal_results)
        self.log = list(src.log)
        self.draw_pos = list(src.draw_pos)
