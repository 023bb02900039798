"""The command line, end to end in process (toy game; games add their own CLI tests)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def test_play_prints_summary_and_writes_records(toy_registered: str, tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    res = runner.invoke(app, ["play", toy_registered, "--bots", "random,random", "--games", "4",
                              "--seed", "2", "--records", str(out)])
    assert res.exit_code == 0, res.output
    assert "deal 1:" in res.output and "margin per deal" in res.output and "faults: 0" in res.output
    assert len(out.read_text().splitlines()) == 8  # 4 deals x 2 rotations

    res = runner.invoke(app, ["replay", str(out)])
    assert res.exit_code == 0, res.output
    assert "8 verified, 0 failed" in res.output

    lines = out.read_text().splitlines()
    record = json.loads(lines[0])
    record["returns"] = [9.0, -9.0]
    lines[0] = json.dumps(record)
    lines.append("garbage")
    out.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, ["replay", str(out), "-q"])
    assert res.exit_code == 1
    assert "7 verified, 2 failed" in res.output and "unreadable record" in res.output


def test_play_json(toy_registered: str) -> None:
    res = runner.invoke(app, ["play", toy_registered, "--bots", "random,random", "-n", "3", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["deals"] == 3 and data["rotations"] == 2 and len(data["per_deal"]) == 3


def test_bad_input_is_a_clear_error(toy_registered: str) -> None:
    res = runner.invoke(app, ["play", "nosuchgame"])
    assert res.exit_code != 0 and "unknown game" in res.output
    res = runner.invoke(app, ["play", toy_registered, "--bots", "random,nosuchbot"])
    assert res.exit_code != 0 and "unknown bot" in res.output
    res = runner.invoke(app, ["play", toy_registered, "--option", "colour=red"])
    assert res.exit_code != 0 and "unknown option" in res.output


def test_bots_register_list_revoke(tmp_path: Path) -> None:
    """``arena bots`` works on the store's ``bots`` table (what ``arena serve`` reads)."""
    from arena.store import Store, StoreBotRegistry

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    res = runner.invoke(app, ["bots", "register", "alpha", "--owner", "me", "--store", url])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0] == "registered alpha; token (shown once):"  # scripts take the last line
    token = lines[-1]
    assert token.startswith("arena_bot_") and len(token) >= 40
    with Store(url) as store:
        entry = StoreBotRegistry(store).authenticate(token)
        assert entry is not None and (entry.bot_id, entry.owner) == ("alpha", "me")
    res = runner.invoke(app, ["bots", "register", "alpha", "--store", url])
    assert res.exit_code != 0 and "alpha" in res.output
    res = runner.invoke(app, ["bots", "register", "bad id!", "--store", url])
    assert res.exit_code != 0 and "bot id" in res.output
    listing = runner.invoke(app, ["bots", "list", "--store", url])
    assert listing.exit_code == 0 and "alpha" in listing.output and "me" in listing.output
    assert runner.invoke(app, ["bots", "revoke", "alpha", "--store", url]).exit_code == 0
    with Store(url) as store:
        assert StoreBotRegistry(store).authenticate(token) is None
    assert runner.invoke(app, ["bots", "revoke", "nobody", "--store", url]).exit_code != 0


