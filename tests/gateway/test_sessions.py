"""Session behaviour with a real gateway, real SDK bot processes and both routes
(in-process :class:`~arena.remote.router.LocalRouter` and the Redis route through a
private ``redis-server``): reconnection within the grace period, takeover by a
second stream, the deadline clock starting at the write to the stream, malformed
answers retried as new requests, late answers, the circuit breaker, keepalive,
bounded echoes and undecodable bytes.

Every network wait here is bounded; every bot process is stopped by the test.
"""

from __future__ import annotations

import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from arena.bot.v1 import bot_pb2
from arena.bots.base import Agent, AgentFailure, DecisionTimeout, RandomAgent
from arena.gateway import Gateway, GatewayConfig
from arena.match.referee import MAX_REASON_CHARS, run_match
from arena.remote.agent import RemoteAgent
from arena.testing.toy import HighcardGame

from gateway.helpers import ROOT, SDK_PATH, BotThread  # noqa: I001
from gateway.proxy import DropProxy
from gateway.test_gateway import RawStream, _request, _welcomed_raw
from arenabot import Bot

pytestmark = pytest.mark.timeout(180)

TESTS = ROOT / "tests"


# -- fixtures ------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server for this module's Redis-route tests."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (.ci/run installs it)")
    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path_factory.mktemp("redis"))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 10
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        assert time.monotonic() < end and proc.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


class Route:
    """A gateway (in this process) and the router a referee uses to reach its bots."""

    def __init__(self, kind: str, redis_url: str | None, **config: Any) -> None:
        self.kind = kind
        cfg = GatewayConfig(ping_interval=0.5, hello_timeout=2.0,
                            redis_url=redis_url if kind == "redis" else None, **config)
        self.gateway = Gateway("127.0.0.1:0", config=cfg).start()
        self.router: Any = self.gateway.router
        if kind == "redis":
            from arena.remote.redis_router import RedisRouter

            self.router = RedisRouter(str(redis_url), slack=0.5)

    def agent(self, bot_id: str) -> RemoteAgent:
        return RemoteAgent(bot_id, self.router)

    def wait_connected(self, bot_id: str, timeout: float = 20.0) -> bool:
        if not self.gateway.wait_connected(bot_id, timeout):
            return False
        return self.kind != "redis" or bool(self.router.wait_connected(bot_id, timeout))

    def close(self) -> None:
        if self.kind == "redis":
            self.router.close()
        self.gateway.stop(grace=0.5)


@pytest.fixture(params=["local", "redis"])
def route(request: pytest.FixtureRequest) -> Iterator[Route]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    r = Route(request.param, url)
    try:
        yield r
    finally:
        r.close()


class BotProcess:
    """``python -m arenabot --bot gateway.session_bots:NAME`` in a child process."""

    def __init__(self, target: str, token: str, bot: str, *, think_ms: int = 0,
                 max_concurrent: int = 1) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(SDK_PATH), str(ROOT), str(TESTS),
                                             env.get("PYTHONPATH", "")])
        env["ARENA_TEST_THINK_MS"] = str(think_ms)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arenabot", "--target", target, "--token", token, "--bot",
             f"gateway.session_bots:{bot}", "--max-concurrent", str(max_concurrent)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def stop(self) -> str:
        """Terminate; returns its stderr."""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err.decode(errors="replace")


class FirstLegalAgent(Agent):
    """What ``session_bots.FirstLegal`` plays, in process (the fault-free reference)."""

    def act(self, observation: Any, legal_actions: Any) -> Any:
        return legal_actions[0]


def _play(make_agent: Callable[[], Agent], seeds: list[int], *, deadline_ms: float = 5000,
          threads: int = 4) -> dict[int, Any]:
    """Play highcard matches (``make_agent()`` in seat 0, a seeded random agent in seat 1)
    on ``threads`` referee threads at once; records by seed."""
    records: dict[int, Any] = {}
    errors: list[BaseException] = []
    todo: queue.Queue[int] = queue.Queue()
    for s in seeds:
        todo.put(s)

    def work() -> None:
        while True:
            try:
                seed = todo.get_nowait()
            except queue.Empty:
                return
            try:
                result = run_match(HighcardGame(), [make_agent(), RandomAgent(seed)], seed=seed,
                                   match_id=f"m{seed}", deadline_ms=deadline_ms)
                records[seed] = result.record
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(120)
    assert not errors, errors
    assert not any(t.is_alive() for t in pool), "a referee thread is stuck"
    return records


