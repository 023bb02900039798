"""PBN (arena.records.pbn): the standard's example game, deals, export of played boards."""

from __future__ import annotations

import pytest

from arena.core.errors import DecodeError
from arena.games import get_game
from arena.games.bridge.scoring import board_dealer, duplicate_score
from arena.records import pbn

from bridge_helpers import play_deal, play_randomly

EXAMPLE = """\
[Event "International Amsterdam Airport Schiphol Bridgetournament"]
[Site "Amsterdam, The Netherlands NLD"]
[Date "1995.06.10"]
[Board "1"]
[West "Podgor"]
[North "Westra"]
[East "Kalish"]
[South "Leufkens"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85"]
[Scoring "IMP"]
[Declarer "S"]
[Contract "5HX"]
[Result "9"]
[Auction "N"]
1D      1S   3H =1= 4S
4NT =2= X    Pass   Pass
5C      X    5H     X
Pass    Pass Pass
[Note "1:non-forcing 6-9 points, 6-card"]
[Note "2:two colors: clubs and diamonds"]
[Play "W"]
SK =1= H3 S4 S3
C5 C2 C6 CK
S2 H6 S5 S7
C8 CA CT C4
D2 DA DT D3
D4 DK H5 H7
-  -  -  H2
*
[Note "1:highest of series"]
"""


def test_example_parses() -> None:
    [g] = pbn.loads(EXAMPLE)
    assert g.tags["Contract"] == "5HX" and g.tags["Declarer"] == "S" and g.tags["Result"] == "9"
    assert len(g.calls()) == 15 and g.calls()[-3:] == [52, 52, 52]
    assert len(g.play) == 7 and g.play[-1] == ["-", "-", "-", "H2"] and g.play_end
    assert g.play[0] == ["SK", "=1=", "H3", "S4", "S3"] and g.tricks()[0] == ["SK", "H3", "S4", "S3"]
    assert g.auction_notes == ["1:non-forcing 6-9 points, 6-card", "2:two colors: clubs and diamonds"]
    assert g.play_notes == ["1:highest of series"]
    hands = pbn.parse_deal(g.tags["Deal"])
    assert [len(h) for h in hands] == [13, 13, 13, 13] and len({c for h in hands for c in h}) == 52
    assert not any(c.endswith("S") for c in hands[0])  # North's spade void


def test_example_round_trip() -> None:
    games = pbn.loads(EXAMPLE)
    text = pbn.dumps(games)
    assert pbn.loads(text) == games
    assert pbn.dumps(pbn.loads(text)) == text
    # Same lines as the original, up to spacing.
    norm = [" ".join(line.split()) for line in EXAMPLE.splitlines()]
    assert text.splitlines() == norm
    assert pbn.dumps(games, newline="\r\n").count("\r\n") == len(norm)


def test_example_replays_into_a_state() -> None:
    [g] = pbn.loads(EXAMPLE)
    state = pbn.to_state(g)
    assert state.contract == "5HX" and state.declarer == 2 and state.board == 1
    assert len(state.plays) == 25  # six tricks and South's lead of the H2
    assert state.observation(2).tricks_won == (6, 0)
    assert state.observation(2).current_trick == ("2H",)
    # Exported again: the same deal, auction and (known) play.
    [out] = pbn.from_state(state, Event=g.tags["Event"])
    assert out.tags["Deal"] == g.tags["Deal"] and out.tags["Contract"] == "5HX"
    assert out.calls() == g.calls() and out.tricks() == g.tricks() and out.play_end
    # The stated result: 9 tricks, 2 down doubled, not vulnerable.
    assert duplicate_score(g.tags["Contract"], False, int(g.tags["Result"])) == -300


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_from_pbn_for_every_dealer(dealer: int) -> None:
    [g] = pbn.loads(EXAMPLE)
    deck = pbn.deal_from_pbn(g.tags["Deal"], dealer)
    board = dealer + 1
    assert board_dealer(board) == dealer
    state = get_game("bridge").new_initial_state(deck=deck, board=board)
    assert pbn.format_deal(list(state.initial_hands()), 0) == g.tags["Deal"]
    assert pbn.deal_from_pbn(g.tags["Deal"].replace("N:", "N:"), "NESW"[dealer]) == deck


