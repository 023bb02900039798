"""PBN from and for other tools (issue 27): games without a ``Board`` tag (as
double-dummy solvers' test sets and deal generators write them) are numbered in
file order, honouring their own Dealer and Vulnerable tags; ``1 board`` in the
singular; the exported PBN names the room (``Room "Open"``/``"Closed"``) of a
two-room team match."""

from __future__ import annotations

from pathlib import Path

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


def _deal(seed: int) -> str:
    state = get_game("bridge").new_initial_state(seed=seed, board=1)
    return pbn.from_state(state)[0].tags["Deal"]


DEALS = [_deal(200 + i) for i in range(5)]


def _sorted_hands(deal: str) -> list[list[str]]:
    return [sorted(h) for h in pbn.parse_deal(deal)]


def solver_test_set() -> str:
    """A test set as a double-dummy solver ships it: no Board tags; the first two
    games give only the deal, the third says Dealer S, Vulnerable EW, the fourth
    only Vulnerable All, the fifth repeats the fourth's deal (another table)."""
    games = [
        [f'[Deal "{DEALS[0]}"]'],
        ['[Event "?"]', f'[Deal "{DEALS[1]}"]'],
        ['[Dealer "S"]', '[Vulnerable "EW"]', f'[Deal "{DEALS[2]}"]', '[OptimumScore "NS 420"]'],
        ['[Vulnerable "All"]', f'[Deal "{DEALS[3]}"]'],
        [f'[Deal "{DEALS[3]}"]', '[Contract "3NT"]'],
    ]
    return "% a solver's test hands\n" + "\n\n".join("\n".join(g) for g in games) + "\n"


def test_games_without_board_tags_are_numbered_in_file_order() -> None:
    boards = pbn.read_boards(solver_test_set(), source="dds.pbn")
    # 1 and 2 in file order; board 3 is dealt by S with E-W vulnerable, 4 is All
    assert [b.number for b in boards] == [1, 2, 3, 4]
    assert [_sorted_hands(b.deal) for b in boards] == [_sorted_hands(d) for d in DEALS[:4]]
    # the file's own Dealer/Vulnerable win: W with E-W vulnerable is board 16, then All is 20
    text = solver_test_set().replace('[Dealer "S"]', '[Dealer "W"]')
    numbers = [b.number for b in pbn.read_boards(text)]
    assert numbers == [1, 2, 16, 20]
    assert ("NESW"[board_dealer(16)], VUL[board_vulnerability(16)]) == ("W", "EW")
    assert VUL[board_vulnerability(20)] == "All"
    # "?" is no number either
    assert [b.number for b in pbn.read_boards(solver_test_set().replace("[Event", '[Board "?"]\n[Event'))] == [1, 2, 3, 4]


def test_unnumbered_games_keep_clear_of_numbered_boards_and_inherited_tags() -> None:
    text = (f'[Board "2"]\n[Dealer "E"]\n[Vulnerable "NS"]\n[Deal "{DEALS[0]}"]\n\n'
            f'[Deal "{DEALS[1]}"]\n\n'  # inherits Dealer E / NS from board 2: not its own tags
            f'[Deal "{DEALS[2]}"]\n\n'
            f'[Board "4"]\n[Deal "{DEALS[3]}"]\n')
    assert [b.number for b in pbn.read_boards(text)] == [2, 3, 5, 4]


def test_unnumbered_games_with_bad_tags_name_the_game() -> None:
    with pytest.raises(ValueError, match=r"x\.pbn: line 1: game 1: Dealer 'Q' is not N, E, S or W"):
        pbn.read_boards(f'[Dealer "Q"]\n[Deal "{DEALS[0]}"]\n', source="x.pbn")
    with pytest.raises(ValueError, match="game 1: Deal '' must start with"):
        pbn.read_boards('[Event "only a header"]\n', source="x.pbn")


def test_play_bridge_on_a_solver_test_set(tmp_path: Path) -> None:
    set_file = tmp_path / "dds.pbn"
    set_file.write_text(solver_test_set())
    recs = tmp_path / "r.jsonl"
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--records", str(recs),
                              "--no-details"])
    assert res.exit_code == 0, res.output
    with recs.open() as fp:
        records = list(read_records(fp))
    assert [r.init["board"] for r in records] == [1, 1, 2, 2, 3, 3, 4, 4]
    state = get_game("bridge").new_initial_state(board=3, hands=pbn.parse_deal(DEALS[2]))
    assert (state.observation(0).dealer, state.observation(0).vulnerable) == (2, (False, True))


def test_one_board_in_the_singular(tmp_path: Path) -> None:
    set_file = tmp_path / "one.pbn"
    set_file.write_text(f'[Board "1"]\n[Deal "{DEALS[0]}"]\n')
    res = runner.invoke(app, ["play", "bridge", "--boards-file", str(set_file), "--boards", "2"])
    assert res.exit_code == 2
    assert f"but {set_file} has 1 board" in res.stderr and "1 boards" not in res.stderr, res.stderr
    (tmp_path / "t.toml").write_text(
        '[tournament]\nid = "t"\ngame = "bridge"\npreset = "duplicate"\nformat = "duplicate"\n'
        'boards_file = "one.pbn"\nboards = 2\n[duplicate]\nmode = "teams"\n'
        '[[entrants]]\nid = "a"\nbot = "random"\n[[entrants]]\nid = "b"\nbot = "random"\n')
    with pytest.raises(ConfigError) as exc:
        loads_config((tmp_path / "t.toml").read_text(), source=str(tmp_path / "t.toml"))
    assert "the board set has 1 board" in str(exc.value) and "1 boards" not in str(exc.value)


def test_play_bridge_pbn_names_the_rooms(tmp_path: Path) -> None:
    out = tmp_path / "o.pbn"
    res = runner.invoke(app, ["play", "bridge", "--boards", "2", "--pbn", str(out), "--no-details"])
    assert res.exit_code == 0, res.output
    games = pbn.loads(out.read_text())
    assert [(g.tags["Board"], g.tags["Room"]) for g in games] == [
        ("1", "Open"), ("1", "Closed"), ("2", "Open"), ("2", "Closed")]
    # the open room has the first bot N-S, the closed room E-W
    assert [g.tags["North"] for g in games[:2]] == ["heuristic", "random"]


def test_export_pbn_names_the_rooms_of_a_team_match_only(tmp_path: Path) -> None:
    base = ('[tournament]\nid = "{id}"\ngame = "bridge"\npreset = "duplicate"\nformat = "duplicate"\n'
            'boards = 1\nseed = 4\n[duplicate]\nmode = "{mode}"\n{extra}')
    entrants = "".join(f'[[entrants]]\nid = "{e}"\nbot = "random"\n' for e in "abcd")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    teams = tmp_path / "teams.toml"
    teams.write_text(base.format(id="tm", mode="teams", extra="") + entrants[:2 * len(entrants) // 4])
    res = runner.invoke(app, ["tournament", "run", str(teams), "--store", url, "-j", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", "tm", "--store", url, "-f", "pbn"])
    assert res.exit_code == 0, res.output
    assert sorted(g.tags["Room"] for g in pbn.loads(res.stdout)) == ["Closed", "Open"]
    pairs = tmp_path / "pairs.toml"
    pairs.write_text(base.format(id="pr", mode="pairs", extra='scoring = "matchpoints"\n') + entrants)
    res = runner.invoke(app, ["tournament", "run", str(pairs), "--store", url, "-j", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", "pr", "--store", url, "-f", "pbn"])
    assert res.exit_code == 0, res.output
    games = pbn.loads(res.stdout)
    assert games and all("Room" not in g.tags for g in games)