def _actions(record: Any) -> list[tuple[int, str]]:
    return [(a.seat, a.action) for a in record.actions]


def _faults(records: dict[int, Any]) -> list[Any]:
    return [f for r in records.values() for f in r.faults]


# -- done means: drop and reconnect, queued at max_concurrent=1, malformed then retry --
def test_dropped_stream_reconnects_within_grace_with_no_faults(route: Route) -> None:
    """The bot's TCP connections are cut three times while matches are in flight; the
    SDK reconnects within the grace period and gets its outstanding requests again:
    no fault, and the same actions as a run without drops."""
    _, token = route.gateway.registry.register("dropper")
    hub = route.gateway.hub
    assert hub is not None
    proxy = DropProxy(route.gateway.port)
    bot = BotProcess(proxy.target, token, "FirstLegal", think_ms=40, max_concurrent=4)
    try:
        assert route.wait_connected("dropper"), "the bot did not connect"
        seeds = list(range(48))
        stop_dropping = threading.Event()

        def dropper() -> None:
            for _ in range(3):
                if stop_dropping.wait(0.5):
                    return
                proxy.drop()

        cutter = threading.Thread(target=dropper)
        cutter.start()
        records = _play(lambda: route.agent("dropper"), seeds)
        stop_dropping.set()
        cutter.join(5)
        assert _faults(records) == []
        assert proxy.connections >= 2, "no drop happened while the matches ran"
        assert hub.resent >= 1, "no request was outstanding at a drop (the test proved nothing)"
        reference = _play(FirstLegalAgent, seeds, threads=1)
        assert {s: _actions(r) for s, r in records.items()} == {s: _actions(r) for s, r in reference.items()}
    finally:
        bot.stop()
        proxy.close()


def test_queued_requests_start_their_clock_when_written(route: Route) -> None:
    """A bot at max_concurrent=1 in 4 concurrent matches, thinking 250 ms against a
    1000 ms deadline (4x): it queues behind its own requests, and never times out."""
    _, token = route.gateway.registry.register("single")
    bot = BotProcess(route.gateway.target, token, "FirstLegal", think_ms=250, max_concurrent=1)
    try:
        assert route.wait_connected("single"), "the bot did not connect"
        start = time.monotonic()
        records = _play(lambda: route.agent("single"), list(range(8)), deadline_ms=1000, threads=4)
        wall = time.monotonic() - start
        asked = sum(1 for r in records.values() for a in r.actions if a.seat == 0 and not a.forced)
        assert wall >= 0.9 * asked * 0.25, "the bot's decisions did not queue (the test proved nothing)"
        assert _faults(records) == []
        # the referee's round trip (the record's ms) includes the wait in the queue
        assert max(a.ms for r in records.values() for a in r.actions) > 500
    finally:
        bot.stop()


def test_malformed_answer_then_valid_retry(route: Route) -> None:
    """A malformed Decision (empty text) is refused with retry_allowed and a new
    DecisionRequest (attempt 2) follows; the bot's valid retry counts: 0 timeouts."""
    _, token = route.gateway.registry.register("sloppy")
    bot = BotProcess(route.gateway.target, token, "MalformedFirst")
    try:
        assert route.wait_connected("sloppy"), "the bot did not connect"
        records = _play(lambda: route.agent("sloppy"), list(range(4)), deadline_ms=3000, threads=2)
        assert _faults(records) == []
        reference = _play(FirstLegalAgent, list(range(4)), threads=1)
        assert {s: _actions(r) for s, r in records.items()} == {s: _actions(r) for s, r in reference.items()}
    finally:
        err = bot.stop()
    assert "DECISION_ERROR_CODE_MALFORMED" in err, err[-2000:]


