"""The gateway over real loopback gRPC: matches, faults, authentication, isolation.

Bots here run the Python SDK on their own thread and event loop (no fork); the
tests in ``tests/clients/`` run SDK and Node.js bots as separate processes.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from typing import Any

import grpc
import pytest

from arena.bot.v1 import bot_pb2, bot_pb2_grpc
from arena.bots.base import AgentFailure, DecisionTimeout, MatchInfo
from arena.core.cards import card_index
from arena.gateway import Gateway, GatewayConfig
from arena.gateway.session import CloseCode
from arena.match.referee import run_match
from arena.testing.toy import HighcardGame

from gateway.helpers import BotThread  # noqa: I001 - tests/ is on sys.path (package tests)
from arenabot import Bot, BotStopped, RandomBot


def _asked(record: Any, seat: int | None = None) -> int:
    """Decisions the referee asked for (it applies a sole legal action itself)."""
    return sum(1 for a in record.actions if not a.forced and (seat is None or a.seat == seat))


def _connect(gw: Gateway, bot: Bot, bot_id: str, token: str, **kwargs: Any) -> BotThread:
    thread = BotThread(bot, gw.target, token, **kwargs).start()
    assert gw.wait_connected(bot_id, 10), f"{bot_id} did not connect"
    return thread


class RawStream:
    """A hand-driven bot stream (sync gRPC client) for protocol-level tests."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.outgoing: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect(iter(self.outgoing.get, None))
        self.incoming: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.call:
                self.incoming.put(message)
        except grpc.RpcError as exc:
            self.incoming.put(exc)
        self.incoming.put(None)

    def send(self, **kind: Any) -> None:
        self.outgoing.put(bot_pb2.BotMessage(**kind))

    def receive(self, kind: str | None = None, timeout: float = 5.0) -> Any:
        """The next message (skipping pings unless asked for), an RpcError, or None at the end."""
        end = time.monotonic() + timeout
        while True:
            item = self.incoming.get(timeout=max(0.01, end - time.monotonic()))
            if isinstance(item, bot_pb2.ArenaMessage) and item.WhichOneof("kind") == "ping" and kind != "ping":
                continue
            return item

    def close(self) -> None:
        self.outgoing.put(None)
        self.channel.close()


def test_match_through_gateway_no_faults(gateway: Gateway) -> None:
    _, token = gateway.registry.register("py-random")
    bot = RandomBot(seed=1)
    thread = _connect(gateway, bot, "py-random", token)
    try:
        asked = 0
        for seed in range(3):
            result = run_match(HighcardGame(), [gateway.agent("py-random"), gateway.agent("py-random")],
                               seed=seed, match_id=f"m{seed}", deadline_ms=3000)
            assert result.record.faults == [] and len(result.record.actions) == 6
            assert sum(result.record.returns) == 0
            asked += _asked(result.record)
        assert bot.decisions == asked > 0
    finally:
        thread.stop()


def test_bad_token_rejected(gateway: Gateway) -> None:
    gateway.registry.register("someone")
    thread = BotThread(RandomBot(), gateway.target, "arena_bot_wrong").start()
    thread.join(10)
    assert isinstance(thread.error, BotStopped)
    assert thread.error.code == grpc.StatusCode.UNAUTHENTICATED
    raw = RawStream(gateway.target)
    raw.send(hello=bot_pb2.Hello(token=""))
    err = raw.receive()
    assert isinstance(err, grpc.RpcError) and err.code() == grpc.StatusCode.UNAUTHENTICATED
    raw.close()


def test_first_message_must_be_a_valid_hello(gateway: Gateway) -> None:
    raw = RawStream(gateway.target)
    raw.send(pong=bot_pb2.Pong(nonce=1))
    err = raw.receive()
    assert isinstance(err, grpc.RpcError) and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    raw.close()
    _, token = gateway.registry.register("long-name")
    raw = RawStream(gateway.target)
    raw.send(hello=bot_pb2.Hello(token=token, bot_name="n" * 101))
    err = raw.receive()
    assert isinstance(err, grpc.RpcError) and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 100" in (err.details() or "")
    raw.close()


