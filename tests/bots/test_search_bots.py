"""The determinized ``pimc`` bots of canasta, calypso, robber rummy and auction:
information sets that forget the hidden cards, decisions independent of them,
legal actions only, knobs respected, determinism."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots import check_bot_spec, list_bots, make_bot
from arena.bots.search import DeterminizedAgent
from arena.bots.calypso import CalypsoSearch
from arena.bots.rummy import RummySearch
from arena.bots.search.flat import make_search_bot
from arena.match.infoset import InformationSet, observation_text
from arena.core.dealing import SeedStream
from arena.core.errors import ArenaError
from arena.core.state import State
from arena.games import get_game
from arena.match.referee import run_match

CASES: list[tuple[str, dict[str, Any], int]] = [
    ("canasta", {"preset": "classic-2p"}, 30),
    ("calypso", {}, 23),
    ("rummy", {"preset": "4p", "deals": 1}, 9),
    ("auction", {"preset": "4p"}, 9),
]
"""(game, options, actions played by heuristic bots before the decision tested)."""

BUDGET = "pimc?playouts=6&width=3&ms=0"


def _searched(state: State) -> bool:
    """Whether the player to act has a choice the pimc bot searches (rummy: not a turn
    where it holds its melds back, see ``arena.bots.rummy._holds_back``)."""
    if len(state.legal_actions()) <= 1:
        return False
    if state.game.name == "rummy":
        from arena.bots.rummy import _holds_back

        return not _holds_back(state.observation(state.current_player()), 2)
    return True


def _position(game_name: str, options: dict[str, Any], steps: int, seed: int = 3) -> State:
    """A state after ``steps`` heuristic actions or more where the player to act has a
    choice that the pimc bot searches."""
    game = get_game(game_name, **options)
    bots = [make_bot(game_name, "heuristic", seed=s) for s in range(game.num_players)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if len(state.history) >= steps and _searched(state):
            return state
        seat = state.current_player()
        answer = bots[seat].act(state.observation(seat), state.legal_actions())
        state.apply_action(state.string_to_action(answer) if isinstance(answer, str) else answer)
    raise AssertionError(f"{game_name}: no decision after {steps} actions")


def _exchanged(state: State, seat: int) -> State:
    """The same history on decks where two cards hidden from ``seat`` changed places
    (and the replay shows ``seat`` the same observation): the conformance leak test."""
    rng = SeedStream("exchange")
    hidden = state.hidden_positions(seat)
    decks = state.dealer.realized
    base = observation_text(state.observation(seat))
    for _ in range(500):
        (d1, p1), (d2, p2) = rng.choice(hidden), rng.choice(hidden)
        if d1 != d2 or decks[d1][p1] == decks[d2][p2]:
            continue
        swapped = [list(d) for d in decks]
        swapped[d1][p1], swapped[d2][p2] = swapped[d2][p2], swapped[d1][p1]
        try:
            other = state.game.new_initial_state(seed=state.dealer.seed, decks=swapped,
                                                 **state._init_kwargs)
            for a in state.history:
                other.apply_action(a)
        except ArenaError:
            continue
        if observation_text(other.observation(seat)) == base:
            return other
    raise AssertionError("no consistent exchange found")


def _decide(state: State, seed: int = 5, spec: str = BUDGET) -> tuple[Any, DeterminizedAgent]:
    seat = state.current_player()
    bot = make_bot(state.game.name, spec, seed=seed)
    assert isinstance(bot, DeterminizedAgent)
    bot.start_match({"match_id": "m", "seat": seat, "num_players": state.game.num_players})
    bot.bind_information_set(InformationSet(state, seat))
    return bot.act(state.observation(seat), state.legal_actions()), bot


@pytest.mark.parametrize("game_name,options,steps", CASES, ids=[c[0] for c in CASES])
def test_decision_independent_of_hidden_cards(game_name: str, options: dict[str, Any], steps: int) -> None:
    state = _position(game_name, options, steps)
    seat = state.current_player()
    other = _exchanged(state, seat)
    assert other.dealer.realized != state.dealer.realized  # the hidden cards really moved
    a, b = InformationSet(state, seat), InformationSet(other, seat)
    assert (a.decks, a.pools, a.hidden, a.actions) == (b.decks, b.pools, b.hidden, b.actions)
    for d, positions in a.hidden:
        assert all(a.decks[d][p] is None for p in positions)  # the true cards are not kept
    first, bot = _decide(state)
    second, _ = _decide(other)
    assert first == second
    assert bot.last_playouts > 0, "the search must really run"


@pytest.mark.parametrize("game_name,options,steps", CASES, ids=[c[0] for c in CASES])
def test_legal_knobs_and_determinism(game_name: str, options: dict[str, Any], steps: int) -> None:
    state = _position(game_name, options, steps, seed=7)
    action, bot = _decide(state)
    state.clone().validate(action)  # legal (rummy may choose a solver play not listed)
    assert 0 < bot.last_playouts <= 6
    assert len(bot.last_candidates) <= 3
    again, _ = _decide(state)
    assert again == action
    # samples are consistent with the seat's view
    seat = state.current_player()
    infoset = InformationSet(state, seat)
    sample = infoset.sample(SeedStream(1))
    assert sample is not None
    assert observation_text(sample.observation(seat)) == observation_text(state.observation(seat))


def test_time_knob_and_fallback() -> None:
    state = _position("calypso", {}, 23)
    seat = state.current_player()
    ticks = iter(range(10_000_000))
    bot = CalypsoSearch(seed=1, playouts=1000, width=3, ms=50,
                            clock=lambda: next(ticks) * 0.00001)
    bot.start_match({"match_id": "m", "seat": seat, "num_players": 4})
    bot.bind_information_set(InformationSet(state, seat))
    bot.act(state.observation(seat), state.legal_actions())
    assert 0 < bot.last_playouts < 1000
    # no information set offered (e.g. over the protocol): the heuristic's choice, no search
    plain = make_bot("calypso", "heuristic")
    bot.act(state.observation(seat), state.legal_actions())
    assert bot.last_playouts == 0
    assert bot.act(state.observation(seat), state.legal_actions()) == \
        plain.act(state.observation(seat), state.legal_actions())


class _Ticks:
    """A fake clock: every call is ``step`` seconds later (the search reads the clock
    before each round, each sample try and each rollout step)."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        return self.calls * self.step


