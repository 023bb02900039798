"""PBN in and out (arena.records.pbn): the one writer from records, the tolerant
reader on hand-built odd files, and a round trip through arena and endplay."""

from __future__ import annotations

import io
from pathlib import Path
import pytest

from arena.core.errors import DecodeError
from arena.games import get_game
from arena.games.bridge.scoring import board_dealer, board_vulnerability, duplicate_score
from arena.bots.evaluate import compare_bots
from arena.records import pbn
from arena.records.record import MatchRecord

VUL = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}


@pytest.fixture(scope="module")
def records() -> list[MatchRecord]:
    """Four boards of heuristic v random, both rooms: eight records."""
    cmp = compare_bots(get_game("bridge"), ["heuristic", "random"], deals=4, seed=7, tag="pbn")
    return [m.record for r in cmp.results for m in r.matches]


def _ns_score(contract: str, declarer: str, vul: str, result: str) -> int:
    if contract in ("Pass", ""):
        return 0
    ns_decl = declarer in "NS"
    v = {"None": (False, False), "NS": (True, False), "EW": (False, True), "All": (True, True)}[vul]
    points = duplicate_score(contract, v[0] if ns_decl else v[1], int(result))
    return points if ns_decl else -points


# -- the writer -------------------------------------------------------------------------

def test_dumps_records_boards_names_and_blank_lines(records: list[MatchRecord]) -> None:
    text = pbn.dumps_records(records, Event="t", Site="here")
    blocks = text.split("\n\n")
    assert len(blocks) == 8 and all(b.startswith('[Event "t"]') for b in blocks)
    assert text.endswith("\n") and not text.endswith("\n\n")
    games = pbn.loads(text)
    assert [g.tags["Board"] for g in games] == ["1", "1", "2", "2", "3", "3", "4", "4"]
    for g, r in zip(games, records):
        board = int(g.tags["Board"])
        assert g.tags["Dealer"] == "NESW"[board_dealer(board)]
        assert g.tags["Vulnerable"] == VUL[board_vulnerability(board)]
        assert [g.tags[t] for t in pbn.SEAT_TAGS] == r.seats and "?" not in r.seats
        assert g.tags["Score"] == f"NS {_ns_score(g.tags['Contract'], g.tags['Declarer'], g.tags['Vulnerable'], g.tags['Result'])}"
    # the stream writer says how many games it wrote, and writes the same text
    buf = io.StringIO()
    assert pbn.dump_records(records, buf, Event="t", Site="here") == 8
    assert buf.getvalue() == text
    crlf = pbn.dumps_records(records[:2], newline="\r\n")
    assert "\n" not in crlf.replace("\r\n", "") and "\r\n\r\n[Event" in crlf
    assert pbn.loads(crlf) == pbn.loads(pbn.dumps_records(records[:2]))


def test_dumps_records_id_tag_and_refusals(records: list[MatchRecord]) -> None:
    [g] = pbn.loads(pbn.dumps_records(records[:1], id_tag="Round"))
    assert g.tags["Round"] == records[0].match_id
    other = MatchRecord("x", "calypso", "calypso@v1", None, {}, {}, 1, [], ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match="PBN is for bridge"):
        pbn.dumps_records([other])


# -- round trip: arena's PBN read back by arena and by endplay ---------------------------

def test_round_trip_arena_reader(records: list[MatchRecord]) -> None:
    games = pbn.loads(pbn.dumps_records(records))
    for g, r in zip(games, records):
        state = pbn.to_state(g)
        assert state.is_terminal() and state.returns() == r.returns
        assert [a.id for a in r.actions] == list(state.calls) + list(state.plays)
    assert pbn.dumps(games) == pbn.dumps_records(records)


