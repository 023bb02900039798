"""The first hour (issue 17): every user error is one line on stderr and a non-zero
exit, never a traceback; read-only commands never create or migrate a store; JSON
is strict; help texts are clean; tables read at 80 columns; ``arena --version``."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena import cli
from arena.cli import app
from arena.tournaments.config import example_path

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _one_line_error(res: Any, *needles: str, code: int = 2) -> str:
    """The result is exit ``code`` with exactly one line on stderr holding ``needles``."""
    assert res.exit_code == code, (res.exit_code, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("arena") and ": error: " in lines[0], lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in res.output
    return lines[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store with the calypso and canasta examples, and their records and PBN."""
    root = tmp_path_factory.mktemp("played")
    url = f"sqlite:///{root / 'arena.db'}"
    for game in ("calypso", "canasta", "bridge"):
        res = runner.invoke(app, ["tournament", "run", str(example_path(game)), "--store", url, "-j", "1"])
        assert res.exit_code == 0, res.output
    records = root / "records.jsonl"
    assert runner.invoke(app, ["export", "example-calypso", "--store", url, "-o", str(records)]).exit_code == 0
    boards = root / "boards.pbn"
    res = runner.invoke(app, ["export", "example-bridge", "--store", url, "-f", "pbn", "-o", str(boards)])
    assert res.exit_code == 0, res.output
    import sqlite3

    with sqlite3.connect(root / "arena.db") as conn:  # everything in the file, so a copy of it is whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"root": root, "url": url, "records": records, "pbn": boards}


# -- one line per user error ------------------------------------------------------------------

@pytest.mark.parametrize("args, needles, code", [
    (["standings", "t", "--store", "sqlite:////proc/nope/a.db"], ["no store at /proc/nope/a.db"], 2),
    (["standings", "t", "--store", "arena.db"], ["'arena.db' is not a store URL", "sqlite:///"], 2),
    (["standings", "t", "--store", "mysql://u@h/db"], ["SQLite or PostgreSQL"], 2),
    (["standings", "t", "--store", "postgres://u@127.0.0.1:1/db"], ["cannot open the store", "127.0.0.1"], 1),
    (["tournament", "status", "t", "--store", "arena.db"], ["not a store URL"], 2),
    (["bots", "list", "--store", "sqlite:////proc/nope/a.db"], ["no store at"], 2),
    (["tournament", "run", str(example_path("calypso")), "--store", "sqlite:////proc/nope/a.db"],
     ["the folder /proc/nope does not exist"], 2),
    (["play", "calypso", "-n", "50", "--records", "/proc/nope/r.jsonl"], ["--records", "cannot write"], 2),
    (["play", "bridge", "-n", "50", "--pbn", "/proc/nope/b.pbn"], ["--pbn", "cannot write"], 2),
    (["play", "calypso", "--games", "0"], ["at least 1, got 0"], 2),
    (["play", "calypso", "--games", "-3"], ["at least 1, got -3"], 2),
    (["play", "calypso", "--deadline-ms", "0"], ["--deadline-ms must be positive"], 2),
    (["play", "calypso", "--games", "abc"], ["--games", "(see arena play --help)"], 2),
    (["play", "calypso", "--no-such-option"], ["No such option", "(see arena play --help)"], 2),
    (["tournament", "run", str(example_path("calypso")), "-j", "0"], ["--jobs", "greater than or equal to 1"], 2),
    (["tournament", "status", "t", "--interval", "0"], ["--interval"], 2),
    (["standings"], ["Missing argument", "(see arena standings --help)"], 2),
])
def test_bad_input_is_one_line_and_a_nonzero_exit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  args: list[str], needles: list[str], code: int) -> None:
    monkeypatch.chdir(tmp_path)
    _one_line_error(runner.invoke(app, args), *needles, code=code)
    assert not (tmp_path / "arena.db").exists()


