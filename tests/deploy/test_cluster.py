"""The local cluster (``python -m arena.cluster`` / ``arena cluster``) with real
processes: a private redis-server, the gateway (``arena serve``) and two Celery
workers (``celery -A workers.celery worker``); up, status, a gRPC channel to the
gateway, ``celery inspect ping`` to both workers, down leaves nothing running."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import cluster

REPO = Path(__file__).resolve().parents[2]


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.mark.timeout(60)
def test_cluster_up_status_down(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:  # .ci/run installs it: a missing one is a failure
        pytest.fail("redis-server is not installed (apt-get install redis-server)")
    started = time.monotonic()
    run = tmp_path / "run"
    state = cluster.up(run, gateway_address="127.0.0.1:0", workers=2, concurrency=1, timeout=30)
    try:
        names = [p.name for p in state.procs]
        assert names == ["redis", "gateway", "worker-1", "worker-2"]
        assert (run / "state.json").exists()
        assert all((run / f"{n}.pid").read_text().strip() == str(p.pid) for n, p in zip(names, state.procs))
        assert all(Path(p.log).parent == run / "logs" for p in state.procs)
        assert oct((run / "state.json").stat().st_mode & 0o777) == "0o600"  # holds the operator token

        st = cluster.status(run)
        assert st["running"] is True
        assert [p["name"] for p in st["procs"] if p["alive"]] == names
        env = st["env"]
        assert "ARENA_OPERATOR_TOKEN" not in env
        assert env["ARENA_STORE_URL"] == f"sqlite:///{run.resolve() / 'arena.db'}"
        assert cluster.main(["--run-dir", str(run), "status"]) == 0

        # a second `up` on the same run directory is refused
        with pytest.raises(cluster.ClusterError, match="runs already"):
            cluster.up(run, gateway_address="127.0.0.1:0")

        # the gateway answers gRPC (its health service says SERVING)
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        with grpc.insecure_channel(env["ARENA_GATEWAY_ADDRESS"]) as channel:
            grpc.channel_ready_future(channel).result(timeout=10)
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING

        # both workers answer `celery inspect ping` on the cluster's Redis
        ping_env = dict(os.environ, **env)
        ping_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        out = subprocess.run([sys.executable, "-m", "celery", "-A", "workers.celery", "inspect", "ping",
                              "--timeout", "5"], env=ping_env, cwd=tmp_path, capture_output=True,
                             text=True, timeout=30)
        assert out.returncode == 0, out.stdout + out.stderr
        host = socket.gethostname()
        assert f"arena-1@{host}" in out.stdout and f"arena-2@{host}" in out.stdout, out.stdout
        assert out.stdout.count("pong") == 2, out.stdout
    finally:
        stopped = cluster.down(run, timeout=15)

    assert set(stopped) == {"redis", "gateway", "worker-1", "worker-2"}
    assert not any(stopped.values()), f"needed SIGKILL: {stopped}"  # SIGTERM was enough
    for p in state.procs:
        assert not p.alive(), p
        assert not cluster._group_alive(p.pid), f"{p.name}'s process group survives"
    gw_host, gw_port = st["env"]["ARENA_GATEWAY_ADDRESS"].rsplit(":", 1)
    assert not _listening(gw_host, int(gw_port))
    redis_port = int(st["env"]["ARENA_REDIS_URL"].rsplit(":", 1)[1].split("/")[0])
    assert not _listening("127.0.0.1", redis_port)
    assert not (run / "state.json").exists() and not list(run.glob("*.pid"))
    assert (run / "logs" / "gateway.log").exists()  # logs stay for reading
    assert cluster.status(run) == {"running": False, "procs": [], "env": {}}
    assert cluster.down(run) == {}
    assert time.monotonic() - started < 60


def test_cluster_refuses_a_busy_gateway_port(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        with pytest.raises(cluster.ClusterError, match="in use"):
            cluster.up(tmp_path / "run", gateway_address=f"127.0.0.1:{port}", redis_url="redis://127.0.0.1:1/0")
    assert cluster.status(tmp_path / "run")["procs"] == []


def test_stop_escalates_to_sigkill(tmp_path: Path) -> None:
    """A process that ignores SIGTERM is killed, with its process group, after the timeout."""
    (tmp_path / "logs").mkdir()
    code = ("import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "subprocess.Popen([sys.executable, '-c', 'import signal, time; "
            "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)']); time.sleep(60)")
    proc = cluster._launch("stubborn", [sys.executable, "-c", code], tmp_path, dict(os.environ))
    time.sleep(0.5)
    assert proc.alive() and cluster._group_alive(proc.pid)
    started = time.monotonic()
    assert cluster._stop(proc, timeout=1.0) is True
    assert time.monotonic() - started < 10
    assert not proc.alive() and not cluster._group_alive(proc.pid)
