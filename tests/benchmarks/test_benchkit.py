"""The benchmarks' Redis discipline (:mod:`benchkit`): a Redis the bench did not
start keeps every key it had and gets none left behind; its own redis-server is
stopped; option errors are one line and exit 2. Real redis-servers on free ports,
real Celery broker keys, and one short run of ``bench_remote_route`` end to end."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(ROOT), str(ROOT / "clients" / "python"), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import benchkit  # noqa: E402

redis = pytest.importorskip("redis")


@pytest.fixture
def shared_redis() -> Iterator[str]:
    """A Redis that stands for one the bench did not start (db 9 of a private
    server), holding keys of others: a value, a Celery queue with an offer, another
    bot's presence and another bench run's key."""
    with benchkit.redis_target(None) as server:
        url = server.url.rsplit("/", 1)[0] + "/9"
        client = redis.Redis.from_url(url)
        client.set("someone:value", "1")
        client.rpush("arena", "an offer of someone else")
        client.set("arena:bot:bench-bot:online", "gw")
        client.set("bench:0123456789ab:x", "another run")
        client.close()
        yield url


def _snapshot(url: str) -> dict[bytes, bytes]:
    """Every key of the database at ``url`` with its serialized value (DUMP)."""
    client = redis.Redis.from_url(url)
    try:
        return {key: client.dump(key) for key in client.scan_iter()}
    finally:
        client.close()


def test_a_given_redis_loses_only_the_runs_own_keys(shared_redis: str) -> None:
    before = _snapshot(shared_redis)
    with benchkit.redis_target(shared_redis) as target:
        assert not target.own and target.pid is None
        assert target.bot_id != "bench-bot" and target.prefix.startswith("bench:")
        client = redis.Redis.from_url(target.url)
        client.set(target.prefix + "a", "1")
        client.rpush(target.prefix + "q", "x")
        client.set(f"arena:bot:{target.bot_id}:online", "gw")
        client.close()
        assert len(_snapshot(shared_redis)) == len(before) + 3
    assert _snapshot(shared_redis) == before


def test_its_own_redis_server_is_stopped(tmp_path: Path) -> None:
    with benchkit.redis_target(None) as target:
        assert target.own and target.pid is not None
        port = int(target.url.rsplit(":", 1)[1].split("/")[0])
        assert redis.Redis.from_url(target.url).ping()
    assert not Path(f"/proc/{target.pid}").exists()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_the_celery_broker_keys_are_under_the_runs_prefix(shared_redis: str, tmp_path: Path) -> None:
    from workers.dispatch import CeleryDispatcher

    before = _snapshot(shared_redis)
    prefix = benchkit.run_prefix()
    app = benchkit.celery_app(shared_redis, f"sqlite:///{tmp_path / 'x.db'}", prefix)
    try:
        dispatcher = CeleryDispatcher(app)
        dispatcher.offer("t1", 2)
        assert dispatcher.queued() == 2  # its own queue, not the one with someone's offer
    finally:
        app.close()
    new = set(_snapshot(shared_redis)) - set(before)
    assert new and all(key.startswith(prefix.encode()) for key in new), new
    assert redis.Redis.from_url(shared_redis).llen("arena") == 1


def test_a_taken_port_is_a_user_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(benchkit.BenchError, match="in use"):
            benchkit.check_port(s.getsockname()[1])


@pytest.mark.parametrize("argv", [["--redis-url", "redis://127.0.0.1:1/0"], ["--redis-url", "nope://x"],
                                  ["--matches", "1"], ["--json", "/nonexistent/dir/out.json"]])
def test_bench_option_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    import bench_gateway
    import bench_remote_route

    assert bench_remote_route.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "error: " in err
    if argv[0] != "--matches":
        assert bench_gateway.main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "error: " in err


def test_bench_remote_route_leaves_a_given_redis_as_it_was(shared_redis: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A short run end to end: the ratio figures are printed, and the Redis it was
    given has the same keys and values after it (it used to FLUSHDB)."""
    import json

    import bench_remote_route

    before = _snapshot(shared_redis)
    out = tmp_path / "figures.json"
    os.environ.pop(benchkit.PREFIX_ENV, None)
    assert bench_remote_route.main(["--matches", "2", "--seconds", "0.2", "--processes", "1",
                                    "--redis-url", shared_redis, "--json", str(out)]) == 0
    assert _snapshot(shared_redis) == before
    printed = capsys.readouterr().out
    assert "route decisions/s / plain gRPC with 8 in flight" in printed and "goal >= 0.55" in printed
    figures = json.loads(out.read_text())
    assert figures["route_8"]["faults"] == 0 and figures["route_1"]["faults"] == 0
    assert figures["route_8_rate_over_plain_grpc_8"] > 0 and figures["goal"] == 0.55
    cpu = figures["route_8"]["cpu_ms_per_decision"]
    assert {"gateway", "bot", "worker", "pool 1", "workers"} <= set(cpu) and "redis" not in cpu