def test_unwritable_outputs_fail_before_the_work(played: dict[str, Any], tmp_path: Path) -> None:
    url = played["url"]
    _one_line_error(runner.invoke(app, ["export", "example-calypso", "--store", url, "-o", "/proc/nope/x.jsonl"]),
                    "--out /proc/nope/x.jsonl: cannot write")
    _one_line_error(runner.invoke(app, ["ratings", "calypso", "-r", str(played["records"]),
                                        "--plot", "/proc/nope/h.png"]), "--plot /proc/nope/h.png: cannot write")
    _one_line_error(runner.invoke(app, ["export", "example-calypso", "--store", url, "-f", "xml"]),
                    "unknown export format 'xml'")
    _one_line_error(runner.invoke(app, ["export", "no-such", "--store", url, "-o", str(tmp_path / "x")]),
                    "no tournament 'no-such'")
    assert not (tmp_path / "x").exists()  # nothing written for a tournament that is not there


def test_a_pbn_file_is_not_a_record_file(played: dict[str, Any]) -> None:
    line = _one_line_error(runner.invoke(app, ["replay", str(played["pbn"])]), "not a record file", "PBN")
    assert len(line) < 400
    _one_line_error(runner.invoke(app, ["ratings", "bridge", "-r", str(played["pbn"])]), "not a record file")
    toml = example_path("calypso")
    _one_line_error(runner.invoke(app, ["replay", str(toml)]), "not a record file")


def test_a_truncated_record_is_named(played: dict[str, Any], tmp_path: Path) -> None:
    text = played["records"].read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text + text.splitlines()[0][:300])  # the last record cut off mid-line, no newline
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(cut)])
    assert res.exit_code == 0, res.output
    assert f"{cut}:9: skipped a truncated record: the line ends before the record does" in res.stderr
    res = runner.invoke(app, ["replay", str(cut), "-q"])
    assert res.exit_code == 1 and "8 verified, 1 failed" in res.stdout and "truncated record" in res.stdout


def test_a_changed_tournament_file_says_what_changed(played: dict[str, Any], tmp_path: Path) -> None:
    changed = tmp_path / "calypso.toml"
    text = example_path("calypso").read_text()
    assert "deals = 4" in text and 'bot = "random"' in text
    changed.write_text(text.replace("deals = 4", "deals = 6").replace('bot = "random"', 'bot = "heuristic"'))
    line = _one_line_error(runner.invoke(app, ["tournament", "run", str(changed), "--store", played["url"]]),
                           "tournament 'example-calypso' is stored with other contents",
                           "tournament.deals: 4 -> 6", 'entrants[1].bot: "random" -> "heuristic"',
                           "new id")
    assert "{" not in line  # no Python dicts


# -- read-only commands ------------------------------------------------------------------------

def test_read_only_commands_create_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["standings", "t"], ["export", "t"], ["tournament", "status", "t"], ["bots", "list"]):
        _one_line_error(runner.invoke(app, args), "no store at arena.db", "arena tournament run")
    assert list(tmp_path.iterdir()) == []


def test_read_only_commands_leave_the_file_alone(played: dict[str, Any], tmp_path: Path) -> None:
    db = tmp_path / "copy.db"
    shutil.copy(played["root"] / "arena.db", db)
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    url = f"sqlite:///{db}"
    for args in (["standings", "example-calypso"], ["tournament", "status", "example-calypso"],
                 ["export", "example-calypso"], ["bots", "list"]):
        res = runner.invoke(app, [*args, "--store", url])
        assert res.exit_code == 0, res.output
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before
    # SQLite's own side files of a WAL database may appear beside it (a reader that
    # may write there makes them, and being read-only leaves them); nothing else does
    assert {p.name for p in tmp_path.iterdir()} <= {"copy.db", "copy.db-wal", "copy.db-shm"}
    assert not (tmp_path / "copy.db-wal").exists() or (tmp_path / "copy.db-wal").stat().st_size == 0


def test_a_store_of_another_schema_is_refused_read_only(tmp_path: Path) -> None:
    from arena.store import downgrade, upgrade

    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url)
    downgrade(url, "0002")
    _one_line_error(runner.invoke(app, ["standings", "t", "--store", url]), "has schema 0002",
                    "a command that writes")
    (tmp_path / "empty.db").write_bytes(b"")
    _one_line_error(runner.invoke(app, ["standings", "t", "--store", f"sqlite:///{tmp_path / 'empty.db'}"]),
                    "is not an arena store")


