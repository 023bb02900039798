"""Information hiding on the wire: the TM sends each seat only what that seat may see.

As the gRPC path's leak test does with ``hidden_positions``: every line the host
sent to a seat is set against the engine's state after the actions that seat had
been told of at that moment (replayed from the record); no card hidden from the
seat there may appear in the line (calls aside, where ``2C`` is a bid). Hands:
its own cards only, dummy's only after the opening lead and never to dummy.
"""

from __future__ import annotations

import re

import pytest

from arena.bluechip import BlueChipAgent, BlueChipHost, run_match
from arena.games import get_game
from arena.records.record import MatchRecord

from bluechip.robot import SEATS, Robot  # noqa: I001

GAME = get_game("bridge")
TEAMS = ("NS", "EW", "NS", "EW")
CARD = re.compile(r"\b([2-9TJQKA][SHDC])\b")
ACTION_IN = re.compile(r"^\w+ (passes|doubles|redoubles|bids \w+|plays \w\w)\b", re.I)
RELAY = re.compile(r"^(North|East|South|West) (passes|doubles|redoubles|bids \w+|plays \w\w)")


def _hand_cards(text: str) -> set[str]:
    out, suit = set(), ""
    for word in text.replace(".", " ").split():
        if word in "SHDC":
            suit = word
        elif word != "-":
            out.add(word + suit)
    return out


def hidden_after(record: MatchRecord, seat: int) -> list[set[str]]:
    """Cards hidden from ``seat`` after each number of actions 0..n."""
    state = GAME.new_initial_state(decks=record.decks, **record.init)
    out = []
    for k in range(len(record.actions) + 1):
        out.append({state.dealer.realized[d][p] for d, p in state.hidden_positions(seat)})
        if k < len(record.actions):
            state.apply_action(state.string_to_action(record.actions[k].action))
    return out


def check_transcript(lines: list[tuple[str, str]], record: MatchRecord, seat: int) -> int:
    """Assert the hiding rules on one seat's transcript; returns the number of lines checked."""
    hidden = hidden_after(record, seat)
    start = GAME.new_initial_state(decks=record.decks, **record.init)
    own = set(start.observation(seat).hand)
    auction = sum(1 for a in record.actions if a.id is not None and a.id >= 52)
    known = 0  # actions this seat has been told of (relays) or made itself (its answers)
    checked = 0
    for direction, line in lines:
        if direction == "in":
            if ACTION_IN.match(line):
                known += 1
            continue
        if RELAY.match(line):
            known += 1
        m = re.match(r"^(\w+)'s cards : (.*)$", line)
        if m and m.group(1) == "Dummy":
            assert known > auction, "dummy's cards before the opening lead"
        elif m:
            assert m.group(1) == SEATS[seat] and _hand_cards(m.group(2)) == own, "not the seat's own hand"
        if re.match(r"^\w+ (passes|doubles|redoubles|bids)", line):
            continue  # calls: '2C' is a bid here
        cards = _hand_cards(m.group(2)) if m else set(CARD.findall(line))
        leak = cards & hidden[known]
        assert not leak, f"seat {seat} was sent hidden {sorted(leak)} in {line!r} after {known} actions"
        checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2])
def test_every_line_holds_only_what_the_seat_may_see(host: BlueChipHost, seed: int) -> None:
    robots = [Robot(host.port, TEAMS[s], SEATS[s]).start() for s in range(4)]
    assert host.wait_seated([(TEAMS[s], s) for s in range(4)], 5)
    records = []
    for board in (1, 2, 3):
        agents = [BlueChipAgent(host, TEAMS[s], s) for s in range(4)]
        result = run_match(GAME, agents, seed=seed * 10 + board, init={"board": board}, deadline_ms=5000)
        assert result.record.faults == []
        records.append(result.record)
        for a in agents:
            a.wait_board(5)
    transcripts = {s: host.transcript(TEAMS[s], s) for s in range(4)}
    host.stop()
    for r in robots:
        r.join(5)
    played = 0
    for s in range(4):
        boards = _split_boards(transcripts[s])
        assert len(boards) == 3
        for lines, record in zip(boards, records):
            checked = check_transcript(lines, record, s)
            assert checked >= 3  # board line, cards, Timing at least
            played += len(record.actions) > 4
        dummy_lines = [line for board in boards for d, line in board if line.startswith("Dummy's cards")]
        assert len(dummy_lines) <= 3
    assert played >= 4


def _split_boards(lines: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for d, line in lines:
        if d == "out" and line == "Start of board":
            out.append([])
        elif out:
            out[-1].append((d, line))
    return out


def test_the_check_catches_a_leak(host: BlueChipHost) -> None:
    """A doctored transcript (another seat's card relayed before it was played) fails."""
    record = run_match(GAME, [BlueChipAgent(host, "none", s, connect_timeout=0.05) for s in range(4)],
                       seed=3, init={"board": 1}).record
    state = GAME.new_initial_state(decks=record.decks, **record.init)
    east_card = state.observation(1).hand[0]
    lines = [("out", "North's cards : S -. H -. D -. C -.")]
    with pytest.raises(AssertionError):
        check_transcript(lines, record, 0)
    with pytest.raises(AssertionError, match="hidden"):
        check_transcript([("out", f"East plays {east_card}")], record, 0)
