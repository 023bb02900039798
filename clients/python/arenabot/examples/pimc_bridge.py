"""A search bot for authors: bridge card play by Perfect Information Monte Carlo.

Run: ``pip install endplay`` then
``python -m arenabot --bot arenabot.examples.pimc_bridge:PimcBridgeBot --token $TOKEN``.

For each card it must choose, the bot deals the cards it cannot see to the hidden
hands at random (respecting the suits a player showed out of), solves each deal
double dummy with endplay's DDS and plays the card that wins the most tricks on
average. It reads only its ``BridgeObservation``; it passes in the auction (put
your bidding system there). The arena's own ``pimc`` bot (``arena/bots/bridge/pimc.py``)
adds the auction's inferences, IMP/matchpoint scoring and a time budget.
"""

from __future__ import annotations

import random
from typing import Any

from arenabot.bot import Bot, legal_choices, observation_of

RANKS, SUITS = "23456789TJQKA", "CDHS"


def _pbn_hand(cards: list[str]) -> str:
    """PBN hand text (``S.H.D.C``) of card tokens like ``AS``."""
    return ".".join("".join(r for r in reversed(RANKS) if r + s in cards) for s in "SHDC")


class PimcBridgeBot(Bot):
    """Samples deals consistent with what it sees and solves them double dummy."""

    name = "pimc-bridge-py"
    version = "0.1.0"
    games = ("bridge",)

    def __init__(self, samples: int = 12, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from endplay.dds import solve_board  # imported here: only this example needs endplay
        from endplay.types import Deal

        self._solve, self._deal = solve_board, Deal
        self.samples = samples
        self.rng = random.Random(seed)

    def decide(self, request):  # type: ignore[no-untyped-def]
        choices = legal_choices(request)
        obs = observation_of(request)
        if obs.phase != "play" or len(choices) == 1:
            return min(choices)  # Pass (id 52) in the auction, or the only card
        mover = obs.playing_hand
        known = {obs.seat: list(obs.hand)}
        if obs.dummy_hand:
            known[obs.dummy] = list(obs.dummy_hand)
        played: dict[int, list[str]] = {s: [] for s in range(4)}
        voids: dict[int, set[str]] = {s: set() for s in range(4)}
        tricks = [(t.leader, list(t.cards)) for t in obs.tricks] + [(obs.trick_leader, list(obs.current_trick))]
        for leader, cards in tricks:
            for i, c in enumerate(cards):
                seat = (leader + i) % 4
                played[seat].append(c)
                if c[1] != cards[0][1]:
                    voids[seat].add(cards[0][1])
        seen = {c for cs in known.values() for c in cs} | {c for cs in played.values() for c in cs}
        unseen = [r + s for s in SUITS for r in RANKS if r + s not in seen]
        hidden = [s for s in range(4) if s not in known]
        totals: dict[str, float] = {}
        for _ in range(self.samples):
            hands = self._sample(unseen, hidden, played, voids, known)
            if hands is None:
                continue
            for c, n in self._solve_one(hands, obs).items():
                totals[c] = totals.get(c, 0.0) + n
        by_text = {la.text: (la.id if la.HasField("id") else la.text) for la in request.legal_actions}
        best = max((t for t in by_text if t in totals), key=lambda t: totals[t], default=None)
        return by_text[best] if best is not None else choices[0]

    def _sample(self, unseen: list[str], hidden: list[int], played: dict[int, list[str]],
                voids: dict[int, set[str]], known: dict[int, list[str]]) -> dict[int, list[str]] | None:
        for _ in range(100):  # rejection on voids
            cards = unseen[:]
            self.rng.shuffle(cards)
            hands, i = dict(known), 0
            for s in hidden:
                n = 13 - len(played[s])
                hands[s], i = cards[i:i + n], i + n
            if all(not any(c[1] in voids[s] for c in hands[s]) for s in hidden):
                return hands
        return None

    def _solve_one(self, hands: dict[int, list[str]], obs: Any) -> dict[str, int]:
        """Tricks for the side to play, per card, in one deal."""
        trick = list(obs.current_trick)
        full = {s: list(hands[s]) for s in range(4)}
        for i, c in enumerate(trick):  # the trick's cards go back to be played again
            full[(obs.trick_leader + i) % 4].append(c)
        text = "N:" + " ".join(_pbn_hand(full[s]) for s in range(4))
        contract = obs.contract
        strain = "NSHDC".index("N" if contract[1] == "N" else contract[1])
        deal = self._deal(text, first=obs.trick_leader, trump=[4, 0, 1, 2, 3][strain])
        for c in trick:
            deal.play(c[1] + c[0])  # endplay writes suit first
        return {RANKS[card.rank.to_alternate() - 2] + "SHDC"[card.suit]: n for card, n in self._solve(deal)}