def _budgeted(state: State, ms: float, clock: Any, width: int = 3,
              playouts: int = 60) -> DeterminizedAgent:
    seat = state.current_player()
    options: dict[str, Any] = {"playouts": playouts, "width": width, "ms": ms}
    if state.game.name == "rummy":
        options.update(depth=8, gate=1.5, hold=-1)
    bot = make_bot(state.game.name, "pimc", seed=2, clock=clock, **options)
    assert isinstance(bot, DeterminizedAgent)
    bot.start_match({"match_id": "m", "seat": seat, "num_players": state.game.num_players})
    bot.bind_information_set(InformationSet(state, seat))
    bot.act(state.observation(seat), state.legal_actions())
    return bot


@pytest.mark.parametrize("game_name,options,steps", CASES, ids=[c[0] for c in CASES])
def test_time_budget_is_checked_inside_the_search(game_name: str, options: dict[str, Any],
                                                  steps: int) -> None:
    """On a fake clock (1 ms a reading): a budget of 6 ms stops the search inside its first
    rounds, within a reading of the budget, where 1,000,000 ms lets it run all its
    playouts; the rounds started and not finished are dropped (no partial round counts)."""
    state = _position(game_name, options, steps)
    large = _budgeted(state, 1e6, _Ticks(0.001))
    assert large.last_stopped == "playouts" and large.last_rounds * len(large.last_candidates) > 6
    clock = _Ticks(0.001)
    tiny = _budgeted(state, 6, clock)
    assert tiny.last_stopped == "time"
    assert tiny.last_rounds < large.last_rounds
    if game_name != "auction":  # auction counts its round simulations instead
        assert tiny.last_playouts == tiny.last_rounds * len(tiny.last_candidates)
    # the clock starts when the information set is bound; a rollout stops at the first
    # reading past the deadline, and nothing reads the clock after it
    assert clock.calls * 0.001 <= 0.001 + 0.006 + 0.001 + 1e-9


@pytest.mark.parametrize("game_name,options,steps", CASES, ids=[c[0] for c in CASES])
def test_tiny_wall_budget_on_a_long_search(game_name: str, options: dict[str, Any], steps: int) -> None:
    """On the real clock: with a million playouts and ``ms=1`` the bot answers after at most
    a sample and a rollout step past the budget (no round of width rollouts can fit in 1 ms,
    so none is counted); the bound asserted is generous (2 s) so that load cannot flake it."""
    import time

    state = _position(game_name, options, steps)
    t0 = time.perf_counter()
    bot = _budgeted(state, 1, time.perf_counter, width=6, playouts=1_000_000)
    assert time.perf_counter() - t0 < 2.0
    assert bot.last_stopped == "time" and bot.last_rounds == 0


