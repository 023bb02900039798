"""The host's transcript of a whole board against the reference's worked board.

The board of reference section 7 (the deal, auction and play of OpenSpiel's
``test_complete_deal_east``) is stacked and played by four scripted test robots;
what the host wrote down for each connection must be the reference's view of
that seat, message for message (the Timing figures aside).
"""

from __future__ import annotations

import re
from pathlib import Path

from arena.bluechip import BlueChipAgent, BlueChipHost, run_match
from arena.games import get_game

from bluechip.robot import SEATS, Robot, Style  # noqa: I001

DATA = Path(__file__).parent / "data" / "reference_board.txt"
HANDS = {
    "North": "S A K J 8. H 4. D J T 9 5 3 2. C 3 2.",
    "East": "S Q 9. H A T 5. D A 8 7. C A J T 9 6.",
    "South": "S T 7 6 5 4 2. H 9 3. D Q 6. C 8 7 5.",
    "West": "S 3. H K Q J 8 7 6 2. D K 4. C K Q 4.",
}
CALLS = "P 1NT P 2D P 2H P 3S X 4C P 4D P 4NT P 5D P 6H P P P".split()
CARDS = ("7S 3S KS 9S JD 8D 6D KD 2H 4H TH 9H 5H 3H 6H 3C 4C 2C TC 5C 6C 7C QC 2D KC 3D JC 8C "
         "4D 5D AD QD 9C 2S 7H 8S KH JS AH 4S AC 5S 8H 9D QH TD 7D 6S JH AS QS TS").split()
TIMING = re.compile(r"^Timing - N/S : this board  \d\d:\d\d,  total  0:\d\d:\d\d\.  "
                    r"E/W : this board  \d\d:\d\d,  total  0:\d\d:\d\d$")


def _cards(text: str) -> list[str]:
    out, suit = [], ""
    for word in text.replace(".", " ").split():
        if word in "SHDC":
            suit = word
        elif word != "-":
            out.append(word + suit)
    return out


def reference_views() -> dict[str, list[tuple[str, str]]]:
    views: dict[str, list[tuple[str, str]]] = {}
    seat = ""
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("["):
            seat = line.strip("[]")
            views[seat] = []
            continue
        views[seat].append(("in" if line[0] == "<" else "out", line[2:]))
    return views


def stacked_deck() -> list[str]:
    hands = {s: _cards(h) for s, h in HANDS.items()}
    order = ["East", "South", "West", "North"]  # dealer North: card j goes to seat j+1
    return [hands[order[j % 4]][j // 4] for j in range(52)]


def test_reference_board_message_for_message(host: BlueChipHost) -> None:
    script = CALLS + CARDS
    teams = {0: "NorthSouth", 1: "WestEast", 2: "NorthSouth", 3: "WestEast"}
    styles = {1: Style(alert={2: "Asking for aces."})}
    robots = [Robot(host.port, teams[s], SEATS[s], script=script, style=styles.get(s)).start()
              for s in range(4)]
    assert host.wait_seated([(teams[s], s) for s in range(4)], 5)
    agents = [BlueChipAgent(host, teams[s], s, opponents=teams[(s + 1) % 4]) for s in range(4)]
    result = run_match(get_game("bridge"), agents, decks=[stacked_deck()], init={"board": 1},
                       deadline_ms=5000)
    assert result.record.faults == []
    assert result.state.observation(0).contract == "6H" and result.state.observation(0).tricks_won == (1, 12)
    for agent in agents:
        assert agent.wait_board(5)
    host.stop()  # End of session
    for r in robots:
        r.join(5)
        assert r.error is None, r.error
    transcripts = {SEATS[s].lower(): host.transcript(teams[s], s) for s in range(4)}
    views = reference_views()
    east = transcripts["east"]
    want = views["east"]
    assert len(east) == len(want)
    for k, (got, ref) in enumerate(zip(east, want)):
        if ref[1].startswith("Timing"):
            assert got[0] == "out" and TIMING.match(got[1]), got
        else:
            assert got == ref, f"line {k}: {got} != {ref}"
    for seat in ("south", "west", "north"):
        got, ref = transcripts[seat], views[seat]
        starts = [i for i in range(len(got)) if got[i: i + len(ref)] == ref]
        assert starts, f"{seat}: the reference view is not in the host's transcript"
