"""Built-in Aukció bots: ``random`` and ``heuristic``.

``random``
    Uniform over the listed legal actions (bids: ``PASS`` or any amount up to the
    purchasing power; payments: every minimal payment up to suits).

``heuristic``
    Values the picture on offer by what it does to every collection, counting only
    combinations whose missing pictures can still come up (not bought, not dead):

    * it completes my combination: bid my whole purchasing power;
    * it completes an opponent's combination and that opponent can still buy it
      (not barred, not yet passed, or the high bidder): block with my whole power;
    * it brings me to one card from a combination: up to 90% of my power; to two
      cards: up to 60%; it brings an eligible opponent to one card: up to 50%;
    * otherwise up to 5000 (a purchase returns two money cards; money not spent on
      pictures is worth nothing at the end).

    The shares were tuned on 30-40 seat-rotated deals against ``random`` (3 and 5
    players); hoarding money loses to random bidders that buy freely.

    When nobody is left to bid after it, it bids just the minimum that wins. It pays
    with the legal payment that leaves the most purchasing power (then the cheapest).
    It uses only its observation and the legal actions.

Factories take ``seed=`` (and ignore other keywords); both bots are deterministic
given the seed (the heuristic does not draw at all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from arena.bots.base import Agent, RandomAgent
from arena.bots.search.flat import make_search_bot
from arena.core.state import Action
from arena.games.auction.actions import PASS, Bid, Pay
from arena.games.auction.rules import COMBINATIONS, UNIT, purchasing_power

__all__ = ["BOTS", "HeuristicAuctionAgent", "need"]

FAR = 9
"""``need`` of a collection that can no longer complete any combination."""


def need(collection: Iterable[str], unseen: Counter[str]) -> int:
    """Fewest further pictures that complete a combination for ``collection``.

    A combination counts only if each missing picture still has a copy in ``unseen``
    (the pictures not yet turned). 0 means the collection already holds one.
    """
    have = set(collection)
    best = FAR
    for combo in COMBINATIONS:
        missing = 0
        for t in combo:
            if t not in have:
                if unseen[t] <= 0:
                    missing = FAR
                    break
                missing += 1
        if missing < best:
            best = missing
            if best == 0:
                break
    return best


class HeuristicAuctionAgent(Agent):
    """See the module docstring."""

    name = "heuristic"

    def __init__(self, seed: int | str = 0, *, win_share: float = 0.9, step_share: float = 0.6,
                 block_share: float = 0.5, cheap: int = 5000) -> None:
        self.seed = seed
        self.win_share = win_share
        self.step_share = step_share
        self.block_share = block_share
        self.cheap = cheap

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        if obs.phase == "pay":
            return self._pay(obs, legal_actions)
        return self._bid(obs, legal_actions)

    # -- payment -------------------------------------------------------------
    @staticmethod
    def _pay(obs: Any, legal: Sequence[Action]) -> Action:
        hand = list(obs.hand)
        best: tuple[int, int, int] | None = None
        choice: Action = legal[0]
        for a in legal:
            if not isinstance(a, Pay):
                continue
            rest = list(hand)
            for t in a.cards:
                rest.remove(t)
            key = (-purchasing_power(rest), purchasing_power(a.cards), len(a.cards))
            if best is None or key < best:
                best, choice = key, a
        return choice

    # -- bidding -------------------------------------------------------------
    def _bid(self, obs: Any, legal: Sequence[Action]) -> Action:
        top = max((a.amount for a in legal if isinstance(a, Bid)), default=0)
        if top == 0:
            return PASS
        me = obs.seat
        picture = obs.picture
        packs = 1 if obs.num_players == 3 else 2
        unseen: Counter[str] = Counter()
        for s in "CDHS":
            for r in "JQKA":
                unseen[r + s] = packs
        for coll in obs.collections:
            unseen.subtract(coll)
        unseen.subtract(obs.dead_pile)
        unseen[picture] -= 1
        asked = len(obs.bids)
        later = set(obs.bidding_order[asked + 1:])
        power = obs.purchasing_power
        value = self.cheap
        for seat, coll in enumerate(obs.collections):
            before = need(coll, unseen)
            after = need(list(coll) + [picture], unseen)
            if seat == me:
                if after == 0:
                    value = max(value, power)
                elif after < before:
                    value = max(value, int(power * (self.win_share if after == 1 else self.step_share)))
                continue
            live = seat in later or seat == obs.high_bidder
            if not live:
                continue
            if after == 0:
                value = max(value, power)
            elif after == 1 and before > 1:
                value = max(value, int(power * self.block_share))
        value = min(value // UNIT * UNIT, top)
        if value < obs.min_bid:
            return PASS
        amount = obs.min_bid if not later else value
        return Bid(amount)


def _random(seed: int | str = 0, **_: Any) -> Agent:
    return RandomAgent(seed)


def _heuristic(seed: int | str = 0, **kwargs: Any) -> Agent:
    return HeuristicAuctionAgent(seed, **kwargs)


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot("auction")}
"""Bot factories by name: ``(seed=..., **kw) -> Agent``."""
