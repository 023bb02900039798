"""The bridge state: auction, play and scoring of one match (a board or a rubber).

See the package docstring (:mod:`arena.games.bridge`) for the action ids, the
observation layout and the rule decisions. Hot-path design: the hands are 16 keyed
rank masks (``suit << 13`` or'd with the suit's 13-bit ranks, one per seat and suit), each
an index into one flat table of sorted card tuples (``_CARDS_OF``; ``()`` for a void), the
legal ids are kept as a shared sorted tuple (``_legal``: a row of the auction table, the
cards of a suit held, or a hand's four suits joined) updated by every action, a legal card
is applied inline in ``apply_action`` (the suit led kept in ``_led``), and single legal
cards are played by the referee, not here: a forced card is an ordinary action in the
history. ``legal_actions()`` (a new list of ``_legal``, no cache) and ``apply_action()``
skip the base class's indirections for legal ids (errors still go through it, with their
reasons); ``clone()`` copies attribute by attribute only what changes in place (history,
hands, the auction while it runs) and shares the rest. A state has 29 attributes, the
most CPython 3.11 keeps in its shared-key instance values, its faster attribute access.
The module is compiled with mypyc in wheel builds where a C compiler works (``setup.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import Any, Final

from arena.core.cards import STANDARD_TOKENS, card_index, parse_card, standard_deck
from arena.core.dealing import Dealer
from arena.core.errors import InvalidActionError
from arena.core.state import TERMINAL, Action, Game, State

from arena.games.bridge.actions import (AUCTION_LEGAL, FIRST_BID, PASS, REDOUBLE,
                                      call_illegal_reason, call_to_string, string_to_call, trick_winner)
from arena.games.bridge.cardmasks import SUIT_CARDS, deal_masks, mask_to_ids
from arena.games.bridge.observation import PHASES, BridgeObservation
from arena.games.bridge.scoring import (board_dealer, board_vulnerability, duplicate_score_parts,
                                        RubberScore, format_contract, honours_bonus)

__all__ = ["Phase", "BridgeState", "DealRecord"]

_COMPILED = not __file__.endswith(".py")
"""Whether this module runs compiled (mypyc; see ``setup.py``): then ``clone()`` copies
attribute by attribute (compiled instances have no ``__dict__`` to copy)."""


class Phase(IntEnum):
    """Phases of a deal. (The deal itself is the seeded shuffle, not a phase with actions.)"""

    AUCTION = 0
    PLAY = 1
    OVER = 2


_AUCTION: Final = 0
_PLAY: Final = 1
_OVER: Final = 2
_ACTION_TEXT: tuple[str, ...] = STANDARD_TOKENS + tuple(call_to_string(a) for a in range(52, 90))
_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
_SEAT_NAMES = "NESW"
_new_state = object.__new__
_SUIT_OF: Final = tuple(c // 13 for c in range(52))
_RANK_BIT: Final = tuple(1 << c % 13 for c in range(52))
_CARDS_OF: Final[tuple[tuple[int, ...], ...]] = tuple(t for cards in SUIT_CARDS for t in cards)
"""``_CARDS_OF[suit << 13 | m]``: the sorted card ids of ``suit`` whose ranks are the 13-bit
mask ``m`` (``SUIT_CARDS`` flattened; ``()`` for a void): one lookup from a hand's entry."""


def _trick_values() -> tuple[tuple[tuple[int, ...], ...], ...]:
    out = []
    for trump in range(-1, 4):
        out.append(tuple(tuple(14 + c % 13 if c // 13 == trump else 1 + c % 13 if c // 13 == lead else 0
                               for c in range(52)) for lead in range(4)))
    return tuple(out)


_TRICK_VALUE: Final = _trick_values()
"""``_TRICK_VALUE[trump + 1][suit led][card]``: the card's strength in the trick (0 when it
can never win it, higher wins; ``trump`` -1 in notrump)."""


