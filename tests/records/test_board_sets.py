"""Boards from a file (issue 17): ``pbn.read_boards`` on files written by arena and
by hand (comments, CRLF, inherited deals, other tables of a board), the bridge
engine's ``hands=``, ``arena play bridge --boards-file`` and ``boards_file`` in a
tournament: the file's board numbers, dealers, vulnerabilities and hands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import get_game
from arena.games.bridge.scoring import board_dealer, board_vulnerability
from arena.records import pbn
from arena.records.record import read_records
from arena.tournaments.config import ConfigError, loads_config

runner = CliRunner()
VUL = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}
NUMBERS = (5, 6, 17)


def _deal(board: int) -> str:
    """A deal for ``board`` (the first seat of the Deal tag: the board's dealer)."""
    state = get_game("bridge").new_initial_state(seed=100 + board, board=board)
    return pbn.from_state(state)[0].tags["Deal"]


DEALS = {b: _deal(b) for b in NUMBERS}


def hand_made_set(numbers: tuple[int, ...] = NUMBERS) -> str:
    """Boards 5, 6 and 17 as a person or another program writes them: a ``%`` header,
    ``;`` and ``{...}`` comments (one across lines), CRLF, ``#`` for an inherited tag,
    a supplemental section with rows, a second table of board 6 that inherits its
    deal, tags in another order."""
    lines = ["% PBN 2.1", "% a hand-made board set", '[Event "Club night"]', '[Site "home"]']
    for i, b in enumerate(numbers):
        if i:
            lines.append('[Event "#"]')
        lines += [f'[Board "{b}"] ; board {b}', f'[Deal "{DEALS.get(b) or _deal(b)}"]',
                  f'[Vulnerable "{VUL[board_vulnerability(b)]}"]', f'[Dealer "{"NESW"[board_dealer(b)]}"]',
                  "{ a comment", "  over two lines }", ""]
        if b == 5:  # a supplemental section with data rows, as double-dummy tools add
            lines[-1:-1] = ['[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]', "N NT 7", "S  S 9"]
        if b == 6:
            lines += ['[Board "6"]', '[North "other table"]', '[Contract "3NT"]', ""]
    return "\r\n".join(lines) + "\r\n"


def _hands(deal: str) -> list[list[str]]:
    return [sorted(h) for h in pbn.parse_deal(deal)]


def test_read_boards_of_a_hand_made_file() -> None:
    boards = pbn.read_boards(hand_made_set(), source="set.pbn")
    assert [b.number for b in boards] == list(NUMBERS)
    for b in boards:
        assert _hands(b.deal) == _hands(DEALS[b.number])


def test_read_boards_of_arenas_own_export(tmp_path: Path) -> None:
    out = tmp_path / "b.pbn"
    res = runner.invoke(app, ["play", "bridge", "--boards", "3", "--seed", "2", "--pbn", str(out), "--no-details"])
    assert res.exit_code == 0, res.output
    boards = pbn.read_boards(out.read_text())  # two tables per board: each board once
    games = pbn.loads(out.read_text())
    assert [b.number for b in boards] == [1, 2, 3]
    assert [_hands(b.deal) for b in boards] == [_hands(g.tags["Deal"]) for g in games[::2]]


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace('[Dealer "E"]', '[Dealer "S"]'), "Board 6): Dealer S, but board 6 is dealt by E"),
    (lambda t: t.replace('[Vulnerable "EW"]', '[Vulnerable "All"]'), "Vulnerable All, but board 6 is EW"),
    (lambda t: t.replace('[Board "17"]', '[Board "x"]'), "Board 'x' is not a board number"),
    (lambda t: t.replace('[North "other table"]', f'[Deal "{DEALS[5]}"]'), "another deal than the first game of board 6"),
    (lambda t: t.replace('[Site "home"]', '[Site "#"]'), 'game 1 (Board 5): tag Site "#" but the previous game has no Site'),
    (lambda t: "% nothing here\r\n", "no boards"),
])
def test_read_boards_errors_name_the_game(change: Any, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        pbn.read_boards(change(hand_made_set()), source="set.pbn")
    assert str(exc.value).startswith("set.pbn: ") and message in str(exc.value)


def test_bridge_engine_deals_given_hands() -> None:
    game = get_game("bridge")
    hands = pbn.parse_deal(DEALS[6])
    state = game.new_initial_state(seed=1, board=6, hands=hands)
    assert [sorted(state.observation(s).hand) for s in range(4)] == [sorted(h) for h in hands]
    assert (state.observation(0).dealer, state.observation(0).vulnerable) == (board_dealer(6), board_vulnerability(6))
    # a stacked deck (a replay's, a search bot's resample) is dealt as given
    other = game.new_initial_state(seed=2, board=6)
    again = game.new_initial_state(seed=1, board=6, hands=hands, decks=other.dealer.realized)
    assert again.dealer.realized == other.dealer.realized
    with pytest.raises(ValueError, match="every card once"):
        game.new_initial_state(board=6, hands=[hands[0], hands[0], hands[2], hands[3]])
    with pytest.raises(ValueError, match="duplicate boards"):
        get_game("bridge", preset="rubber").new_initial_state(hands=hands)


def _boards_of(records: list[Any]) -> list[int]:
    return [r.init["board"] for r in records]


def test_play_bridge_boards_file(tmp_path: Path) -> None:
    set_file = tmp_path / "set.pbn"
    set_file.write_bytes(hand_made_set().encode())
    out, recs = tmp_path / "out.pbn", tmp_path / "out.jsonl"
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--pbn", str(out),
                              "--records", str(recs), "--no-details"])
    assert res.exit_code == 0, res.output
    assert "3 deals x 2 rotations" in res.output
    with recs.open() as fp:
        records = list(read_records(fp))
    assert _boards_of(records) == [5, 5, 6, 6, 17, 17]
    games = pbn.loads(out.read_text())
    assert [int(g.tags["Board"]) for g in games] == [5, 5, 6, 6, 17, 17]
    for g in games:
        b = int(g.tags["Board"])
        assert _hands(g.tags["Deal"]) == _hands(DEALS[b])
        assert g.tags["Dealer"] == "NESW"[board_dealer(b)] and g.tags["Vulnerable"] == VUL[board_vulnerability(b)]
    assert "6 verified, 0 failed" in runner.invoke(app, ["replay", str(recs)]).output
    two = tmp_path / "two.pbn"
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--pbn", str(two), "-j", "2",
                              "--no-details"])
    assert res.exit_code == 0 and two.read_text() == out.read_text()
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--boards", "2", "--json"])
    assert res.exit_code == 0 and '"deals": 2' in res.output
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--boards", "4"])
    assert res.exit_code == 2 and "--boards 4, but" in res.output and "has 3 boards" in res.output