def _welcomed_raw(gateway: Gateway, bot_id: str, concurrent: int = 1) -> RawStream:
    _, token = gateway.registry.register(bot_id)
    raw = RawStream(gateway.target)
    raw.send(hello=bot_pb2.Hello(token=token, bot_name="raw", max_concurrent_decisions=concurrent))
    welcome = raw.receive()
    assert welcome.WhichOneof("kind") == "welcome" and welcome.welcome.bot_id == bot_id
    return raw


def _request(game: str = "highcard") -> bot_pb2.DecisionRequest:
    state = HighcardGame().new_initial_state(seed=5)
    request = bot_pb2.DecisionRequest(match_id="raw", game=game, ruleset="highcard@v1", seat=0, attempt=1)
    for a in state.legal_actions():
        request.legal_actions.add(id=a, text=state.action_to_string(a))
    request.highcard.hand.extend(state.observation(0).hand)
    return request


def test_malformed_messages_get_decision_errors(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "raw-bot")
    raw.send()  # an empty envelope
    err = raw.receive().decision_error
    assert err.code == bot_pb2.DECISION_ERROR_CODE_MALFORMED and "empty" in err.reason
    raw.send(decision=bot_pb2.Decision(request_id=999, action_id=3))
    err = raw.receive().decision_error
    assert err.code == bot_pb2.DECISION_ERROR_CODE_UNKNOWN_REQUEST and err.request_id == 999
    raw.send(hello=bot_pb2.Hello(token="again"))
    assert raw.receive().decision_error.code == bot_pb2.DECISION_ERROR_CODE_MALFORMED
    # a decision without an action: refused with retry_allowed, and the retry is a NEW
    # DecisionRequest (new request_id, attempt + 1), as bot.proto says
    router = gateway.router
    assert router is not None
    answer: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answer.put(router.decide("raw-bot", _request(), 5.0)), daemon=True).start()
    request = raw.receive().decision_request
    assert request.attempt == 1
    raw.send(decision=bot_pb2.Decision(request_id=request.request_id))
    err = raw.receive().decision_error
    assert err.code == bot_pb2.DECISION_ERROR_CODE_MALFORMED and err.retry_allowed
    assert err.request_id == request.request_id
    retry = raw.receive().decision_request
    assert retry.request_id != request.request_id and retry.attempt == 2
    assert retry.legal_actions == request.legal_actions and 0 < retry.deadline_ms <= 5000
    raw.send(decision=bot_pb2.Decision(request_id=retry.request_id, action_text=""))  # malformed again
    err = raw.receive().decision_error
    assert err.code == bot_pb2.DECISION_ERROR_CODE_MALFORMED and err.retry_allowed
    third = raw.receive().decision_request
    assert third.attempt == 3
    raw.send(decision=bot_pb2.Decision(request_id=third.request_id, action_text="AS"))
    assert answer.get(timeout=5).action_text == "AS"
    # the first id is closed: answering it now is refused, and changes nothing
    raw.send(decision=bot_pb2.Decision(request_id=request.request_id, action_text="KS"))
    assert raw.receive().WhichOneof("kind") == "decision_error"
    raw.close()


def test_garbage_bytes_end_the_stream_not_the_gateway(gateway: Gateway) -> None:
    _, token = gateway.registry.register("garbage")
    channel = grpc.insecure_channel(gateway.target)
    connect = channel.stream_stream("/arena.bot.v1.BotService/Connect",
                                    request_serializer=lambda b: b, response_deserializer=lambda b: b)
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token)).SerializeToString()
    call = connect(iter([hello, b"\xff\xfe garbage \x00\x01", b"\x0a\xff"]))
    with pytest.raises(grpc.RpcError):
        for _ in call:
            pass
    # a bounded flood of random byte strings, each on a fresh authenticated stream
    rng = random.Random(7)
    for _ in range(10):
        junk = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))) for _ in range(5)]
        call = connect(iter([hello, *junk]))
        try:
            for _ in call:
                pass
        except grpc.RpcError:
            pass
    channel.close()
    # the gateway still serves others
    _, good = gateway.registry.register("after-garbage")
    thread = _connect(gateway, RandomBot(), "after-garbage", good)
    result = run_match(HighcardGame(), [gateway.agent("after-garbage")] * 2, seed=1, deadline_ms=3000)
    assert result.record.faults == []
    thread.stop()


