"""The Aukció state, :class:`AuctionState`, and its :class:`Phase`.

See the package docstring (:mod:`arena.games.auction`) for the rules summary, the
action forms, the observation layout, the shuffle layout and the rule decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from arena.core.dealing import Dealer
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL, Action, Game, State

from arena.games.auction.actions import PASS, Bid, Pay, action_sort_key, parse_action
from arena.games.auction.observation import AuctionObservation
from arena.games.auction.rules import (
    HAND_SIZE,
    UNIT,
    MatchRules,
    canonical_money_order,
    fallback_payment,
    completed_combination,
    minimal_payments,
    payment_problem,
    purchasing_power,
    sort_money,
)

__all__ = ["AuctionState", "Phase"]

MAX_LISTED_PAYMENTS = 256
"""At most this many payments are listed by ``legal_actions()`` (any legal one is accepted)."""

_BIDS = [Bid(k * UNIT) for k in range(460)]  # every possible bid: 2 packs hold 442000 at most

Origin = tuple[int, int]
"""A realized deck position ``(shuffle index, position)``."""


class Phase(Enum):
    """Who is asked for what."""

    BID = "bid"
    """A player is asked for ``PASS`` or ``BID``."""
    PAY = "pay"
    """The buyer is asked for ``PAY``."""
    OVER = "over"
    """The match is over."""


class AuctionState(State):
    """One position of an Aukció match."""

    game: Game

    def __init__(self, game: Game, dealer: Dealer, *, rules: MatchRules) -> None:
        """A new match of ``game`` under ``rules`` (:class:`AuctionGame` passes its own)."""
        super().__init__(game, dealer)
        self.rules = rules
        self.n = rules.players
        # Every game's picture and money stocks are shuffled up front (shuffles 2g, 2g+1),
        # so that game g's deal does not depend on reshuffles in earlier games.
        self.game_decks: list[tuple[list[str], list[str]]] = []
        for _ in range(rules.games):
            pictures = dealer.shuffle(rules.picture_canon)
            money = dealer.shuffle(rules.money_canon)
            self.game_decks.append((pictures, money))
        self.points = [0] * self.n
        self.results: list[dict[str, Any]] = []
        self.phase = Phase.BID
        self._start_game(0)
        self._advance()

    # -- setup ------------------------------------------------------------
    def _start_game(self, g: int) -> None:
        n = self.n
        self.g = g
        self.dealer_seat = g % n
        pictures, money = self.game_decks[g]
        self.pic_k = 2 * g
        self.pictures = pictures
        self.turned = 0
        self.stock: list[tuple[str, Origin]] = [(t, (2 * g + 1, p)) for p, t in enumerate(money)]
        self.stock_pos = HAND_SIZE * n
        self.hands: list[list[tuple[str, Origin]]] = [[] for _ in range(n)]
        for j in range(HAND_SIZE * n):
            self.hands[(self.dealer_seat + 1 + j) % n].append(self.stock[j])
        self.powers = [purchasing_power(t for t, _ in h) for h in self.hands]
        """Purchasing power of every seat (kept current on every change of a hand)."""
        self.collections: list[list[str]] = [[] for _ in range(n)]
        self.dead: list[str] = []
        self.paid: list[str] = []
        self.reshuffles = 0
        self.round = 0
        self.turner = self.dealer_seat  # advanced to dealer + 1 by _next_round
        self.barred = -1
        self.picture = ""
        self.order: list[int] = []
        self.order_pos = 0
        self.bids: list[tuple[int, int]] = []
        self.high = 0
        self.high_bidder = -1
        self.log: list[str] = [f"game {g + 1}: dealer {self.dealer_seat} deals {HAND_SIZE} each"]
        self.phase = Phase.BID
        self._next_round()

    def _next_round(self) -> None:
        """Start the next round, or end the game if the picture stock is empty."""
        self.turner = (self.turner + 1) % self.n
        self.picture = ""
        self.order = []
        self.order_pos = 0
        self.bids = []
        self.high = 0
        self.high_bidder = -1
        if self.turned == len(self.pictures):
            self._end_game(-1, ())
            return
        self.round += 1
        self.picture = self.pictures[self.turned]
        self.turned += 1
        self.log.append(f"round {self.round}: {self.turner} turns {self.picture}")
        if self.picture[0] == "A":
            for k in range(1, self.n):
                self._draw((self.turner + k) % self.n)
        self.order = [(self.turner + k) % self.n for k in range(self.n)
                      if (self.turner + k) % self.n != self.barred]

    def _draw(self, seat: int) -> None:
        if self.stock_pos >= len(self.stock):
            if not self.paid:
                self.log.append(f"{seat} cannot draw: no money left")
                return
            k = len(self.dealer.realized)
            deck = self.dealer.shuffle(canonical_money_order(self.paid))
            self.stock = [(t, (k, p)) for p, t in enumerate(deck)]
            self.stock_pos = 0
            self.reshuffles += 1
            self.log.append(f"reshuffle: {len(self.paid)} paid cards form the stock")
            self.paid = []
        self.hands[seat].append(self.stock[self.stock_pos])
        self.powers[seat] = purchasing_power(t for t, _ in self.hands[seat])
        self.stock_pos += 1
        self.log.append(f"{seat} draws")

    def _end_game(self, winner: int, combo: tuple[str, ...]) -> None:
        pts = [0] * self.n
        if winner >= 0:
            pts[winner] = 1
            self.points[winner] += 1
            self.log.append(f"{winner} wins with {' '.join(combo)}")
        else:
            self.log.append("picture stock empty: drawn game")
        self.results.append({"game": self.g + 1, "dealer": self.dealer_seat, "rounds": self.round,
                             "winner": winner, "combination": combo, "points": pts})
        self.picture = ""
        self.order = []
        if self.g + 1 < self.rules.games:
            self._start_game(self.g + 1)
        else:
            self.phase = Phase.OVER

    def _advance(self) -> None:
        """Run automatic steps until a decision is needed or the match ends."""
        while self.phase is Phase.BID:
            # A seat without a legal bid is still the current player, with PASS as its
            # only legal action (see "Rule decisions" in the package docstring).
            if self.order_pos < len(self.order):
                return
            if self.high_bidder >= 0:
                self.phase = Phase.PAY
                return
            self.dead.append(self.picture)
            self.log.append(f"no bid: {self.picture} is dead")
            self.barred = -1
            self._next_round()

    # -- queries ------------------------------------------------------------
    def hand_tokens(self, seat: int) -> list[str]:
        """A seat's money cards (in the order received)."""
        return [t for t, _ in self.hands[seat]]

    def power(self, seat: int) -> int:
        """A seat's purchasing power."""
        return self.powers[seat]

    def current_player(self) -> int:
        if self.phase is Phase.BID:
            return self.order[self.order_pos]
        if self.phase is Phase.PAY:
            return self.high_bidder
        return TERMINAL

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> list[float]:
        """Match points: one per game won (cumulative before the end)."""
        return [float(p) for p in self.points]

    def _legal_actions(self) -> list[Action]:
        if self.phase is Phase.BID:
            top = self.powers[self.order[self.order_pos]] // UNIT
            bids: list[Action] = [PASS]
            if top > self.high // UNIT:
                bids.extend(_BIDS[self.high // UNIT + 1:top + 1])
            return bids
        hand = self.hand_tokens(self.high_bidder)
        pays = {Pay(p) for p in minimal_payments(hand, self.high, MAX_LISTED_PAYMENTS)}
        pays.add(Pay(fallback_payment(hand, self.high)))
        ordered = sorted(pays, key=action_sort_key)
        out: list[Action] = list(ordered)
        return out

    # -- validation -----------------------------------------------------------
    def validate(self, action: Action) -> None:
        reason = self._problem(action)
        if reason is not None:
            raise IllegalActionError(reason)

    def _problem(self, action: Action) -> str | None:
        """``None`` if legal; a reason if illegal; raises InvalidActionError if malformed."""
        if isinstance(action, Bid):
            a = action.amount
            if isinstance(a, bool) or not isinstance(a, int) or a < 0 or a % UNIT:
                raise InvalidActionError(f"bid amount must be a non-negative multiple of {UNIT}, got {a!r}")
            if self.phase is not Phase.BID:
                return "you won the auction: pay with PAY <cards>, not a bid"
            if a == 0:
                return None
            if a <= self.high:
                return f"bid {a} must exceed the high bid {self.high}"
            power = self.powers[self.order[self.order_pos]]
            if a > power:
                return f"bid {a} exceeds your purchasing power {power}"
            return None
        if isinstance(action, Pay):
            if self.phase is not Phase.PAY:
                return "it is time to bid (PASS or BID <points>), not to pay"
            hand = self.hand_tokens(self.high_bidder)
            left = list(hand)
            for t in action.cards:
                if t in left:
                    left.remove(t)
                else:
                    have = hand.count(t)
                    want = action.cards.count(t)
                    return (f"{t} is not in your hand" if not have else
                            f"you pay {want} x {t} but hold {have}")
            return payment_problem(action.cards, self.high)
        raise InvalidActionError(f"not an auction action: {action!r} (use Bid, Pay or string_to_action)")

    def illegal_reason(self, action: Action) -> str:
        try:
            return self._problem(action) or f"{self.action_to_string(action)} is legal"
        except InvalidActionError as exc:
            return exc.reason

    def default_action(self) -> Action:
        """``PASS`` when bidding; the fallback payment (section 6) when paying."""
        if self.phase is Phase.PAY:
            return Pay(fallback_payment(self.hand_tokens(self.high_bidder), self.high))
        return PASS

    # -- applying -----------------------------------------------------------
    def _apply_action(self, action: Action) -> None:
        if isinstance(action, Bid):
            self._apply_bid(action)
        else:
            assert isinstance(action, Pay)
            self._apply_pay(action)

    def _apply_bid(self, bid: Bid) -> None:
        seat = self.order[self.order_pos]
        self.bids.append((seat, bid.amount))
        if bid.amount:
            self.high = bid.amount
            self.high_bidder = seat
            self.log.append(f"{seat} bids {bid.amount}")
        else:
            self.log.append(f"{seat} passes")
        self.order_pos += 1
        self._advance()

    def _apply_pay(self, pay: Pay) -> None:
        buyer = self.high_bidder
        hand = self.hands[buyer]
        for t in pay.cards:
            for i, (tok, _) in enumerate(hand):
                if tok == t:
                    del hand[i]
                    break
        self.powers[buyer] = purchasing_power(t for t, _ in hand)
        self.paid.extend(pay.cards)
        self.collections[buyer].append(self.picture)
        self.log.append(f"{buyer} pays {' '.join(pay.cards)} for {self.picture} ({self.high})")
        combo = completed_combination(self.collections[buyer], self.picture)
        if combo is not None:
            self._end_game(buyer, combo)
        else:
            self._draw(buyer)
            self._draw(buyer)
            self.barred = buyer
            self.phase = Phase.BID
            self._next_round()
        self._advance()

    # -- text -----------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        if isinstance(action, (Bid, Pay)):
            return str(action)
        raise InvalidActionError(f"not an auction action: {action!r}")

    def string_to_action(self, text: str) -> Action:
        return parse_action(text)

    def history_strings(self) -> list[str]:
        """Canonical texts of every action so far (an action's text does not depend on the state)."""
        return [str(a) for a in self.history]

    # -- information ----------------------------------------------------------
    def observation(self, seat: int) -> AuctionObservation:
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is not a seat of this {self.n}-player game")
        hand = tuple(sort_money(t for t, _ in self.hands[seat]))
        return AuctionObservation(
            seat=seat,
            num_players=self.n,
            game_number=self.g + 1,
            games_in_match=self.rules.games,
            dealer=self.dealer_seat,
            phase=self.phase.value,
            to_act=self.current_player(),
            hand=hand,
            purchasing_power=purchasing_power(hand),
            hand_sizes=tuple(len(h) for h in self.hands),
            collections=tuple(tuple(c) for c in self.collections),
            dead_pile=tuple(self.dead),
            paid_pile=tuple(sort_money(self.paid)),
            picture_stock=len(self.pictures) - self.turned,
            money_stock=len(self.stock) - self.stock_pos,
            reshuffles=self.reshuffles,
            round=self.round,
            turner=self.turner,
            picture=self.picture,
            barred=self.barred,
            bidding_order=tuple(self.order),
            bids=tuple(self.bids),
            high_bid=self.high,
            high_bidder=self.high_bidder,
            min_bid=self.high + UNIT,
            match_points=tuple(self.points),
            game_winners=tuple(r["winner"] for r in self.results),
            log=tuple(self.log),
        )

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        locs: dict[str, Iterable[str]] = {
            "picture_stock": self.pictures[self.turned:],
            "money_stock": [t for t, _ in self.stock[self.stock_pos:]],
            "paid": list(self.paid),
            "dead": list(self.dead),
            "auctioned": [self.picture] if self.picture else [],
        }
        for s in range(self.n):
            locs[f"hand{s}"] = self.hand_tokens(s)
            locs[f"collection{s}"] = list(self.collections[s])
        return locs

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        """Undrawn pictures, undrawn money and other seats' money of the current game.

        Earlier and later games' decks are left out (their cards are not in play).
        """
        if self.phase is Phase.OVER:
            return []
        out = [(self.pic_k, p) for p in range(self.turned, len(self.pictures))]
        out.extend(o for _, o in self.stock[self.stock_pos:])
        for s in range(self.n):
            if s != seat:
                out.extend(o for _, o in self.hands[s])
        return out

    def clone(self) -> AuctionState:
        other = AuctionState.__new__(AuctionState)
        other.__dict__.update(self.__dict__)
        dealer = Dealer(self.dealer.seed)
        dealer.stacked = self.dealer.stacked  # read only
        dealer.realized = list(self.dealer.realized)  # decks themselves are never mutated
        other.dealer = dealer
        other.history = list(self.history)
        other._legal_cache = None
        other.points = list(self.points)
        other.results = list(self.results)
        other.hands = [list(h) for h in self.hands]
        other.powers = list(self.powers)
        other.collections = [list(c) for c in self.collections]
        other.dead = list(self.dead)
        other.paid = list(self.paid)
        other.order = list(self.order)
        other.bids = list(self.bids)
        other.log = list(self.log)
        # stock lists are replaced (never mutated) on reshuffle; sharing them is safe
        return other
