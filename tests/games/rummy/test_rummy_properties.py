"""Properties of play validation, on random proposals from random positions.

Every proposal is either refused (and then nothing changes) or accepted, and an
accepted play always lowers the player's hand by at least one card, leaves every
other hand alone, conserves all 104 cards and leaves only valid melds; the
verdict agrees with an independent statement of checks V2-V6.
"""

from __future__ import annotations

from collections import Counter

from arena.core.cards import standard_deck
from arena.core.dealing import SeedStream
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.games import get_game
from arena.games.rummy import RummyAction, RummyState
from arena.games.rummy.melds import INDEX, is_meld


def _reference_ok(state: RummyState, layout: list[list[str]]) -> bool:
    seat = state.current_player()
    hand = Counter(state.observation(seat).hand)
    table = [list(m) for m in state.observation(seat).table]
    t = Counter(c for m in table for c in m)
    lay = Counter(c for m in layout for c in m)
    if not all(is_meld([INDEX[c] for c in m]) for m in layout):
        return False
    if any(lay[c] > hand[c] + t[c] for c in lay):
        return False
    if sum(lay.values()) < sum(t.values()) + 1:
        return False
    if state.strict and any(lay[c] < t[c] for c in t):
        return False
    if not state.melded[seat]:
        rest = [sorted(m) for m in layout]
        for m in table:
            if sorted(m) in rest:
                rest.remove(sorted(m))
            else:
                return False
        if Counter(c for m in rest for c in m) - hand:
            return False
    return True


def _proposal(rng: SeedStream, state: RummyState) -> list[list[str]]:
    seat = state.current_player()
    obs = state.observation(seat)
    melds = [list(m) for m in obs.table]
    hand = list(obs.hand)
    kind = rng.below(4)
    legal = [a for a in state.legal_actions() if isinstance(a, RummyAction) and a.layout is not None]
    if legal and kind == 0:
        melds = [list(m) for m in rng.choice(legal).layout or ()]
    if kind <= 1 and melds:
        # move one card between melds, or out to a new one
        i = rng.below(len(melds))
        if melds[i]:
            card = melds[i].pop(rng.below(len(melds[i])))
            j = rng.below(len(melds) + 1)
            if j == len(melds):
                melds.append([card])
            else:
                melds[j].append(card)
    elif kind == 2 and hand:
        # add one or two hand cards somewhere
        for _ in range(1 + rng.below(2)):
            card = hand[rng.below(len(hand))]
            if melds and rng.below(2):
                melds[rng.below(len(melds))].append(card)
            else:
                melds.append([card])
    else:
        # a fresh meld of three hand cards next to the table
        if len(hand) >= 3:
            picks = [hand[rng.below(len(hand))] for _ in range(3)]
            melds.append(picks)
    return [m for m in melds if m or rng.below(4) == 0]


def test_random_proposals() -> None:
    checked = accepted = 0
    for players, strict, seed in ((2, False, 1), (3, True, 2), (4, False, 3)):
        game = get_game("rummy", players=players, deals=1, strict_table=strict)
        state = game.new_initial_state(seed=seed)
        assert isinstance(state, RummyState)
        rng = SeedStream(f"rummy-props|{seed}")
        while not state.is_terminal():
            for _ in range(4):
                layout = _proposal(rng, state)
                seat = state.current_player()
                trial = state.clone()
                sizes = list(trial.hand_size)
                before = trial.serialize()
                try:
                    trial.apply_action(RummyAction(tuple(tuple(m) for m in layout)))
                except (IllegalActionError, InvalidActionError) as exc:
                    assert exc.reason
                    assert trial.serialize() == before
                    assert not _reference_ok(state, layout), (layout, exc.reason)
                else:
                    accepted += 1
                    assert _reference_ok(state, layout), layout
                    assert trial.hand_size[seat] <= sizes[seat] - 1
                    # the next player drew at most one card; other hands untouched
                    for s in range(players):
                        if s != seat and trial.deal_index == state.deal_index:
                            assert trial.hand_size[s] - sizes[s] in (0, 1)
                    held: Counter[str] = Counter()
                    for cards in trial.card_locations().values():
                        held.update(cards)
                    assert held == Counter(standard_deck(2))
                    assert all(is_meld(m) for m in trial.table)
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 300 and accepted > 20