def test_standings_on_a_read_only_sqlite_file(played: dict[str, Any]) -> None:
    """A WAL-mode store in a folder nobody may write (so SQLite cannot make its
    shared-memory file): a read-only bind mount when the tests run as root (root
    writes past permission bits), a folder and file without write bits otherwise."""
    folder = Path(tempfile.mkdtemp(prefix="arena-ro-"))
    db = folder / "arena.db"
    shutil.copy(played["root"] / "arena.db", db)
    assert db.read_bytes()[18:20] == b"\x02\x02"  # a WAL database (file format 2): the hard case
    env = dict(os.environ, PYTHONPATH=str(REPO))
    arena = [sys.executable, "-m", "arena", "standings", "example-calypso", "--store", f"sqlite:///{db}"]
    try:
        if os.geteuid() == 0:
            script = (f'mount --bind "{folder}" "{folder}" && mount -o remount,ro,bind "{folder}" && '
                      f'! touch "{folder}/probe" 2>/dev/null && exec "$@"')
            cmd = ["unshare", "--mount", "sh", "-c", script, "sh", *arena]
        else:
            db.chmod(0o444)
            folder.chmod(0o555)
            cmd = arena
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd="/", env=env)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "8/8 matches recorded" in out.stdout and "heuristic" in out.stdout
        assert sorted(p.name for p in folder.iterdir()) == ["arena.db"]
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


# -- JSON, version, help, tables ---------------------------------------------------------------

def test_json_outputs_are_strict_with_a_schema_version(tmp_path: Path) -> None:
    from arena.store import Store
    from arena.tournaments import service

    url = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(url)
    store.migrate()
    service.register(example_path("canasta"), store)  # stored, nothing played: undefined figures
    res = runner.invoke(app, ["standings", "example-canasta", "--store", url, "--json"])
    assert res.exit_code == 0, res.output
    assert "NaN" not in res.stdout and "Infinity" not in res.stdout
    data = _strict_json(res.stdout)
    assert data["schema_version"] == 1
    assert all(r["win_rate"] is None and r["mean_points"] is None for r in data["rows"])
    res = runner.invoke(app, ["tournament", "status", "example-canasta", "--store", url, "--json"])
    assert res.exit_code == 0 and _strict_json(res.stdout)["schema_version"] == 1
    assert cli.dumps_json({"x": float("nan"), "y": [float("inf"), 1.5]}) == \
        '{"x": null, "y": [null, 1.5], "schema_version": 1}'


def test_version() -> None:
    from importlib.metadata import version

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"arena {version('arena')}"


def _commands(group: Any, path: list[str]) -> Iterator[list[str]]:
    yield path
    for name, sub in getattr(group, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            yield from _commands(sub, [*path, name])


def test_help_texts_are_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """No RST markup, no ``<bool>``/``<str>`` type labels, no ``{ARG}`` usage, for every
    command (``cluster`` prints its own help)."""
    import typer.main

    monkeypatch.setenv("COLUMNS", "100")
    paths = list(_commands(typer.main.get_command(app), []))
    assert ["tournament", "run"] in paths and ["bots", "list"] in paths and len(paths) > 25
    for path in paths:
        if path[:1] == ["cluster"]:
            continue
        res = runner.invoke(app, [*path, "--help"])
        assert res.exit_code == 0, (path, res.output)
        text = res.stdout
        for bad in ("``", "<bool>", "<str>", "<int>", "<float>", "<path>", "<list"):
            assert bad not in text, (path, bad, text)
        usage = next(line for line in text.splitlines() if "Usage:" in line)
        assert "{" not in usage, (path, usage)
    play = runner.invoke(app, ["play", "--help"]).stdout
    assert "--games" in play and " N " in play and "--json " in play


@pytest.mark.timeout(240)
def test_tables_read_at_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli.console, "width", 80)
    url = f"sqlite:///{tmp_path / 'a.db'}"
    res = runner.invoke(app, ["tournament", "run", str(example_path("auction")), "--store", url, "-j", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["standings", "example-auction", "--store", url])
    lines = res.stdout.splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines), res.stdout
    rows = [line for line in lines if line.split()[:1] in (["1"], ["2"], ["3"], ["4"])]
    assert sorted(line.split()[1] for line in rows) == ["heuristic-1", "heuristic-2", "random-1", "random-2"]
    assert "…" not in res.stdout


