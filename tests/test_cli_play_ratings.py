"""``arena play`` (bridge boards, PBN, jobs, counts, strict JSON) and ``arena ratings``
(the honest table), end to end in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games.bridge.scoring import board_dealer, board_vulnerability
from arena.records import pbn
from arena.records.record import read_records

runner = CliRunner()
VUL = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _play(*args: str) -> Any:
    return runner.invoke(app, ["play", "bridge", "--bots", "heuristic,random", "--no-details", *args])


def test_play_bridge_rotates_boards_and_pbn_names_the_bots(tmp_path: Path) -> None:
    out, recs = tmp_path / "b.pbn", tmp_path / "b.jsonl"
    res = _play("--boards", "5", "--seed", "4", "--pbn", str(out), "--records", str(recs))
    assert res.exit_code == 0, res.output
    with recs.open() as fp:
        records = list(read_records(fp))
    assert [r.init for r in records] == [{"board": b} for b in (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)]
    games = pbn.loads(out.read_text())
    assert [int(g.tags["Board"]) for g in games] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    for g in games:
        board = int(g.tags["Board"])
        assert g.tags["Dealer"] == "NESW"[board_dealer(board)]
        assert g.tags["Vulnerable"] == VUL[board_vulnerability(board)]
        assert {g.tags[t] for t in pbn.SEAT_TAGS} == {"heuristic", "random"}
        assert pbn.to_state(g).is_terminal()
    # open room: heuristic N-S; closed room: seats swapped
    assert (games[0].tags["North"], games[1].tags["North"]) == ("heuristic", "random")


def test_play_bridge_jobs_writes_every_board(tmp_path: Path) -> None:
    one, two = tmp_path / "one.pbn", tmp_path / "two.pbn"
    assert _play("--boards", "3", "--pbn", str(one)).exit_code == 0
    res = _play("--boards", "3", "--pbn", str(two), "--jobs", "2")
    assert res.exit_code == 0, res.output
    assert two.read_text().count('[Deal "') == 6
    assert two.read_text() == one.read_text()


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "at least 1, got 0"),
    (["--boards", "-3"], "at least 1, got -3"),
    (["--bots", "heuristic"], "at least two bots"),
    (["--bots", "heuristic,random,random"], "two teams"),
    (["--jobs", "0"], "--jobs must be at least 1"),
])
def test_play_bad_counts_and_bots_are_one_line_errors(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["play", "bridge", *args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("arena play: error:")
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_play_unwritable_pbn_fails_before_playing(tmp_path: Path) -> None:
    res = _play("--boards", "50", "--pbn", str(tmp_path / "no" / "such" / "dir.pbn"))
    assert res.exit_code == 2 and "--pbn" in res.output and "cannot write" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_play_json_is_strict_with_schema_version() -> None:
    res = runner.invoke(app, ["play", "bridge", "--bots", "heuristic,random", "--boards", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert "NaN" not in res.output and "Infinity" not in res.output
    data = _strict_json(res.output)
    assert data["schema_version"] == 1 and data["deals"] == 1
    # one board: a mean but no interval
    assert data["points"]["mean"] is not None and data["points"]["low"] is None and data["points"]["high"] is None
    assert all(e["score"]["low"] is None for e in data["entrants"])


# -- arena ratings ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def calypso_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ratings") / "records.jsonl"
    res = runner.invoke(app, ["play", "calypso", "--bots", "heuristic,random", "-n", "3",
                              "--records", str(out), "--no-details"])
    assert res.exit_code == 0, res.output
    return out


def test_ratings_table_is_the_batch_fit_with_labelled_online_column(calypso_records: Path) -> None:
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(calypso_records)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "calypso@v1 (6 matches)"
    assert "batch Bradley-Terry fit" in res.output and "+/- from the batch fit" not in res.output
    assert "Elo (online): the online rater, no interval of its own" in res.output
    head = next(line for line in lines if line.startswith("rank"))
    assert head.split()[:4] == ["rank", "bot", "rating", "95%"] and "Elo (online)" in head
    data = _strict_json(runner.invoke(app, ["ratings", "calypso", "-r", str(calypso_records),
                                            "-f", "json"]).output)
    rows = data["rulesets"]["calypso@v1"]["rows"]
    assert data["schema_version"] == 1 and data["system"] == "elo"
    assert rows[0]["rating"] == pytest.approx(-rows[1]["rating"], abs=0.02)  # the fit: pool mean 0
    assert rows[0]["online"] + rows[1]["online"] == pytest.approx(3000.0, abs=0.02)  # online Elo
    assert rows[0]["interval"] > 0 and rows[0]["online_interval"] is None
    assert 0.5 < rows[0]["los_next"] <= 1 and rows[1]["los_next"] is None
    # every row line shows the fit's rating and interval, the LOS, then the online Elo
    body = [line.split() for line in lines if line.strip().startswith(("1 ", "2 "))]
    assert body[0][2] == f"{rows[0]['rating']:+.1f}" and body[0][4] == f"{rows[0]['interval']:.1f}"


@pytest.mark.parametrize("system, label, own", [("glicko2", "Glicko-2 r", "± 1.96 RD"),
                                                ("openskill", "OpenSkill mu", "± 1.96 sigma")])
def test_ratings_glicko2_and_openskill_label_their_own_uncertainty(calypso_records: Path, system: str,
                                                                   label: str, own: str) -> None:
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(calypso_records), "--system", system])
    assert res.exit_code == 0, res.output
    assert "+/- from the batch fit" not in res.output
    assert f"{label}, {own}: the online rater's own rating and uncertainty" in res.output
    head = next(line for line in res.output.splitlines() if line.startswith("rank"))
    assert label in head and own in head
    data = _strict_json(runner.invoke(app, ["ratings", "calypso", "-r", str(calypso_records), "-f", "json",
                                            "--system", system]).output)
    rows = data["rulesets"]["calypso@v1"]["rows"]
    assert all(r["online_interval"] is not None and r["online_interval"] != r["interval"] for r in rows)


def test_ratings_csv_and_unreadable_lines_are_reported(calypso_records: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(calypso_records), "-f", "csv"])
    assert res.output.splitlines()[0] == ("ruleset,rank,bot,rating,interval,los_next,games,score,online,"
                                          "online_interval,last_change")
    broken = tmp_path / "broken.jsonl"
    text = calypso_records.read_text()
    broken.write_text(text + text.splitlines()[0][:40] + "\n")
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(broken)])
    assert res.exit_code == 0 and f"{broken}:7: skipped a truncated record" in res.output
    broken.write_text(text + "not json\n")
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(broken)])
    assert res.exit_code == 0 and f"{broken}:7: skipped an unreadable record" in res.output
    res = runner.invoke(app, ["ratings", "bridge", "-r", str(calypso_records)])
    assert res.exit_code != 0 and "no finished bridge matches" in res.output
