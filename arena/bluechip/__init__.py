"""Blue Chip Bridge Table Manager protocol, version 18: computer-bridge robots in arena.

Existing robots (WBridge5, BEN, GIB, Jack, Q-Plus, ...) speak the Blue Chip "Table
Manager" (TM) protocol: ASCII lines over TCP, the TM being the server. This package
is both sides of it, after the implementable reference
(``shared/reference/bluechip-tm.md``; section numbers below are its own):

* :class:`BlueChipHost` (:mod:`.host`): the TM as an asyncio TCP server in its own
  thread. Robots connect (``Connecting "TEAM" as SEAT ...`` or ``as ANYPL``) and are
  seated in the slot (team, seat).
* :class:`BlueChipAgent` (:mod:`.seat`): the referee's agent for one seat played by a
  robot. ``act(observation, legal_actions)`` becomes TM messages for that robot,
  and the robot's call or card comes back as the action's text; deadlines, the
  illegal-action policy and faults are the referee's (:mod:`arena.match.referee`).
* :func:`run_match` / :func:`observed` (:mod:`.observe`): the referee's
  ``run_match`` on a thin wrapper of the game that hands every observing agent
  **its own seat's** ``state.observation(seat)`` after each action, so the TM can
  relay every call and card as it happens (dummy's robot is never asked anything in
  the play; the referee says nothing at the end but the returns).
* :class:`BlueChipClient` (:mod:`.client`): the other direction, an arena bot
  playing one seat at an external TM, its observation rebuilt from the messages
  (:mod:`.view`); :mod:`.cli` is ``arena bluechip host|client``. For dummy's cards
  it says ``ready for dummy's card`` from every seat (as BEN and the championship
  robots do; Table Managers built for them refuse dummy's seat name there), and a
  session is a failure unless it ends with ``End of session`` (an ``ERROR`` line or
  a closed connection raises :class:`~arena.bluechip.client.SessionError`).

Information hiding
    The host's conversation with a robot is computed from that seat's observations
    only (:mod:`.events`): its own hand, the calls, dummy's hand once the opening
    lead is faced, the cards played. It never reads the state. Alert texts are the
    one thing not in the observation: a robot's own alert is kept by the host (by
    match id and position) and relayed to the caller's opponents only.

Decisions where the reference is open or inferred (section 8 and the notes)
    * **One conversation per connection, no barriers across seats.** Each seat's
      lines are exactly the per-seat order of sections 3.2-3.4; the TM answers each
      robot as soon as it can. The order each seat sees is the same as with the
      SPEC's barriers, and a table may mix robots and arena bots.
    * **One port, or seat ports.** All robots may use one port, taking the seat
      from ``Connecting``. ``ANYPL`` on that port takes the first free seat of the
      team in the order North, East, South, West; ``HostConfig.seat_ports`` adds
      ports bound to a seat (an ``ANYPL`` robot there gets that seat).
    * **Versions 18 and 19** are accepted (19 is served as 18: no v19 extension is
      ever sent); any other version gets ``ERROR: Protocol version is not 18 but
      N.`` and the connection is closed. A seat whose robot is still connected is
      refused with ``Seat already has been taken``; partners need not share a team
      name (section 6). ``HostConfig.teams`` (``arena bluechip host`` sets it to the
      match's teams) refuses any other team name with ``ERROR: Team name mismatch.
      ...`` and closes (after Blue Chip's own ``Error Team name mismatch``); every
      refusal is kept in ``BlueChipHost.refused`` for the operator's error.
    * **Teams line** ``Teams : N/S : "ns" E/W : "ew"`` without the SPEC's full stop
      after the N/S name (BEN needs that), built per connection: the robot's own
      team on its side, the agent's ``opponents`` name on the other. It is sent
      when the robot's first board starts, so a session may serve many matches.
      ``HostConfig.playing`` adds ``. Playing IMP``.
    * **Board line** with the final full stop; **hands** spades first, ``. ``
      between suits, ``-`` for a void; **Timing** in the SPEC form (double spaces,
      no final full stop), times measured per side from the actions' arrival;
      ``End of session`` exactly, at :meth:`BlueChipHost.stop`, then a short pause
      and close.
    * **Passed-out board**: ``Timing``, then ``Start of board`` (section 3.5).
    * **Pauses**: ``HostConfig.lead_pause`` (1 s, SPEC) counted from the end of the
      trick before each ``... to lead`` of tricks 2-13, and ``send_gap`` (200 ms)
      between two lines on one connection; ``HostConfig.without_pauses()`` (CLI
      ``--no-pauses``) switches both off for benchmarks and tests. The pause is
      part of the robot's decision time: give a deadline above it.
    * **Reading is lenient** (section 6): case folded, spaces collapsed, one trailing
      full stop dropped, ``Dummy plays``, ``dummy's`` or dummy's seat from any seat,
      lower-case cards, ``10``, suit-then-rank, ``Alert.`` with or without text,
      ``Infos.``; ``received dummy`` is ignored. A ``ready`` line that is not the
      one awaited is logged and skipped.
    * **Illegal call or card** (the protocol has no other error message): the
      answer goes to the referee like any answer; a refusal it allows to retry is
      sent to the robot as ``Illegal bid`` / ``Illegal card`` (SPEC, ZBridge), and
      the robot's next call or card is the retry. A line that is not a call (card)
      of the seat to act is handed over as ``bluechip: <line>``, which the engine
      cannot read, so the referee records it as ``invalid``.
    * **No answer in time** (SPEC has no time-outs): the agent raises
      ``DecisionTimeout`` at the referee's deadline, which records the fault and
      applies its default.
    * **When the robot's view and the board part** (its answer was replaced by the
      referee's default, its last refusal allowed no retry, it hung, disconnected,
      or sent its card too late) there is no v18 message to say so, and BEN's
      mid-board ``Start of board`` is BEN only: the host closes that connection.
      The rest of the board is defaulted by the referee (``crash`` then ``absent``
      faults), the other robots go on, and a robot that reconnects is seated
      again at the next board. A board waits ``connect_timeout`` for its robot
      (``arena bluechip host --seat-wait``); in a team match
      (:func:`~arena.bluechip.match.team_match`) a seat still empty after it ends
      the session (:class:`~arena.bluechip.match.RobotsGone`, naming the seats)
      instead of defaulting every later board.
    * **Forced actions**: the referee plays a sole legal card (or the Pass after
      7NTXX) without asking; the robot still sends it, and the host waits for that
      line (up to the deadline) before going on.
    * Duplicate bridge only (one board per match; rubber is refused at
      ``start_match``). Claims are not part of v18 and are neither sent nor read.

Tournament hook
    An entrant ``bluechip = "TEAM"`` in a tournament file is the bot reference
    ``bluechip:TEAM`` (:func:`~arena.bluechip.match.bluechip_team`): the robots of
    TEAM seated at the process's host. ``arena tournament run FILE --bluechip
    HOST:PORT`` starts that host with :func:`start_host` (``_start_bluechip`` in
    :mod:`arena.cli`) and stops it at the end (:func:`stop_host`, ``End of
    session``). :func:`arena.tournaments.runner.build_agents` gives such a seat
    :func:`make_agent`, and :func:`arena.tournaments.runner.play_spec` plays the
    match with this package's :func:`run_match` instead of the referee's (same
    arguments and result) whenever :func:`arena.tournaments.runner.in_process`
    says a spec has a Blue Chip seat. The host lives in one process, since robots
    hold TCP connections to it: the embedded executor plays such matches one at a
    time on a thread of that process, and :func:`arena.tournaments.service.submit` refuses
    to send them to Celery workers. A robot not seated within ``connect_timeout``
    is absent for that match (faults, as for any entrant).
"""