def test_budget_defaults_and_deadline_cap() -> None:
    """Every game's default has a wall budget; it never exceeds a quarter of the match's
    deadline; ``ms=0`` has none at all (count-only: reproducible)."""
    for g in ("canasta", "calypso", "rummy", "auction"):
        bot = make_bot(g, "pimc")
        assert isinstance(bot, DeterminizedAgent)
        bot.start_match({"match_id": "m", "seat": 0, "num_players": 4, "deadline_ms": 10_000})
        assert 0 < bot.budget_ms() <= 300
        bot.start_match({"match_id": "m", "seat": 0, "num_players": 4, "deadline_ms": 400})
        assert bot.budget_ms() == 100
        plain = make_bot(g, "pimc?ms=0")
        assert isinstance(plain, DeterminizedAgent)
        plain.start_match({"match_id": "m", "seat": 0, "num_players": 4, "deadline_ms": 400})
        assert plain.budget_ms() == 0


def test_registered_everywhere_with_options() -> None:
    for g in ("canasta", "calypso", "rummy", "auction"):
        assert "pimc" in list_bots(g)
        assert check_bot_spec(g, "pimc", {"playouts": 8, "ms": 250}) == "pimc?ms=250&playouts=8"
        with pytest.raises(ValueError):
            check_bot_spec(g, "pimc?samples=3")
        with pytest.raises(ValueError):
            make_bot(g, "pimc?playouts=0")


def test_a_match_through_the_referee() -> None:
    """The referee offers the information set; the bot searches and never faults."""
    game = get_game("auction", preset="4p")
    bots = [make_bot("auction", "pimc?playouts=4&width=3" if s % 2 == 0 else "heuristic", seed=s)
            for s in range(4)]
    result = run_match(game, bots, seed=11, match_id="t")
    assert result.record.terminal and result.record.faults == []
    searchers = [b for b in bots if isinstance(b, DeterminizedAgent)]
    assert len(searchers) == 2 and sum(b.searches for b in searchers) > 0


def _rummy_position_where_the_solver_sheds_more() -> tuple[State, Any, Any]:
    """A 2-player position from heuristic self-play where the whole-table solve lays more
    (or costlier) cards than the heuristic's own solver (it goes local above 36 live cards)."""
    from arena.bots.rummy import _outcome
    from arena.bots.rummy import _candidates
    from arena.games.rummy.melds import INDEX

    game = get_game("rummy", preset="2p", deals=1)
    for seed in range(100, 110):
        state = game.new_initial_state(seed=seed)
        bots = [make_bot("rummy", "heuristic", seed=s) for s in range(2)]
        while not state.is_terminal():
            seat = state.current_player()
            obs: Any = state.observation(seat)
            legal = state.legal_actions()
            choice = bots[seat].act(obs, legal)
            if not obs.initial_meld_pending and sum(len(m) for m in obs.table) >= 30:
                best = _candidates(obs, legal, choice, 80, 1000)[0]
                hand = [0] * 52
                for t in obs.hand:
                    hand[INDEX[t]] += 1
                table = [0] * 52
                for m in obs.table:
                    for t in m:
                        table[INDEX[t]] += 1
                if _outcome(hand, table, best) < _outcome(hand, table, choice):
                    return state, choice, best
            state.apply_action(choice)
    raise AssertionError("no position found where the whole-table solve beats the heuristic")


def test_rummy_candidates_shed_at_least_as_much_as_the_heuristic() -> None:
    """The rummy bot's first candidate comes from a bigger solve than the heuristic's; it is a
    valid play, and the bot plays it without an information set (no search) or with a gate no
    rollout advantage clears."""
    state, choice, best = _rummy_position_where_the_solver_sheds_more()
    assert best != choice
    state.clone().apply_action(best)  # valid in the real state
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    rummy_pimc = make_search_bot(RummySearch)
    plain = rummy_pimc(seed=1, hold=-1, pool=80, states=1000, ms=0)  # hold=-1: never holds back; ms=0: no clock
    plain.start_match({"match_id": "m", "seat": seat, "num_players": 2})
    assert plain.act(obs, legal) == best  # over the protocol: no information set, no search
    gated = rummy_pimc(seed=1, playouts=8, width=3, gate=1000, hold=-1, ms=0, pool=80, states=1000)
    assert isinstance(gated, DeterminizedAgent)
    gated.start_match({"match_id": "m", "seat": seat, "num_players": 2})
    gated.bind_information_set(InformationSet(state, seat))
    assert gated.act(obs, legal) == best
    assert gated.last_playouts > 0 and gated.last_candidates[0] == best