def test_canasta_standings_are_in_canasta_points(played: dict[str, Any]) -> None:
    from arena.records.replay import replay_record
    from arena.store import Store

    res = runner.invoke(app, ["standings", "example-canasta", "--store", played["url"], "--json"])
    data = _strict_json(res.stdout)
    assert ["mean_points", "points / match"] in data["columns"] and ["total_points", "points"] in data["columns"]
    store = Store(played["url"], readonly=True)
    totals: dict[str, float] = {}
    for r in store.records("example-canasta"):
        state = replay_record(r)
        for seat, pts in enumerate(state.game.match_points(state)):
            if seat in (0, 1):  # classic canasta: seat 0 and 1 are the two sides' first seats
                e = r.tags["entrants"][seat]
                totals[e] = totals.get(e, 0.0) + pts
    rows = {row["entrant"]: row for row in data["rows"]}
    assert {e: rows[e]["total_points"] for e in totals} == totals
    assert all(abs(row["total_points"]) > 100 for row in rows.values())  # canasta points, not wins
    table = runner.invoke(app, ["standings", "example-canasta", "--store", played["url"]]).stdout
    assert "points / match" in table and "mean score" not in table
    assert stat.S_ISREG((played["root"] / "arena.db").stat().st_mode)


# -- the default install -----------------------------------------------------------------------

BLOCK_EXTRAS = """
import sys
from importlib.abc import MetaPathFinder

class NoExtras(MetaPathFinder):
    # what pip install . leaves out: the gateway, distributed, postgres, dashboard and plot extras
    blocked = {"grpc", "google", "celery", "kombu", "redis", "hiredis", "uvloop", "psycopg", "fastapi",
               "uvicorn", "jinja2", "matplotlib", "endplay"}

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: not in the default install)")
        return None

sys.meta_path.insert(0, NoExtras())
import importlib.util
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in NoExtras.blocked else real(name, *a)
import json
from arena.cli import app
for args in json.loads(sys.argv[1]):
    try:
        app(args)
    except SystemExit as exc:
        print(f"@@exit {exc.code}", flush=True)
        print(f"@@exit {exc.code}", file=sys.stderr, flush=True)
"""


def _by_command(text: str) -> list[tuple[str, str]]:
    """``(exit code, output)`` of each command of a :data:`BLOCK_EXTRAS` run."""
    out, lines = [], []
    for line in text.splitlines():
        if line.startswith("@@exit "):
            out.append((line.split()[1], "\n".join(lines)))
            lines = []
        else:
            lines.append(line)
    return out


def test_the_default_install_runs_the_quick_start(played: dict[str, Any], tmp_path: Path) -> None:
    """Without any extra (their modules made unimportable) play, ratings, standings and
    export work (the embedded executor cannot import the gateway or Celery: the import
    contracts), and the commands that need an extra say which in one line."""
    records = str(tmp_path / "r.jsonl")
    runs = [(["play", "calypso", "-n", "1", "--no-details", "--records", records], 0, "faults: 0"),
            (["ratings", "calypso", "-r", records], 0, "batch Bradley-Terry fit"),
            (["standings", "example-canasta", "--store", played["url"]], 0, "points / match"),
            (["export", "example-bridge", "-f", "pbn", "--store", played["url"]], 0, '[Board "4"]'),
            (["serve"], 2, "arena serve: error: arena serve needs the gateway extra"),
            (["worker"], 2, "arena worker: error: arena worker needs the distributed extra"),
            (["standings", "t", "--store", "postgresql://u@127.0.0.1:1/db"], 2, "pip install 'arena[postgres]'")]
    out = subprocess.run([sys.executable, "-c", BLOCK_EXTRAS, json.dumps([r[0] for r in runs])],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    stdout, stderr = _by_command(out.stdout), _by_command(out.stderr)
    assert [c for c, _ in stderr] == [str(code) for _, code, _ in runs], out.stderr
    for (_, code, needle), (_, text), (_, errors) in zip(runs, stdout, stderr):
        assert needle in (text if code == 0 else errors), (needle, text, errors)
        assert code == 0 or len(errors.strip().splitlines()) == 1, errors
