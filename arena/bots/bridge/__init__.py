"""Built-in bridge bots: ``random``, ``heuristic`` and ``pimc``.

``pimc`` (:mod:`arena.bots.bridge.pimc`) bids like ``heuristic`` and plays its
cards by Perfect Information Monte Carlo on endplay's DDS (the ``search``
extra); its options are ``samples``, ``ms``, ``scoring`` and ``lead``.

``heuristic`` bids a small natural system (:mod:`arena.bots.bridge.bidding`,
:mod:`arena.bots.bridge.model`) and plays by the classic rules of thumb
(:mod:`arena.bots.bridge.play`). Both bots see only the observation and the
legal action ids, and are deterministic: ``heuristic`` makes no random choices
at all, and ``random`` draws from a :class:`~arena.core.dealing.SeedStream`.

Action ids: 0..51 cards (``suit * 13 + rank``), 52 Pass, 53 Double, 54 Redouble,
55..89 bids ``1C`` .. ``7N``.

>>> sorted(BOTS)
['heuristic', 'pimc', 'random']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from arena.bots.base import Agent, MatchInfo, RandomAgent
from arena.bots.bridge.bidding import choose_call
from arena.bots.bridge.hand import PASS, Auction, Hand, card_ids
from arena.bots.bridge.play import choose_card
from arena.core.state import Action

__all__ = ["BOTS", "HeuristicAgent", "make_heuristic", "make_pimc", "make_random"]


class HeuristicAgent(Agent):
    """Natural bidding from points and suit lengths, and rule-of-thumb card play.

    The seed is accepted for the common factory signature; the bot's choices do
    not depend on it.
    """

    name = "heuristic"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed
        self._cache: dict[str, Any] = {}

    def start_match(self, info: MatchInfo) -> None:
        """Forget the previous match (the cache only saves re-reading tricks)."""
        self._cache = {}

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        legal = cast("list[int]", list(legal_actions))  # bridge actions are ids
        if not legal:
            return PASS
        if observation.phase == "auction" or legal[0] >= 52:
            hand = Hand.from_ids(card_ids(observation.hand))
            auction = Auction.from_tokens(observation.dealer, observation.auction)
            return choose_call(hand, auction, observation.seat, legal)
        return choose_card(observation, legal, self._cache)


def make_heuristic(seed: int | str = 0, **_: Any) -> Agent:
    """Factory of :class:`HeuristicAgent`."""
    return HeuristicAgent(seed)


def make_random(seed: int | str = 0, **_: Any) -> Agent:
    """Factory of the uniform random bot."""
    return RandomAgent(seed)


def make_pimc(seed: int | str = 0, **options: Any) -> Agent:
    """Factory of the PIMC bot (:func:`arena.bots.bridge.pimc.make_pimc`; imported on
    first use, so that endplay is only needed by those who play it)."""
    from arena.bots.bridge.pimc import make_pimc as make

    return make(seed, **options)


make_pimc.options = ("samples", "ms", "scoring", "lead")  # type: ignore[attr-defined]  # bot spec options

BOTS = {"random": make_random, "heuristic": make_heuristic, "pimc": make_pimc}
"""Bot name -> factory ``(seed=...) -> Agent``."""