class DealRecord(dict[str, Any]):
    """A finished deal (kept for score sheets and PBN export).

    Keys: ``deal`` (1-based number in the match), ``rubber`` (1-based; 0 in duplicate),
    ``board``, ``deck_index`` (index into ``dealer.realized``), ``dealer``,
    ``vulnerable`` (NS, EW), ``calls`` (call ids), ``plays`` (card ids in play order),
    ``level``, ``strain``, ``doubled``, ``declarer`` (-1 passed out), ``tricks``
    (declaring side's, -1 passed out), ``contract`` (text, ``Pass``), ``ns_score``
    (duplicate: the board score from N-S; rubber: N-S points minus E-W points of the
    deal), and in rubber ``ns_below``, ``ns_above``, ``ew_below``, ``ew_above``
    (points written by this deal), ``games`` (after it) and ``note``.
    """


class BridgeState(State):
    """One bridge match; see :mod:`arena.games.bridge`."""

    game: Game
    # The base class's attributes, declared again so that a compiled module keeps them
    # in native slots (no effect on the pure-Python class).
    dealer: Dealer
    history: list[Action]
    _legal_cache: list[Action] | None
    _init_kwargs: dict[str, Any]

    def __init__(self, game: Game, dealer: Dealer, board: int | None = None, *,
                 _copy_of: BridgeState | None = None) -> None:
        if _copy_of is not None:  # clone() when compiled (see there)
            self._copy_state(_copy_of)
            return
        rubber = game.options["scoring"] == "rubber"
        if rubber and board is not None:
            raise ValueError("board= applies to duplicate scoring only; a rubber starts with N dealing")
        if board is not None and (type(board) is not int or board < 1):
            raise ValueError(f"board must be an integer >= 1, got {board!r}")
        super().__init__(game, dealer, None if rubber else {"board": 1 if board is None else board})
        self._rubber = rubber
        self._board = 0 if rubber else (1 if board is None else board)
        self._limits = (bool(game.options["honours"]) and rubber, int(game.options["deal_cap"]),
                        int(game.options["rubbers"]))
        """(honours scored, the deal cap, rubbers to play)."""
        self._records: list[DealRecord] = []
        # Rubber bookkeeping (per side: 0 = N-S, 1 = E-W).
        self._rs = RubberScore()
        self._totals = [0, 0]
        self._rubber_no = 0
        self._ns_result = 0
        if rubber:
            self._dealer_seat = 0
            self._vul = (False, False)
        else:
            self._dealer_seat = board_dealer(self._board)
            self._vul = board_vulnerability(self._board)
        self._start_deal()

    # -- deal setup ---------------------------------------------------------------
    def _start_deal(self) -> None:
        deck = self.dealer.shuffle(standard_deck())
        hands = deal_masks(deck, self._dealer_seat)
        self._dealt = (len(self.dealer.realized) - 1, deck, tuple(hands))
        """(index of the deck in ``dealer.realized``, the deck, the dealt hands' masks)."""
        self._hands = [m >> (13 * suit) & 0x1FFF | suit << 13 for m in hands for suit in range(4)]
        """The hands as 16 keyed rank masks, ``[seat * 4 + suit]``: ``suit << 13`` or'd with the
        suit's 13-bit rank mask, so that an entry indexes :data:`_CARDS_OF` (small ints)."""
        self._phase = _AUCTION
        self._calls: list[int] = []
        self._auction = (-1, -1, 0, 0)
        """(last bid, its bidder, doubled 0/1/2, passes in a row), replaced per call."""
        self._namer = [-1] * 10
        self._trump = -1
        self._declarer = -1
        self._dummy = -1
        self._hand = self._dealer_seat
        """The seat to call in the auction, the hand to play in the play (dummy's when the
        declarer plays it), -1 once the match is over."""
        self._play0 = -1
        """Index in ``history`` of this deal's first card (-1 in the auction): the cards
        played are ``history[_play0:]``, so clones copy no list of their own for them."""
        self._leaders: tuple[int, ...] = ()
        """Leader of each trick (a tuple, replaced per trick: clones share it); the last
        is the current trick's; at the end of the deal the last trick's winner is added,
        so the winners of the tricks are ``_leaders[1:]``."""
        self._led = -1
        """The suit led to the current trick (set by its first card; stale between tricks)."""
        self._legal: tuple[int, ...] = AUCTION_LEGAL[0]
        """The legal ids now, sorted (a shared tuple: the auction table's row, the suit's
        cards held): kept up to date by every action, so listing them is one copy."""

    # -- protocol ---------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        """The phase of the current deal."""
        return Phase(self._phase)

    def current_player(self) -> int:
        h = self._hand
        if h < 0:
            return TERMINAL
        return self._declarer if h == self._dummy else h

    def is_terminal(self) -> bool:
        return self._phase == _OVER

    def returns(self) -> list[float]:
        ns = float(self._ns_result)
        return [ns, -ns, ns, -ns]

    def legal_actions(self) -> list[Action]:
        """Legal action ids (the base class's contract, without its indirections): a new
        list of :attr:`_legal` at every call (no cache to keep or to clear)."""
        return [*self._legal]

    def apply_action(self, action: Action) -> None:
        """Apply a legal id directly (a card inline, the hot path of every playout); anything
        else goes to the base class's ``apply_action``, whose ``validate`` raises with the
        reason (every legal id takes a path here)."""
        if type(action) is int and action in self._legal:
            history = self.history
            if self._phase == _AUCTION:
                self._apply_auction(action)
                history.append(action)
                return
            history.append(action)
            hands = self._hands
            hand = self._hand
            suit = _SUIT_OF[action]
            hands[hand * 4 + suit] ^= _RANK_BIT[action]
            played = len(history) - self._play0
            n = played & 3
            if n == 0:
                # Trick complete. Winner: highest trump, else highest card of the suit led.
                c0: int
                c1: int
                c2: int
                c3: int
                c0, c1, c2, c3 = history[-4:]  # type: ignore[assignment]  # card ids
                value = _TRICK_VALUE[self._trump + 1][self._led]
                b = value[c0]
                bi = 0
                v = value[c1]
                if v > b:
                    b = v
                    bi = 1
                v = value[c2]
                if v > b:
                    b = v
                    bi = 2
                if value[c3] > b:
                    bi = 3
                leaders = self._leaders
                hand = (leaders[-1] + bi) & 3
                self._leaders = leaders + (hand,)
                if played == 52:
                    self._end_deal(passed_out=False)
                    return
                h4 = hand * 4
                cards = _CARDS_OF
                self._legal = cards[hands[h4]] + cards[hands[h4 + 1]] + cards[hands[h4 + 2]] + cards[hands[h4 + 3]]
            else:
                if n == 1:
                    self._led = suit
                else:
                    suit = self._led
                hand = (hand + 1) & 3
                h4 = hand * 4
                cards = _CARDS_OF
                legal = cards[hands[h4 + suit]]
                if not legal:  # void: any card
                    legal = cards[hands[h4]] + cards[hands[h4 + 1]] + cards[hands[h4 + 2]] + cards[hands[h4 + 3]]
                self._legal = legal
            self._hand = hand
            return
        super().apply_action(action)  # the errors, with their reasons

    def _legal_actions(self) -> list[Action]:
        return list(self._legal)

    def _auction_key(self) -> int:
        lb, bidder, d, _passes = self._auction
        if lb < 0:
            return 0
        opp = (bidder ^ self._hand) & 1
        return (lb - REDOUBLE) * 3 + (1 if (d == 0 and opp) else 2 if (d == 1 and not opp) else 0)

    def validate(self, action: Action) -> None:
        """Cheap check for legal integer ids; the base class explains anything else."""
        if type(action) is int and action in self._legal:
            return
        super().validate(action)

    def illegal_reason(self, action: Action) -> str:
        a = int(action)  # type: ignore[call-overload]  # bridge actions are ids
        if self._phase == _AUCTION:
            if a < PASS:
                return f"{_ACTION_TEXT[a]} is a card, but the auction is in progress: make a call"
            lb, bidder, doubled, _passes = self._auction
            reason = call_illegal_reason(a, self._hand, lb, bidder, doubled)
            return reason or f"{call_to_string(a)} is not legal now"
        if self._phase == _PLAY:
            if a >= PASS:
                return f"{call_to_string(a)} is a call, but the auction is over: play a card"
            whose = "dummy's hand" if self._hand == self._dummy else "your hand"
            tok = _ACTION_TEXT[a]
            if not self.hand_mask(self._hand) >> a & 1:
                return f"{tok} is not in {whose}"
            plays = self._plays_now()
            led = plays[len(plays) & ~3] // 13
            return (f"{tok} does not follow suit: {_SUIT_NAMES[led]} were led and "
                    f"{whose} holds {_SUIT_NAMES[led]}")
        return "the match is over"

    def _apply_action(self, action: Action) -> None:
        """Never called: :meth:`apply_action` applies every legal id itself and hands only
        the refused ones to the base class, whose ``validate`` raises first."""
        raise AssertionError(f"BridgeState._apply_action({action!r}): legal ids never get here")

    # -- auction ------------------------------------------------------------------
    def _apply_auction(self, a: int) -> None:
        seat = self._hand
        self._calls.append(a)
        last_bid, bidder, doubled, passes = self._auction
        if a == PASS:
            passes += 1
            self._auction = (last_bid, bidder, doubled, passes)
            if passes >= 3:
                if last_bid >= 0:
                    self._end_auction()
                    return
                if passes == 4:
                    self._end_deal(passed_out=True)
                    return
        elif a >= FIRST_BID:
            self._auction = (a, seat, 0, 0)
            k = (seat & 1) * 5 + (a - FIRST_BID) % 5
            if self._namer[k] < 0:
                self._namer[k] = seat
            self._hand = (seat + 1) & 3
            self._legal = AUCTION_LEGAL[(a - REDOUBLE) * 3 + 1]  # the next seat may double
            return
        else:
            doubled = a - PASS  # DOUBLE -> 1, REDOUBLE -> 2
            self._auction = (last_bid, bidder, doubled, 0)
        seat = self._hand = (seat + 1) & 3
        if last_bid < 0:  # _auction_key(), inline
            self._legal = AUCTION_LEGAL[0]
            return
        opp = (bidder ^ seat) & 1
        self._legal = AUCTION_LEGAL[(last_bid - REDOUBLE) * 3
                                    + (1 if (doubled == 0 and opp) else 2 if (doubled == 1 and not opp) else 0)]

    def _end_auction(self) -> None:
        bid, bidder, _doubled, _passes = self._auction
        strain = (bid - FIRST_BID) % 5
        self._trump = strain if strain < 4 else -1
        declarer = self._declarer = self._namer[(bidder & 1) * 5 + strain]
        self._dummy = declarer ^ 2
        self._phase = _PLAY
        self._play0 = len(self.history) + 1  # this last pass is appended after this
        leader = self._hand = (declarer + 1) & 3  # the opening leader is a defender (never dummy)
        self._leaders = self._leaders + (leader,)
        h = self._hands
        h4 = leader * 4
        self._legal = _CARDS_OF[h[h4]] + _CARDS_OF[h[h4 + 1]] + _CARDS_OF[h[h4 + 2]] + _CARDS_OF[h[h4 + 3]]

    def _level_strain(self) -> tuple[int, int]:
        """Level and strain of the contract; (0, -1) until the auction ends with one."""
        if self._declarer < 0:
            return 0, -1
        bid = self._auction[0]
        return (bid - FIRST_BID) // 5 + 1, (bid - FIRST_BID) % 5

    def _tricks_won(self) -> tuple[int, int]:
        """Tricks won (N-S, E-W) in this deal so far: the winners are ``_leaders[1:]``."""
        leaders = self._leaders
        ns = 0
        for w in leaders[1:]:
            if not w & 1:
                ns += 1
        return ns, max(len(leaders) - 1, 0) - ns

    # -- play ---------------------------------------------------------------------
    # (inline in apply_action)

    def _plays_now(self) -> list[int]:
        """The cards played in the current deal, in order (a new list)."""
        p0 = self._play0
        return self.history[p0:] if p0 >= 0 else []  # type: ignore[return-value]  # card ids

    # -- end of a deal -----------------------------------------------------------------
    def _end_deal(self, *, passed_out: bool) -> None:
        declarer = self._declarer
        tricks = -1 if passed_out else self._tricks_won()[declarer & 1]
        level, strain = self._level_strain()
        doubled = self._auction[2]
        rec = DealRecord(
            deal=len(self._records) + 1, rubber=self._rubber_no + 1 if self._rubber else 0,
            board=self._board, deck_index=self._dealt[0], dealer=self._dealer_seat,
            vulnerable=self._vul, calls=tuple(self._calls), plays=tuple(self._plays_now()),
            level=level, strain=strain, doubled=doubled if not passed_out else 0,
            declarer=declarer, tricks=tricks,
            contract=format_contract(level, strain, doubled if not passed_out else 0))
        self._records = self._records + [rec]  # replaced, not appended: clones share the list
        if not self._rubber:
            score = 0
            if not passed_out:
                score = duplicate_score_parts(level, strain, doubled, self._vul[declarer & 1], tricks)
                if declarer & 1:
                    score = -score
            rec["ns_score"] = score
            self._ns_result = score
            self._finish()
            return
        self._score_rubber_deal(rec, passed_out)

    def _finish(self) -> None:
        self._phase = _OVER
        self._hand = -1
        self._legal = ()

    def _score_rubber_deal(self, rec: DealRecord, passed_out: bool) -> None:
        rs = self._rs
        if passed_out:
            row = rs.record_passed_out()
        else:
            honours = [0, 0]
            notes = []
            if self._limits[0]:
                strain = self._level_strain()[1]
                for seat in range(4):
                    h = honours_bonus(self._dealt[2][seat], strain)
                    if h:
                        honours[seat & 1] += h
                        notes.append(f"honours {h} {_SEAT_NAMES[seat]}")
            row = rs.record_deal(self._declarer & 1, rec["contract"], rec["tricks"],
                                 (honours[0], honours[1]))
            if notes:
                row["note"] = "; ".join(filter(None, notes + [row["note"]]))
        below, above, note = row["below"], row["above"], row["note"]
        deal_cap = self._limits[1]
        if not rs.over and rs.deals >= deal_cap:
            extra = rs.finish_incomplete()
            above = [above[0] + extra["above"][0], above[1] + extra["above"][1]]
            note = "; ".join(filter(None, [note, f"deal cap {deal_cap} reached", extra["note"]]))
        rec.update(ns_below=below[0], ns_above=above[0], ew_below=below[1], ew_above=above[1],
                   games=tuple(rs.games), note=note,
                   ns_score=below[0] + above[0] - below[1] - above[1])
        self._ns_result += rec["ns_score"]
        if rs.over:
            self._rubber_no += 1
            t0, t1 = rs.totals()
            self._totals[0] += t0
            self._totals[1] += t1
            if self._rubber_no >= self._limits[2]:
                self._finish()
                return
            rs = self._rs = RubberScore()
        self._vul = (rs.games[0] >= 1, rs.games[1] >= 1)
        self._dealer_seat = (self._dealer_seat + 1) & 3
        self._start_deal()

    # -- text -------------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        if type(action) is not int or not 0 <= action < 90:
            raise InvalidActionError(f"action must be an integer id 0..89, got {action!r}")
        return _ACTION_TEXT[action]

    def string_to_action(self, text: str) -> Action:
        """Parse a card (play phase) or a call (auction).

        ``2C`` .. ``7S`` are both cards and bids; the phase decides. At the end of a
        match a bid reading is tried first.
        """
        if not isinstance(text, str):
            raise InvalidActionError(f"action text must be a string, got {type(text).__name__}")
        if self._phase == _PLAY:
            return card_index(parse_card(text))
        try:
            return string_to_call(text)
        except InvalidActionError:
            if self._phase == _AUCTION:
                raise
            return card_index(parse_card(text))

    def history_strings(self) -> list[str]:
        """Canonical texts of every action (ids map to text without replay)."""
        return [_ACTION_TEXT[a] for a in self.history]  # type: ignore[call-overload]  # ids

    # -- information ----------------------------------------------------------------------
    def observation(self, seat: int) -> BridgeObservation:
        """The observation of ``seat`` (0..3): :class:`~.observation.BridgeObservation`."""
        if not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, got {seat}")
        s = self
        phase = s._phase
        exposed = s.dummy_exposed()
        plays = s._plays_now()
        leaders = s._leaders
        tricks = []
        n_full = len(plays) // 4
        for t in range(n_full):
            leader = leaders[t]
            cards = tuple(STANDARD_TOKENS[c] for c in plays[4 * t: 4 * t + 4])
            winner = leaders[t + 1] if t + 1 < len(leaders) else \
                trick_winner(s._trump, plays[4 * t: 4 * t + 4], leader)
            tricks.append((leader, cards, winner))
        in_play = phase == 1
        cur = plays[4 * n_full:]
        rs = s._rs
        if phase == 2:
            ns = s._ns_result
            score = (s._totals[0], s._totals[1]) if s._rubber else ((ns, 0) if ns > 0 else (0, -ns))
        else:
            t0, t1 = rs.totals()
            score = (s._totals[0] + t0, s._totals[1] + t1)
        return BridgeObservation(
            seat=seat,
            phase=PHASES[phase],
            scoring="rubber" if s._rubber else "duplicate",
            board=s._board,
            deal=len(s._records) + (0 if phase == 2 else 1),
            dealer=s._dealer_seat,
            vulnerable=s._vul,
            hand=tuple(STANDARD_TOKENS[c] for c in mask_to_ids(s.hand_mask(seat))),
            auction=tuple(call_to_string(c) for c in s._calls),
            contract=s.contract,
            declarer=s._declarer,
            dummy=s._dummy,
            dummy_hand=tuple(STANDARD_TOKENS[c] for c in mask_to_ids(s.hand_mask(s._dummy))) if exposed else (),
            to_act=s.current_player(),
            playing_hand=s._hand if in_play else -1,
            trick_leader=leaders[-1] if in_play else -1,
            current_trick=tuple(STANDARD_TOKENS[c] for c in cur) if in_play else (),
            tricks=tuple(tricks),
            tricks_won=s._tricks_won(),
            games=(rs.games[0], rs.games[1]),
            part_scores=(rs.parts[0], rs.parts[1]),
            score=score,
        )

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        locs: dict[str, Iterable[str]] = {
            _SEAT_NAMES[s]: [STANDARD_TOKENS[i] for i in mask_to_ids(self.hand_mask(s))]
            for s in range(4)}
        locs["played"] = [STANDARD_TOKENS[i] for i in self._plays_now()]
        return locs

    def dummy_exposed(self) -> bool:
        """Whether dummy's cards are public (from the opening lead to the end of the deal)."""
        return self._dummy >= 0 and 0 <= self._play0 < len(self.history)

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        k, deck, _initial = self._dealt
        first = self._dealer_seat + 1
        exposed_dummy = self._dummy if self.dummy_exposed() else -1
        hands = [self.hand_mask(s) for s in range(4)]
        out = []
        for p, tok in enumerate(deck):
            owner = (first + p) & 3
            if owner == seat or owner == exposed_dummy:
                continue
            if hands[owner] >> card_index(tok) & 1:
                out.append((k, p))
        return out

    # -- copies ---------------------------------------------------------------------------
    def clone(self) -> BridgeState:
        """An independent copy (:meth:`_copy_state`).

        Shared, not copied: what is never mutated in place (the deal, the masks of the
        dealt hands, trick leaders, the auction's state and deal records, which are
        replaced when they change), the auction lists once the auction is over, and in
        duplicate scoring the dealer (a board has one shuffle, drawn at the start).
        """
        if _COMPILED:
            return BridgeState(self.game, self.dealer, _copy_of=self)
        other = _new_state(BridgeState)
        other._copy_state(self)
        return other

    def _copy_state(self, src: BridgeState) -> None:
        """Make this state a copy of ``src``, attribute by attribute, in the order
        ``__init__`` sets them. Pure Python too, not a ``__dict__`` copy: on CPython 3.11
        a state of at most 29 attributes keeps them in its shared-key instance values
        (faster attribute access) as long as nobody touches its ``__dict__``, which a
        ``__dict__`` copy would do to the original and give the copy a slower dict
        (``tests/games/bridge/test_bridge_play.py`` checks the count); compiled, the
        instances keep them in native slots."""
        self.game = src.game
        self.dealer = src.dealer
        self.history = list(src.history)
        self._init_kwargs = src._init_kwargs
        self._legal_cache = None
        rubber = self._rubber = src._rubber
        self._board = src._board
        self._limits = src._limits
        self._records = src._records
        if rubber:
            dealer = Dealer.__new__(Dealer)
            dealer.seed = src.dealer.seed
            dealer.stacked = src.dealer.stacked
            dealer.realized = list(src.dealer.realized)
            self.dealer = dealer
            self._rs = src._rs.copy()
            self._totals = list(src._totals)
        else:
            self._rs = src._rs
            self._totals = src._totals
        self._rubber_no = src._rubber_no
        self._ns_result = src._ns_result
        self._dealer_seat = src._dealer_seat
        self._vul = src._vul
        self._dealt = src._dealt
        self._hands = list(src._hands)
        phase = self._phase = src._phase
        if phase == _AUCTION:
            self._calls = list(src._calls)
            self._auction = src._auction
            self._namer = list(src._namer)
        else:
            self._calls = src._calls
            self._auction = src._auction
            self._namer = src._namer
        self._trump = src._trump
        self._declarer = src._declarer
        self._dummy = src._dummy
        self._hand = src._hand
        self._play0 = src._play0
        self._leaders = src._leaders
        self._led = src._led
        self._legal = src._legal

    # -- read-only views for observation, records and describe ------------------------------
    @property
    def board(self) -> int:
        """Duplicate board number (0 in rubber)."""
        return self._board

    @property
    def deal_dealer(self) -> int:
        """Dealer of the current deal."""
        return self._dealer_seat

    @property
    def vulnerable(self) -> tuple[bool, bool]:
        """(N-S, E-W) vulnerability of the current deal."""
        return self._vul

    @property
    def calls(self) -> list[int]:
        """Call ids of the current deal's auction, first by the dealer."""
        return list(self._calls)

    @property
    def plays(self) -> list[int]:
        """Card ids played in the current deal, in order (forced cards included)."""
        return self._plays_now()

    @property
    def declarer(self) -> int:
        """Declarer seat of the current deal, -1 before the end of the auction."""
        return self._declarer

    @property
    def dummy(self) -> int:
        """Dummy seat of the current deal, -1 before the end of the auction."""
        return self._dummy

    @property
    def contract(self) -> str:
        """Contract text of the current deal ('' during the auction, 'Pass' if passed out)."""
        if self._declarer >= 0:
            level, strain = self._level_strain()
            return format_contract(level, strain, self._auction[2])
        if self._phase == _OVER or (len(self._calls) == 4 and self._auction[0] < 0):
            return "Pass"
        return ""

    @property
    def records(self) -> list[DealRecord]:
        """Finished deals of the match, in order."""
        return list(self._records)

    def hand_mask(self, seat: int) -> int:
        """Remaining cards of ``seat`` as a mask (engine-internal; not for bots)."""
        h = self._hands
        s4 = seat * 4
        return (h[s4] & 0x1FFF | (h[s4 + 1] & 0x1FFF) << 13 | (h[s4 + 2] & 0x1FFF) << 26
                | (h[s4 + 3] & 0x1FFF) << 39)

    def initial_hands(self) -> tuple[int, ...]:
        """The current deal's four dealt hands as masks (engine-internal; not for bots)."""
        return self._dealt[2]