def test_round_trip_endplay_reader(records: list[MatchRecord], tmp_path: Path) -> None:
    from endplay.parsers import pbn as endplay_pbn  # a test dependency (pyproject: the test extra)
    from endplay.types import Player

    text = pbn.dumps_records(records, Event="rt", Site="arena")
    ours = pbn.loads(text)
    theirs = endplay_pbn.loads(text)
    assert len(theirs) == len(ours) == 8
    for g, b in zip(ours, theirs):
        assert b.board_num == int(g.tags["Board"])
        assert b.dealer == Player.find(g.tags["Dealer"])
        # the same deal, hand by hand
        hands = pbn.parse_deal(g.tags["Deal"])
        for seat, name in enumerate("NESW"):
            theirs_hand = sorted("SHDC"[int(c.suit)] + c.rank.abbr for c in b.deal[Player.find(name)])
            ours_hand = sorted(t[1] + t[0] for t in hands[seat])  # our tokens are rank first ("KS")
            assert theirs_hand == ours_hand, (g.tags["Board"], name)
        # the same contract, declarer, result and score
        if g.tags["Contract"] == "Pass":
            assert b.contract.is_passout()
            assert _ns_score("Pass", "", g.tags["Vulnerable"], "") == 0
        else:
            assert str(b.contract.declarer.abbr) == g.tags["Declarer"]
            assert b.contract.result + b.contract.level + 6 == int(g.tags["Result"])
            want = _ns_score(g.tags["Contract"], g.tags["Declarer"], g.tags["Vulnerable"], g.tags["Result"])
            got = b.contract.score(b.vul)
            assert (got if g.tags["Declarer"] in "NS" else -got) == want
            assert g.tags["Score"] == f"NS {want}"
        assert len(b.auction) == len(g.calls())
        assert len(b.play) == sum(1 for t in g.tricks() for c in t if c != "-")


# -- the tolerant reader on odd files -----------------------------------------------------

DEAL = "N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85"


def _game(board: int, extra: str = "", *, deal: str | None = DEAL, dealer: str | None = None) -> str:
    lines = [f'[Event "odd"]', f'[Board "{board}"]']
    if dealer is not False:
        lines.append(f'[Dealer "{dealer or "NESW"[board_dealer(board)]}"]')
        lines.append(f'[Vulnerable "{VUL[board_vulnerability(board)]}"]')
    if deal is not None:
        lines.append(f'[Deal "{deal}"]')
    lines += ['[Declarer "S"]', '[Contract "4H"]', '[Result "10"]']
    return "\n".join(lines) + ("\n" + extra if extra else "")


def test_comments_anywhere() -> None:
    text = ("% PBN 2.1\n% EXPORT\n"
            '[Event "odd"] ; a comment after a tag\n'
            '[Board "1"] { a brace comment\nover two lines }\n'
            '{ a comment line }\n'
            '[Deal "' + DEAL + '"] {inline} ; and more\n'
            '[Note "1:semicolons ; and {braces} inside a value stay"]\n'
            '[Auction "N"]\n1D 1S ; after calls\n3H {mid} 4S\nAP\n')
    [g] = pbn.loads(text)
    assert g.tags["Event"] == "odd" and g.tags["Board"] == "1" and g.tags["Deal"] == DEAL
    assert g.auction == ["1D", "1S", "3H", "4S", "AP"]
    assert g.auction_notes == ["1:semicolons ; and {braces} inside a value stay"]


def test_supplemental_sections_are_kept_and_written_back() -> None:
    text = _game(1, '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\n'
                    'N NT  7\nN  S  7\nS  H 10\n[OptimumScore "NS +420"]\n'
                    '[ScoreTable "Rank\\2R;Contract\\4L"]\n 1 4H\n 2 3NT\n')
    [g] = pbn.loads(text)
    assert g.tags["OptimumResultTable"] == "Declarer;Denomination\\2R;Result\\2R"
    assert g.sections["OptimumResultTable"] == ["N NT 7", "N S 7", "S H 10"]
    assert g.sections["ScoreTable"] == ["1 4H", "2 3NT"] and g.tags["OptimumScore"] == "NS +420"
    [again] = pbn.loads(pbn.dumps([g]))  # export adds the absent mandatory tags as "?"
    assert again.sections == g.sections and again.tags["OptimumScore"] == "NS +420"
    assert pbn.loads(pbn.dumps([again])) == [again]
    out = pbn.dumps([g]).splitlines()
    i = out.index('[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]')
    assert out[i + 1:i + 4] == ["N NT 7", "N S 7", "S H 10"]


