"""A Blue Chip client's view of the board, as an arena observation.

:class:`SeatView` is built from what the Table Manager sends one seat (board line,
own cards, calls, cards, dummy's cards) and produces the
:class:`~arena.games.bridge.BridgeObservation` and legal action ids that the
engine would give that seat, so an arena bot behind the client adapter decides
exactly as it would natively.

>>> v = SeatView(0, 1, 0, (False, False), ["AS", "KS", "2C"])
>>> v.to_act, v.legal()[:3]
(0, [52, 55, 56])
>>> v.add_call("1N"); v.add_call("P"); v.add_call("P"); v.add_call("P")
>>> v.phase, v.declarer, v.dummy, v.to_act, v.observation().contract
('play', 0, 2, 1, '1NT')
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.core.cards import STANDARD_TOKENS, card_index, parse_card
from arena.core.state import TERMINAL
from arena.games.bridge.actions import (AUCTION_LEGAL, FIRST_BID, PASS, auction_legal_key, call_to_string,
                                      string_to_call, trick_winner)
from arena.games.bridge.observation import BridgeObservation
from arena.games.bridge.scoring import duplicate_score, format_contract

__all__ = ["SeatView"]


def _cid(token: str) -> int:
    return card_index(parse_card(token))


class SeatView:
    """One seat's knowledge of a duplicate board (cards as ids internally)."""

    def __init__(self, seat: int, board: int, dealer: int, vulnerable: tuple[bool, bool],
                 hand: Iterable[str]) -> None:
        self.seat = seat
        self.board = board
        self.dealer = dealer
        self.vulnerable = vulnerable
        self.hand = {_cid(c) for c in hand}
        self.calls: list[int] = []
        self.phase = "auction"
        self._last_bid = -1
        self._last_bidder = -1
        self._doubled = 0
        self._passes = 0
        self._namer = [-1] * 10
        self.declarer = -1
        self.dummy = -1
        self.level = 0
        self.strain = -1
        self.dummy_cards: set[int] = set()
        self._dummy_known = False
        self.plays: list[int] = []
        self.leaders: list[int] = []
        self.won = [0, 0]
        self.to_act = dealer
        self.player = -1

    # -- auction -------------------------------------------------------------------------
    def add_call(self, token: str) -> None:
        """Apply the next call (token ``P``, ``X``, ``XX``, ``1C`` .. ``7N``)."""
        a = string_to_call(token)
        seat = self.to_act
        self.calls.append(a)
        if a == PASS:
            self._passes += 1
            if self._passes >= 3 and self._last_bid >= 0:
                self._end_auction()
                return
            if self._passes == 4:
                self.phase = "over"
                self.to_act = TERMINAL
                return
        elif a >= FIRST_BID:
            self._last_bid, self._last_bidder, self._doubled, self._passes = a, seat, 0, 0
            k = (seat & 1) * 5 + (a - FIRST_BID) % 5
            if self._namer[k] < 0:
                self._namer[k] = seat
        else:
            self._doubled = a - PASS
            self._passes = 0
        self.to_act = (seat + 1) % 4

    def _end_auction(self) -> None:
        bid = self._last_bid
        self.level = (bid - FIRST_BID) // 5 + 1
        self.strain = (bid - FIRST_BID) % 5
        self.declarer = self._namer[(self._last_bidder & 1) * 5 + self.strain]
        self.dummy = self.declarer ^ 2
        self.phase = "play"
        self.player = self.to_act = (self.declarer + 1) % 4
        self.leaders.append(self.player)
        if self.seat == self.dummy:
            self.dummy_cards = self.hand

    # -- play -------------------------------------------------------------------------------
    def set_dummy(self, cards: Iterable[str]) -> None:
        """Dummy's hand as faced after the opening lead (less any card already seen)."""
        if self.seat != self.dummy:
            played = set(self.plays)
            self.dummy_cards = {_cid(c) for c in cards} - played
        self._dummy_known = True

    @property
    def trick(self) -> int:
        """1-based number of the trick in progress."""
        return len(self.plays) // 4 + 1

    @property
    def index(self) -> int:
        """Position 0..3 of the next card in its trick."""
        return len(self.plays) % 4

    def add_card(self, player: int, token: str) -> None:
        """Apply the next card, played from ``player``'s hand."""
        c = _cid(token)
        if player == self.seat:
            self.hand.discard(c)
        if player == self.dummy:
            self.dummy_cards.discard(c)
        self.plays.append(c)
        if len(self.plays) % 4 == 0:
            winner = trick_winner(self.strain, self.plays[-4:], self.leaders[-1])
            self.won[winner & 1] += 1
            if len(self.plays) == 52:
                self.phase = "over"
                self.player = -1
                self.to_act = TERMINAL
                return
            self.leaders.append(winner)
            self.player = winner
        else:
            self.player = (self.player + 1) % 4
        self.to_act = self.declarer if self.player == self.dummy else self.player

    # -- what the engine would say ------------------------------------------------------------
    def legal(self) -> list[int]:
        """Legal action ids of the seat to act, sorted (the engine's order)."""
        if self.phase == "auction":
            lb = self._last_bid
            if lb < 0:
                return list(AUCTION_LEGAL[0])
            opp = bool((self._last_bidder ^ self.to_act) & 1)
            return list(AUCTION_LEGAL[auction_legal_key(lb, self._doubled == 0 and opp,
                                                        self._doubled == 1 and not opp)])
        if self.phase != "play":
            return []
        hand = self.hand if self.player == self.seat else self.dummy_cards
        if self.index:
            suit = self.plays[-self.index] // 13
            follow = sorted(c for c in hand if c // 13 == suit)
            if follow:
                return follow
        return sorted(hand)

    @property
    def contract(self) -> str:
        if self.declarer >= 0:
            return format_contract(self.level, self.strain, self._doubled)
        return "Pass" if self.phase == "over" else ""

    def ns_score(self) -> int:
        """The board's N-S score once it is over (0 when passed out)."""
        if self.declarer < 0:
            return 0
        side = self.declarer & 1
        score = duplicate_score(self.contract, self.vulnerable[side], self.won[side])
        return score if side == 0 else -score

    def observation(self) -> BridgeObservation:
        """The observation the engine gives this seat now."""
        tokens = STANDARD_TOKENS
        in_play = self.phase == "play"
        n_full = len(self.plays) // 4
        tricks = []
        for t in range(n_full):
            leader = self.leaders[t]
            cards = tuple(tokens[c] for c in self.plays[4 * t: 4 * t + 4])
            winner = self.leaders[t + 1] if t + 1 < len(self.leaders) else self._last_winner()
            tricks.append((leader, cards, winner))
        exposed = self.dummy >= 0 and len(self.plays) > 0
        score = (0, 0)
        if self.phase == "over":
            ns = self.ns_score()
            score = (ns, 0) if ns > 0 else (0, -ns)
        return BridgeObservation(
            seat=self.seat, phase=self.phase, scoring="duplicate", board=self.board, deal=1,
            dealer=self.dealer, vulnerable=self.vulnerable,
            hand=tuple(tokens[c] for c in sorted(self.hand)),
            auction=tuple(call_to_string(c) for c in self.calls), contract=self.contract,
            declarer=self.declarer, dummy=self.dummy,
            dummy_hand=tuple(tokens[c] for c in sorted(self.dummy_cards)) if exposed else (),
            to_act=self.to_act, playing_hand=self.player if in_play else -1,
            trick_leader=self.leaders[-1] if in_play else -1,
            current_trick=tuple(tokens[c] for c in self.plays[4 * n_full:]) if in_play else (),
            tricks=tuple(tricks), tricks_won=(self.won[0], self.won[1]), games=(0, 0),
            part_scores=(0, 0), score=score)

    def _last_winner(self) -> int:
        return trick_winner(self.strain, self.plays[48:52], self.leaders[12])
