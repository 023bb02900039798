"""Helpers for the bridge bot tests: constructed observations and uncontested auctions."""

from __future__ import annotations

from typing import Any

from arena.bots.bridge.bidding import choose_call
from arena.bots.bridge.hand import FIRST_BID, PASS, Auction, Hand, card_id
from arena.games.bridge.observation import BridgeObservation

CALLS = ["P", "X", "XX"] + [f"{lvl}{s}" for lvl in range(1, 8) for s in "CDHSN"]


def call_text(call: int) -> str:
    return CALLS[call - 52]


def legal_calls(auction: Auction, seat: int) -> list[int]:
    """Pass and every higher bid (doubles are not needed in these tests)."""
    _, last = auction.last_bid()
    return [PASS] + list(range(max(FIRST_BID, last + 1), 90))


def bid_uncontested(north: str, south: str, dealer: int = 0) -> list[str]:
    """Auction of N and S holding the given hands while E and W always pass."""
    hands = {0: Hand.parse(north), 2: Hand.parse(south)}
    tokens: list[str] = []
    while True:
        seat = (dealer + len(tokens)) & 3
        auction = Auction.from_tokens(dealer, tokens)
        if seat in hands:
            call = choose_call(hands[seat], auction, seat, legal_calls(auction, seat))
        else:
            call = PASS
        tokens.append(call_text(call))
        bid_made = any(t not in ("P", "X", "XX") for t in tokens)
        if (not bid_made and len(tokens) == 4) or (bid_made and tokens[-3:] == ["P", "P", "P"]):
            return tokens


def obs(**kw: Any) -> BridgeObservation:
    """A play-phase observation with sensible defaults; cards as space-separated text."""
    base: dict[str, Any] = dict(
        seat=0, phase="play", scoring="duplicate", board=1, deal=1, dealer=0,
        vulnerable=(False, False), hand=(), auction=(), contract="4S", declarer=2, dummy=0,
        dummy_hand=(), to_act=0, playing_hand=0, trick_leader=0, current_trick=(), tricks=(),
        tricks_won=(0, 0), games=(0, 0), part_scores=(0, 0), score=(0, 0))
    for key in ("hand", "dummy_hand", "current_trick", "auction"):
        if isinstance(kw.get(key), str):
            kw[key] = tuple(kw[key].split())
    base.update(kw)
    if "to_act" not in kw:
        base["to_act"] = base["declarer"] if base["playing_hand"] == base["dummy"] else base["playing_hand"]
    return BridgeObservation(**base)


def legal_cards(o: BridgeObservation) -> list[int]:
    """Legal cards of the hand to play in a constructed observation."""
    src = o.dummy_hand if o.playing_hand == o.dummy else o.hand
    ids = sorted(card_id(t) for t in src)
    if o.current_trick:
        led = card_id(o.current_trick[0]) // 13
        follow = [c for c in ids if c // 13 == led]
        if follow:
            return follow
    return ids


def cid(token: str) -> int:
    return card_id(token)