class IllegalFirst(Bot):
    """Answers every first attempt with a card it does not hold, then a legal one."""

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        if request.attempt == 1:
            legal = {la.id for la in request.legal_actions}
            return next(i for i in range(52) if i not in legal)
        return request.legal_actions[0].text


def test_illegal_action_gets_reason_and_retry(gateway: Gateway) -> None:
    _, token = gateway.registry.register("illegal")
    bot = IllegalFirst()
    thread = _connect(gateway, bot, "illegal", token)
    try:
        result = run_match(HighcardGame(), [gateway.agent("illegal"), gateway.agent("illegal")],
                           seed=2, deadline_ms=3000)
        record = result.record
        asked = _asked(record)
        assert [f.kind for f in record.faults] == ["illegal"] * asked and asked > 0
        assert not any(a.default for a in record.actions)
        deadline = time.monotonic() + 5
        while len(bot.errors) < asked and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(bot.errors) == asked
        first = bot.errors[0]
        assert first.code == bot_pb2.DECISION_ERROR_CODE_ILLEGAL_ACTION and first.retry_allowed
        assert first.reason.endswith("is not in your hand") and first.request_id > 0
    finally:
        thread.stop()


class Silent(Bot):
    """Never answers (but keeps the stream alive with Pongs)."""

    def decide(self, request: bot_pb2.DecisionRequest) -> None:  # type: ignore[override]
        return None


def test_bot_that_never_answers_times_out(gateway: Gateway) -> None:
    _, token = gateway.registry.register("silent")
    thread = _connect(gateway, Silent(), "silent", token)
    try:
        agent = gateway.agent("silent")
        agent.start_match(MatchInfo(game="highcard", ruleset="highcard@v1", seat=0, num_players=2,
                                    match_id="t", options={}, deadline_ms=150))
        state = HighcardGame().new_initial_state(seed=1)
        from arena.bots.base import LegalActions
        start = time.monotonic()
        with pytest.raises(DecisionTimeout):
            agent.act(state.observation(0), LegalActions(state.legal_actions(), state.action_to_string))
        assert 0.1 < time.monotonic() - start < 2.0
        result = run_match(HighcardGame(), [gateway.agent("silent"), RandomBotAgent()], seed=1,
                           deadline_ms=100)
        assert [f.kind for f in result.record.faults] == ["timeout"] * _asked(result.record, 0)
        assert result.record.terminal
    finally:
        thread.stop()


def RandomBotAgent() -> Any:  # noqa: N802 - a built-in opponent
    from arena.bots.base import RandomAgent
    return RandomAgent(7)


class Quitter(Bot):
    """Answers once, then drops the connection while a request is open."""

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str | None:
        if self.decisions >= 1:
            self.stop()
            return None
        return request.legal_actions[0].id


def test_bot_that_disconnects_mid_match_fails_fast() -> None:
    """A bot that leaves and does not come back fails at the end of the reconnection
    grace period (here 0.5 s), not at the deadline; then it is not connected."""
    gateway = Gateway(config=GatewayConfig(ping_interval=0.5, hello_timeout=2.0,
                                           reconnect_grace=0.5)).start()
    _, token = gateway.registry.register("quitter")
    thread = _connect(gateway, Quitter(), "quitter", token, reconnect=False)
    try:
        start = time.monotonic()
        result = run_match(HighcardGame(), [gateway.agent("quitter"), RandomBotAgent()], seed=4,
                           deadline_ms=5000)
        assert time.monotonic() - start < 3.0  # failed after the grace period, not at the deadline
        kinds = [f.kind for f in result.record.faults]
        assert kinds == ["crash"] + ["absent"] * (_asked(result.record, 0) - 2) and result.record.terminal
        assert "did not reconnect within 0.5 s" in result.record.faults[0].reason
    finally:
        thread.stop()
        gateway.stop(grace=0.5)
    with Gateway() as gateway:
        gateway.registry.register("quitter")
        agent = gateway.agent("quitter")
        agent.start_match(MatchInfo(game="highcard", seat=0, match_id="x", deadline_ms=500))
        state = HighcardGame().new_initial_state(seed=1)
        with pytest.raises(AgentFailure, match="not connected"):
            agent.act(state.observation(0), state.legal_actions())


