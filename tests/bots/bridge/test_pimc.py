"""The bridge ``pimc`` bot: sampling from the observation only, DDS adapter, knobs, determinism."""

from __future__ import annotations

import itertools
import sys
from typing import Any

import pytest

from arena.bots import check_bot_spec, list_bots, make_bot
from arena.bots.bridge import dds
from arena.bots.bridge.pimc import PimcAgent, card_scores
from arena.bots.bridge.sampling import DealSampler, hcp_of, ids_of, knowledge, lengths_of
from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.games.bridge.state import BridgeState
from arena.match.referee import run_match
from arena.testing.conformance import observation_text


def _heuristic_to(seed: int, cards: int, board: int = 1) -> BridgeState:
    """A board played by four heuristic bots up to ``cards`` cards into the play."""
    game = get_game("bridge")
    state = game.new_initial_state(seed=seed, board=board)
    bots = [make_bot("bridge", "heuristic") for _ in range(4)]
    played = 0
    while not state.is_terminal():
        if state.observation(0).phase == "play":
            if played >= cards:
                break
            played += 1
        seat = state.current_player()
        state.apply_action(bots[seat].act(state.observation(seat), state.legal_actions()))
    assert isinstance(state, BridgeState)
    return state


def _play_state(cards: int) -> BridgeState:
    for seed in itertools.count(1):
        s = _heuristic_to(seed, cards)
        if not s.is_terminal() and s.observation(0).phase == "play" and len(s.legal_actions()) > 1:
            return s
    raise AssertionError("unreachable")