def test_bots_use_arena_store_url(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from arena.store import Store, StoreBotRegistry

    url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("ARENA_STORE_URL", url)
    res = runner.invoke(app, ["bots", "register", "from-env"])
    assert res.exit_code == 0, res.output
    with Store(url) as store:
        entry = StoreBotRegistry(store).authenticate(res.output.strip().splitlines()[-1])
        assert entry is not None and entry.bot_id == "from-env" and not entry.revoked


def test_removed_db_option_says_where_bots_went(tmp_path: Path) -> None:
    old = str(tmp_path / "arena-bots.sqlite3")
    for args in (["bots", "register", "x", "--db", old], ["bots", "list", "--db", old],
                 ["bots", "revoke", "x", "--db", old], ["serve", "--db", old]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        text = " ".join(res.output.split())
        assert "bots now live in the store" in text and "arena bots import" in text, text
    assert "--db" not in runner.invoke(app, ["bots", "register", "--help"]).output  # hidden


def test_bots_import_keeps_tokens(tmp_path: Path) -> None:
    """A bot file of older versions (``--db``) is copied into the store with its
    hashed tokens, so the bots keep connecting with the tokens they have."""
    from arena.store.registry import SqliteRegistry
    from arena.store import Store, StoreBotRegistry

    old = tmp_path / "arena-bots.sqlite3"
    legacy = SqliteRegistry(str(old))
    kept, token = legacy.register("kept", owner="ops")
    _, revoked_token = legacy.register("gone")
    legacy.revoke("gone")
    _, clash_token = legacy.register("clash")
    legacy.close()
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    assert runner.invoke(app, ["bots", "register", "clash", "--store", url]).exit_code == 0
    res = runner.invoke(app, ["bots", "import", str(old), "--store", url])
    assert res.exit_code == 0, res.output
    assert "imported 2 bots (gone, kept)" in res.output and "skipped 1 already in the store: clash" in res.output
    with Store(url) as store:
        reg = StoreBotRegistry(store)
        assert reg.authenticate(token) == kept  # same hash, owner and creation time
        assert reg.authenticate(revoked_token) is None and reg.get("gone").revoked
        assert reg.authenticate(clash_token) is None  # the store's own "clash" wins
    res = runner.invoke(app, ["bots", "import", str(tmp_path / "missing.sqlite3"), "--store", url])
    assert res.exit_code != 0


def test_ratings_from_records(tmp_path: Path) -> None:
    """``arena ratings`` on ``arena play`` records (the table itself: tests/test_cli_play_ratings.py)."""
    out = tmp_path / "records.jsonl"
    res = runner.invoke(app, ["play", "calypso", "--bots", "heuristic,random", "-n", "3",
                              "--records", str(out), "--no-details"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(out), "-f", "json",
                              "--plot", str(tmp_path / "h.png")])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rulesets"]["calypso@v1"]["rows"]
    assert {r["bot"] for r in rows} == {"heuristic", "random"}
    assert rows[0]["online"] + rows[1]["online"] == 3000.0 and rows[0]["interval"] > 0
    assert (tmp_path / "h.png").stat().st_size > 1000


def test_tournament_run_standings_export_replay(tmp_path: Path) -> None:
    from arena.tournaments.config import example_path

    store = f"sqlite:///{tmp_path / 'arena.db'}"
    res = runner.invoke(app, ["tournament", "run", str(example_path("calypso")), "--store", store, "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "8/8 matches recorded" in res.output and "calypso@v1 (8 matches)" in res.output
    assert "batch Bradley-Terry fit" in res.output  # the honest ratings table (issue 17)
    res = runner.invoke(app, ["tournament", "run", str(example_path("calypso")), "--store", store])
    assert res.exit_code == 0 and "8/8 matches recorded" in res.output  # resumes: nothing left to play
    res = runner.invoke(app, ["standings", "example-calypso", "--store", store])
    assert res.exit_code == 0 and "heuristic" in res.output
    out = tmp_path / "records.jsonl"
    res = runner.invoke(app, ["export", "example-calypso", "--store", store, "-o", str(out)])
    assert res.exit_code == 0 and len(out.read_text().splitlines()) == 8
    assert "8 verified, 0 failed" in runner.invoke(app, ["replay", str(out)]).output
    res = runner.invoke(app, ["standings", "no-such", "--store", store])
    assert res.exit_code != 0 and "no tournament" in res.output
    res = runner.invoke(app, ["export", "example-calypso", "--store", store, "-f", "pbn"])
    assert res.exit_code != 0 and "PBN export is for bridge" in res.output
