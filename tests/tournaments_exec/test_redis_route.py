"""The remote route on its own: RedisRouter (worker side) -> private Redis ->
RedisBridge in a real Gateway -> gRPC -> an SDK bot, and back.

These pin the routing contract that the executor tests only cross on the way:
answers reach the request that asked (also when many are in flight and replies go
out together), failures are reported as failures at once (bot unknown, bot gone
with requests queued), deadlines hold, the bridge survives a Redis restart, and a
worker process imports no gRPC.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tournaments_exec.conftest import ROOT, RedisServer

sys.path.insert(0, str(ROOT / "clients" / "python"))

from arenabot import Bot  # noqa: E402

from arena.bot.v1 import bot_pb2  # noqa: E402
from arena.bots.base import AgentFailure, DecisionTimeout  # noqa: E402


class EchoBot(Bot):
    """Answers with the only legal action's id (each request carries its own)."""

    def decide(self, request: Any) -> int:
        return int(request.legal_actions[0].id)


class StallBot(Bot):
    """Never answers (the arena's deadline applies); counts what it was asked."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.asked = 0

    async def decide(self, request: Any) -> None:  # type: ignore[override]
        self.asked += 1
        await asyncio.sleep(30)


def _request(action_id: int) -> bot_pb2.DecisionRequest:
    request = bot_pb2.DecisionRequest(match_id="route-test", game="highcard", seat=0, attempt=1)
    request.legal_actions.add(id=action_id, text=str(action_id))
    return request


GRACE = 1.0
"""The route's reconnection grace period in these tests (seconds)."""


class _Route:
    def __init__(self, redis_url: str, event_loop: str) -> None:
        from arena.gateway import Gateway, GatewayConfig
        from arena.remote.redis_router import RedisRouter

        self.gateway = Gateway("127.0.0.1:0", config=GatewayConfig(
            redis_url=redis_url, event_loop=event_loop, reconnect_grace=GRACE)).start()
        assert type(self.gateway._loop).__module__.split(".")[0] == event_loop
        self.router = RedisRouter(redis_url, slack=0.5)
        self.bots: list[Any] = []

    def connect(self, bot_id: str, bot: Bot) -> None:
        from gateway.helpers import BotThread

        _, token = self.gateway.registry.register(bot_id)
        self.bots.append(BotThread(bot, self.gateway.target, token).start())
        assert self.router.wait_connected(bot_id, 10), f"{bot_id} did not come online in Redis"

    def close(self) -> None:
        for thread in self.bots:
            thread.stop()
        self.router.close()
        self.gateway.stop(grace=0.5)


@pytest.fixture(params=["asyncio", "uvloop"])
def route(request: pytest.FixtureRequest, redis_server: RedisServer) -> Iterator[_Route]:
    """The route with the gateway on each event loop it supports."""
    r = _Route(redis_server.url, request.param)
    try:
        yield r
    finally:
        r.close()