# -- DDS adapter -------------------------------------------------------------------------
def _minimax(hands: list[int], trump: int, leader: int, trick: list[int], to_move_side: int) -> int:
    """Tricks ``to_move_side`` wins from here, by brute force (tiny endings only)."""
    n = len(trick)
    player = (leader + n) & 3
    cards = ids_of(hands[player])
    if trick:
        follow = [c for c in cards if c // 13 == trick[0] // 13]
        cards = follow or cards
    best = -1 if player % 2 == to_move_side else 99
    for c in cards:
        h = list(hands)
        h[player] &= ~(1 << c)
        t = trick + [c]
        if len(t) == 4:
            led = t[0] // 13
            win = max(range(4), key=lambda i: (t[i] // 13 == trump, t[i] // 13 == led, t[i]))
            winner = (leader + win) & 3
            got = 1 if winner % 2 == to_move_side else 0
            rest = _minimax(h, trump, winner, [], to_move_side) if h[0] else 0
            v = got + rest
        else:
            v = _minimax(h, trump, leader, t, to_move_side)
        best = max(best, v) if player % 2 == to_move_side else min(best, v)
    return best


def test_dds_adapter_matches_brute_force_on_small_endings() -> None:
    rng = SeedStream("dds-endings")
    checked = 0
    for _ in range(8):
        cards = list(range(52))
        rng.shuffle(cards)
        hands = [0, 0, 0, 0]
        for i, c in enumerate(cards[:12]):
            hands[i % 4] |= 1 << c
        trump = rng.below(5) - 1
        leader = rng.below(4)
        got = dds.solve(hands, trump, leader, [])
        side = leader % 2
        for c in ids_of(hands[leader]):
            h = list(hands)
            h[leader] &= ~(1 << c)
            want = _minimax(h, trump, leader, [c], side)
            assert got[c] == want, (hands, trump, leader, c)
            checked += 1
    assert checked == 24


def test_missing_endplay_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dds, "_DDS", None)
    monkeypatch.setitem(sys.modules, "endplay._dds", None)
    with pytest.raises(dds.SearchDependencyError, match=r"pip install 'arena\[search\]'"):
        make_bot("bridge", "pimc")


# -- sampling ------------------------------------------------------------------------------
def test_samples_respect_what_the_seat_knows() -> None:
    state = _play_state(9)  # two tricks and a card: voids may show, dummy is faced
    seat = state.current_player()
    obs = state.observation(seat)
    know = knowledge(obs)
    sampler = DealSampler(know, SeedStream(1))
    for _ in range(30):
        hands = sampler.sample()
        full = 0
        for s in range(4):
            assert not full & hands[s], "a card in two hands"
            full |= hands[s]
        played = 0
        for m in know.played:
            played |= m
        assert full | played == (1 << 52) - 1 and not full & played
        for s, m in know.known.items():
            assert hands[s] == m
        for s in know.hidden:
            assert hands[s].bit_count() == know.counts[s]
            for suit in know.voids[s]:
                assert lengths_of(hands[s])[suit] == 0
    # the real layout is one of the possible ones
    from arena.bots.bridge.hand import card_ids

    # the truth, from each seat's own view (the engine's hand layout is its own business)
    real = [sum(1 << c for c in card_ids(state.observation(s).hand)) for s in range(4)]
    assert all(real[s] & know.pool == real[s] for s in know.hidden)


def test_auction_constraints_shape_the_samples() -> None:
    from arena.games.bridge.observation import BridgeObservation

    # West opened 1NT (15-17 balanced); North (declarer's LHO is North here) leads.
    obs = BridgeObservation(
        seat=0, phase="play", scoring="duplicate", board=1, deal=1, dealer=3,
        vulnerable=(False, False), hand=tuple("2C 3C 4C 5C 2D 3D 4D 2H 3H 4H 2S 3S 4S".split()),
        auction=("1N", "P", "3N", "P", "P", "P"), contract="3NT", declarer=3, dummy=1,
        dummy_hand=(), to_act=0, playing_hand=0, trick_leader=0, current_trick=(), tricks=(),
        tricks_won=(0, 0), games=(0, 0), part_scores=(0, 0), score=(0, 0))
    know = knowledge(obs)
    assert know.constraints[3].lo == 15 and know.constraints[3].hi == 17 and know.constraints[3].balanced
    sampler = DealSampler(know, SeedStream(2))
    for _ in range(40):
        hands = sampler.sample()
        assert 15 <= hcp_of(hands[3]) <= 17
        assert min(lengths_of(hands[3])) >= 2
    assert sampler.level == 0


# -- the bot ---------------------------------------------------------------------------------
def test_registered_with_knobs() -> None:
    assert "pimc" in list_bots("bridge")
    assert check_bot_spec("bridge", "pimc", {"samples": 8, "ms": 0}) == "pimc?ms=0&samples=8"
    bot = make_bot("bridge", "pimc?samples=8&ms=250&scoring=mp")
    assert isinstance(bot, PimcAgent) and (bot.samples, bot.ms, bot.scoring) == (8, 250.0, "mp")
    for bad in ("pimc?samples=0", "pimc?scoring=rubber", "pimc?playouts=3", "heuristic?samples=3"):
        with pytest.raises(ValueError):
            check_bot_spec("bridge", bad)
            make_bot("bridge", bad)


def test_samples_knob_and_determinism() -> None:
    state = _play_state(14)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    cards = []
    for _ in range(2):
        bot = PimcAgent(seed=3, samples=6, ms=0)
        bot.start_match({"match_id": "m", "deadline_ms": 0})
        cards.append(bot.act(obs, legal))
        assert bot.last_samples == 6
        assert cards[-1] in legal
    assert cards[0] == cards[1]


def test_time_knob_stops_sampling() -> None:
    state = _play_state(5)
    seat = state.current_player()
    ticks = iter(range(10_000))
    bot = PimcAgent(seed=1, samples=50, ms=100, min_samples=2, clock=lambda: next(ticks) * 0.04)
    bot.act(state.observation(seat), state.legal_actions())
    assert 2 <= bot.last_samples < 50  # each fake solve takes 40 ms of a 100 ms budget


def test_first_solve_predicted_from_the_match_so_far() -> None:
    """A DDS solve cannot be cut short, so the first solve of a decision is predicted from
    the slowest solve of the match at the same number of cards: when that alone passes the
    budget, the bot solves nothing and plays the heuristic's card (before, one layout was
    always solved, whatever it cost)."""
    from arena.bots.bridge.play import choose_card

    state = _play_state(5)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    ticks = iter(range(10_000))
    bot = PimcAgent(seed=1, samples=3, ms=10_000, clock=lambda: next(ticks) * 0.04)
    bot.start_match({"match_id": "m", "deadline_ms": 0})
    bot.act(obs, legal)
    assert bot.last_samples == 3
    bot.ms = 30.0  # less than one solve took on this clock (at least one 40 ms tick)
    card = bot.act(obs, legal)
    assert bot.last_samples == 0 and card == choose_card(obs, list(legal), {})
    bot.start_match({"match_id": "m2", "deadline_ms": 0})  # a new match forgets the times
    bot.act(obs, legal)  # (a fake clock's times are not kept for the process either)
    assert bot.last_samples == 1


def test_first_solve_of_a_match_predicted_from_the_process(monkeypatch: Any) -> None:
    """On the real clock a match's first solve at a card count is predicted from the
    slowest this process has seen there: each match paid one unpredicted solve per card
    count before (max 3.2 s over 40 boards at load 2-4)."""
    from arena.bots.bridge import pimc
    from arena.bots.bridge.play import choose_card

    state = _play_state(5)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    monkeypatch.setattr(pimc, "_SLOWEST_SEEN", {})  # what other tests left is not this test's
    bot = PimcAgent(seed=1, samples=3, ms=150)
    bot.start_match({"match_id": "m", "deadline_ms": 0})
    bot.act(obs, legal)
    assert bot.last_samples >= 1  # nothing known yet: it solves
    seen = dict(pimc._SLOWEST_SEEN)
    assert seen and all(v > 0 for v in seen.values())
    monkeypatch.setattr(pimc, "_SLOWEST_SEEN", {k: 10.0 for k in seen})  # a slow one seen
    fresh = PimcAgent(seed=1, samples=3, ms=150)
    fresh.start_match({"match_id": "m2", "deadline_ms": 0})
    card = fresh.act(obs, legal)
    assert fresh.last_samples == 0 and card == choose_card(obs, list(legal), {})


def test_default_budget_is_a_wall_budget() -> None:
    bot = make_bot("bridge", "pimc")
    assert isinstance(bot, PimcAgent) and 0 < bot.budget_ms() <= 300


def _held(state: Any, seat: int) -> list[int]:
    """The card ids ``seat`` holds, from its own observation (not the engine's layout)."""
    from arena.bots.bridge.hand import card_ids

    return sorted(card_ids(state.observation(seat).hand))


def test_decision_independent_of_hidden_cards() -> None:
    """Exchanging the cards of the two hidden hands (consistently with the play) changes
    nothing the seat sees, hence nothing it plays, for a fixed seed."""
    state = _play_state(10)
    seat = state.current_player()
    obs = state.observation(seat)
    know = knowledge(obs)
    a, b = know.hidden[0], know.hidden[1]
    game = state.game
    decks = [list(d) for d in state.dealer.realized]
    deck = decks[-1]  # the current deal's shuffle is the last one
    first = (obs.dealer + 1) & 3
    pos = {s: [j for j in range(52) if (first + j) & 3 == s] for s in (a, b)}
    remaining = {s: set(_held(state, s)) for s in (a, b)}
    from arena.bots.bridge.hand import card_id
    swappable = [(i, j) for i in pos[a] for j in pos[b]
                 if card_id(deck[i]) in remaining[a] and card_id(deck[j]) in remaining[b]
                 and card_id(deck[i]) // 13 == card_id(deck[j]) // 13]
    assert swappable, "no same-suit exchange available"
    i, j = swappable[0]
    deck[i], deck[j] = deck[j], deck[i]
    other = game.new_initial_state(decks=decks, board=obs.board)
    for act in state.history:
        other.apply_action(act)
    assert observation_text(other.observation(seat)) == observation_text(obs)
    assert _held(other, a) != _held(state, a)  # the hidden cards really moved
    picks = []
    for s in (state, other):
        bot = PimcAgent(seed=9, samples=5, ms=0)
        bot.start_match({"match_id": "m"})
        picks.append(bot.act(s.observation(seat), s.legal_actions()))
    assert picks[0] == picks[1]


def test_card_scores_for_each_scoring() -> None:
    tricks = {0: 3, 1: 2, 2: 1}
    kw: dict[str, Any] = dict(level=3, strain=4, doubled=0, vulnerable=True, won=6, left=4,
                              declaring=True)
    assert card_scores(tricks, [0, 1, 2], scoring="tricks", **kw) == {0: 3.0, 1: 2.0, 2: 1.0}
    imps = card_scores(tricks, [0, 1, 2], scoring="imps", **kw)
    assert imps[0] == 0.0 and imps[1] < 0 and imps[2] < imps[1]  # 9 tricks make 3NT vul: -12 IMPs
    assert card_scores(tricks, [0, 1, 2], scoring="mp", **kw) == {0: 1.0, 1: 0.5, 2: 0.0}
    # defenders: the same tricks seen from the other side
    d = card_scores({0: 2, 1: 1}, [0, 1], scoring="imps", **{**kw, "declaring": False, "left": 4})
    assert d[0] == 0.0 and d[1] < 0


def test_a_board_against_heuristic_is_legal() -> None:
    game = get_game("bridge")
    agents = [make_bot("bridge", "pimc?samples=2&ms=0", seed=i) if i % 2 == 0 else
              make_bot("bridge", "heuristic") for i in range(4)]
    result = run_match(game, agents, seed=4, match_id="t", init={"board": 4})
    assert result.record.terminal and result.record.faults == []


def test_opening_lead_option() -> None:
    from arena.bots.bridge.play import choose_card

    state = _play_state(0)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    bot = PimcAgent(seed=1, samples=2, ms=0)
    assert bot.act(obs, legal) == choose_card(obs, legal) and bot.last_samples == 0
    searching = PimcAgent(seed=1, samples=2, ms=0, lead="pimc")
    assert searching.act(obs, legal) in legal and searching.last_samples == 2
    with pytest.raises(ValueError, match="lead"):
        PimcAgent(lead="opening")