def test_dead_bot_is_detected_by_keepalive(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "mute")
    ping = raw.receive("ping", timeout=3)
    assert ping.WhichOneof("kind") == "ping"
    # never answer: after three ping intervals (0.5 s each) the stream is closed
    end = raw.receive(timeout=5)
    while isinstance(end, bot_pb2.ArenaMessage):
        end = raw.receive(timeout=5)
    assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.UNAVAILABLE
    assert not gateway.is_connected("mute")
    raw.close()


def test_bot_cannot_answer_another_bots_request(gateway: Gateway) -> None:
    alice = _welcomed_raw(gateway, "alice")
    mallory = _welcomed_raw(gateway, "mallory")
    router = gateway.router
    assert router is not None
    answer: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answer.put(router.decide("alice", _request(), 5.0)), daemon=True).start()
    request = alice.receive().decision_request
    mallory.send(decision=bot_pb2.Decision(request_id=request.request_id, action_id=request.legal_actions[0].id))
    err = mallory.receive().decision_error
    assert err.code == bot_pb2.DECISION_ERROR_CODE_UNKNOWN_REQUEST
    assert answer.empty()
    alice.send(decision=bot_pb2.Decision(request_id=request.request_id, action_id=request.legal_actions[1].id))
    assert answer.get(timeout=5).action_id == request.legal_actions[1].id
    alice.close()
    mallory.close()


def test_concurrent_requests_respect_the_granted_limit(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "two", concurrent=2)
    router = gateway.router
    assert router is not None
    answers: queue.Queue[Any] = queue.Queue()
    for _ in range(3):
        threading.Thread(target=lambda: answers.put(router.decide("two", _request(), 5.0)), daemon=True).start()
    first, second = raw.receive().decision_request, raw.receive().decision_request
    with pytest.raises(queue.Empty):
        raw.receive(timeout=0.3)  # the third waits for a free slot
    raw.send(decision=bot_pb2.Decision(request_id=second.request_id, action_text="x"))
    third = raw.receive().decision_request
    assert len({first.request_id, second.request_id, third.request_id}) == 3
    raw.send(decision=bot_pb2.Decision(request_id=first.request_id, action_text="y"))
    raw.send(decision=bot_pb2.Decision(request_id=third.request_id, action_text="z"))
    got = sorted(answers.get(timeout=5).action_text for _ in range(3))
    assert got == ["x", "y", "z"]
    raw.close()


class Recorder(RandomBot):
    """Keeps the serialized bytes of every DecisionRequest it receives."""

    def __init__(self) -> None:
        super().__init__(seed=3)
        self.wire: list[bytes] = []

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        self.wire.append(request.SerializeToString())
        return super().decide(request)


def test_request_holds_only_the_seats_own_cards(gateway: Gateway) -> None:
    """Stacked deck: seat 0 holds 2C 3C 4C... no, the deck alternates: seat 0 gets
    positions 0, 2, 4 and seat 1 positions 1, 3, 5; the rest stays in the stock."""
    deck = ["AS", "KH", "QD", "JC", "TS", "9H"] + [c for c in HighcardGame().full_deck()
                                                   if c not in {"AS", "KH", "QD", "JC", "TS", "9H"}]
    hands = {0: {"AS", "QD", "TS"}, 1: {"KH", "JC", "9H"}}
    stock = set(deck[6:])
    _, token = gateway.registry.register("recorder")
    bot = Recorder()
    thread = _connect(gateway, bot, "recorder", token)
    try:
        result = run_match(HighcardGame(), [gateway.agent("recorder"), gateway.agent("recorder")],
                           decks=[deck], deadline_ms=3000)
        assert result.record.faults == []
    finally:
        thread.stop()
    assert len(bot.wire) == _asked(result.record)
    for raw_bytes in bot.wire:
        request = bot_pb2.DecisionRequest.FromString(raw_bytes)
        seat = request.seat
        played = {p.card for p in request.highcard.played}
        assert set(request.highcard.hand) <= hands[seat]
        hidden = (hands[1 - seat] - played) | stock
        for card in hidden:
            assert b"\x02" + card.encode() not in raw_bytes, f"seat {seat} request leaks {card}"
            assert card_index(card) not in [la.id for la in request.legal_actions]
    first = bot_pb2.DecisionRequest.FromString(bot.wire[0])
    assert set(first.highcard.hand) == hands[0] and not first.highcard.played


