"""Built-in canasta bots: ``random`` and ``heuristic``.

Both see only the seat's :class:`~arena.games.canasta.CanastaObservation` and the
listed legal actions, and are deterministic for a given seed.

``heuristic`` (greedy, one ply):

* draw phase: takes the pile whenever a listed pickup exists while the stock
  lasts (the pickup using the fewest wild cards, then the most cards melded);
  after the stock is exhausted it takes only when forced;
* play phase: goes out when a listed meld empties the hand; otherwise makes the
  best-scoring meld (naturals count, wild cards cost unless they complete a
  canasta, completing a canasta is worth most), one action at a time;
* discard: a black three first (it blocks the next player); never a wild card if
  anything else is left; otherwise a card of the rank with the fewest copies in
  hand, avoiding ranks an opponent has melded, higher values first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.bots.base import Agent, MatchInfo, RandomAgent
from arena.bots.search.flat import DeterminizedAgent, make_search_bot
from arena.core.dealing import SeedStream
from arena.core.state import Action, Game, State

__all__ = ["BOTS", "CanastaRandomAgent", "CanastaHeuristicAgent", "CanastaSearch", "canasta_points"]

_VALUE = {"A": 20, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
          "7": 5, "6": 5, "5": 5, "4": 5, "2": 20, "3": 5}


def _wild(c: str) -> bool:
    return c == "JK" or c[0] == "2"


class CanastaRandomAgent(RandomAgent):
    """Uniform over the listed legal actions."""

    name = "random"


class CanastaHeuristicAgent(Agent):
    """Greedy melder that takes the pile; see the module docstring."""

    name = "heuristic"

    def __init__(self, seed: int | str = 0) -> None:
        self._seed = seed
        self._rng = SeedStream(f"canasta-heuristic|{seed}")
        self.seat = 0

    def start_match(self, info: MatchInfo) -> None:
        self.seat = int(info.get("seat", 0))
        self._rng = SeedStream(f"canasta-heuristic|{self._seed}|{info.get('match_id', '')}|{self.seat}")

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        legal = list(legal_actions)
        choice: Action = self._draw(obs, legal) if obs.phase == "draw" else self._play(obs, legal)
        return choice

    def ranked(self, observation: Any, legal_actions: Sequence[Action]) -> list[Action]:
        """The legal actions best first by this bot's own scores (its choice first): for the
        search bot's candidates (``pimc``'s ``width``), not used by :meth:`act`. Draw phase:
        the pile takes by the order :meth:`_draw` uses, then the rest; play phase: the
        melds by :meth:`_meld_score` (going out first), then the discards by their cost."""
        obs = observation
        legal: list[Any] = list(legal_actions)  # CanastaActions
        first = self.act(obs, legal)
        if obs.phase == "draw":
            takes = sorted((a for a in legal if a.kind == "take"),
                           key=lambda a: (sum(_wild(c) for c in a.cards), -len(a.cards), a.sort_key()))
            rest = [a for a in legal if a.kind != "take"]
            order = takes + rest
        else:
            hand_size = len(obs.hand)
            my_melds = dict(obs.melds[obs.side])

            def meld_key(a: Any) -> float:
                used = len(a.cards)
                if used == hand_size:
                    return 1e9
                return self._meld_score(a, my_melds) + (1000 if hand_size - used <= 1 else 0)

            melds = sorted((a for a in legal if a.kind == "meld"), key=lambda a: -meld_key(a))
            discards = [a for a in legal if a.kind == "discard"]
            order = melds + self._discard_order(obs, discards) + \
                [a for a in legal if a.kind not in ("meld", "discard")]
        out = [first]
        out.extend(a for a in order if a != first)
        return out

    # -- draw phase ----------------------------------------------------------
    def _draw(self, obs: Any, legal: list[Any]) -> Any:
        kinds = {a.kind for a in legal}
        takes = [a for a in legal if a.kind == "take"]
        if "draw" in kinds:
            if takes:
                return min(takes, key=lambda a: (sum(_wild(c) for c in a.cards), -len(a.cards), a.sort_key()))
            return next(a for a in legal if a.kind == "draw")
        if "decline" in kinds:
            return next(a for a in legal if a.kind == "decline")
        return min(takes, key=lambda a: (len(a.cards), a.sort_key()))

    # -- play phase ----------------------------------------------------------
    def _play(self, obs: Any, legal: list[Any]) -> Any:
        hand_size = len(obs.hand)
        my_melds = dict(obs.melds[obs.side])
        melds = [a for a in legal if a.kind == "meld"]
        best = None
        best_score = 0.0
        for a in melds:
            used = len(a.cards)
            if used == hand_size:
                return a  # going out
            score = self._meld_score(a, my_melds)
            if hand_size - used <= 1:
                score += 1000  # the discard that follows goes out
            if score > best_score:
                best, best_score = a, score
        if best is not None:
            return best
        return self._discard(obs, legal)

    @staticmethod
    def _meld_score(a: Any, my_melds: dict[str, tuple[str, ...]]) -> float:
        score = 0.0
        for key, cards in a.groups:
            old = len(my_melds.get(key, ()))
            nat = sum(1 for c in cards if not _wild(c))
            wild = len(cards) - nat
            after = old + len(cards)
            if key == "BLACK3":
                score += 1
                continue
            if key == "WILD":
                score += 40 if after >= 7 and old < 7 else -5 * wild
                continue
            score += 3 * nat
            if after >= 7 and old < 7:
                score += 40 + 5 * wild  # completing a canasta pays the wild cards
            else:
                score -= 6 * wild
        return score

    def _discard(self, obs: Any, legal: list[Any]) -> Any:
        return self._discard_order(obs, [a for a in legal if a.kind == "discard"])[0]

    @staticmethod
    def _discard_order(obs: Any, discards: list[Any]) -> list[Any]:
        """The discards, cheapest first (the first is :meth:`_discard`'s choice)."""
        if not discards:
            return []
        counts = Counter(c[0] if c != "JK" else "JK" for c in obs.hand)
        opp_ranks: set[str] = set()
        for side, melds in enumerate(obs.melds):
            if side != obs.side:
                opp_ranks.update(k for k, _ in melds)
        mine = {k for k, _ in obs.melds[obs.side]}

        def cost(a: Any) -> tuple[float, ...]:
            c = a.card
            if c in ("3C", "3S"):
                return (-100.0, 0.0, a.sort_key())
            if _wild(c):
                return (1000.0, 0.0, a.sort_key())
            r = c[0]
            k = 10.0 * counts[r]
            if r in opp_ranks:
                k += 25
            if r in mine:
                k += 15
            return (k, -_VALUE[r], a.sort_key())

        return sorted(discards, key=cost)


def _random(seed: int | str = 0, **_: Any) -> Agent:
    return CanastaRandomAgent(seed)


def _heuristic(seed: int | str = 0, **_: Any) -> Agent:
    return CanastaHeuristicAgent(seed)


def canasta_points(game: Game, state: State) -> list[float]:
    """Canasta, mid-hand: each seat's side's cumulative score plus what the hand would score
    for it if it ended now with nobody going out (melds, canasta bonuses, red threes, minus
    the cards its players hold; :func:`arena.games.canasta.scoring.score_side`)."""
    from arena.games.canasta.scoring import score_side

    rules: Any = getattr(game, "rules")
    obs: list[Any] = [state.observation(s) for s in range(game.num_players)]
    sides = obs[0].seat_sides
    per_side = []
    for side in range(len(obs[0].scores)):
        held = [c for s, o in enumerate(obs) if sides[s] == side for c in o.hand]
        hs = score_side(rules, dict(obs[0].melds[side]), (), len(obs[0].red_threes[side]),
                        False, False, held, False)
        per_side.append(float(obs[0].scores[side] + hs.total))
    return [per_side[sides[s]] for s in range(game.num_players)]


class CanastaSearch(DeterminizedAgent):
    """Canasta ``pimc`` (:mod:`arena.bots.search.flat`): the heuristic's candidates in its
    own order (:meth:`CanastaHeuristicAgent.ranked`), rollouts of 8 decisions at most
    within the hand, a stopped one valued by :func:`canasta_points`; 48 rollouts, 3
    candidates, gate 1.5 (the tuning is in the search module's docstring)."""

    game_name = "canasta"
    defaults = {"playouts": 48, "width": 3, "depth": 8, "gate": 1.5}

    def deal_key(self, obs: Any) -> tuple[int, ...]:
        return (obs.hand_number,)

    def points(self, state: State, ended: bool) -> list[float] | None:
        return None if ended else canasta_points(state.game, state)


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot(CanastaSearch)}