def test_deal_errors() -> None:
    with pytest.raises(ValueError, match="not 13"):
        pbn.parse_deal("N:AKQ... - - -".replace("...", "..."))
    with pytest.raises(ValueError, match="twice"):
        pbn.parse_deal("N:A.A.A.AKQJT98765 A.A.A.AKQJT9876 - -")
    with pytest.raises(ValueError):
        pbn.parse_deal("X:... ... ... ...")
    with pytest.raises(ValueError, match="must be known"):
        pbn.deal_from_pbn("W:KQT2.AT.J6542.85 - A8654.KQ5.T.QJT6 -")
    assert pbn.parse_deal("W:KQT2.AT.J6542.85 - A8654.KQ5.T.QJT6 -")[0] == []


def test_decode_errors() -> None:
    with pytest.raises(DecodeError) as info:
        pbn.loads('[Event "x"]\n[Board 3]\n')
    assert info.value.lineno == 2
    with pytest.raises(DecodeError, match="four cards"):
        pbn.loads('[Play "W"]\nSK H3\n')
    bad = EXAMPLE.replace('[Dealer "N"]', '[Dealer "E"]')
    with pytest.raises(DecodeError, match="does not match board"):
        pbn.to_state(pbn.loads(bad)[0])
    illegal = EXAMPLE.replace("1D      1S", "1D      1C")
    with pytest.raises(DecodeError, match="insufficient"):
        pbn.to_state(pbn.loads(illegal)[0])


def test_export_finished_board_and_reimport() -> None:
    game = get_game("bridge")
    state = game.new_initial_state(seed=11, board=6)
    play_randomly(state, seed=3)
    text = pbn.dumps([state], Event="arena test", Date="2026.11.29", North="bot-a", South="bot-a",
                     East="bot-b", West="bot-b")
    [g] = pbn.loads(text)
    assert list(g.tags)[:15] == list(pbn.MANDATORY_TAGS)
    assert g.tags["Board"] == "6" and g.tags["Dealer"] == "E" and g.tags["Vulnerable"] == "EW"
    assert g.tags["North"] == "bot-a" and g.tags["Scoring"] == "IMP"
    rec = state.records[0]
    assert g.tags["Result"] == str(rec["tricks"]) and g.tags["Score"] == f"NS {rec['ns_score']}"
    assert len(g.play) == 13 and not g.play_end
    again = pbn.to_state(g)
    assert again.is_terminal() and again.returns() == state.returns()
    assert again.plays == state.plays and again.calls == state.calls


def test_export_passed_out_and_rubber() -> None:
    game = get_game("bridge")
    state = game.new_initial_state(seed=1, board=4)
    for _ in range(4):
        state.apply_action(52)
    [g] = pbn.from_state(state)
    assert g.tags["Contract"] == "Pass" and g.tags["Declarer"] == "" and g.tags["Result"] == ""
    assert g.auction == ["Pass"] * 4 and g.tags["Score"] == "NS 0"
    assert pbn.to_state(g).is_terminal()
    rubber = get_game("bridge", preset="rubber").new_initial_state(seed=5)
    play_deal(rubber)
    play_deal(rubber)
    games = pbn.from_state(rubber)
    assert len(games) == 3  # two finished deals and the one in progress
    assert [x.tags["Board"] for x in games] == ["1", "2", "3"]
    assert [x.tags["Dealer"] for x in games] == ["N", "E", "S"]
    assert all(x.tags["Scoring"] == "Rubber" for x in games)
    assert "Score" not in games[2].tags
