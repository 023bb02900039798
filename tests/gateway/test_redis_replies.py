"""What crosses Redis per decision on the remote route (the cost of a decision is
mostly its wake-ups and syscalls, see ``tests/benchmarks/bench_remote_route.py``).

* The worker (:class:`~arena.remote.redis_router.RedisRouter`) gets exactly one
  reply per decision, the ``BLPOP``'s: its script call runs under
  ``CLIENT REPLY SKIP``, and notifications get no reply at all. Nothing may be left
  unread on its connection (a stray reply would be taken for the next decision's).
* The gateway's reply connection runs ``CLIENT REPLY OFF``.
* A Redis that refuses ``CLIENT`` (renamed away, as some managed services do) still
  routes every decision: the worker falls back to ``EVALSHA`` with both replies
  read, and the gateway's replies are written as before.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.bot.v1 import bot_pb2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))

from arenabot import Bot  # noqa: E402

from gateway.helpers import BotThread  # noqa: E402


class EchoBot(Bot):
    """Answers with the only legal action's id; counts the match messages it got."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.started = 0

    def decide(self, request: Any) -> int:
        return int(request.legal_actions[0].id)

    def on_match_started(self, message: Any) -> None:
        self.started += 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(params=["client-reply", "no-client-command"])
def redis_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A private redis-server; in the second case without the CLIENT command."""
    port = _free_port()
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
            "--save", "", "--appendonly", "no", "--daemonize", "no"]
    if request.param == "no-client-command":
        args += ["--rename-command", "CLIENT", ""]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    end = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if time.monotonic() > end or proc.poll() is not None:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.05)
    try:
        yield url
    finally:
        client.close()
        proc.terminate()
        proc.wait(10)


def _request(action_id: int) -> bot_pb2.DecisionRequest:
    request = bot_pb2.DecisionRequest(match_id="replies", game="highcard", seat=0, attempt=1)
    request.legal_actions.add(id=action_id, text=str(action_id))
    return request


def test_one_reply_per_decision_and_none_left_unread(redis_url: str) -> None:
    from arena.gateway import Gateway, GatewayConfig
    from arena.remote.redis_router import RedisRouter

    refused = "no-client-command" in redis_url or not _has_client(redis_url)
    gateway = Gateway("127.0.0.1:0", config=GatewayConfig(redis_url=redis_url)).start()
    router = RedisRouter(redis_url, slack=0.5)
    bot = EchoBot()
    _, token = gateway.registry.register("echo")
    thread = BotThread(bot, gateway.target, token).start()
    try:
        assert router.wait_connected("echo", 10)
        for k in range(40):
            if k % 10 == 0:  # one-way messages between decisions, as a referee sends them
                router.notify("echo", bot_pb2.ArenaMessage(match_started=bot_pb2.MatchStarted(
                    match_id=f"m{k}", game="highcard", seat=0, num_players=2, deadline_ms=1000)))
            assert router.decide("echo", _request(k), 5.0).action_id == k
            # one call at a time (presence checks included): one connection, back on
            # the free list with nothing unread
            assert router._idle and router.connections() == 1
            for conn in router._idle:
                assert not conn.can_read(timeout=0), "a reply was left unread on the worker's connection"
        assert router._skip is (not refused)
        end = time.monotonic() + 5
        while bot.started < 4 and time.monotonic() < end:
            time.sleep(0.02)
        assert bot.started == 4  # every notification reached the bot, in either mode
        with pytest.raises(Exception, match="not connected"):
            router.decide("nobody", _request(1), 1.0)  # the script's F reply, at once
    finally:
        thread.stop()
        router.close()
        gateway.stop(grace=0.5)


def _has_client(url: str) -> bool:
    client = redis.Redis.from_url(url)
    try:
        client.execute_command("CLIENT", "REPLY", "ON")
        return True
    except redis.exceptions.ResponseError:
        return False
    finally:
        client.close()


def _hand_gateway(url: str, bot_id: str, gateway_id: bytes, then: Any) -> Any:
    """A stand-in for a gateway's bridge: announces ``bot_id`` as held by
    ``gateway_id``, takes the first request from its queue, answers ``Q`` (queued at
    this gateway), then calls ``then(client, reply_key)`` on a thread."""
    import threading

    from arena.remote.redis_router import online_key, requests_key

    client = redis.Redis.from_url(url)
    client.set(online_key(bot_id), gateway_id, ex=30)

    def serve() -> None:
        _, item = client.blpop([requests_key(bot_id)], timeout=10)
        reply_key = item[1:].split(b"|", 2)[1]
        client.rpush(reply_key, b"Q" + gateway_id)
        then(client, reply_key)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_queued_request_waits_while_its_gateway_holds_the_bot(redis_url: str) -> None:
    from arena.remote.redis_router import RedisRouter

    def answer_later(client: Any, reply_key: bytes) -> None:
        time.sleep(2.5)  # beyond the request's own deadline + slack: the Q keeps the worker waiting
        decision = bot_pb2.Decision(request_id=1, action_id=7)
        client.rpush(reply_key, b"d1000|" + decision.SerializeToString())

    thread = _hand_gateway(redis_url, "queued", b"gw-a", answer_later)
    router = RedisRouter(redis_url, slack=0.5)
    try:
        decision, thinking = router.decide_timed("queued", _request(7), 1.0)
        assert decision.action_id == 7 and thinking == pytest.approx(0.001)
    finally:
        thread.join(10)
        router.close()


def test_a_queued_request_fails_at_once_when_its_gateway_is_replaced(redis_url: str) -> None:
    """A gateway killed and restarted: the bot reconnects to the new gateway (another
    id on its online key) and the old one's queued requests died with it. The worker
    gives up within a second or two (a platform fault: the match is void and
    replayed), instead of waiting for the queue bound (minutes) for an answer that
    cannot come."""
    from arena.bots.base import RouteFailure
    from arena.remote.redis_router import RedisRouter, online_key

    def restart(client: Any, reply_key: bytes) -> None:
        time.sleep(0.3)
        client.set(online_key("moved"), b"gw-b", ex=30)  # the restarted gateway holds the bot

    thread = _hand_gateway(redis_url, "moved", b"gw-a", restart)
    router = RedisRouter(redis_url, slack=0.5)
    try:
        start = time.monotonic()
        with pytest.raises(RouteFailure, match="another gateway"):
            router.decide("moved", _request(3), 1.0)
        assert time.monotonic() - start < 4.0
    finally:
        thread.join(10)
        router.close()


def test_threads_that_come_and_go_share_a_bounded_set_of_connections(redis_url: str) -> None:
    """Issue 26: a work task's remote matches run on threads of their own, and every
    task starts new ones. Before, each thread opened a connection of its own from the
    router's pool and never gave it back: after 100 threads (redis-py's default pool
    size) every decision failed with "Too many connections". Now each call borrows a
    connection of the router's and gives it back: 600 short-lived threads, 4 at a
    time, leave the process with at most 4 connections, and Redis sees no more clients at the end
    than after the first round."""
    import threading

    from arena.gateway import Gateway, GatewayConfig
    from arena.remote.redis_router import RedisRouter

    gateway = Gateway("127.0.0.1:0", config=GatewayConfig(redis_url=redis_url)).start()
    router = RedisRouter(redis_url, slack=0.5)
    bot = EchoBot(max_concurrent=8)
    _, token = gateway.registry.register("echo")
    thread = BotThread(bot, gateway.target, token).start()
    info = redis.Redis.from_url(redis_url)
    errors: list[BaseException] = []

    def match(k: int) -> None:
        try:
            for j in range(3):
                assert router.decide("echo", _request(k * 10 + j), 5.0).action_id == k * 10 + j
            router.notify("echo", bot_pb2.ArenaMessage(match_ended=bot_pb2.MatchEnded(match_id=f"m{k}")))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    try:
        assert router.wait_connected("echo", 10)
        first_clients = 0
        for round_ in range(150):
            threads = [threading.Thread(target=match, args=(round_ * 4 + i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert not errors, f"round {round_}: {errors[0]!r}"
            assert router.connections() <= 4  # at most the calls in flight
            if round_ == 0:  # Redis's other clients (the gateway's, this test's)
                first_clients = int(info.info("clients")["connected_clients"]) - router.connections()
        # (the router's own may be 4 now, fewer after the first round: its calls may
        # not all have overlapped; it holds them, it never closes them)
        assert int(info.info("clients")["connected_clients"]) - router.connections() <= first_clients
    finally:
        info.close()
        thread.stop()
        router.close()
        gateway.stop(grace=0.5)