def test_crlf_and_bom() -> None:
    text = "\ufeff" + (_game(1) + "\n\n" + _game(2)).replace("\n", "\r\n") + "\r\n"
    games = pbn.loads(text)
    assert [g.tags["Board"] for g in games] == ["1", "2"] and games[0].tags["Event"] == "odd"
    assert all(g.tags["Deal"] == DEAL for g in games)


def test_inherited_tags_hash_and_absent_deal() -> None:
    text = "\n\n".join([
        _game(3),
        _game(3, deal="#").replace('[Event "odd"]', '[Event "#"]'),  # "#": the previous game's value
        _game(3, deal=None, dealer=False).replace('[Event "odd"]\n', ""),  # same board: Deal, Dealer, Vulnerable, Event
        _game(4, deal=None),  # another board without a Deal: read, but it has no deal to play
        _game(5, deal="N:" + " ".join(DEAL[2:].split()[1:] + DEAL[2:].split()[:1])),
    ]) + "\n"
    errors: list[DecodeError] = []
    games = pbn.loads(text, errors=errors)
    assert [g.tags["Board"] for g in games] == ["3", "3", "3", "4", "5"] and errors == []
    assert games[1].tags["Deal"] == games[2].tags["Deal"] == DEAL and games[1].tags["Event"] == "odd"
    assert games[1].inherited == ["Event", "Deal"]
    assert set(games[2].inherited) == {"Event", "Deal", "Dealer", "Vulnerable"}
    assert games[2].tags["Dealer"] == "S" and games[2].tags["Vulnerable"] == "EW"
    for g in games[:3]:
        state = pbn.to_state(g)
        assert state.board == 3 and state.deal_dealer == 2
    # board 4 does not take board 3's deal
    assert "Deal" not in games[3].tags and games[3].inherited == []
    with pytest.raises(DecodeError, match="game does not replay"):
        pbn.to_state(games[3])
    assert pbn.to_state(games[4]).board == 5


def test_hash_without_a_previous_value_is_a_per_game_error() -> None:
    text = _game(1, deal="#") + "\n\n" + _game(2) + "\n"
    errors: list[DecodeError] = []
    games = pbn.loads(text, errors=errors)
    assert [g.tags["Board"] for g in games] == ["2"]
    [e] = errors
    assert str(e).startswith("line 1: game 1 (Board 1):") and "previous game has no Deal" in str(e)
    with pytest.raises(DecodeError, match="game 1 .Board 1."):
        pbn.loads(text)


def test_bad_games_do_not_reject_the_rest() -> None:
    good = _game(1)
    text = "\n\n".join([good, '[Event "x"]\n[Board 3]', good.replace("1", "2", 1), "just text", good]) + "\n"
    errors: list[DecodeError] = []
    games = pbn.loads(text, errors=errors)
    assert len(games) == 3
    assert [e.lineno for e in errors] == [text.splitlines().index("[Board 3]") + 1,
                                          text.splitlines().index("just text") + 1]
    assert "game 2" in str(errors[0]) and "malformed tag line" in str(errors[0])
    assert "game 4" in str(errors[1]) and "text outside a tag or section" in str(errors[1])


def test_repeated_tag_is_ignored_and_tricks_may_span_lines() -> None:
    text = _game(1, '[Board "9"]\n[Play "W"]\nSK H3 S4 S3 C5\nC2 C6 CK\n-  -  - H2\n*\n')
    [g] = pbn.loads(text)
    assert g.tags["Board"] == "1"  # a tag pair that already occurred is ignored
    assert g.tricks() == [["SK", "H3", "S4", "S3"], ["C5", "C2", "C6", "CK"], ["-", "-", "-", "H2"]]
    assert g.play_end
    with pytest.raises(DecodeError, match="four cards"):
        pbn.loads(_game(1, '[Play "W"]\nSK H3 S4\n'))