def test_reconnect_replaces_session_and_plays_on(gateway: Gateway) -> None:
    _, token = gateway.registry.register("phoenix")
    bot = RandomBot(seed=5)
    thread = _connect(gateway, bot, "phoenix", token)
    try:
        hub = gateway.hub
        assert hub is not None
        first_session = hub.sessions["phoenix"].session_id
        hub.loop.call_soon_threadsafe(hub.close_bot, "phoenix", CloseCode.UNAVAILABLE, "test drop")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            session = hub.sessions.get("phoenix")
            if session is not None and session.session_id != first_session:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the bot did not reconnect")
        result = run_match(HighcardGame(), [gateway.agent("phoenix")] * 2, seed=9, deadline_ms=3000)
        assert result.record.faults == []
    finally:
        thread.stop()


def test_oversized_message_is_refused_and_gateway_stays_up(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "big")
    raw.send(decision=bot_pb2.Decision(request_id=1, action_text="x" * (2 << 20)))
    end = raw.receive(timeout=5)
    while isinstance(end, bot_pb2.ArenaMessage):
        end = raw.receive(timeout=5)
    assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    raw.close()
    _, token = gateway.registry.register("small")
    thread = _connect(gateway, RandomBot(), "small", token)
    assert run_match(HighcardGame(), [gateway.agent("small")] * 2, seed=3).record.faults == []
    thread.stop()


def test_flood_of_bogus_decisions_closes_the_session(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "flood")
    for rid in range(1000, 1150):  # bounded: 150 answers to requests that were never sent
        raw.send(decision=bot_pb2.Decision(request_id=rid, action_id=0))
    errors = 0
    end = raw.receive(timeout=5)
    while isinstance(end, bot_pb2.ArenaMessage):
        errors += end.WhichOneof("kind") == "decision_error"
        end = raw.receive(timeout=5)
    assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert errors > 50 and not gateway.is_connected("flood")
    raw.close()


class AsyncBot(Bot):
    """An ``async def decide`` bot with several decisions in flight."""

    async def decide(self, request: bot_pb2.DecisionRequest) -> int | str:  # type: ignore[override]
        import asyncio

        await asyncio.sleep(0.001)
        return request.legal_actions[-1].text


def test_async_decide_with_concurrency(gateway: Gateway) -> None:
    _, token = gateway.registry.register("async-bot")
    bot = AsyncBot(max_concurrent=4)
    thread = _connect(gateway, bot, "async-bot", token)
    try:
        results: list[Any] = []

        def play(seed: int) -> None:
            results.append(run_match(HighcardGame(), [gateway.agent("async-bot")] * 2, seed=seed,
                                     deadline_ms=3000))

        threads = [threading.Thread(target=play, args=(seed,)) for seed in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert len(results) == 4 and all(r.record.faults == [] for r in results)
        assert bot.granted == 4
    finally:
        thread.stop()


class UnreadableFirst(Bot):
    """Answers every first attempt with text that is no action of the game, then a legal one."""

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        if request.attempt == 1:
            return "not a card"
        return request.legal_actions[0].text


def test_unreadable_action_gets_invalid_code(gateway: Gateway) -> None:
    _, token = gateway.registry.register("unreadable")
    bot = UnreadableFirst()
    thread = _connect(gateway, bot, "unreadable", token)
    try:
        record = run_match(HighcardGame(), [gateway.agent("unreadable")] * 2, seed=2, deadline_ms=3000).record
        asked = _asked(record)
        assert [f.kind for f in record.faults] == ["invalid"] * asked and asked > 0
        deadline = time.monotonic() + 5
        while len(bot.errors) < asked and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(bot.errors) == asked
        assert {e.code for e in bot.errors} == {bot_pb2.DECISION_ERROR_CODE_INVALID_ACTION}
        assert all(e.retry_allowed and e.reason for e in bot.errors)
    finally:
        thread.stop()
