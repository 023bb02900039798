"""Tournament formats: :func:`expand` turns a :class:`TournamentConfig` into match specs.

Common ground
-------------
*Units.* A table is divided into units: the game's partnerships (``Game.teams()``:
bridge, 4-player canasta and calypso have two units of two seats) or single seats
(rummy, auction, 2-/3-player canasta). An entrant holds a whole unit, i.e. both
seats of its partnership (a "team of clones", as in computer-bridge championships).

*Deals and seeds.* Deal ``i`` (0-based) has the seed ``derive_seed(config.seed,
"deal", i)`` wherever it is played, so every table and every rotation of deal ``i``
gets the same cards. Bridge with duplicate scoring plays deal ``i`` as board
``i + 1`` (``init={"board": i + 1}``): dealer and vulnerability follow the board
number (duplicate.md section 4). With a board set (``boards_file``), deal ``i`` is
the set's ``i``-th board, under its own number and with its hands
(``init={"board": n, "hands": [N, E, S, W]}``); the ``board`` tag is that number.

*Order and ids.* Specs are listed deal by deal (then table, then rotation), so the
replays of one deal are contiguous; ``index`` is the position in the list and
``match_id = make_match_id(config.id, index)``. The same config always gives the
same specs; changing only the tournament seed changes only ``seed``.

*Seatings.* A seating maps each unit to one of the table's entrants. With as many
entrants at the table as units, ``cyclic`` is the Latin square (rotation ``r``: unit
``u`` holds table entrant ``(u - r) mod U``, every entrant holds every unit once),
``reversed`` adds the mirrored cycle (``2U`` seatings: every neighbour met on both
sides) and ``all`` is every permutation (``U!``; ACPC's 3-player format). With fewer
entrants than units (one table; unit ``u`` holds entrant ``u mod k`` as in
:mod:`arena.bots.evaluate`) repeated seatings are dropped.

Formats
-------
Round robin
    Every combination of ``U`` entrants is a table (fewer entrants than units: one
    table with all of them); every table plays every deal in every seating of the
    scheme (``[round_robin] rotations``). ``k`` entrants of a two-unit game give
    ``C(k, 2)`` tables, e.g. 4 entrants of classic canasta: 6 tables x deals x 2.

Duplicate
    ``teams`` (bridge, or any two-unit game): a round robin of team matches; each
    match plays every board in the open room (rotation 0: first entrant N-S) and the
    closed room (rotation 1: seats swapped); IMPs per board, VPs per match.

    ``pairs`` (bridge) and ``seats`` (every other game): results are compared among
    everyone who held the same unit of the same deal (matchpoints, Butler or cross
    IMPs; see :mod:`arena.tournaments.standings`). Two movements:

    * ``field`` (``movement = "auto"`` picks it when the field is large enough):
      each deal is played at several tables at once and **every entrant plays every
      deal exactly once, from one unit**, as in a pairs movement. Two units (bridge
      pairs, 2-player games, partnership canasta/calypso) use a Howell-style
      round-robin schedule (circle method, 4 or more entrants, a bye when odd):
      deal ``d`` is round ``d mod (n-1)`` and every ``n-1`` deals the directions
      swap, so over ``2(n-1)`` deals everyone meets everyone once in each
      direction. More units need a multiple of ``U`` entrants, at least ``2U``: the
      entrants form a ``m x U`` grid; on deal ``d`` entrant ``(t, u)`` sits in unit
      ``(u + d) mod U`` at table ``(t + u d) mod m`` (a Mitchell-like shift; units
      balance over every ``U`` deals).
    * ``rotation``: the tables of the round robin, every deal in the ``U`` cyclic
      seatings; every entrant meets the deal from every unit.

Gauntlet
    The candidate against each field entrant in turn (table ``j`` = the ``j``-th
    other entrant in file order), every deal in the distinct cyclic seatings of the
    two. Spec tags carry ``candidate``, ``opponent`` and ``pair_deal``
    (``"<opponent>/<deal>"``): the duplicate-set id :class:`arena.ratings.SprtFeeder`
    pairs on (see :func:`arena.tournaments.standings.sprt_results`).

Bot memory in replays
---------------------
A bot that plays the same deal twice (from two seats, or at two tables) can
remember the cards. Every spec carries its deal (``spec.deal``): the replays of a
deal are one group, and an executor must start them concurrently and must not
reveal any table's play or result (to a bot, or through the gateway) before the
whole group has finished. The field movement removes the rest for the duplicate
format: each entrant meets each deal once. What remains:

* round robin, the rotation movement, team matches and gauntlets replay each deal
  with the same entrant in every unit (that is what cancels the luck of the cards
  there); a bot holding hidden state across matches of one concurrent group can
  still learn from its own first replay if it plays them sequentially;
* a bot that stores deals across the whole tournament can recognise a deal met
  earlier in another group of the same tournament only in formats that replay it;
  the field movement never replays a deal for the same entrant;
* remote bots are one process per registered bot: the arena cannot stop a bot from
  sharing memory between its concurrent sessions. Built-in bots are made fresh for
  every match.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations
from typing import Any

from arena.core.dealing import derive_seed
from arena.tournaments.config import TournamentConfig
from arena.tournaments.movements import field_tables
from arena.records.spec import MatchSpec, make_match_id

__all__ = ["expand", "compared", "deal_seed", "seatings", "round_robin_tables", "field_tables",
           "resolve_movement", "deal_groups", "units_of"]


def compared(record: Any) -> list[float]:
    """The per-seat values a duplicate comparison of ``record`` uses: the game's own
    points where the record carries them (``MatchRecord.points``: canasta, whose
    returns are a ranking), else its returns."""
    points = getattr(record, "points", None)
    return [float(x) for x in (points if points else record.returns)]


def deal_seed(tournament_seed: int, deal: int) -> int:
    """The seed of deal ``deal`` (0-based) of a tournament."""
    return derive_seed(tournament_seed, "deal", deal)


def units_of(config: TournamentConfig) -> list[list[int]]:
    """The units (lists of seats) of the configured game."""
    return [list(u) for u in config.make_game().teams()]


def seatings(units: int, entrants: int, scheme: str = "cyclic") -> list[tuple[int, ...]]:
    """Seatings of ``entrants`` table entrants over ``units`` units.

    Each seating gives, per unit, the position of its entrant in the table's
    entrant list. Repeated seatings (fewer entrants than units) are dropped.

    >>> seatings(2, 2)
    [(0, 1), (1, 0)]
    >>> seatings(3, 3, "reversed")
    [(0, 1, 2), (2, 0, 1), (1, 2, 0), (0, 2, 1), (2, 1, 0), (1, 0, 2)]
    >>> seatings(4, 2)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    """
    if entrants < 1 or entrants > units:
        raise ValueError(f"{entrants} entrants cannot share {units} units")
    if scheme == "all":
        base = [p for p in permutations(range(units))]
    elif scheme in ("cyclic", "reversed"):
        base = [tuple((u - r) % units for u in range(units)) for r in range(units)]
        if scheme == "reversed" and units > 2:
            base += [tuple((-u - r) % units for u in range(units)) for r in range(units)]
    else:
        raise ValueError(f"unknown seating scheme {scheme!r}")
    out: list[tuple[int, ...]] = []
    for s in base:
        t = tuple(x % entrants for x in s)
        if t not in out:
            out.append(t)
    return out


def round_robin_tables(entrants: int, units: int) -> list[tuple[int, ...]]:
    """Every combination of ``units`` entrant indices (or one table of all of them)."""
    if entrants <= units:
        return [tuple(range(entrants))]
    return list(combinations(range(entrants), units))


def resolve_movement(config: TournamentConfig) -> str:
    """``"field"`` or ``"rotation"`` for a duplicate config (``"rotation"`` otherwise)."""
    d = config.duplicate
    if config.format != "duplicate" or d is None or d.mode == "teams":
        return "rotation"
    if d.movement != "auto":
        return d.movement
    units = len(config.make_game().teams())
    return "field" if field_tables(len(config.entrants), units, 0) is not None else "rotation"


def _seat_list(units: Sequence[Sequence[int]], per_unit: Sequence[int], n: int) -> list[int]:
    seats = [0] * n
    for u, unit in enumerate(units):
        for s in unit:
            seats[s] = per_unit[u]
    return seats


def expand(config: TournamentConfig) -> list[MatchSpec]:
    """Every match of the tournament, in a stable order (see the module docstring)."""
    game = config.make_game()
    units = [list(u) for u in game.teams()]
    n_units, n = len(units), game.num_players
    k = len(config.entrants)
    ids = [e.id for e in config.entrants]
    refs = [e.bot for e in config.entrants]
    board = game.name == "bridge" and game.options.get("scoring") == "duplicate"
    base_tags: dict[str, Any] = {"format": config.format}

    # plan: per deal, a list of (table, rotation, entrant index per unit, extra tags)
    Plan = list[tuple[int, int, tuple[int, ...], dict[str, Any]]]

    def rotated(tables: list[tuple[int, ...]], scheme: str, extra: list[dict[str, Any]]) -> Plan:
        plan: Plan = []
        for t, table in enumerate(tables):
            for r, seating in enumerate(seatings(n_units, len(table), scheme)):
                plan.append((t, r, tuple(table[p] for p in seating), extra[t]))
        return plan

    movement = "rotation"
    if config.format == "round_robin":
        tables = round_robin_tables(k, n_units)
        fixed = rotated(tables, config.rotations, [{} for _ in tables])

        def plan_of(deal: int) -> Plan:
            return fixed
    elif config.format == "duplicate":
        assert config.duplicate is not None
        movement = resolve_movement(config)
        base_tags.update(mode=config.duplicate.mode, movement=movement)
        if movement == "field":
            def plan_of(deal: int) -> Plan:
                tables = field_tables(k, n_units, deal)
                assert tables is not None
                return [(t, 0, table, {}) for t, table in enumerate(tables)]
        else:
            tables = round_robin_tables(k, n_units)
            fixed = rotated(tables, "cyclic", [{} for _ in tables])

            def plan_of(deal: int) -> Plan:
                return fixed
    else:
        assert config.gauntlet is not None
        cand = ids.index(config.gauntlet.candidate)
        field = [i for i in range(k) if i != cand]
        tables = [(cand, f) for f in field]
        base_tags["candidate"] = ids[cand]
        extra = [{"opponent": ids[f]} for f in field]
        fixed = rotated(tables, "cyclic", extra)

        def plan_of(deal: int) -> Plan:
            return fixed

    specs: list[MatchSpec] = []
    for deal in range(config.deals):
        seed = deal_seed(config.seed, deal)
        for table, rotation, per_unit, extra_tags in plan_of(deal):
            seat_entrants = _seat_list(units, per_unit, n)
            tags = dict(base_tags, **extra_tags)
            if config.format == "gauntlet":
                tags["pair_deal"] = f"{extra_tags['opponent']}/{deal}"
            init: dict[str, Any] = {}
            if board:
                given = config.board_set[deal] if config.board_set else None
                number = given.number if given is not None else deal + 1
                tags["board"] = number
                init = {"board": number}
                if given is not None:
                    init["hands"] = [list(h) for h in given.hands]
            index = len(specs)
            specs.append(MatchSpec(
                match_id=make_match_id(config.id, index), tournament_id=config.id, index=index,
                game=config.game, preset=config.preset, options=dict(config.options), seed=seed,
                entrants=tuple(ids[e] for e in seat_entrants), bots=tuple(refs[e] for e in seat_entrants),
                init=dict(init), deal=deal, rotation=rotation, table=table,
                deadline_ms=config.deadline_ms, tags=tags, max_retries=config.max_retries))
    return specs


def deal_groups(specs: Sequence[MatchSpec]) -> dict[int, list[MatchSpec]]:
    """Specs grouped by deal: each group is run concurrently and revealed together."""
    groups: dict[int, list[MatchSpec]] = {}
    for s in specs:
        groups.setdefault(s.deal, []).append(s)
    return groups
