"""The referee's policy: refusals with reasons, retries, defaults, timeouts, crashes."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from arena.bots.base import Agent, AgentFailure, DecisionTimeout, RandomAgent
from arena.core.state import Action
from arena.match import run_match
from arena.records.replay import verify_record
from arena.records import record as rec
from arena.testing.toy import HighcardGame


class Scripted(Agent):
    """Answers from a script, then the first legal action; remembers refusals."""

    def __init__(self, answers: Sequence[Any]) -> None:
        self.answers = list(answers)
        self.refusals: list[tuple[str, bool]] = []
        self.kinds: list[str] = []
        self.ended: list[float] | None = None

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Any:
        if self.answers:
            answer = self.answers.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return answer
        return legal_actions[0]

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        self.refusals.append((reason, retry_allowed))
        self.kinds.append(kind)

    def end_match(self, seat: int, returns: Sequence[float]) -> None:
        self.ended = list(returns)


def test_clean_match_records_everything() -> None:
    game = HighcardGame()
    result = run_match(game, [RandomAgent(1), RandomAgent(2)], seed=5, match_id="m1",
                       bot_names=["a", "b"])
    r = result.record
    assert r.terminal and len(r.actions) == 6 and r.faults == []
    assert r.seats == ["a", "b"] and r.ruleset == "highcard@v1"
    assert [a.seat for a in r.actions] == [0, 1, 0, 1, 0, 1]
    assert r.returns == result.state.returns() and sum(r.returns) == 0
    assert all(a.id is not None and a.ms >= 0 for a in r.actions)
    assert r.decks == result.state.dealer.realized


def test_text_answers_are_parsed() -> None:
    game = HighcardGame()
    state = game.new_initial_state(seed=3)
    hand = state.observation(0).hand
    agent = Scripted([hand[0].lower()])
    r = run_match(game, [agent, RandomAgent(0)], seed=3).record
    assert r.actions[0].action == hand[0] and not r.actions[0].default and r.faults == []


def test_illegal_answer_is_refused_with_reason_then_retried() -> None:
    game = HighcardGame()
    state = game.new_initial_state(seed=3)
    opp_card = state.observation(1).hand[0]
    own = state.observation(0).hand[1]
    agent = Scripted([opp_card, "zz", own])
    r = run_match(game, [agent, RandomAgent(0)], seed=3).record
    assert [f.kind for f in r.faults] == ["illegal", "invalid"]
    assert "not in your hand" in r.faults[0].reason and r.faults[0].answer == opp_card
    assert agent.refusals[0][1] is True and agent.refusals[1][1] is True
    assert agent.kinds == ["illegal", "invalid"]
    assert r.actions[0].action == own and not r.actions[0].default


def test_refusals_exhausted_apply_default() -> None:
    game = HighcardGame()
    state = game.new_initial_state(seed=3)
    agent = Scripted(["zz", "zz", "zz", "zz"])
    r = run_match(game, [agent, RandomAgent(0)], seed=3, max_retries=2).record
    first = [f for f in r.faults if f.step == 0]
    assert [f.kind for f in first] == ["invalid"] * 3  # asked exactly three times
    assert [retry for _, retry in agent.refusals[:3]] == [True, True, False]
    assert r.actions[0].default and r.actions[0].id == state.default_action()


def test_timeout_and_crash_and_exception() -> None:
    game = HighcardGame()
    timeout = Scripted([DecisionTimeout("no answer in 10 ms")])
    r = run_match(game, [timeout, RandomAgent(0)], seed=1).record
    assert r.faults[0].kind == "timeout" and r.actions[0].default and r.terminal

    crash = Scripted([AgentFailure("stream closed")])
    r = run_match(game, [crash, RandomAgent(0)], seed=1).record
    kinds = [f.kind for f in r.faults]
    assert kinds == ["crash", "absent"], kinds  # never asked again (its last card is forced)
    assert all(a.default or a.forced for a in r.actions if a.seat == 0) and r.terminal
    assert crash.ended is None  # an absent agent gets no end_match

    buggy = Scripted([ZeroDivisionError("oops")])
    r = run_match(game, [buggy, RandomAgent(0)], seed=1).record
    assert r.faults[0].kind == "exception" and "ZeroDivisionError" in r.faults[0].reason


def test_late_answer_is_discarded() -> None:
    game = HighcardGame()
    ticks = iter(range(0, 10_000, 1))
    clock = lambda: float(next(ticks))  # noqa: E731 - each call is one second later
    agent = Scripted([])
    r = run_match(game, [agent, RandomAgent(0)], seed=1, deadline_ms=500, clock=clock).record
    assert len(r.faults) == 4 and all(f.kind == "late" for f in r.faults)
    assert [a.default for a in r.actions] == [True] * 4 + [False] * 2
    assert [a.forced for a in r.actions] == [False] * 4 + [True] * 2


def test_a_single_legal_card_is_played_without_asking() -> None:
    game = HighcardGame()
    agents = [Scripted([]), Scripted([])]
    asked: list[int] = []
    for i, agent in enumerate(agents):
        original = agent.act
        agent.act = lambda obs, legal, _o=original, _i=i: (asked.append(len(legal)), _o(obs, legal))[1]  # type: ignore[method-assign]
    r = run_match(game, agents, seed=2).record
    assert asked == [3, 3, 2, 2]  # never asked with one card left
    assert [a.forced for a in r.actions] == [False] * 4 + [True] * 2 and r.terminal


def test_record_round_trip_and_verify(toy_registered: str) -> None:
    game = HighcardGame()
    r = run_match(game, [RandomAgent(1), RandomAgent(2)], seed=9).record
    buf = io.StringIO()
    rec.dump([r, r], buf)
    loaded = rec.load(io.StringIO(buf.getvalue()))
    assert loaded == [r, r]
    assert verify_record(loaded[0]).ok
    tampered = rec.loads(rec.dumps(r))
    tampered.returns = [5.0, -5.0]
    v = verify_record(tampered)
    assert not v.ok and "returns" in v.reason
    tampered = rec.loads(rec.dumps(r))
    tampered.actions[1].action = tampered.actions[0].action
    v = verify_record(tampered)
    assert not v.ok and "does not replay" in v.reason


def test_bad_lines_are_collected_not_fatal() -> None:
    r = run_match(HighcardGame(), [RandomAgent(1), RandomAgent(2)], seed=9).record
    text = rec.dumps(r) + "\n{not json\n" + '{"x": 1}\n' + rec.dumps(r) + "\n"
    errors: list[Any] = []
    got = list(rec.read_records(io.StringIO(text), errors))
    assert len(got) == 2 and [e.lineno for e in errors] == [2, 3]


def test_record_to_dict_equals_asdict_and_is_independent() -> None:
    """``MatchRecord.to_dict`` is built by hand for speed: it must equal the
    generic ``dataclasses.asdict`` (so a new field cannot be forgotten) and share
    no mutable part with the record."""
    import dataclasses

    from arena.bots import make_bot
    from arena.games import get_game

    game = get_game("calypso")
    result = run_match(game, [make_bot("calypso", "random", seed=s) for s in range(4)], seed=5,
                       tags={"nested": {"a": [1, 2]}}, match_id="m")
    record = result.record
    record.faults.append(rec.Fault(seat=1, step=3, kind="timeout", reason="slow", answer="x"))
    data = record.to_dict()
    assert data == dataclasses.asdict(record)
    data["tags"]["nested"]["a"].append(3)
    data["actions"][0]["seat"] = 99
    data["decks"][0].append("XX")
    assert record.tags["nested"]["a"] == [1, 2]
    assert record.actions[0].seat != 99
    assert "XX" not in record.decks[0]
    assert rec.loads(rec.dumps(record)) == record


def test_records_carry_the_games_own_points_beside_the_returns() -> None:
    from arena.bots import make_bot
    from arena.games import get_game
    from arena.records.replay import replay_record
    from arena.records.record import MatchRecord, dumps, loads

    game = get_game("canasta", preset="classic-2p", deals=1)
    result = run_match(game, [make_bot("canasta", "heuristic", seed=1), make_bot("canasta", "random", seed=2)],
                       seed=11)
    rec = result.record
    state = replay_record(rec)
    assert rec.points == [float(x) for x in game.match_points(state)] and len(rec.points) == 2
    assert rec.points != rec.returns and max(abs(x) for x in rec.points) >= 50  # points, not ranks
    assert loads(dumps(rec)).points == rec.points
    old = rec.to_dict()
    del old["points"]  # a record written before the field existed still reads
    assert MatchRecord.from_dict(old).points == []
    bridge = run_match(get_game("bridge"), [make_bot("bridge", "random", seed=s) for s in range(4)], seed=3)
    assert bridge.record.points == []  # the returns are the points


class Binding(Scripted):
    """A search bot's interface: takes the seat's information set before each decision
    (the first time it raises)."""

    def __init__(self) -> None:
        super().__init__([])
        self.bound: list[Any] = []

    def bind_information_set(self, infoset: Any) -> None:
        if not self.bound:
            self.bound.append(None)
            raise KeyError("no such card")
        self.bound.append(infoset)


def test_information_set_is_bound_and_a_bots_bind_error_is_its_fault() -> None:
    from arena.match.infoset import InformationSet

    game = HighcardGame()
    bot = Binding()
    r = run_match(game, [bot, RandomAgent(0)], seed=1).record
    asked = [a for a in r.actions if a.seat == 0 and not a.forced]
    assert len(bot.bound) == len(asked) >= 2
    assert all(isinstance(i, InformationSet) and i.seat == 0 for i in bot.bound[1:])
    # the bot's own error is recorded, and the bot is asked all the same
    assert [f.kind for f in r.faults] == ["exception"], r.faults
    assert "bind_information_set: KeyError" in r.faults[0].reason
    assert not asked[0].default and r.terminal