TOURNAMENT = """
[tournament]
id = "set-match"
game = "bridge"
preset = "duplicate"
format = "duplicate"
boards_file = "set.pbn"
seed = 3

[duplicate]
mode = "teams"

[[entrants]]
id = "north"
bot = "heuristic"
[[entrants]]
id = "south"
bot = "random"
"""


def test_tournament_boards_file(tmp_path: Path) -> None:
    (tmp_path / "set.pbn").write_bytes(hand_made_set().encode())
    file = tmp_path / "t.toml"
    file.write_text(TOURNAMENT)
    url = f"sqlite:///{tmp_path / 'a.db'}"
    res = runner.invoke(app, ["tournament", "run", str(file), "--store", url, "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "6/6 matches recorded" in res.output
    out = tmp_path / "records.jsonl"
    assert runner.invoke(app, ["export", "set-match", "--store", url, "-o", str(out)]).exit_code == 0
    with out.open() as fp:
        records = list(read_records(fp))
    assert sorted(_boards_of(records)) == [5, 5, 6, 6, 17, 17]
    assert sorted(r.tags["board"] for r in records) == [5, 5, 6, 6, 17, 17]
    res = runner.invoke(app, ["export", "set-match", "--store", url, "-f", "pbn"])
    games = pbn.loads(res.stdout)
    assert sorted(int(g.tags["Board"]) for g in games) == [5, 5, 6, 6, 17, 17]
    assert all(_hands(g.tags["Deal"]) == _hands(DEALS[int(g.tags["Board"])]) for g in games)
    # the stored tournament carries its boards: standings without the file
    (tmp_path / "set.pbn").rename(tmp_path / "gone.pbn")
    res = runner.invoke(app, ["standings", "set-match", "--store", url])
    assert res.exit_code == 0 and "north" in res.output and "3" in res.output
    # another board set under the same id is a changed tournament
    (tmp_path / "set.pbn").write_bytes(hand_made_set((5, 6, 18)).encode())
    res = runner.invoke(app, ["tournament", "run", str(file), "--store", url])
    assert res.exit_code == 2 and "tournament.board_set[2].board: 17 -> 18" in res.output, res.output


def test_boards_file_config_errors(tmp_path: Path) -> None:
    (tmp_path / "set.pbn").write_bytes(hand_made_set().encode())
    source = str(tmp_path / "t.toml")
    cfg = loads_config(TOURNAMENT, source=source)
    assert [b.number for b in cfg.board_set] == list(NUMBERS) and cfg.deals == 3
    cfg = loads_config(TOURNAMENT.replace('seed = 3', 'seed = 3\nboards = 2'), source=source)
    assert [b.number for b in cfg.board_set] == [5, 6] and cfg.deals == 2
    for text, where in [
        (TOURNAMENT.replace("set.pbn", "nope.pbn"), "tournament.boards_file: cannot read"),
        (TOURNAMENT.replace('seed = 3', 'seed = 3\nboards = 9'), "tournament.boards: 9, but the board set has 3"),
        (TOURNAMENT.replace('format = "duplicate"', 'format = "swiss"').replace("[duplicate]\nmode = \"teams\"", ""),
         "tournament.boards_file: the swiss format plays seeded boards"),
        (TOURNAMENT.replace('preset = "duplicate"', 'preset = "rubber"'), "tournament.boards_file: a board set is "
                                                                           "for duplicate bridge"),
    ]:
        with pytest.raises(ConfigError) as exc:
            loads_config(text, source=source)
        assert str(exc.value).startswith(where), str(exc.value)
    (tmp_path / "bad.pbn").write_bytes(hand_made_set().replace('[Dealer "E"]', '[Dealer "S"]').encode())
    with pytest.raises(ConfigError) as exc:
        loads_config(TOURNAMENT.replace("set.pbn", "bad.pbn"), source=source)
    assert "tournament.boards_file:" in str(exc.value) and "bad.pbn: line" in str(exc.value)
    assert "Dealer S, but board 6 is dealt by E" in str(exc.value)