# -- takeover and grace, hand-driven ------------------------------------------------
def test_second_stream_takes_over_outstanding_requests(gateway: Gateway) -> None:
    first = _welcomed_raw(gateway, "twin")
    router = gateway.router
    assert router is not None
    answer: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answer.put(router.decide("twin", _request(), 5.0)), daemon=True).start()
    request = first.receive().decision_request
    # a second stream with the same token (taken from the first stream's Hello)
    hub = gateway.hub
    assert hub is not None
    hello = hub.sessions["twin"].hello
    second = RawStream(gateway.target)
    second.send(hello=bot_pb2.Hello(token=hello.token, max_concurrent_decisions=1))
    assert second.receive().WhichOneof("kind") == "welcome"
    again = second.receive().decision_request
    assert again.request_id == request.request_id and again.legal_actions == request.legal_actions
    end = first.receive(timeout=5)
    while isinstance(end, bot_pb2.ArenaMessage):
        end = first.receive(timeout=5)
    assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.ABORTED
    second.send(decision=bot_pb2.Decision(request_id=again.request_id, action_text="AS"))
    assert answer.get(timeout=5).action_text == "AS"
    first.close()
    second.close()


def test_held_requests_keep_their_clock_and_fail_after_the_grace_period() -> None:
    with Gateway(config=GatewayConfig(ping_interval=5, reconnect_grace=1.0)) as gw:
        raw = _welcomed_raw(gw, "blinker")
        hub = gw.hub
        router = gw.router
        assert hub is not None and router is not None
        token = hub.sessions["blinker"].hello.token
        answer: queue.Queue[Any] = queue.Queue()

        def ask(timeout: float) -> None:
            try:
                answer.put(router.decide("blinker", _request(), timeout))
            except BaseException as exc:  # noqa: BLE001
                answer.put(exc)

        threading.Thread(target=ask, args=(2.0,), daemon=True).start()
        raw.receive().decision_request
        raw.close()  # the bot's stream ends: its request is held
        time.sleep(0.5)
        assert gw.is_connected("blinker"), "a bot in its grace period is present"
        back = RawStream(gw.target)
        back.send(hello=bot_pb2.Hello(token=token))
        assert back.receive().WhichOneof("kind") == "welcome"
        resent = back.receive().decision_request
        assert 1000 <= resent.deadline_ms <= 2000  # the clock stopped while the bot was away
        back.send(decision=bot_pb2.Decision(request_id=resent.request_id, action_text="AS"))
        assert answer.get(timeout=5).action_text == "AS"
        # away for longer than the grace period: the held request fails
        threading.Thread(target=ask, args=(10.0,), daemon=True).start()
        back.receive().decision_request
        back.close()
        started = time.monotonic()
        outcome = answer.get(timeout=5)
        assert isinstance(outcome, AgentFailure) and "within 1 s" in str(outcome)
        assert 0.8 < time.monotonic() - started < 3.0
        assert not gw.is_connected("blinker")


# -- protocol limits ------------------------------------------------------------------
def test_late_answers_are_not_protocol_errors(gateway: Gateway) -> None:
    raw = _welcomed_raw(gateway, "tardy", concurrent=8)
    router = gateway.router
    assert router is not None
    ids = []
    for _ in range(110):  # more than the 100 protocol errors a minute the session allows
        with pytest.raises(DecisionTimeout):
            router.decide("tardy", _request(), 0.005)
    while len(ids) < 110:
        item = raw.receive()
        assert isinstance(item, bot_pb2.ArenaMessage)
        if item.WhichOneof("kind") == "decision_request":
            ids.append(item.decision_request.request_id)
    for rid in ids:
        raw.send(decision=bot_pb2.Decision(request_id=rid, action_text="AS"))
    codes = [raw.receive().decision_error.code for _ in ids]
    assert set(codes) == {bot_pb2.DECISION_ERROR_CODE_LATE}
    assert gateway.is_connected("tardy")
    answer: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answer.put(router.decide("tardy", _request(), 5.0)), daemon=True).start()
    request = raw.receive().decision_request
    raw.send(decision=bot_pb2.Decision(request_id=request.request_id, action_text="KS"))
    assert answer.get(timeout=5).action_text == "KS"
    raw.close()


