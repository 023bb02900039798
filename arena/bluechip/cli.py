"""``arena bluechip``: the Table Manager host and the client adapter on the command line.

``arena bluechip host --team BEN --against heuristic --boards 8 [--address 0.0.0.0:2000]``
    Listens for the four robots of team BEN (North, East, South, West: N-S in the
    open room, E-W in the closed room), waits until they are seated (``--wait``),
    plays a two-room team match against the other entrant (a built-in bot, or
    ``bluechip:TEAM`` for more robots), prints each board and the IMPs, then sends
    ``End of session``. ``--no-pauses`` switches off the protocol's pauses.
    Only the match's team names are seated: a robot connecting with another name
    is refused (``ERROR: Team name mismatch ...``, then closed) and named in the
    final error if its seat stays empty. Each room waits ``--seat-wait`` seconds
    (``HostConfig.connect_timeout``) for a robot that is not seated (one that left,
    or is reconnecting); a seat still empty then ends the session with an error
    naming the missing seats (exit 1). ``--records`` gets both rooms of each board
    as soon as the board ends (appended and flushed), so an interrupted session
    keeps what was played.
``arena bluechip client --tm HOST:PORT --seat N --bot heuristic [--team NAME]``
    Plays one seat at an external Table Manager with a built-in bot until
    ``End of session`` (``--seat ANY`` connects as ``ANYPL``). A refused
    connection, an ``ERROR`` line, a line it cannot follow or a closed connection
    before ``End of session`` is one line on stderr and exit status 1.

Usage errors (a bad seat, ``--records`` in a missing folder) exit with status 2
and leave no file behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Optional

import typer

from arena.bluechip.host import BlueChipHost, HostConfig, parse_address
from arena.bluechip.match import BoardResult, RobotsGone, bluechip_team, team_match
from arena.bluechip import protocol as P

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Blue Chip Table Manager protocol v18: seat computer-bridge robots, or play as one.")

_SEAT_LETTERS = {"N": 0, "E": 1, "S": 2, "W": 3}


def _seat(text: str) -> int | None:
    key = text.strip().upper()
    if key in ("ANY", "ANYPL"):
        return None
    if key[:1] in _SEAT_LETTERS and (len(key) == 1 or P.parse_seat(key) is not None):
        return _SEAT_LETTERS[key[0]]
    raise typer.BadParameter(f"seat must be N, E, S, W or ANY, got {text!r}")


@app.command("host")
def host_command(
    team: str = typer.Option(..., "--team", help="Team name the robots connect with (entrant bluechip:TEAM)."),
    against: str = typer.Option("heuristic", "--against", help="Other entrant: a built-in bot or bluechip:TEAM."),
    boards: int = typer.Option(8, "--boards", min=1),
    seed: int = typer.Option(1, "--seed"),
    address: str = typer.Option("127.0.0.1:2000", "--address", help="HOST:PORT to listen on."),
    deadline_ms: float = typer.Option(60_000.0, "--deadline-ms", help="Time per decision, pauses included."),
    no_pauses: bool = typer.Option(False, "--no-pauses", help="No end-of-trick pause, no gap between lines."),
    no_alerts: bool = typer.Option(False, "--no-alerts", help="Do not relay alert texts to the opponents."),
    seat_port: Optional[list[str]] = typer.Option(None, "--seat-port",
                                                  help="PORT=SEAT: an extra port for ANYPL robots of that seat."),
    wait: float = typer.Option(600.0, "--wait", min=0, help="Seconds to wait for the robots to connect."),
    seat_wait: float = typer.Option(30.0, "--seat-wait", min=0,
                                    help="Seconds a room waits for a robot that is not seated (left, or "
                                         "reconnecting); a seat still empty then ends the session."),
    records: Optional[Path] = typer.Option(None, "--records", metavar="FILE.jsonl",
                                           help="Write both rooms' match records (JSONL), each board as it ends."),
) -> None:
    """Seat Blue Chip robots and play a team match against them."""
    from arena.records.record import dumps

    ports: dict[int, int] = {}
    for item in seat_port or []:
        port, _, seat = item.partition("=")
        chosen = _seat(seat)
        if chosen is None or not port.isdigit():
            raise typer.BadParameter(f"--seat-port must look like 2001=N, got {item!r}")
        ports[int(port)] = chosen
    if records is not None:
        _check_writable(records)
    teams = [t for t in (team, bluechip_team(against)) if t]
    config = HostConfig(relay_alerts=not no_alerts, seat_ports=ports, connect_timeout=seat_wait,
                        teams=tuple(teams))
    if no_pauses:
        config = config.without_pauses()
    out: IO[str] | None = None
    total = played = 0
    try:
        with BlueChipHost(address, config) as host:
            typer.echo(f"Table Manager on {host.host_name}:{host.port}; waiting for "
                       + ", ".join(f'"{t}" as North, East, South and West' for t in teams))
            slots = [(t, s) for t in teams for s in range(4)]
            if not host.wait_seated(slots, wait):
                missing = sorted(set(slots) - set(host.seated()))
                raise typer.Exit(_fail("host", f"robots missing after {wait:g} s: {_seats(missing)}"
                                       + _refusals(host)))
            if records is not None:
                out = records.open("w", encoding="utf-8")

            def show(board: BoardResult) -> None:
                nonlocal total, played
                total += board.imps
                played += 1
                if out is not None:
                    out.write(dumps(board.open) + "\n")
                    out.write(dumps(board.closed) + "\n")
                    out.flush()
                faults = len(board.open.faults) + len(board.closed.faults)
                typer.echo(f"board {board.board}: open {board.open.returns[0]:+.0f}, closed "
                           f"{board.closed.returns[0]:+.0f}, {board.imps:+d} IMPs for {team}"
                           + (f" ({faults} faults)" if faults else ""))
            try:
                team_match(f"bluechip:{team}", against, boards=boards, seed=seed, host=host,
                           deadline_ms=deadline_ms, on_board=show)
            except RobotsGone as exc:
                raise typer.Exit(_fail("host", f"{exc}; {team} {total:+d} IMPs over {_boards(played)}"
                                       + _refusals(host))) from None
    except KeyboardInterrupt:
        raise typer.Exit(_fail("host", f"interrupted after {_boards(played)}"
                               + (f" (kept in {records})" if records is not None else ""), code=130)) from None
    finally:
        if out is not None:
            out.close()
    typer.echo(f"{team} {total:+d} IMPs over {_boards(boards)} against {against}")


def _fail(command: str, message: str, code: int = 1) -> int:
    """Print ``arena bluechip COMMAND: error: MESSAGE`` (one line) on stderr; the exit status."""
    typer.echo(f"arena bluechip {command}: error: {' '.join(message.split())}", err=True)
    return code


def _boards(n: int) -> str:
    return f"{n} board{'' if n == 1 else 's'}"


def _seats(slots: list[tuple[str, int]]) -> str:
    return ", ".join(f"{t} {P.seat_name(s)}" for t, s in slots)


def _refusals(host: BlueChipHost) -> str:
    """``; refused: "X" as North (...)`` for the connections the host refused, if any."""
    refused = list(dict.fromkeys(host.refused))
    return "; refused: " + ", ".join(refused) if refused else ""


def _check_writable(path: Path) -> None:
    """A usage error now (exit 2) if ``path`` cannot be written; leaves no file behind."""
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise typer.BadParameter(f"{path}: cannot write: {exc.strerror or exc}", param_hint="--records") from None
    if not existed:
        path.unlink(missing_ok=True)


@app.command("client")
def client_command(
    tm: str = typer.Option(..., "--tm", help="HOST:PORT of the Table Manager."),
    seat: str = typer.Option(..., "--seat", help="N, E, S, W, or ANY (connect as ANYPL)."),
    bot: str = typer.Option("heuristic", "--bot", help="Built-in bridge bot."),
    team: str = typer.Option("arena", "--team", help="Team name sent on Connecting."),
    seed: int = typer.Option(0, "--seed"),
    send_delay: float = typer.Option(0.0, "--send-delay", help="Seconds before each line (Bridge Moniteur: 0.6)."),
) -> None:
    """Play one seat at an external Table Manager with a built-in bot."""
    from arena.bluechip.client import BlueChipClient, ClientBoard, ProtocolError
    from arena.bots import make_bot

    agent = make_bot("bridge", bot, seed=seed)

    def show(board: ClientBoard) -> None:
        typer.echo(f"board {board.board}: {len(board.calls)} calls, {len(board.cards)} cards, "
                   f"N-S {board.ns_score:+d}")
    client = BlueChipClient(agent, parse_address(tm), team=team, seat=_seat(seat), send_delay=send_delay,
                            on_board=show)
    try:
        played = client.run()
    except ProtocolError as exc:  # refused, broken, or no End of session
        raise typer.Exit(_fail("client", str(exc))) from None
    typer.echo(f"session over: {_boards(len(played))}")