def test_every_answer_reaches_its_own_request(route: _Route) -> None:
    """8 threads x 60 requests in flight together: replies are written as answers
    come, several per flush; each must land on its own reply key."""
    route.connect("echo", EchoBot(max_concurrent=16))
    wrong: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def ask(base: int) -> None:
        try:
            for i in range(60):
                action = base + i
                decision = route.router.decide("echo", _request(action), 5.0)
                if decision.action_id != action:
                    wrong.append((action, decision.action_id))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(1000 * k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert not wrong, wrong[:5]
    assert all(not t.is_alive() for t in threads)


def test_unknown_bot_fails_at_once(route: _Route) -> None:
    start = time.monotonic()
    with pytest.raises(AgentFailure, match="not connected"):
        route.router.decide("nobody", _request(1), 5.0)
    assert time.monotonic() - start < 1.0


def test_a_silent_bot_times_out_at_the_deadline(route: _Route) -> None:
    route.connect("stall", StallBot())
    start = time.monotonic()
    with pytest.raises(DecisionTimeout):
        route.router.decide("stall", _request(1), 0.4)
    elapsed = time.monotonic() - start
    assert 0.35 <= elapsed < 0.4 + route.router.slack, elapsed


def test_requests_queued_for_a_bot_that_leaves_fail_quickly(route: _Route) -> None:
    """A bot with one slot stalls on its first request; three more wait in the
    gateway. When the bot goes (and stays away beyond the grace period), all four
    waiting workers hear AgentFailure long before their 20 s deadline."""
    bot = StallBot(max_concurrent=1)
    route.connect("leaver", bot)
    outcomes: list[BaseException | None] = []
    lock = threading.Lock()

    def ask(k: int) -> None:
        try:
            route.router.decide("leaver", _request(k), 20.0)
            result: BaseException | None = None
        except BaseException as exc:  # noqa: BLE001 - inspected below
            result = exc
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    end = time.monotonic() + 5
    while bot.asked < 1:
        assert time.monotonic() < end, "the bot was never asked"
        time.sleep(0.01)
    time.sleep(0.2)
    start = time.monotonic()
    route.bots[0].stop()
    for t in threads:
        t.join(10)
    assert time.monotonic() - start < GRACE + 4.0
    assert len(outcomes) == 4
    assert all(isinstance(o, AgentFailure) for o in outcomes), outcomes
    with pytest.raises(AgentFailure):
        route.router.decide("leaver", _request(9), 5.0)


def test_a_bot_between_streams_is_present_but_starts_no_match(route: _Route) -> None:
    """In its reconnection grace period a bot stays connected (its requests in flight
    are held) but is not streaming, so no new match starts against it (runner's
    ``offline_bots``, which defers the match); a new stream makes it streaming again,
    and a grace period that ends takes it offline."""
    from arena.records.spec import MatchSpec
    from arena.tournaments.runner import offline_bots
    from gateway.helpers import BotThread

    router = route.router
    spec = MatchSpec("t:0", "t", 0, "highcard", None, {}, 1, ("m", "r"), ("remote:hop", "builtin:random"))
    _, token = route.gateway.registry.register("hop")

    def until(condition: Any, what: str, seconds: float = 5.0) -> None:
        end = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < end, what
            time.sleep(0.01)

    first = BotThread(EchoBot(), route.gateway.target, token).start()
    until(lambda: router.is_streaming("hop"), "the bot never streamed")
    assert router.is_connected("hop") and offline_bots(spec, router) == []
    first.stop()
    until(lambda: not router.is_streaming("hop"), "still streaming after its stream ended", GRACE)
    assert router.is_connected("hop")  # its requests are held for the grace period
    assert offline_bots(spec, router) == ["hop"]
    second = BotThread(EchoBot(), route.gateway.target, token).start()
    try:
        until(lambda: router.is_streaming("hop"), "not streaming after a new stream")
        assert offline_bots(spec, router) == []
        assert router.decide("hop", _request(4), 5.0).action_id == 4
    finally:
        second.stop()
    until(lambda: not router.is_connected("hop"), "still present after the grace period", GRACE + 3)
    assert not router.is_streaming("hop")


def test_the_bridge_survives_a_redis_restart(route: _Route, redis_server: RedisServer) -> None:
    route.connect("echo", EchoBot())
    assert route.router.decide("echo", _request(7), 5.0).action_id == 7
    redis_server.restart(down=0.3)
    end = time.monotonic() + 15
    answered = False
    while time.monotonic() < end:
        try:
            answered = route.router.decide("echo", _request(8), 2.0).action_id == 8
        except (AgentFailure, DecisionTimeout):
            time.sleep(0.2)  # the bridge reconnects and announces the bot again
            continue
        if answered:
            break
    assert answered, "no answer through the bridge after Redis came back"
    for k in range(20):  # and it keeps answering
        assert route.router.decide("echo", _request(100 + k), 5.0).action_id == 100 + k


def test_a_worker_imports_no_grpc() -> None:
    """What a Celery worker loads (the tasks, the warm-up, the Redis router, a
    remote agent) must not import gRPC: gRPC state does not survive fork."""
    code = (
        "import sys\n"
        "import workers.tasks\n"
        "workers.tasks.warm_up(None)\n"
        "from arena.tournaments.runner import play_spec, build_agents\n"
        "from arena.records.spec import MatchSpec\n"
        "from arena.remote.redis_router import RedisRouter\n"
        "spec = MatchSpec('t:0', 't', 0, 'calypso', None, {}, 1, ('a',) * 4, ('remote:x',) * 4)\n"
        "agents = build_agents(spec, router=RedisRouter('redis://127.0.0.1:1/0'))\n"
        "assert type(agents[0]).__name__ == 'RemoteAgent'\n"
        "print(sorted(m for m in sys.modules if m == 'grpc' or m.startswith('grpc.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_bridge_connections_authenticate_and_select_the_db(tmp_path: Path) -> None:
    """The bridge's own connections (:func:`open_resp`) do AUTH and SELECT from the
    URL like redis-py, and a wrong password is a clear ConnectionError."""
    import redis

    from arena.gateway.redis_bridge import open_resp
    from tournaments_exec.conftest import _free_port, _port_open

    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--requirepass", "s3cret", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 10
        while not _port_open(port):
            assert time.monotonic() < end and proc.poll() is None, "redis-server did not start"
            time.sleep(0.05)

        async def exercise() -> list[Any]:
            replies: list[Any] = []
            for n, url in enumerate((f"redis://:s3cret@127.0.0.1:{port}/3",
                                     f"redis://default:s3cret@127.0.0.1:{port}/3")):
                conn = await open_resp(url, replies.append)
                conn.write(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n%d\r\n" % n)
                while len(replies) < n + 1:
                    await asyncio.sleep(0.01)
                conn.close()
            with pytest.raises(ConnectionError, match="refused"):
                await open_resp(f"redis://:wrong@127.0.0.1:{port}/3", replies.append)
            with pytest.raises(ConnectionError, match="cannot connect"):
                await open_resp(f"redis://127.0.0.1:{_free_port()}/0", replies.append, timeout=2)
            return replies

        assert asyncio.run(exercise()) == [b"OK", b"OK"]
        client = redis.Redis(port=port, password="s3cret", db=3)
        assert client.get("k") == b"1"
        assert redis.Redis(port=port, password="s3cret", db=0).get("k") is None
        client.close()
    finally:
        proc.terminate()
        proc.wait(10)


def test_reply_keys_are_unique_across_threads_and_forks() -> None:
    """Reply keys come from a per-thread random prefix and a counter: a forked
    worker must not continue its parent's sequence."""
    import multiprocessing

    from arena.remote.redis_router import RedisRouter

    global _FORKED_ROUTER
    router = _FORKED_ROUTER = RedisRouter("redis://127.0.0.1:1/0")
    parent = [router._reply_key() for _ in range(3)]
    ctx = multiprocessing.get_context("fork")
    queue = ctx.SimpleQueue()
    procs = [ctx.Process(target=_child_keys, args=(queue,)) for _ in range(2)]
    for p in procs:  # forked after the parent drew its keys: its state is copied
        p.start()
    children = [queue.get() for _ in procs]
    for p in procs:
        p.join(10)
    threads: list[list[bytes]] = []
    workers = [threading.Thread(target=lambda: threads.append([router._reply_key() for _ in range(3)]))
               for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    keys = parent + [k for c in children for k in c] + [k for t in threads for k in t]
    assert len(keys) == 15 and len(set(keys)) == 15, keys


_FORKED_ROUTER: Any = None


def _child_keys(queue: Any) -> None:
    router = _FORKED_ROUTER  # (the fork hook gave it new thread-local state)
    queue.put([router._reply_key() for _ in range(3)])


def test_absence_is_counted_from_the_bots_last_stream_and_a_dead_route_is_no_absence(
        route: _Route, redis_server: RedisServer, tmp_path: Path) -> None:
    """Issue 26: matches were forfeited "offline for more than the absence limit"
    while the bot's stream was connected: a presence check that could not reach
    Redis answered "offline". Now:

    * a presence check that cannot reach Redis raises RouteFailure (the caller voids
      the match: a platform fault), and nothing is deferred;
    * a match deferred for longer than the absence limit is forfeited only if the
      bot has had no stream that long (its gateway's ``seen`` key): a bot that came
      back in between and left again is waited for afresh."""
    from arena.bots.base import RouteFailure
    from arena.records.spec import MatchSpec
    from arena.store import Store
    from arena.tournaments.conductor import ConductorSettings
    from arena.tournaments.runner import DEFERRED, FORFEIT, PLAY, check_presence
    from gateway.helpers import BotThread

    router = route.router
    store = Store(f"sqlite:///{tmp_path / 'presence.db'}")
    store.migrate()
    spec = MatchSpec("p:000000", "p", 0, "highcard", None, {}, 1, ("m", "r"), ("remote:hop", "builtin:random"))
    store.add_tournament("p", "presence", "highcard", {}, [spec])
    settings = ConductorSettings(lease_seconds=30, heartbeat_seconds=0.01, absence_limit=2.0)
    _, token = route.gateway.registry.register("hop")

    def until(condition: Any, what: str, seconds: float = 5.0) -> None:
        end = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < end, what
            time.sleep(0.01)

    def check() -> tuple[str, list[str]]:
        until(lambda: store.lease(spec.match_id, "w", 30), "the match was not leasable")
        verdict = check_presence(store, spec, "w", router, settings)
        if verdict[0] == PLAY:
            store.release(spec.match_id, "w")
        return verdict

    def stream_for(seconds: float) -> None:
        bot = BotThread(EchoBot(), route.gateway.target, token).start()
        until(lambda: router.is_streaming("hop"), "the bot never streamed")
        assert check() == (PLAY, [])
        time.sleep(seconds)
        bot.stop()
        until(lambda: not router.is_connected("hop"), "still present after the grace period", GRACE + 3)

    stream_for(0.1)
    assert check() == (DEFERRED, ["hop"])
    first = store.deferred_since(spec.match_id)
    stream_for(settings.absence_limit)  # back for a while, then gone again
    assert router.offline_seconds("hop") is not None
    assert router.offline_seconds("hop") < settings.absence_limit  # type: ignore[operator]
    assert store.deferred_since(spec.match_id) == first  # the match has waited beyond the limit ...
    assert check() == (DEFERRED, ["hop"])  # ... but the bot was here lately: no forfeit
    until(lambda: (router.offline_seconds("hop") or 0) >= settings.absence_limit, "never absent long enough")
    assert check() == (FORFEIT, ["hop"])

    store.release(spec.match_id, "w")
    redis_server.stop()
    try:
        assert store.lease(spec.match_id, "w", 30)
        with pytest.raises(RouteFailure, match="Redis unavailable"):
            check_presence(store, spec, "w", router, settings)
        assert store.deferred_since(spec.match_id) == first  # nothing deferred by it
    finally:
        redis_server.start()
        store.dispose()


def test_a_burst_of_bots_going_offline_answers_every_queued_request(redis_server: RedisServer) -> None:
    """The bridge's presence and clean-up share one bounded pool: 150 bots leaving at
    once (a gateway's sessions all closing) each get their queued requests answered
    ``F`` at once, on at most a handful of connections. Before, each concurrent
    clean-up opened a connection of its own, and past redis-py's limit of 100 the
    rest failed ("Too many connections"), leaving their workers to wait out the
    deadline (then a RouteFailure instead of the bot's disconnection)."""
    import redis

    from arena.gateway.redis_bridge import SHARED_CONNECTIONS, RedisBridge
    from arena.remote.redis_router import requests_key

    class Hub:  # what the bridge reads of the gateway's SessionHub: nobody connected
        before_offline: list[Any] = []

        def present(self) -> set[str]:
            return set()

        def between_streams(self) -> set[str]:
            return set()

    client = redis.Redis.from_url(redis_server.url)
    bots = [f"burst-{i}" for i in range(150)]
    for bot in bots:
        client.rpush(requests_key(bot), b"D%d|arena:reply:burst:%s|x" % (int(time.time() * 1000) + 60_000,
                                                                          bot.encode()))
    base = int(client.info("clients")["connected_clients"])
    peak = 0

    async def burst() -> None:
        nonlocal peak
        bridge = await RedisBridge(Hub(), redis_server.url).start()
        try:
            task = asyncio.gather(*(bridge._offline(bot) for bot in bots))
            while not task.done():
                peak = max(peak, int(client.info("clients")["connected_clients"]))
                await asyncio.sleep(0.005)
            await task
        finally:
            await bridge.stop()

    asyncio.run(burst())
    try:
        end = time.monotonic() + 10
        missing = bots
        while missing and time.monotonic() < end:
            missing = [b for b in bots if not client.exists(f"arena:reply:burst:{b}")]
            time.sleep(0.05)
        assert not missing, f"{len(missing)} queued requests never answered"
        assert all(client.lindex(f"arena:reply:burst:{b}", 0).startswith(b"F") for b in bots)
        assert peak - base <= SHARED_CONNECTIONS + 2, (base, peak)
    finally:
        client.close()