def test_rummy_holds_back_while_the_others_hold_many_cards() -> None:
    """After its initial meld and while the stock lasts, the rummy bot passes (keeps its
    melds in hand) unless it can go out or another hand is down to ``hold`` cards; before
    its initial meld, with an empty stock or with ``hold=-1`` it plays as before."""
    from arena.bots.rummy import _candidates, _empties_hand, _going_out, _holds_back
    from arena.games.rummy.actions import PASS

    game = get_game("rummy", preset="2p", deals=1)
    bots = [make_bot("rummy", "heuristic", seed=s) for s in range(2)]
    state = game.new_initial_state(seed=5)
    checked = held = 0
    while not state.is_terminal():
        seat = state.current_player()
        obs: Any = state.observation(seat)
        legal = state.legal_actions()
        choice = bots[seat].act(obs, legal)
        expect_hold = (not obs.initial_meld_pending and obs.stock_size > 0
                       and obs.hand_sizes[1 - seat] > 2)
        assert _holds_back(obs, 2) == expect_hold and not _holds_back(obs, -1)
        if expect_hold:
            # the cheap going-out check agrees with the whole-table solve (or does better)
            out = _going_out(obs)
            first = _candidates(obs, legal, choice, 60, 1500)[0]
            if out is not None and out != PASS:
                after = state.clone()
                after.apply_action(out)
                assert after.is_terminal()  # the hand emptied: the (only) deal is over
            elif out == PASS:
                assert not _empties_hand(obs, first)
        if choice != PASS and checked < 6:
            pimc = make_search_bot(RummySearch)(seed=1, ms=0)  # count-only: the load cannot cut it
            pimc.start_match({"match_id": "m", "seat": seat, "num_players": 2})
            first = _candidates(obs, legal, choice, 60, 1500)[0]
            laid = sum(len(m) for m in getattr(first, "layout", None) or ()) - sum(len(m) for m in obs.table)
            goes_out = laid >= len(obs.hand)
            answer = pimc.act(obs, legal)
            if expect_hold and not goes_out:
                assert answer == PASS
                held += 1
            else:
                assert answer == first
            checked += 1
        state.apply_action(choice)
    assert held > 0


def test_rummy_going_out_check_on_a_held_turn() -> None:
    """``_going_out`` lays hand + table when they all fit in melds, else passes."""
    from types import SimpleNamespace

    from arena.bots.rummy import _going_out
    from arena.games.rummy.actions import PASS, RummyAction

    table = (("4C", "5C", "6C"),)
    out = _going_out(SimpleNamespace(hand=("7C", "2D", "3D", "4D"), table=table))
    assert isinstance(out, RummyAction) and out.layout is not None
    assert sorted(t for m in out.layout for t in m) == sorted(["4C", "5C", "6C", "7C", "2D", "3D", "4D"])
    assert _going_out(SimpleNamespace(hand=("7C", "2D", "3D", "4D", "KS"), table=table)) == PASS
    assert _going_out(SimpleNamespace(hand=("7C", "2D", "3D", "5D"), table=table)) == PASS


def test_gate_keeps_the_first_candidate_unless_clearly_better() -> None:
    bot = CalypsoSearch(gate=2.0)
    assert not bot._clears_gate([0.0, 1.0])  # mean 0.5, standard error 0.5: 1 se only
    assert bot._clears_gate([3.0, 3.2, 2.8, 3.1])
    assert not bot._clears_gate([5.0])  # one sample: no error estimate
    assert not bot._clears_gate([float("-inf"), 4.0])
    assert CalypsoSearch()._clears_gate([0.1])  # gate 0: any advantage
    with pytest.raises(ValueError):
        make_bot("calypso", "pimc?gate=-1")


def test_calypso_candidates_are_the_heuristics_best_cards() -> None:
    """The calypso bot's width keeps the heuristic's highest-scored cards (its choice first),
    not the lowest card ids."""
    from arena.bots.calypso import CalypsoHeuristicAgent

    state = _position("calypso", {}, 23)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    assert len(legal) > 3
    heuristic = CalypsoHeuristicAgent()
    ranked = heuristic.ranked(obs, legal)
    assert sorted(ranked) == sorted(legal) and ranked[0] == heuristic.act(obs, legal)
    scores = dict(heuristic._scores(obs, [int(a) for a in legal]))
    assert all(scores[a] >= scores[b] - 1e-9 for a, b in zip(ranked[1:], ranked[2:]))
    _, bot = _decide(state)
    assert bot.last_candidates == ranked[:3]


