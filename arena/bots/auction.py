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

``pimc`` (:class:`AuctionSearch`, :mod:`arena.bots.search.flat`)
    The bot no longer rolls whole games out: a rollout to the end of the game took
    3-64 ms early in a game (8 positions, loaded machine), so the former defaults (32 rollouts
    of 6 candidates, the lowest bids among them) spent 0.4-1.1 s a decision and were not
    stronger than the heuristic (+0.05 games/deal [-0.02, +0.11], issue 29). It keeps the heuristic's choice to pass or to bid, and
    its payment, and searches the **amount**: in each determinization (``playouts`` of them,
    at least ``min_rounds`` = 4 or it bids the heuristic's amount) the bidders after it
    answer as the heuristic does to the end of the round, and the bot bids the least amount
    that buys the picture in every determinization where the heuristic's amount buys it
    (buying is monotone in the amount, so a bisection per determinization). The money it
    does not overpay buys later pictures. The heuristic already bids the minimum when
    nobody bids after it; those decisions are not searched.

Factories take ``seed=`` (and ignore other keywords); the bots are deterministic
given the seed (the heuristic does not draw at all; ``pimc`` with ``ms=0``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from arena.bots.base import Agent, RandomAgent
from arena.bots.search.flat import DeterminizedAgent, OutOfTime, make_search_bot
from arena.match.infoset import InformationSet
from arena.core.state import Action, State
from arena.games.auction.actions import PASS, Bid, Pay
from arena.games.auction.rules import COMBINATIONS, UNIT, purchasing_power

__all__ = ["AuctionSearch", "BOTS", "HeuristicAuctionAgent", "need"]

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


class AuctionSearch(DeterminizedAgent):
    """Aukció ``pimc``: the heuristic's pass, bid or payment, its bid's amount searched
    (see the module docstring); 16 determinizations."""

    game_name = "auction"
    defaults = {"playouts": 16}

    def choose(self, observation: Any, legal_actions: Sequence[Action],
               infoset: InformationSet | None) -> Action | str:
        """The heuristic's choice, its amount lowered by :meth:`_cheapest_bid`."""
        base = self.policy.act(observation, legal_actions)
        if isinstance(base, str) or infoset is None or len(legal_actions) <= 1:
            return base
        return self._cheapest_bid(observation, infoset, base)

    def _cheapest_bid(self, obs: Any, infoset: InformationSet, base: Action) -> Action:
        """Auction: the heuristic's bid lowered to the least amount that buys the picture in
        every sampled determinization where the heuristic's amount buys it (the bidders after
        this seat played to the end of the round by the heuristic); the heuristic's action
        itself when it passes, pays, is the last to bid (it bids the minimum then) or fewer
        than ``min_rounds`` determinizations fit the budget."""
        value = getattr(base, "amount", 0)
        low = int(obs.min_bid)
        if obs.phase != "bid" or not value or value <= low or \
                not obs.bidding_order[len(obs.bids) + 1:]:
            return base
        self.searches += 1
        start = self.start
        budget = self.budget_ms() / 1000.0
        self.deadline = start + budget if budget else float("inf")
        rng = self.decision_rng(obs, infoset)
        seat = infoset.seat
        need = low
        """The least bid found so far that buys in every determinization where ``value`` buys."""
        rounds = sims = 0
        slowest = 0.0
        stopped = "playouts"
        while rounds < self.playouts:
            t0 = self.clock()
            if budget and (t0 - start) + slowest > budget:
                stopped = "time"
                break
            try:
                det = infoset.sample(rng, deadline=self.deadline, clock=self.clock)
                if det is None:
                    stopped = "samples" if self.clock() <= self.deadline else "time"
                    break
                sims += 1
                if self._buys(det, seat, value):
                    sims += 1
                    if not self._buys(det, seat, need):
                        lose, win = need, value  # buying is monotone in the amount
                        while win - lose > UNIT:
                            mid = (lose + win) // 2 // UNIT * UNIT
                            sims += 1
                            if self._buys(det, seat, mid):
                                win = mid
                            else:
                                lose = mid
                        need = win
            except OutOfTime:
                stopped = "time"
                break
            rounds += 1
            slowest = max(slowest, self.clock() - t0)
        self.last_playouts = sims
        self.last_rounds = rounds
        self.last_stopped = stopped
        self.last_candidates = [base, Bid(need)]
        if rounds < min(self.min_rounds, self.playouts):
            return base
        return Bid(need)

    def _buys(self, det: State, seat: int, amount: int) -> bool:
        """Whether ``seat`` bidding ``amount`` in ``det`` buys the picture, the bidders after
        it answering as the heuristic does."""
        state = det.clone()
        state.apply_action(Bid(amount))
        rollers = self.rollers
        while not state.is_terminal():
            p = state.current_player()
            obs: Any = state.observation(p)
            if obs.phase != "bid":
                return bool(p == seat)
            if self.clock() > self.deadline:
                raise OutOfTime
            legal = state.legal_actions()
            answer = legal[0] if len(legal) == 1 else rollers[p].act(obs, legal)
            state.apply_action(state.string_to_action(answer) if isinstance(answer, str) else answer)
        return False


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot(AuctionSearch)}
"""Bot factories by name: ``(seed=..., **kw) -> Agent``."""
