"""What one Aukció seat sees: :class:`AuctionObservation` (a value type; the state
builds it, ``AuctionState.observation``; every field in the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.state import Observation

__all__ = ["AuctionObservation"]


@dataclass(frozen=True, slots=True)
class AuctionObservation(Observation):
    """What one seat sees (see the package docstring for every field)."""

    seat: int
    num_players: int
    game_number: int
    games_in_match: int
    dealer: int
    phase: str
    to_act: int
    hand: tuple[str, ...]
    purchasing_power: int
    hand_sizes: tuple[int, ...]
    collections: tuple[tuple[str, ...], ...]
    dead_pile: tuple[str, ...]
    paid_pile: tuple[str, ...]
    picture_stock: int
    money_stock: int
    reshuffles: int
    round: int
    turner: int
    picture: str
    barred: int
    bidding_order: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    high_bid: int
    high_bidder: int
    min_bid: int
    match_points: tuple[int, ...]
    game_winners: tuple[int, ...]
    log: tuple[str, ...]
