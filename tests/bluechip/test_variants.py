"""The implementation differences of reference section 4, one test each (live, over TCP).

Line-level parsing variants are in test_protocol.py; here the host meets robots
that speak them.
"""

from __future__ import annotations

import socket
import time

from arena.bluechip import BlueChipAgent, BlueChipHost, HostConfig, run_match
from arena.games import get_game

from bluechip.robot import SEATS, Robot, Style  # noqa: I001
from bluechip.test_transcript import CALLS, CARDS, stacked_deck

GAME = get_game("bridge")
TEAMS = ("NS", "EW", "NS", "EW")


def _play(host: BlueChipHost, robots: list[Robot], boards: list[dict[str, object]],
          teams: tuple[str, ...] = TEAMS) -> list[object]:
    assert host.wait_seated([(teams[s], s) for s in range(4)], 5)
    records = []
    for kw in boards:
        agents = [BlueChipAgent(host, teams[s], s) for s in range(4)]
        result = run_match(GAME, agents, deadline_ms=5000, **kw)  # type: ignore[arg-type]
        assert result.record.faults == [], result.record.faults
        for agent in agents:
            assert agent.wait_board(5)
        records.append(result.record)
    host.stop()
    for r in robots:
        r.join(5)
        assert r.error is None, r.error
        assert r.ended
    return records


