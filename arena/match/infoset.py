"""A seat's information set, sampled by re-dealing the cards hidden from it.

This is the conformance suite's leak test (:mod:`arena.testing.conformance`)
turned into a sampler. :class:`InformationSet` is built from a state and a seat
by the referee, at the moment that seat must decide, and keeps only what the
seat may know:

* the game (options, preset) and the initial-state arguments;
* the public action history (every action of these games is public: plays,
  melds, discards, bids, payments, "draw" without the card drawn);
* the realized decks with every position in ``state.hidden_positions(seat)``
  **blanked**; the cards that were there are kept only as a sorted multiset
  (the unseen cards, which the seat can count from what it sees);
* the seat's observation, as canonical text.

It does **not** keep the state, the true hidden cards' positions or the match
seed (which would give away the shuffles still to come). :meth:`sample` deals the
multiset back into the blank positions in a random order, replays the history on
those decks with a fresh seed for later shuffles, and accepts the result only if
the replay is legal and gives the seat exactly the observation it has: a sample
is a state the seat cannot tell from the real one. Two states that differ only by
an exchange of hidden cards give the same :class:`InformationSet`, hence the same
samples for the same random stream; ``tests/bots/test_search_bots.py`` checks it.

The samples are uniform over the deals of the hidden cards, conditioned by
rejection on the history staying legal and the observation unchanged (a deal in
which a player could not have made a bid it made, say, is dropped); they are not
weighted by how likely the other players' choices were under each deal, as a
full Bayesian reading of their play would be.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.core.dealing import SeedStream
from arena.core.descriptor import DealGroups, Sampling
from arena.core.errors import ArenaError
from arena.core.state import Game, State, observation_to_dict
from arena.games import GAME_MODULES, get_descriptor

__all__ = ["InformationSet", "observation_text"]


def _sampling(game: str) -> Sampling | None:
    """The game's constraint on dealing hidden cards back (its descriptor's), if any."""
    return get_descriptor(game).sampling if game in GAME_MODULES else None


def observation_text(obs: Any) -> str:
    """Canonical JSON of an observation (as the conformance suite's leak test compares)."""
    return json.dumps(observation_to_dict(obs), sort_keys=True, separators=(",", ":"))


class InformationSet:
    """What ``seat`` knows in ``state``, and a sampler of states consistent with it."""

    def __init__(self, state: State, seat: int) -> None:
        self.built_at = time.perf_counter()
        """When building started (``time.perf_counter``): a search bot's decision clock
        starts here, since the referee builds the set inside the decision's time."""
        data = json.loads(state.serialize())
        self.game: Game = state.game
        self.seat = seat
        self.init: dict[str, Any] = dict(data.get("init") or {})
        self.actions: list[Any] = list(data.get("actions") or [])
        decks: list[list[str | None]] = [list(d) for d in data.get("decks") or []]
        hidden = sorted(set(state.hidden_positions(seat)))
        groups: dict[int, list[int]] = {}
        pools: dict[int, list[str]] = {}
        for d, p in hidden:
            card = decks[d][p]
            assert card is not None
            groups.setdefault(d, []).append(p)
            pools.setdefault(d, []).append(card)
            decks[d][p] = None
        self.hidden: list[tuple[int, list[int]]] = sorted(groups.items())
        """Per shuffle (deck index), the positions hidden from the seat."""
        self.pools: list[list[str]] = [sorted(pools[d]) for d, _ in self.hidden]
        """Per shuffle, the unseen cards (sorted, not in their positions): cards are
        exchanged within one shuffle only (a picture never goes to a money position)."""
        self.decks = decks
        obs = state.observation(seat)
        self.observation_text = observation_text(obs)
        sampling = _sampling(self.game.name)
        self._owners: DealGroups | None = sampling(obs, self.hidden) if sampling else None
        self.samples = 0
        """States returned by :meth:`sample` so far."""
        self.rejected = 0
        """Deals refused by :meth:`sample` so far (history illegal or observation changed)."""

    @property
    def history_length(self) -> int:
        return len(self.actions)

    def _replay(self, decks: Sequence[Sequence[str | None]], seed: int) -> State | None:
        try:
            state = self.game.new_initial_state(seed=seed, decks=decks, **self.init)  # type: ignore[arg-type]
            for a in self.actions:
                state.apply_action(a if isinstance(a, int) else state.string_to_action(a))
        except ArenaError:
            return None
        return state

    def sample(self, rng: SeedStream, tries: int = 20, *, deadline: float | None = None,
               clock: Callable[[], float] = time.perf_counter) -> State | None:
        """A state consistent with the seat's knowledge, or ``None`` after ``tries`` refused
        deals, or once ``clock()`` is past ``deadline`` before a try (a try, one replay of the
        history, is not cut short)."""
        for _ in range(tries):
            if deadline is not None and clock() > deadline:
                return None
            decks = [list(d) for d in self.decks]
            for i, ((d, positions), pool) in enumerate(zip(self.hidden, self.pools)):
                row = decks[d]
                vg = self._owners
                if vg is not None and vg[0] == i:
                    placed = _deal_groups(pool, vg[1], vg[2], rng)
                    if placed is None:
                        break
                    for p, card in placed.items():
                        row[p] = card
                    continue
                cards = list(pool)
                rng.shuffle(cards)
                for p, card in zip(positions, cards):
                    row[p] = card
            else:
                state = self._replay(decks, rng.next64())
                if state is not None and observation_text(state.observation(self.seat)) == self.observation_text:
                    self.samples += 1
                    return state
            self.rejected += 1
        return None


# -- dealing hidden cards back by owner ------------------------------------------------
# A seat that did not follow suit holds none of that suit; plain rejection then throws
# away most deals late in a deal (82% of them over a calypso heuristic match). A game
# that knows the owner of each hidden position says so (its descriptor's ``sampling``:
# arena.core.descriptor), and the hidden cards are dealt to owners not void in their suit.

def _deal_groups(pool: list[str], groups: dict[int, list[int]], voids: dict[int, set[str]],
                 rng: SeedStream) -> dict[int, str] | None:
    """Cards of ``pool`` to positions, no card of a suit to an owner void in it."""
    cards = list(pool)
    rng.shuffle(cards)
    room = {g: len(ps) for g, ps in groups.items()}
    given: dict[int, list[str]] = {g: [] for g in groups}
    # Cards that only some owners may take go first.
    cards.sort(key=lambda c: -sum(1 for g in groups if g >= 0 and c[-1] in voids[g]))
    for c in cards:
        ok = [g for g in groups if room[g] and (g < 0 or c[-1] not in voids[g])]
        total = sum(room[g] for g in ok)
        if not total:
            return None
        x = rng.below(total)
        for g in ok:
            x -= room[g]
            if x < 0:
                room[g] -= 1
                given[g].append(c)
                break
    out: dict[int, str] = {}
    for g, ps in groups.items():
        for p, c in zip(ps, given[g]):
            out[p] = c
    return out