def test_rummy_shed_rollout_policy_plays_valid_and_sheds_at_least_as_much() -> None:
    """The rummy rollout policy's plays are valid and leave no more cards (then points) in
    hand than the best listed action."""
    from arena.bots.rummy import _counts, _outcome
    from arena.bots.rummy import ListedGreedyRummy, ShedRummy

    game = get_game("rummy", preset="2p", deals=1)
    shed, listed = ShedRummy(), ListedGreedyRummy()
    differ = 0
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            seat = state.current_player()
            obs: Any = state.observation(seat)
            legal = state.legal_actions()
            a, b = shed.act(obs, legal), listed.act(obs, legal)
            hand, _, table = _counts(obs)
            assert _outcome(hand, table, a) <= _outcome(hand, table, b)
            if a != b:
                differ += 1
                assert a not in legal  # a play the listing lacks
            state.clone().validate(a)
            state.apply_action(a)
    assert differ > 0


def test_rummy_anytime_heuristic_is_the_heuristic_without_a_deadline_and_stops_at_one() -> None:
    """Rummy ``pimc``'s own copy of the heuristic's choice (its local search ``_improve``
    reads the clock before each neighbourhood solve): without a deadline it plays what
    :class:`arena.bots.rummy.HeuristicAgent` plays; with the clock past the deadline it
    solves no neighbourhood and still answers a valid play no worse than the listed ones."""
    from arena.bots.rummy import HeuristicAgent, _counts, _outcome
    from arena.bots.rummy import _anytime_heuristic, _improve
    from arena.games.rummy import solver

    game = get_game("rummy", preset="2p", deals=1)
    heuristic = HeuristicAgent()
    state = game.new_initial_state(seed=3)
    compared = cut = 0
    while not state.is_terminal():
        seat = state.current_player()
        obs: Any = state.observation(seat)
        legal = state.legal_actions()
        choice = heuristic.act(obs, legal)
        if len(legal) > 1:
            assert _anytime_heuristic(obs, legal) == choice
            compared += 1
            hand, melds, table = _counts(obs)
            big = sum(solver.live_cards([h + t for h, t in zip(hand, table)])) > solver.GLOBAL_POOL
            if not obs.initial_meld_pending and big and cut < 3:
                full = _improve(hand, melds, max_states=solver.DEFAULT_MAX_STATES,
                                take=not obs.strict_table)
                assert full == solver.improve(hand, melds, take=not obs.strict_table)
                late = _anytime_heuristic(obs, legal, deadline=0.0, clock=lambda: 1.0)
                state.clone().apply_action(late)  # valid
                best_listed = min(_outcome(hand, table, a) for a in legal if hasattr(a, "layout"))
                assert _outcome(hand, table, late) <= best_listed
                cut += 1
        state.apply_action(choice)
    assert compared > 10 and cut > 0


def test_canasta_ranked_starts_with_the_heuristics_choice_and_mid_hand_value() -> None:
    """The canasta heuristic's ``ranked`` (pimc's candidate order) is a permutation of the
    legal actions led by its own choice, melds before discards in the play phase, the
    discards cheapest first; the mid-hand value of a depth-limited rollout is the cumulative
    score plus the hand's score so far, and 0 for both sides at the deal (nothing melded,
    cards in hand counted against)."""
    from arena.bots.canasta import CanastaHeuristicAgent
    from arena.bots.canasta import canasta_points

    game = get_game("canasta", preset="classic", deals=1)
    state = game.new_initial_state(seed=4)
    bot = CanastaHeuristicAgent()
    start = canasta_points(game, state)
    assert start[0] == start[2] and start[1] == start[3] and start[0] < 0
    checked = 0
    while not state.is_terminal() and checked < 60:
        seat = state.current_player()
        obs: Any = state.observation(seat)
        legal = state.legal_actions()
        choice = bot.act(obs, legal)
        order = bot.ranked(obs, legal)
        assert order[0] == choice and sorted(map(str, order)) == sorted(map(str, legal))
        kinds = [a.kind for a in order[1:]]
        if obs.phase == "play" and "meld" in kinds and "discard" in kinds:
            assert max(i for i, k in enumerate(kinds) if k == "meld") < \
                min(i for i, k in enumerate(kinds) if k == "discard")
        if choice.kind == "discard":
            assert choice == next(a for a in order if a.kind == "discard")
        state.apply_action(choice)
        checked += len(legal) > 1
    pts = canasta_points(game, state)
    assert pts[0] == pts[2] and pts[1] == pts[3]