def _raw(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _lines(sock: socket.socket, n: int) -> list[str]:
    data = b""
    while data.count(b"\r\n") < n:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode().split("\r\n")[:n]


def test_anypl_takes_the_first_free_seat_or_the_ports_seat() -> None:
    with BlueChipHost("127.0.0.1:0", HostConfig(transcripts=True).without_pauses()) as host:
        robots = [Robot(host.port, "WB5", "ANYPL").start()]
        assert host.wait_seated([("WB5", 0)], 5)
        robots.append(Robot(host.port, "WB5", "ANYPL").start())
        assert host.wait_seated([("WB5", 0), ("WB5", 1)], 5)
        end = time.monotonic() + 5  # the robot learns its seat when it reads the host's reply
        while [r.seat for r in robots] != [0, 1] and time.monotonic() < end:
            time.sleep(0.01)
        assert [r.seat for r in robots] == [0, 1]
    config = HostConfig(transcripts=True, seat_ports={0: 3}).without_pauses()
    with BlueChipHost("127.0.0.1:0", config) as host:
        (port,) = host.ports
        sock = _raw(port)
        sock.sendall(b'Connecting "WB5" as ANYPL using protocol version 18\r\n')
        assert _lines(sock, 1) == ['West ("WB5") seated']
        sock.close()


def test_connect_variants_accepted_and_refused(host: BlueChipHost) -> None:
    sock = _raw(host.port)
    # lower case, extra text after the version, version 19 served as 18; two lines in one packet
    sock.sendall(b'connecting "BEN" as north using protocol version 19 BEN-21GF 0.8.8.6\r\n'
                 b"north ready for teams\r\n")
    assert _lines(sock, 1) == ['North ("BEN") seated']
    assert host.wait_seated([("BEN", 0)], 2)
    conn = host.slots[("BEN", 0)]
    assert conn.version == 19 and conn.info == "BEN-21GF 0.8.8.6"
    taken = _raw(host.port)
    taken.sendall(b'Connecting "BEN" as North using protocol version 18\r\n')
    assert _lines(taken, 1) == ["Seat already has been taken"]
    assert taken.recv(100) == b""  # closed
    old = _raw(host.port)
    old.sendall(b'Connecting "X" as South using protocol version 17\r\n')
    assert _lines(old, 1) == ["ERROR: Protocol version is not 18 but 17."]
    junk = _raw(host.port)
    junk.sendall(b"hello\n")  # LF only
    assert _lines(junk, 1) == ["Expected 'Connecting ....'"]
    for s in (sock, taken, old, junk):
        s.close()


def test_lines_split_across_packets(host: BlueChipHost) -> None:
    sock = _raw(host.port)
    for chunk in (b'Connecting "SL', b'OW" as East using protocol ', b"version 18\r", b"\n"):
        sock.sendall(chunk)
        time.sleep(0.02)
    assert _lines(sock, 1) == ['East ("SLOW") seated']
    sock.close()


def test_upper_case_trailing_stops_double_spaces_lower_case_cards(host: BlueChipHost) -> None:
    """WBridge5-like: NORTH PASSES, 'ready for  NORTH's bid', plays 7s; old BEN: 'ready for deal.'"""
    style = Style(upper=True, trailing_dot=True, double_space=True, lower_cards=True)
    robots = [Robot(host.port, TEAMS[s], SEATS[s], style=style).start() for s in range(4)]
    records = _play(host, robots, [{"seed": 1, "init": {"board": 1}}])
    assert len(records[0].actions) > 50  # type: ignore[attr-defined]
    # relays are still sent in SPEC form (Title case, upper-case cards)
    south = host.transcript("NS", 2)
    assert ("out", "North bids 1S") in south or any(d == "out" and l.startswith("North bids") for d, l in south)
    assert all(l == l.strip() for d, l in south if d == "out")


def test_dummy_word_from_every_seat_received_dummy_and_literal_dummy_plays(host: BlueChipHost) -> None:
    """BEN writes "dummy's" from every seat; GIB sends 'received dummy'; 'Dummy plays 8C'."""
    style = Style(dummy_word_everywhere=True, received_dummy=True, literal_dummy_plays=True)
    robots = [Robot(host.port, TEAMS[s], SEATS[s], style=style).start() for s in range(4)]
    _play(host, robots, [{"seed": 1, "init": {"board": 1}}, {"seed": 2, "init": {"board": 2}}])
    north = host.transcript("NS", 0)  # board 1: North declares, South is dummy
    assert ("in", "North received dummy") in north
    assert any(d == "in" and l.startswith("Dummy plays ") for d, l in north)


def test_dummys_cards_only_after_the_lead_and_never_to_dummy(host: BlueChipHost) -> None:
    robots = [Robot(host.port, TEAMS[s], SEATS[s]).start() for s in range(4)]
    _play(host, robots, [{"seed": 1, "init": {"board": 1}}])
    dummy = 2
    for s in range(4):
        lines = host.transcript(TEAMS[s], s)
        sent = [l for d, l in lines if d == "out"]
        faced = [i for i, l in enumerate(sent) if l.startswith("Dummy's cards")]
        if s == dummy:
            assert faced == []
            continue
        assert len(faced) == 1
        lead = next(i for i, l in enumerate(sent) if l.startswith("East plays") or l == "East to lead")
        assert lead < faced[0]  # East (the opening leader) led before dummy was shown


def test_alerts_go_to_the_opponents_only_and_can_be_switched_off() -> None:
    for relay, empty in ((True, False), (False, False), (True, True)):
        config = HostConfig(transcripts=True, relay_alerts=relay).without_pauses()
        teams = ("NorthSouth", "WestEast", "NorthSouth", "WestEast")
        text = "" if empty else "Asking for aces."
        with BlueChipHost("127.0.0.1:0", config) as host:
            robots = [Robot(host.port, teams[s], SEATS[s], script=CALLS + CARDS,
                            style=Style(alert={2: text}) if s == 1 else None).start() for s in range(4)]
            _play(host, robots, [{"decks": [stacked_deck()], "init": {"board": 1}}], teams)
            alerted = "East bids 4C Alert." + (f" {text}" if text else "")
            for s in (0, 2, 3):
                got = [l for d, l in host.transcript(teams[s], s) if d == "out" and l.startswith("East bids 4C")]
                want = alerted if relay and s != 3 else "East bids 4C"
                assert got == [want], (relay, s, got)


def test_passed_out_board_ends_with_timing_then_start_of_board(host: BlueChipHost) -> None:
    script = ["P", "P", "P", "P"]
    robots = [Robot(host.port, TEAMS[s], SEATS[s], script=script).start() for s in range(4)]
    records = _play(host, robots, [{"seed": 1, "init": {"board": 1}}, {"seed": 2, "init": {"board": 2}}])
    assert [a.action for a in records[0].actions] == ["P"] * 4  # type: ignore[attr-defined]
    sent = [l for d, l in host.transcript("EW", 1) if d == "out"]
    i = sent.index("West passes", sent.index("Board number 1. Dealer North. Neither vulnerable."))
    assert sent[i + 1].startswith("Timing - N/S") and sent[i + 2] == "Start of board"
    assert robots[0].boards[0]["calls"] == script and len(robots[0].boards) == 2


def test_teams_line_and_playing_suffix() -> None:
    config = HostConfig(transcripts=True, playing="IMP").without_pauses()
    with BlueChipHost("127.0.0.1:0", config) as host:
        robots = [Robot(host.port, TEAMS[s], SEATS[s]).start() for s in range(4)]
        assert host.wait_seated([(TEAMS[s], s) for s in range(4)], 5)
        agents = [BlueChipAgent(host, TEAMS[s], s, opponents=TEAMS[s ^ 1]) for s in range(4)]
        run_match(GAME, agents, seed=3, init={"board": 3}, deadline_ms=5000)
        for a in agents:
            a.wait_board(5)
    for r in robots:
        r.join(5)
    assert robots[0].teams == 'Teams : N/S : "NS" E/W : "EW". Playing IMP'
    assert robots[1].teams == 'Teams : N/S : "NS" E/W : "EW". Playing IMP'


def test_pauses_before_to_lead_and_between_lines() -> None:
    config = HostConfig(transcripts=True, lead_pause=0.15, send_gap=0.01, end_pause=0.0)
    with BlueChipHost("127.0.0.1:0", config) as host:
        robots = [Robot(host.port, TEAMS[s], SEATS[s]).start() for s in range(4)]
        assert host.wait_seated([(TEAMS[s], s) for s in range(4)], 5)
        agents = [BlueChipAgent(host, TEAMS[s], s) for s in range(4)]
        run_match(GAME, agents, seed=1, init={"board": 1}, deadline_ms=5000)
        for a in agents:
            a.wait_board(10)
    for r in robots:
        r.join(5)
        assert r.error is None
        sent_at = [host.slots[(TEAMS[s], s)].sent_at for s in range(4)]
    for times in sent_at:
        assert len(times) > 30 and min(b - a for a, b in zip(times, times[1:])) >= 0.01
    prompts = 0
    for r in robots:
        lines = r.transcript
        for k, (d, line, t) in enumerate(lines):
            if d == "in" and line.endswith("to lead") and any("trick 2" in x[1] for x in lines[:k]):
                # the previous trick ended at the last line before this prompt
                assert t - lines[k - 1][2] >= 0.1, (line, t - lines[k - 1][2])
                prompts += 1
    assert prompts >= 10  # tricks 3..13 at least