def test_circuit_breaker_defaults_the_other_decisions_at_once() -> None:
    with Gateway(config=GatewayConfig(ping_interval=5, unresponsive_after=3)) as gw:
        raw = _welcomed_raw(gw, "sleepy", concurrent=16)
        router = gw.router
        assert router is not None
        outcomes: queue.Queue[tuple[float, Any]] = queue.Queue()

        def ask(timeout: float) -> None:
            start = time.monotonic()
            try:
                result: Any = router.decide("sleepy", _request(), timeout)
            except BaseException as exc:  # noqa: BLE001
                result = exc
            outcomes.put((time.monotonic() - start, result))

        for timeout in [0.3] * 3 + [20.0] * 4:
            threading.Thread(target=ask, args=(timeout,), daemon=True).start()
        got = [outcomes.get(timeout=5) for _ in range(7)]
        assert all(isinstance(r, DecisionTimeout) for _, r in got)
        assert max(t for t, _ in got) < 2.0, "the long requests waited for their own deadline"
        assert sum("unresponsive" in str(r) for _, r in got) == 4
        # unresponsive: one probe goes to the bot, anything else fails at once
        requests = []
        while True:
            item = raw.receive(timeout=2)
            if item.WhichOneof("kind") == "decision_request":
                requests.append(item.decision_request)
                if len(requests) == 7:
                    break
        threading.Thread(target=ask, args=(20.0,), daemon=True).start()  # the probe
        probe = raw.receive().decision_request
        threading.Thread(target=ask, args=(20.0,), daemon=True).start()
        took, result = outcomes.get(timeout=2)
        assert isinstance(result, DecisionTimeout) and took < 1.0
        raw.send(decision=bot_pb2.Decision(request_id=probe.request_id, action_text="AS"))
        took, result = outcomes.get(timeout=2)
        assert result.action_text == "AS"
        # it answers again: requests go through as before
        threading.Thread(target=ask, args=(20.0,), daemon=True).start()
        normal = raw.receive().decision_request
        raw.send(decision=bot_pb2.Decision(request_id=normal.request_id, action_text="QS"))
        assert outcomes.get(timeout=2)[1].action_text == "QS"
        raw.close()


def test_dead_after_exactly_three_ping_intervals() -> None:
    """Silence counts from the bot's last message, not from the ping ticks: a Pong sent
    between two ticks, then nothing, closes the stream three intervals after the Pong."""
    with Gateway(config=GatewayConfig(ping_interval=0.5)) as gw:
        raw = _welcomed_raw(gw, "quiet")
        time.sleep(0.25)
        raw.send(pong=bot_pb2.Pong(nonce=0))
        started = time.monotonic()
        end = raw.receive(timeout=5)
        while isinstance(end, bot_pb2.ArenaMessage):
            end = raw.receive(timeout=5)
        took = time.monotonic() - started
        assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.UNAVAILABLE
        assert 1.35 < took < 1.65, f"closed {took:.2f} s after the last message; three intervals are 1.5 s"
        raw.close()


class HugeFirst(Bot):
    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        if request.attempt == 1:
            return "x" * 900_000
        return request.legal_actions[0].id


def test_echoed_bot_input_is_bounded(gateway: Gateway) -> None:
    _, token = gateway.registry.register("verbose")
    bot = HugeFirst()
    thread = BotThread(bot, gateway.target, token).start()
    try:
        assert gateway.wait_connected("verbose", 10)
        result = run_match(HighcardGame(), [gateway.agent("verbose"), RandomAgent(1)], seed=2,
                           deadline_ms=5000)
        faults = result.record.faults
        assert faults and {f.kind for f in faults} == {"invalid"}
        for f in faults:
            assert len(f.reason) <= MAX_REASON_CHARS and len(f.answer or "") <= MAX_REASON_CHARS
            assert (f.answer or "").endswith("…")
        assert bot.errors and all(len(e.reason) <= MAX_REASON_CHARS for e in bot.errors)
    finally:
        thread.stop()