from __future__ import annotations

from arena.bluechip.client import BlueChipClient
from arena.bluechip.host import BlueChipHost, HostConfig
from arena.bluechip.match import bluechip_team, team_match
from arena.bluechip.observe import observed, run_match
from arena.bluechip.seat import BlueChipAgent

__all__ = ["BlueChipHost", "HostConfig", "BlueChipAgent", "BlueChipClient", "observed", "run_match",
           "bluechip_team", "team_match", "start_host", "current_host", "stop_host", "make_agent"]

_HOST: BlueChipHost | None = None


def start_host(address: str = "127.0.0.1:2000", config: HostConfig | None = None) -> BlueChipHost:
    """Start this process's Table Manager (the one :func:`make_agent` uses)."""
    global _HOST
    if _HOST is not None:
        raise RuntimeError("a Blue Chip host already runs in this process")
    _HOST = BlueChipHost(address, config).start()
    return _HOST


def current_host() -> BlueChipHost | None:
    """This process's Table Manager, if :func:`start_host` started one."""
    return _HOST


def stop_host() -> None:
    """Stop this process's Table Manager (``End of session`` to every robot)."""
    global _HOST
    if _HOST is not None:
        _HOST.stop()
        _HOST = None


def make_agent(team: str, seat: int | None = None, *, host: BlueChipHost | None = None,
               opponents: str | None = None, connect_timeout: float | None = None) -> BlueChipAgent:
    """The agent of the robot of ``team`` at ``seat`` (or at the seat ``start_match`` gives).

    :raises RuntimeError: if no host is given and none runs in this process.
    """
    chosen = host or _HOST
    if chosen is None:
        raise RuntimeError("no Blue Chip host runs in this process; call arena.bluechip.start_host()")
    return BlueChipAgent(chosen, team, seat, opponents=opponents, connect_timeout=connect_timeout)
