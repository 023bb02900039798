"""The conductor and the tournament service, embedded (no services): a failing
match ends the tournament honestly, a dead local run's leases are taken at once,
round-based formats get their next round, status/retry/standings tell the truth,
and the CLI's status --json / --follow end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.records.spec import MatchSpec, make_match_id
from arena.tournaments import service
from arena.tournaments.conductor import Conductor, ConductorSettings, owner_pid_alive
from arena.tournaments.executors import EmbeddedExecutor, open_store
from arena.tournaments.rounds import Format, TournamentView, register_format, unregister_format

FAST = ConductorSettings(lease_seconds=2.0, heartbeat_seconds=0.5, max_attempts=2, retry_backoff=0.05,
                         interval=0.1)

TOML = """
[tournament]
id = "{tid}"
game = "calypso"
format = "{fmt}"
deals = {deals}
seed = 5
deadline_ms = 5000

[[entrants]]
id = "h"
bot = "{bot}"

[[entrants]]
id = "r"
bot = "random"
"""


def _file(tmp_path: Path, tid: str, *, deals: int = 2, fmt: str = "round_robin",
          bot: str = "heuristic") -> Path:
    path = tmp_path / f"{tid}.toml"
    path.write_text(TOML.format(tid=tid, deals=deals, fmt=fmt, bot=bot), encoding="utf-8")
    return path


def test_a_match_that_keeps_failing_ends_the_tournament_done_with_it_listed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    store = open_store(url)
    config, _ = service.register(_file(tmp_path, "fail"), store)
    # a spec whose bot does not exist: play_spec raises on every attempt
    bad = MatchSpec(make_match_id("fail", 99), "fail", 99, "calypso", None, {}, 1, ("h", "x", "h", "x"),
                    ("builtin:heuristic", "builtin:no-such-bot") * 2)
    store.add_specs("fail", [bad])
    ex = EmbeddedExecutor(url, 1, settings=FAST)
    done, total = ex.run("fail")
    assert (done, total) == (4, 5)
    assert ex.finished == "done" and store.tournament("fail").status == "done"
    st = service.status(store, "fail", FAST)
    assert st.counts == {"pending": 0, "leased": 0, "done": 4, "failed": 1}
    (failed,) = st.failed
    assert failed["match_id"] == bad.match_id and failed["attempts"] == 2 and failed["final"]
    assert "no-such-bot" in failed["error"]
    standings = service.standings(store, "fail")
    assert [m["match_id"] for m in standings.details["missing"]] == [bad.match_id]
    assert "no-such-bot" in standings.details["missing"][0]["reason"]
    # retry by hand re-opens it (and the tournament); it fails again, honestly
    assert service.retry(store, "fail") == 1
    assert store.tournament("fail").status == "running"
    ex2 = EmbeddedExecutor(url, 1, settings=FAST)
    assert ex2.run("fail") == (4, 5) and ex2.finished == "done"
    assert service.status(store, "fail", FAST).failed[0]["attempts"] == 2


def test_leases_of_a_dead_local_run_are_taken_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    store = open_store(url)
    service.register(_file(tmp_path, "dead"), store)
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    import socket

    dead_owner = f"embedded:{socket.gethostname()}:{proc.stdout.strip()}"
    assert owner_pid_alive(dead_owner) is False
    assert owner_pid_alive(f"embedded:{socket.gethostname()}:{os.getpid()}") is True
    assert owner_pid_alive("celery:elsewhere:1") is None
    got = store.lease_next("dead", dead_owner, 3600, limit=2)
    assert len(got) == 2
    # a long lease held by a dead process of this host does not hold the rerun up
    ex = EmbeddedExecutor(url, 1, settings=ConductorSettings(lease_seconds=3600, heartbeat_seconds=5))
    assert ex.run("dead") == (4, 4) and ex.finished == "done"
    assert max(s.attempts for s in store.spec_states("dead")) == 2


class TwoRounds(Format):
    """Round 0: the round robin; round 1: the same deals again with new ids."""

    def first_round(self, entrants: Any) -> list[MatchSpec]:
        from dataclasses import replace

        from arena.tournaments.formats import expand

        return expand(replace(self.config, format="round_robin"))

    def next_round(self, tournament: TournamentView, records: Any) -> list[MatchSpec] | None:
        if tournament.round >= 1:
            return None
        assert len(list(records)) == len(tournament.specs)  # round 0 is recorded
        n = len(tournament.specs)
        return [MatchSpec(make_match_id(tournament.id, n + i), tournament.id, n + i, s.game, s.preset,
                          s.options, s.seed, s.entrants, s.bots, deal=s.deal, rotation=s.rotation,
                          round=1) for i, s in enumerate(tournament.specs)]

    def standings(self, records: Any) -> Any:
        from dataclasses import replace

        from arena.tournaments.standings import standings

        return standings(replace(self.config, format="round_robin"), records)


@pytest.fixture
def two_rounds() -> Any:
    register_format("test_two_rounds")(TwoRounds)
    yield TwoRounds
    unregister_format("test_two_rounds")


def test_the_conductor_adds_the_next_round_then_finishes(tmp_path: Path, two_rounds: Any) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    store = open_store(url)
    config, added = service.register(_file(tmp_path, "rounds", fmt="test_two_rounds"), store)
    assert added == 4 and store.tournament("rounds").round == 0
    ex = EmbeddedExecutor(url, 1, settings=FAST)
    assert ex.run("rounds") == (8, 8) and ex.finished == "done"
    assert store.tournament("rounds").round == 1
    assert [s.round for s in store.specs("rounds")] == [0] * 4 + [1] * 4
    # reproducible: a second conductor pass on the finished tournament changes nothing
    assert Conductor(store, None, FAST).reconcile("rounds") == []
    assert len(store.specs("rounds")) == 8


def test_status_json_and_follow_end_on_a_finished_tournament(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    store = open_store(url)
    service.register(_file(tmp_path, "st"), store)
    runner = CliRunner()
    res = runner.invoke(app, ["tournament", "status", "st", "--store", url, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["schema_version"] == 1 and data["status"] == "pending" and data["finished"] is False
    assert data["counts"] == {"pending": 4, "leased": 0, "done": 0, "failed": 0} and data["total"] == 4
    EmbeddedExecutor(url, 1, settings=FAST).run("st")
    res = runner.invoke(app, ["tournament", "status", "st", "--store", url, "--follow", "--timeout", "20"])
    assert res.exit_code == 0, res.output
    assert "finished: done" in res.output and "done 4" in res.output
    res = runner.invoke(app, ["tournament", "status", "nope", "--store", url])
    assert res.exit_code != 0 and "no tournament 'nope'" in res.output
    res = runner.invoke(app, ["tournament", "retry", "st", "--store", url])
    assert res.exit_code == 0 and "0 failed matches re-opened" in res.output


def test_follow_says_when_nothing_moves(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    store = open_store(url)
    service.register(_file(tmp_path, "idle"), store)
    res = CliRunner().invoke(app, ["tournament", "status", "idle", "--store", url, "--follow", "--stale", "0.3",
                                   "--interval", "0.1", "--timeout", "1.5"])
    assert res.exit_code == 0, res.output
    assert "nothing has moved for 0 s" in res.output or "nothing has moved" in res.output


def test_settings_are_validated_and_read_from_the_environment() -> None:
    with pytest.raises(ValueError, match="longer than the heartbeat"):
        ConductorSettings(lease_seconds=5, heartbeat_seconds=5)
    with pytest.raises(ValueError, match="ARENA_MAX_ATTEMPTS"):
        ConductorSettings.from_env({"ARENA_MAX_ATTEMPTS": "three"})
    s = ConductorSettings.from_env({"ARENA_MAX_ATTEMPTS": "5", "ARENA_QUEUE_TARGET": "2"})
    assert (s.max_attempts, s.queue_target, s.lease_seconds) == (5, 2, 30.0)
    assert ConductorSettings.from_env(s.to_env()) == s


SWISS = """
[tournament]
id = "sw"
game = "calypso"
format = "swiss"
deals = 1
seed = 9
[swiss]
rounds = 3
{entrants}
"""


def test_conductors_racing_add_each_round_once_and_finish_only_when_idle(tmp_path: Path) -> None:
    """Several conductor passes at once (threads, each its own store connection) while
    matches are played: every Swiss round is added once, none while the previous one
    is out, and the tournament is finished only when nothing is pending or leased."""
    import threading

    from arena.tournaments.runner import play_spec

    entrants = "\n".join(f'[[entrants]]\nid = "e{i}"\nbot = "{"heuristic" if i % 2 else "random"}"'
                         for i in range(6))
    file = tmp_path / "sw.toml"
    file.write_text(SWISS.format(entrants=entrants), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    config, _ = service.register(file, open_store(url))
    stop = threading.Event()
    errors: list[BaseException] = []
    finished_early: list[tuple[int, int]] = []

    def conduct() -> None:
        store = open_store(url)
        try:
            while not stop.is_set():
                Conductor(store, None, FAST).reconcile("sw")
                if store.tournament("sw").status == "done":
                    counts = store.status_counts("sw")
                    if counts["pending"] or counts["leased"]:
                        finished_early.append((counts["pending"], counts["leased"]))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=conduct) for _ in range(4)]
    for t in threads:
        t.start()
    store = open_store(url)
    try:
        end = time.monotonic() + 120
        while store.tournament("sw").status != "done":
            assert time.monotonic() < end and not errors, (errors, store.status_counts("sw"))
            for spec in store.lease_next("sw", "test:player", 30.0, 2):
                store.record_result(play_spec(spec))
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not errors and not finished_early, (errors, finished_early)
    specs = store.specs("sw")
    rounds: dict[int, list[str]] = {}
    for s in specs:
        rounds.setdefault(s.round, []).extend(s.tags["sides"] if s.rotation == 0 else [])
    assert sorted(rounds) == [0, 1, 2] and store.tournament("sw").round == 2
    for r, sides in rounds.items():  # each entrant once per round: no round paired twice
        assert sorted(sides) == [f"e{i}" for i in range(6)], (r, sides)
    assert len(list(store.records("sw"))) == len(specs) == 3 * 3 * 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_at_a_safe_point_gives_the_leases_back_and_resumes(tmp_path: Path, jobs: int) -> None:
    """SIGINT during a run (here from its progress callback, on the main thread, as a
    terminal's Ctrl-C arrives) stops it between store writes: KeyboardInterrupt out of
    ``run``, nothing left leased, status ``paused``; a rerun finishes it."""
    import signal

    url = f"sqlite:///{tmp_path / 'c.db'}"
    store = open_store(url)
    service.register(_file(tmp_path, "intr", deals=12), store)
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done >= 4 and len(seen) < 100:
            signal.raise_signal(signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        EmbeddedExecutor(url, jobs, chunk=1, settings=FAST).run("intr", progress=progress)
    assert signal.getsignal(signal.SIGINT) is before  # the run's handler is gone
    done, total = store.progress("intr")
    assert 4 <= done < total == 24
    counts = service.status(store, "intr", FAST).counts
    assert counts["leased"] == 0 and counts["done"] == done
    assert store.tournament("intr").status == "paused"
    ex = EmbeddedExecutor(url, jobs, settings=FAST)
    assert ex.run("intr") == (24, 24) and ex.finished == "done"


class _SlowRouter:
    """A router whose bot thinks until released (then answers its first legal action)."""

    def __init__(self) -> None:
        import threading

        self.release = threading.Event()
        self.asked = threading.Event()

    def decide_timed(self, bot_id: str, request: Any, timeout: float) -> tuple[Any, float]:
        from arena.bot.v1 import bot_pb2

        self.asked.set()
        self.release.wait(60)
        first = request.legal_actions[0]
        return bot_pb2.Decision(request_id=1, action_id=first.id), 0.001

    def decide(self, bot_id: str, request: Any, timeout: float) -> Any:
        return self.decide_timed(bot_id, request, timeout)[0]

    def notify(self, bot_id: str, message: Any) -> None:
        pass

    def is_connected(self, bot_id: str) -> bool:
        return True


def test_ctrl_c_does_not_wait_for_remote_matches_in_flight(tmp_path: Path) -> None:
    """A remote match whose bot is thinking (here: until released) does not hold a
    stopped run: KeyboardInterrupt comes at once, its thread is a daemon (the
    interpreter does not join it at exit), its lease is given back, and what it
    returns after the stop is never recorded; the next run plays every match once."""
    import signal
    import threading

    url = f"sqlite:///{tmp_path / 'r.db'}"
    store = open_store(url)
    specs = [MatchSpec(make_match_id("rem", i), "rem", i, "calypso", None, {}, 10 + i, ("s", "r", "s", "r"),
                       ("remote:slow", "builtin:random") * 2, deadline_ms=60000) for i in range(3)]
    store.add_tournament("rem", "rem", "calypso", {}, specs)
    router = _SlowRouter()

    def interrupt() -> None:
        router.asked.wait(20)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        EmbeddedExecutor(url, 1, router=router, settings=FAST).run("rem")
    assert time.monotonic() - start < 10  # not the bot's 60 s deadline
    abandoned = [t for t in threading.enumerate() if t.name.startswith("remote-match-")]
    assert abandoned and all(t.daemon for t in abandoned)
    counts = service.status(store, "rem", FAST).counts
    assert counts["leased"] == 0 and counts["done"] == 0 and store.tournament("rem").status == "paused"
    router.release.set()  # the abandoned matches now finish: nobody records them
    for t in abandoned:
        t.join(30)
    assert store.progress("rem")[0] == 0
    ex = EmbeddedExecutor(url, 1, router=router, settings=FAST)
    assert ex.run("rem") == (3, 3) and ex.finished == "done"
    assert sorted(r.match_id for r in store.records("rem")) == [s.match_id for s in specs]


def test_status_says_why_a_tournament_is_paused_by_route_failures(tmp_path: Path) -> None:
    """Issue 26: a tournament whose route keeps failing pauses instead of spinning,
    and ``arena tournament status`` (text and ``--json``) says until when and why."""
    from datetime import datetime, timedelta, timezone

    from arena.store.models import TournamentRow

    url = f"sqlite:///{tmp_path / 'p.db'}"
    store = open_store(url)
    service.register(_file(tmp_path, "rp"), store)
    policy = {"pause_after": 2, "pause_seconds": 30.0}
    specs = store.lease_next("rp", "w", 30, 2)
    assert store.void(specs[0].match_id, "w", 0, "Redis unavailable while routing to x: boom", **policy)
    with store.engine.begin() as conn:  # the voids span the window: the route keeps failing
        conn.execute(TournamentRow.__table__.update().values(
            voids_since=datetime.now(timezone.utc) - timedelta(seconds=40)))
    assert store.void(specs[1].match_id, "w", 0, "Redis unavailable while routing to x: boom", **policy)
    runner = CliRunner()
    res = runner.invoke(app, ["tournament", "status", "rp", "--store", url])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # (the console wraps long lines)
    line = text[text.index("route failing"):]
    assert "paused until" in line and "2 matches in a row voided by platform faults" in line and "boom" in line
    data = json.loads(runner.invoke(app, ["tournament", "status", "rp", "--store", url, "--json"]).output)
    assert data["voids_in_row"] == 2 and "paused until" in data["route_pause"]["reason"]
    assert data["route_pause"]["until"] > datetime.now(timezone.utc).isoformat()