def test_undecodable_bytes_get_invalid_argument_on_every_rpc(gateway: Gateway) -> None:
    channel = grpc.insecure_channel(gateway.target)
    try:
        for method in ("/grpc.health.v1.Health/Check", "/arena.admin.v1.AdminService/ListBots"):
            call = channel.unary_unary(method, request_serializer=lambda b: b,
                                       response_deserializer=lambda b: b)
            with pytest.raises(grpc.RpcError) as info:
                call(b"\xff\xfe\x00garbage", timeout=5,
                     metadata=(("authorization", "Bearer op-secret"),))
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, info.value)
            details = info.value.details() or ""
            assert details.startswith("the message could not be decoded as ") and "<class" not in details
        watch = channel.unary_stream("/grpc.health.v1.Health/Watch", request_serializer=lambda b: b,
                                     response_deserializer=lambda b: b)
        with pytest.raises(grpc.RpcError) as info:
            list(watch(b"\xff\xfe", timeout=5))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        # the stream: after a valid Hello, garbage closes it with a plain reason
        _, token = gateway.registry.register("garbler")
        connect = channel.stream_stream("/arena.bot.v1.BotService/Connect",
                                        request_serializer=lambda b: b, response_deserializer=lambda b: b)
        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token)).SerializeToString()
        with pytest.raises(grpc.RpcError) as info:
            list(connect(iter([hello, b"\xff\xfe garbage"]), timeout=5))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "could not be decoded as arena.bot.v1.BotMessage" in (info.value.details() or "")
        # and well-formed calls still work
        ok = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda b: b,
                                 response_deserializer=lambda b: b)
        assert ok(b"", timeout=5) == b"\x08\x01"  # SERVING
    finally:
        channel.close()


def test_a_gateway_shutting_down_is_a_route_failure_not_the_bots() -> None:
    """What the gateway's own end fails with is a RouteFailure (an AgentFailure a
    runner can tell apart: the platform's fault)."""
    from arena.bots.base import RouteFailure

    gw = Gateway(config=GatewayConfig(ping_interval=5)).start()
    raw = _welcomed_raw(gw, "bystander")
    router = gw.router
    assert router is not None
    answer: queue.Queue[Any] = queue.Queue()

    def ask() -> None:
        try:
            answer.put(router.decide("bystander", _request(), 10.0))
        except BaseException as exc:  # noqa: BLE001
            answer.put(exc)

    threading.Thread(target=ask, daemon=True).start()
    raw.receive().decision_request
    gw.stop(grace=0.5)
    outcome = answer.get(timeout=10)
    assert isinstance(outcome, RouteFailure), outcome
    raw.close()


class _Clock:
    """The part of an event loop a session uses, on a clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, *args: Any) -> Any:
        return _Handle()

    def call_at(self, when: float, *args: Any) -> Any:
        return _Handle()


class _Handle:
    def cancel(self) -> None:
        pass


def test_the_protocol_error_limit_is_a_rate() -> None:
    """100 protocol errors in any 60 s are allowed, the 101st closes the stream; spread
    over time, any number is allowed (a lifetime count would close it)."""
    from arena.gateway.session import MAX_PROTOCOL_ERRORS_PER_MINUTE, CloseCode, SessionHub

    clock = _Clock()
    hub = SessionHub(clock, max_messages_per_second=10_000)  # type: ignore[arg-type]
    session = hub.open("noisy", bot_pb2.Hello())
    for minute in range(3):  # 300 errors over three minutes: still open
        clock.now = minute * 61.0
        for _ in range(MAX_PROTOCOL_ERRORS_PER_MINUTE):
            clock.now += 0.01
            session.on_message(bot_pb2.BotMessage())
        assert not session.closed, f"closed in minute {minute}"
    session.on_message(bot_pb2.BotMessage())  # the 101st within 60 s
    assert session.closed and session.close_status is CloseCode.OVERLOADED
    assert "a minute" in session.close_details
