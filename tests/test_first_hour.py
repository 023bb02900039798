"""The first hour, again (issue 27): a newcomer's mistakes are one line on stderr,
exit status 2, and create nothing.

* ``arena league``: a missing or invalid league file, an unknown league (with or
  without a store), a command at the wrong time: ``arena league CMD: error: ...``,
  exit 2 (was an 87-line traceback, or ``error: ...`` and exit 1), no ``arena.db``;
  ``league table`` only reads.
* ``arena tournament run`` with a garbled or invalid file (or a remote entrant that
  is not registered): refused before the store is made and before any header.
* an output in a folder that does not exist (``--store sqlite:///...``, ``--pbn``,
  ``--records``, ``--out``, ``--plot``): refused, the folder not made.
* ``arena tournament submit`` without the distributed extra: that one cause, and
  nothing stored.
* every ``.toml`` path the README's commands name exists.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.tournaments.config import example_path

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]
LEAGUE = REPO / "arena" / "tournaments" / "examples" / "leagues" / "calypso.toml"


def _one_line(res: Any, prefix: str, *needles: str, code: int = 2) -> str:
    """Exit ``code``, exactly one line on stderr, ``prefix: error: `` first, no traceback."""
    assert res.exit_code == code, (res.exit_code, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"{prefix}: error: "), lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in res.output
    return lines[0]


def _contents(db: Path) -> list[str]:
    """The rows of a SQLite store as SQL (its file's bytes move with WAL checkpoints)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _nothing_made(folder: Path, *keep: str) -> None:
    assert sorted(p.name for p in folder.iterdir()) == sorted(keep)


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder (the default store, sqlite:///arena.db, would be made here)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_STORE_URL", raising=False)
    return tmp_path


# -- arena league -------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", ["create", "update"])
def test_league_file_missing(empty: Path, cmd: str) -> None:
    _one_line(runner.invoke(app, ["league", cmd, "missing.toml"]), f"arena league {cmd}", "missing.toml",
              "does not exist")
    _nothing_made(empty)


@pytest.mark.parametrize("text, needle", [
    ("garbled [[[", "invalid TOML"),
    ('[league]\nid = "x"\ngame = "calypso"\nbogus = 1\n', "bogus"),
])
@pytest.mark.parametrize("cmd", ["create", "update"])
def test_league_file_invalid(empty: Path, cmd: str, text: str, needle: str) -> None:
    (empty / "lg.toml").write_text(text)
    _one_line(runner.invoke(app, ["league", cmd, "lg.toml"]), f"arena league {cmd}", needle)
    _nothing_made(empty, "lg.toml")


@pytest.mark.parametrize("args", [["table", "nope"], ["season", "start", "nope"], ["season", "end", "nope"],
                                  ["round", "nope"], ["round", "nope", "--all"]])
def test_unknown_league_without_a_store_creates_nothing(empty: Path, args: list[str]) -> None:
    prefix = "arena league " + " ".join(a for a in args if a != "nope" and not a.startswith("-"))
    _one_line(runner.invoke(app, ["league", *args]), prefix, "no league 'nope'", "arena league create")
    _nothing_made(empty)


def test_league_commands_on_a_store(empty: Path) -> None:
    res = runner.invoke(app, ["league", "create", str(LEAGUE)])
    assert res.exit_code == 0, res.output
    db = empty / "arena.db"
    before = _contents(db)
    for args in (["table", "nope"], ["season", "start", "nope"], ["round", "nope"]):
        prefix = "arena league " + " ".join(args[:-1])
        _one_line(runner.invoke(app, ["league", *args]), prefix, "no league 'nope' in sqlite:///arena.db")
    # at the wrong time: the same prefix and exit 2 as every other command
    _one_line(runner.invoke(app, ["league", "round", "example-league"]), "arena league round", "between seasons")
    _one_line(runner.invoke(app, ["league", "season", "end", "example-league"]), "arena league season end")
    _one_line(runner.invoke(app, ["league", "table", "example-league"]), "arena league table", "no season yet")
    _one_line(runner.invoke(app, ["league", "round", "example-league", "--redis-url", "redis://x"]),
              "arena league round", "--redis-url goes with --all")
    assert _contents(db) == before  # nothing of it was written


def test_readme_league_paths_exist() -> None:
    text = (REPO / "README.md").read_text()
    paths = set(re.findall(r"arena league (?:create|update) (\S+\.toml)", text))
    assert paths, "the README shows arena league create/update with a file"
    for p in paths:
        assert (REPO / p).is_file(), f"README names {p}, which does not exist"


# -- arena tournament run ------------------------------------------------------------------------

@pytest.mark.parametrize("text, needle", [
    ("garbled [[[", "invalid TOML"),
    ('[tournament]\nid = "t"\ngame = "calypso"\nformat = "round_robin"\ndeals = -3\n', "tournament.deals"),
    ('[tournament]\nid = "t"\ngame = "calypso"\nformat = "round_robin"\ndeals = 1\n[[entrants]]\nid = "a"\nremote = "ghost"\n'
     '[[entrants]]\nid = "b"\nbot = "random"\n', "bot 'ghost' is not registered"),
])
def test_tournament_run_refuses_before_it_makes_anything(empty: Path, text: str, needle: str) -> None:
    (empty / "t.toml").write_text(text)
    res = runner.invoke(app, ["tournament", "run", "t.toml"])
    _one_line(res, "arena tournament run", needle)
    assert res.stdout.strip() == ""  # no header for the file, no "results are kept in"
    _nothing_made(empty, "t.toml")


def test_tournament_run_checks_every_file_first(empty: Path) -> None:
    (empty / "bad.toml").write_text("garbled [[[")
    res = runner.invoke(app, ["tournament", "run", str(example_path("calypso")), "bad.toml"])
    _one_line(res, "arena tournament run", "bad.toml", "invalid TOML")
    _nothing_made(empty, "bad.toml")  # the good file was not played either


def test_tournament_run_remote_entrant_checked_in_an_existing_store(empty: Path) -> None:
    assert runner.invoke(app, ["bots", "register", "someone"]).exit_code == 0
    before = _contents(empty / "arena.db")
    (empty / "t.toml").write_text('[tournament]\nid = "t"\ngame = "calypso"\nformat = "round_robin"\ndeals = 1\n[[entrants]]\nid = "a"\n'
                                  'remote = "ghost"\n[[entrants]]\nid = "b"\nbot = "random"\n')
    _one_line(runner.invoke(app, ["tournament", "run", "t.toml"]), "arena tournament run",
              "entrants[0].remote: bot 'ghost' is not registered")
    assert _contents(empty / "arena.db") == before


# -- outputs in a folder that does not exist ---------------------------------------------------

def test_missing_folders_are_errors_and_are_not_made(empty: Path) -> None:
    gone = empty / "nonexistent"
    store = f"sqlite:///{gone / 'x.db'}"
    cases = [
        (["tournament", "run", str(example_path("calypso")), "--store", store], "arena tournament run"),
        (["tournament", "submit", str(example_path("calypso")), "--store", store], "arena tournament submit"),
        (["tournament", "retry", "t", "--store", store], "arena tournament retry"),
        (["bots", "register", "b", "--store", store], "arena bots register"),
        (["league", "create", str(LEAGUE), "--store", store], "arena league create"),
        (["serve", "--store", store], "arena serve"),
        (["worker", "--store", store], "arena worker"),
        (["play", "bridge", "-n", "1", "--pbn", str(gone / "out.pbn")], "arena play"),
        (["play", "calypso", "-n", "1", "--records", str(gone / "r.jsonl")], "arena play"),
    ]
    for args, prefix in cases:
        line = _one_line(runner.invoke(app, args), prefix)
        assert str(gone) in line, line
        assert not gone.exists(), args
    _nothing_made(empty)


def test_missing_folder_for_export_out(empty: Path) -> None:
    url = f"sqlite:///{empty / 'a.db'}"
    assert runner.invoke(app, ["tournament", "run", str(example_path("calypso")), "--store", url]).exit_code == 0
    gone = empty / "nonexistent"
    for fmt in ("jsonl",):
        line = _one_line(runner.invoke(app, ["export", "example-calypso", "--store", url, "-f", fmt,
                                             "-o", str(gone / "x")]), "arena export")
        assert "cannot write" in line
    assert not gone.exists()


# -- tournament submit without the distributed extra -------------------------------------------

def test_submit_without_the_distributed_extra_stores_nothing(tmp_path: Path) -> None:
    from test_cli_errors import BLOCK_EXTRAS

    runs = [["tournament", "submit", str(example_path("calypso"))],
            ["tournament", "retry", "t", "--redis-url", "redis://127.0.0.1:1/0"],
            ["league", "round", "example-league", "--all", "--redis-url", "redis://127.0.0.1:1/0"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    out = subprocess.run([sys.executable, "-c", BLOCK_EXTRAS, json.dumps(runs)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env=dict(env, PYTHONPATH=str(REPO)))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    chunks = out.stderr.split("@@exit ")
    errors, codes = [chunks[0]], []
    for chunk in chunks[1:]:
        code, _, rest = chunk.partition("\n")
        codes.append(code)
        errors.append(rest)
    assert codes == ["2", "2", "2"], out.stderr
    names = ["arena tournament submit", "arena tournament retry --redis-url", "arena league round --redis-url"]
    for text, name in zip(errors, names):
        lines = [line for line in text.splitlines() if line.strip()]
        assert len(lines) == 1, text
        assert f"{name} needs the distributed extra" in lines[0] and "Redis" not in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no arena.db: nothing stored
