"""Built-in Calypso bots: ``random`` and ``heuristic``.

Both see only the acting seat's :class:`~arena.games.calypso.CalypsoObservation`
and the legal card ids (``suit * 13 + rank``).

``heuristic`` follows the rules' strategy hints with a one-trick estimate. For
each legal card it estimates the chance ``p`` that its side wins the trick and
scores ``p * value(trick to us) - (1 - p) * value(trick to them) - keep(card)``:

* a card is worth 10 to the side that wins it (pile), or more when it fits the
  calypso of a player of that side (20 plus a share of the completion bonus; the
  13th card of a calypso is worth the whole bonus);
* ``p`` comes from the trick-winner rule applied to the cards so far, discounted
  for each opponent still to play (higher cards of the suit led, and trumping by
  players known to be void in it from this deal's tricks);
* leading: the followers' expected cards count too, so leading the own trump
  (which only a void opponent can beat) or the partner's suit with a high card is
  preferred, and leading an opponent's suit is avoided;
* ``keep`` is the future value of the card: own-suit cards the own calypso still
  needs (they can be led and won later), then partner's needed cards, then high
  ranks. So the bot feeds its partner's calypso when the partner is winning,
  leads its own trump when that wins, and keeps cards its own calypso needs.

Ties go to the lowest card id, so the bot is deterministic; the seed only names
the instance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from arena.bots.base import Agent, RandomAgent
from arena.bots.search.flat import DeterminizedAgent, make_search_bot
from arena.core.cards import card_index
from arena.core.state import Action, State
from arena.games.calypso.rules import TRUMP, winning_position

__all__ = ["BOTS", "CalypsoHeuristicAgent", "CalypsoSearch"]

_RANKS = "23456789TJQKA"
_SUIT_OF_LETTER = {"C": 0, "D": 1, "H": 2, "S": 3}


def _mask(tokens: Sequence[str]) -> int:
    m = 0
    for t in tokens:
        m |= 1 << _RANKS.index(t[0])
    return m


class CalypsoHeuristicAgent(Agent):
    """Greedy one-trick evaluator (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed

    # -- values ---------------------------------------------------------------
    @staticmethod
    def _need_value(size: int) -> float:
        """Value of a card that fits a calypso which holds ``size`` cards now."""
        if size >= 12:
            return 20.0 + 260.0  # completes: 500 replaces 12 x 20
        return 20.0 + 1.5 * size

    def _trick_value(self, cards: Sequence[int], side: int, masks: list[int]) -> float:
        """Value to ``side`` of winning ``cards`` (duplicates within the trick count 10)."""
        claimed = {s: masks[s] for s in (side, side + 2)}
        total = 0.0
        for c in cards:
            suit, rank = divmod(c, 13)
            value = 10.0
            for s in (side, side + 2):
                if TRUMP[s] == suit:
                    bit = 1 << rank
                    if not claimed[s] & bit:
                        claimed[s] |= bit
                        value = self._need_value(masks[s].bit_count())
            total += value
        return total

    def _suit_value(self, suit: int, side: int, masks: list[int]) -> float:
        """Expected value to ``side`` of one unknown card of ``suit``."""
        for s in (side, side + 2):
            if TRUMP[s] == suit:
                need = 13 - masks[s].bit_count()
                return 10.0 + (self._need_value(masks[s].bit_count()) - 10.0) * need / 13.0
        return 10.0

    # -- probabilities ----------------------------------------------------------
    @staticmethod
    def _beat_prob(y: int, win_card: int, win_is_trump: bool, lead_suit: int,
                   voids: list[set[int]]) -> float:
        """Chance that seat ``y``, still to play, beats the winning card."""
        rank = win_card % 13
        higher = (12 - rank) / 12.0
        void_p = 0.6 if lead_suit in voids[y] else 0.06
        trump_beat = void_p * (0.7 if TRUMP[y] != lead_suit else 0.0)
        if win_is_trump:
            # Only a void player's higher own trump beats a trump.
            return trump_beat * higher
        follow_beat = (1.0 - void_p) * min(1.0, 0.9 * higher + 0.05)
        return min(1.0, follow_beat + trump_beat)

    def _side_win_prob(self, me: int, leader: int, cards: list[int], voids: list[set[int]]) -> float:
        pos = winning_position(leader, cards)
        wseat = (leader + pos) & 3
        wcard = cards[pos]
        lead_suit = cards[0] // 13
        w_trump = wcard // 13 == TRUMP[wseat] and (pos == 0 or wcard // 13 != lead_suit)
        hold = 1.0
        partner_can = 0.0
        for i in range(len(cards), 4):
            y = (leader + i) & 3
            b = self._beat_prob(y, wcard, w_trump, lead_suit, voids)
            if (y & 1) != (wseat & 1):
                hold *= 1.0 - b
            elif y != wseat:
                partner_can = max(partner_can, b)
        if (wseat & 1) == (me & 1):
            return hold
        # An opponent is winning: our side wins only if a player of ours still to play beats it.
        return (1.0 - hold) * 0.6 if (1.0 - hold) > 0 else 0.0

    # -- decision -----------------------------------------------------------------
    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        legal = [int(cast(int, a)) for a in legal_actions]
        if len(legal) == 1:
            return legal[0]
        best, best_score = legal[0], float("-inf")
        for c, score in self._scores(obs, legal):
            if score > best_score + 1e-9:
                best, best_score = c, score
        return best

    def ranked(self, observation: Any, legal_actions: Sequence[Action]) -> list[Action]:
        """The legal cards, best first by this bot's score (ties: lowest id first); the
        first is :meth:`act`'s choice. The search bot takes its candidates from here."""
        legal = [int(cast(int, a)) for a in legal_actions]
        if len(legal) == 1:
            return list(legal)
        scored = self._scores(observation, legal)
        order = sorted(range(len(scored)), key=lambda i: (-round(scored[i][1], 9), i))
        out = [scored[i][0] for i in order]
        first = self.act(observation, legal_actions)
        out.remove(int(cast(int, first)))
        return [first, *out]

    def _scores(self, obs: Any, legal: list[int]) -> list[tuple[int, float]]:
        """(card, score) for every legal card (higher is better)."""
        me: int = obs.seat
        my_side = me & 1
        opp_side = 1 - my_side
        partner = (me + 2) & 3
        masks = [_mask(c) for c in obs.calypsos]
        leader: int = obs.leader
        trick = [card_index(t) for t in obs.current_trick]
        voids = self._voids(obs)
        hand = [card_index(t) for t in obs.hand]
        remaining_after = 3 - len(trick)
        out: list[tuple[int, float]] = []
        for c in legal:
            cards = trick + [c]
            p = self._side_win_prob(me, leader, cards, voids)
            gain = p * self._trick_value(cards, my_side, masks)
            loss = (1.0 - p) * self._trick_value(cards, opp_side, masks)
            if remaining_after:
                suit = cards[0] // 13
                gain += p * remaining_after * self._suit_value(suit, my_side, masks)
                loss += (1.0 - p) * remaining_after * self._suit_value(suit, opp_side, masks)
            score = gain - loss - self._keep(c, me, partner, masks, hand)
            out.append((c, score))
        return out

    def _keep(self, c: int, me: int, partner: int, masks: list[int], hand: list[int]) -> float:
        """Future value of holding card ``c``."""
        suit, rank = divmod(c, 13)
        bit = 1 << rank
        # Weights from duplicate self-play (60 deals, seed 7): doubling the own-suit
        # and off-suit weights gained about 180 points per game; the partner's
        # weight made no measurable difference, so it stays low (feed the partner).
        if suit == TRUMP[me]:
            if not masks[me] & bit:
                # Needed by the own calypso: it can be led and won later.
                return self._need_value(masks[me].bit_count()) + rank
            return 8.0 + rank  # a safe lead later that draws the suit
        if suit == TRUMP[partner] and not masks[partner] & bit:
            return 6.0 + 0.3 * rank
        return 0.8 * rank

    @staticmethod
    def _voids(obs: Any) -> list[set[int]]:
        """Suits each seat has shown out of in this deal (public trick history)."""
        voids: list[set[int]] = [set(), set(), set(), set()]
        n = obs.trick_number
        done = list(obs.tricks[len(obs.tricks) - n:]) if n else []
        sequences = [(t.leader, list(t.cards)) for t in done]
        if obs.current_trick:
            sequences.append((obs.leader, list(obs.current_trick)))
        for leader, cards in sequences:
            lead = _SUIT_OF_LETTER[cards[0][1]]
            for i, tok in enumerate(cards[1:], start=1):
                if _SUIT_OF_LETTER[tok[1]] != lead:
                    voids[(leader + i) & 3].add(lead)
        return voids


def _random(seed: int | str = 0, **kwargs: Any) -> Agent:
    return RandomAgent(seed)


def _heuristic(seed: int | str = 0, **kwargs: Any) -> Agent:
    if kwargs:
        raise ValueError(f"calypso heuristic takes no options {', '.join(sorted(kwargs))}")
    return CalypsoHeuristicAgent(seed)


class CalypsoSearch(DeterminizedAgent):
    """Calypso ``pimc`` (:mod:`arena.bots.search.flat`): rollouts to the end of the deal,
    valued by the current game's points so far (each side's score plus what the game
    would score if it ended now); at most 3 candidates, 12 rollouts."""

    game_name = "calypso"
    defaults = {"playouts": 12, "width": 3}

    def deal_key(self, obs: Any) -> tuple[int, ...]:
        return (obs.game_number, obs.deal_number)

    def points(self, state: State, ended: bool) -> list[float] | None:
        obs: Any = state.observation(0)  # scores and game points are public
        per_side = [obs.scores[i] + obs.game_points[i] for i in range(2)]
        return [float(per_side[s % 2]) for s in range(4)]


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot(CalypsoSearch)}
"""Bot factories ``(seed=..., **kw) -> Agent``."""
