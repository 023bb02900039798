"""Leagues: seasons of divisions with promotion and relegation (the logic behind
``arena league``; presentation in :mod:`arena.league_cli`).

A league file::

    [league]
    id = "bots-league"          # letters, digits, '-', '_', '.'
    name = "Bots league"        # default: the id
    game = "calypso"
    preset = "default"          # optional, with [league.options]
    deals = 1                   # deals per round (per encounter)
    seed = 1
    deadline_ms = 5000
    round_every = 86400         # optional schedule: a Swiss division's round r is played
                                # r * 86400 s after the season starts (by the conductor)

    [[divisions]]               # best first
    name = "premier"
    size = 4
    format = "round_robin"      # round_robin | swiss
    relegate = 1                # the bottom 1 go down at the season's end
    [[divisions]]
    name = "championship"
    size = 4
    format = "swiss"
    rounds = 3                  # Swiss rounds (swiss only)
    promote = 1                 # the top 1 go up

    [[entrants]]                # as in a tournament file; seeded into the divisions in order
    id = "a"
    bot = "heuristic"

The entrants fill the divisions in file order (the first ``size`` the top one,
and so on). A division's ``relegate`` must equal the next one's ``promote`` (the
sizes stay), the top division promotes nobody and the bottom one relegates nobody.

Seasons. ``season start`` makes one tournament per division in the store (id
``<league>.s<season>.<division>``; format round robin or Swiss, the league's game
and deals, seed derived from the league seed and the season), so seasons are
played, conducted, resumed and read like any tournament. ``round`` plays the
next round of every division (a round robin is one round), ``round --all`` plays
every division to its end, ``round --all --redis-url URL`` offers the divisions to
the Celery workers (:func:`submit_season`), whose conductors play them to the end.
With ``round_every`` the rounds follow a schedule instead: a Swiss division's
round ``r`` is paired no earlier than ``r * round_every`` seconds after ``season
start`` (``[swiss] round_every`` and ``start_at`` of its tournament), so whatever
conducts the season (the workers' conductors, ``arena conductor``, ``round --all``
left running) plays each round when it is due, and ``round`` plays only the rounds
that are due. ``season end`` needs every division finished: it ranks
each division by its standings, moves the bottom ``relegate`` down and the top
``promote`` up, and keeps the season's tables and moves in the league's history;
the next ``season start`` uses the new divisions.

Entrants join or leave between seasons: ``arena league update FILE`` (or
:func:`update`) takes a new version of the league's file, with the same league
id, game, preset and options, whose ``[[entrants]]`` add or drop entrants (an
entrant keeps its id and its bot) and whose division sizes add up to the new
count (divisions, their formats, promotion and relegation may change too). The
new divisions are cut, best first, from the league's current order: every
division's members as the last season's end left them (the relegated first,
then the rest in the order they finished, then the promoted), leavers taken out,
joiners appended in file order. So a leaver's place goes to the best of the
division below (the best relegated entrant is reprieved), and joiners start in
the bottom division. Refused while a season runs; the same file again changes
nothing; each change is kept in the league's history (``updates``).

Ratings persist: every season's records stay in the store, so the store's rating
history (per ruleset, across tournaments) and :func:`league_ratings` (a
Bradley-Terry fit over every season's records of the league) carry over seasons.
:func:`table` gives a season's division tables with the promotion and relegation
zones, and the all-time table (seasons, divisions and places of each entrant).

Errors: a file with an unknown key, a division larger than the entrants left for
it, a promotion or relegation larger than its division: :class:`ConfigError`
naming the field. A season command on a league whose season is finished (or not
started), a round between seasons: :class:`LeagueError`, nothing changed.
"""

from __future__ import annotations

import re
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournaments.config import ConfigError, parse_config

__all__ = ["LeagueConfig", "Division", "LeagueError", "LeagueNotFoundError", "LeagueExistsError",
           "SeasonNotFoundError", "parse_league", "load_league", "loads_league", "create_league",
           "create", "update", "season_start", "play_round", "submit_season", "season_end", "table", "league_ratings",
           "league_info", "list_leagues", "division_tournament_id", "season_tournaments", "running_season"]

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")


class LeagueError(ValueError):
    """A league command that cannot be done now (nothing was changed)."""


class LeagueNotFoundError(LeagueError, KeyError):
    """No league with that id in the store."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class LeagueExistsError(LeagueError):
    """The league id is stored with another file."""


class SeasonNotFoundError(LeagueError):
    """The league has not played that season."""


@dataclass(frozen=True)
class Division:
    name: str
    size: int
    format: str
    promote: int
    relegate: int
    rounds: int | None


@dataclass(frozen=True)
class LeagueConfig:
    id: str
    name: str
    game: str
    preset: str | None
    options: dict[str, Any]
    deals: int
    seed: int
    deadline_ms: float
    divisions: tuple[Division, ...]
    entrants: tuple[dict[str, Any], ...]
    """The ``[[entrants]]`` tables, as in a tournament file."""
    raw: dict[str, Any]
    round_every: float | None = None
    """The schedule of the Swiss divisions' rounds (seconds), if any."""


def _unknown(t: dict[str, Any], known: set[str], path: str) -> None:
    extra = sorted(set(t) - known)
    if extra:
        raise ConfigError(f"{path}.{extra[0]}" if path else extra[0],
                          f"unknown key; expected one of {', '.join(sorted(known))}")


def _int(t: dict[str, Any], key: str, path: str, default: int | None, low: int = 0) -> int:
    v = t.get(key, default)
    if type(v) is not int or v < low:
        raise ConfigError(f"{path}.{key}", f"must be an integer >= {low}, got {v!r}")
    return v


def parse_league(data: dict[str, Any]) -> LeagueConfig:
    """Validate a parsed league file.

    :raises ConfigError: naming the first invalid field.
    """
    _unknown(data, {"league", "divisions", "entrants"}, "")
    lg = data.get("league")
    if not isinstance(lg, dict):
        raise ConfigError("league", "missing table")
    _unknown(lg, {"id", "name", "game", "preset", "options", "deals", "seed", "deadline_ms", "round_every"}, "league")
    lid = lg.get("id")
    if not isinstance(lid, str) or not _ID_RE.match(lid):
        raise ConfigError("league.id", f"use letters, digits, '-' and '_' only, got {lid!r}")
    divs = data.get("divisions")
    if not isinstance(divs, list) or not divs or not all(isinstance(d, dict) for d in divs):
        raise ConfigError("divisions", "missing: add [[divisions]] tables (best first)")
    ents = data.get("entrants")
    if not isinstance(ents, list) or not all(isinstance(e, dict) for e in ents):
        raise ConfigError("entrants", "missing: add [[entrants]] tables with id and bot or remote")
    divisions: list[Division] = []
    names: set[str] = set()
    left = len(ents)
    for i, d in enumerate(divs):
        path = f"divisions[{i}]"
        _unknown(d, {"name", "size", "format", "promote", "relegate", "rounds"}, path)
        name = d.get("name")
        if not isinstance(name, str) or not _ID_RE.match(name) or name in names:
            raise ConfigError(f"{path}.name", f"a unique name of letters, digits, '-' and '_', got {name!r}")
        names.add(name)
        size = _int(d, "size", path, None, 2)
        if size > left:
            raise ConfigError(f"{path}.size", f"{size} is larger than the {left} entrants left for it")
        left -= size
        fmt = d.get("format", "round_robin")
        if fmt not in ("round_robin", "swiss"):
            raise ConfigError(f"{path}.format", f"must be round_robin or swiss, got {fmt!r}")
        promote = _int(d, "promote", path, 0)
        relegate = _int(d, "relegate", path, 0)
        for key, n in (("promote", promote), ("relegate", relegate)):
            if n > size:
                raise ConfigError(f"{path}.{key}", f"{n} is larger than the division's size {size}")
        if promote + relegate > size:
            raise ConfigError(f"{path}.relegate", f"promote + relegate ({promote + relegate}) exceed the size {size}")
        if i == 0 and promote:
            raise ConfigError(f"{path}.promote", "the top division promotes nobody")
        if i == len(divs) - 1 and relegate:
            raise ConfigError(f"{path}.relegate", "the bottom division relegates nobody")
        rounds = d.get("rounds")
        if rounds is not None and (fmt != "swiss" or type(rounds) is not int or rounds < 1):
            raise ConfigError(f"{path}.rounds", f"a positive number of Swiss rounds (swiss only), got {rounds!r}")
        divisions.append(Division(name, size, fmt, promote, relegate, rounds))
    for i in range(len(divisions) - 1):
        if divisions[i].relegate != divisions[i + 1].promote:
            raise ConfigError(f"divisions[{i + 1}].promote", f"must equal divisions[{i}].relegate "
                              f"({divisions[i].relegate}) so the divisions keep their sizes")
    if left:
        raise ConfigError("entrants", f"{left} entrants have no division (the sizes add up to "
                                      f"{len(ents) - left})")
    deals = _int(lg, "deals", "league", 1, 1)
    seed = _int(lg, "seed", "league", 0, -(2**62))
    every = lg.get("round_every")
    if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float)) or every <= 0):
        raise ConfigError("league.round_every", f"must be a positive number of seconds, got {every!r}")
    cfg = LeagueConfig(id=lid, name=str(lg.get("name", lid)), game=str(lg.get("game", "")),
                       preset=lg.get("preset"), options=dict(lg.get("options", {})), deals=deals, seed=seed,
                       deadline_ms=float(lg.get("deadline_ms", 10_000.0)), divisions=tuple(divisions),
                       entrants=tuple(dict(e) for e in ents), raw=data,
                       round_every=None if every is None else float(every))
    # every division's tournament must be a valid tournament file (game, preset, entrants, Swiss)
    start = 0
    for i, d in enumerate(divisions):
        members = [str(e.get("id")) for e in ents[start:start + d.size]]
        start += d.size
        try:
            parse_config(_tournament_doc(cfg, 1, i, members))
        except ConfigError as exc:
            where = exc.path
            if where.startswith("tournament."):
                where = "league." + where.split(".", 1)[1]
            elif where.startswith("swiss"):
                where = f"divisions[{i}].rounds"
            raise ConfigError(where, str(exc).split(": ", 1)[1]) from None
    return cfg


def load_league(path: str | Path) -> LeagueConfig:
    """Read and validate a league file.

    :raises ConfigError: for invalid TOML or an invalid field.
    """
    return loads_league(Path(path).read_text(encoding="utf-8"), source=str(path))


def loads_league(text: str, *, source: str = "config_toml") -> LeagueConfig:
    """Validate the text of a league file (``source`` names it in a TOML error).

    :raises ConfigError: for invalid TOML or an invalid field.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, f"invalid TOML: {exc}") from None
    return parse_league(data)


def division_tournament_id(league_id: str, season: int, division: str) -> str:
    return f"{league_id}.s{season}.{division}"


def _tournament_doc(cfg: LeagueConfig, season: int, index: int, members: list[str], *,
                    start_at: float = 0.0) -> dict[str, Any]:
    d = cfg.divisions[index]
    by_id = {str(e.get("id")): e for e in cfg.entrants}
    t: dict[str, Any] = {"id": division_tournament_id(cfg.id, season, d.name),
                         "name": f"{cfg.name} season {season}: {d.name}", "game": cfg.game,
                         "format": d.format, "deals": cfg.deals,
                         "seed": (cfg.seed * 1_000_003 + season * 101 + index) % (2**62),
                         "deadline_ms": cfg.deadline_ms}
    if cfg.preset:
        t["preset"] = cfg.preset
    if cfg.options:
        t["options"] = dict(cfg.options)
    doc: dict[str, Any] = {"tournament": t, "entrants": [dict(by_id[m]) for m in members if m in by_id]}
    if d.format == "swiss":
        doc["swiss"] = {"rounds": d.rounds} if d.rounds else {}
        if cfg.round_every is not None:
            doc["swiss"].update(round_every=cfg.round_every, start_at=round(start_at, 3))
    return doc


# -- store ---------------------------------------------------------------------------------------

def _row(store: Any, league_id: str) -> dict[str, Any]:
    from sqlalchemy import select

    from arena.store.models import LeagueRow

    with store.engine.connect() as conn:
        row = conn.execute(select(LeagueRow.__table__).where(LeagueRow.id == league_id)).mappings().first()
    if row is None:
        raise LeagueNotFoundError(f"no league {league_id!r} in {store.url}")
    return dict(row)


def _update(store: Any, league_id: str, expect_state: str, expect_season: int, **values: Any) -> None:
    from sqlalchemy import update

    from arena.store.models import LeagueRow, utcnow

    with store.engine.begin() as conn:
        n = conn.execute(update(LeagueRow).where(LeagueRow.id == league_id)
                         .where(LeagueRow.state == expect_state).where(LeagueRow.season == expect_season)
                         .values(updated=utcnow(), **values)).rowcount
    if n != 1:
        raise LeagueError(f"league {league_id!r} changed meanwhile; nothing done")


def league_info(store: Any, league_id: str) -> dict[str, Any]:
    """The stored league: ``id, name, game, season, state, divisions, history, config``.

    :raises LeagueNotFoundError: for an unknown id.
    """
    return _row(store, league_id)


def list_leagues(store: Any) -> list[dict[str, Any]]:
    """Every stored league (as :func:`league_info`), by id."""
    from sqlalchemy import select

    from arena.store.models import LeagueRow

    with store.engine.connect() as conn:
        rows = conn.execute(select(LeagueRow.__table__).order_by(LeagueRow.id)).mappings().all()
    return [dict(r) for r in rows]


def create(file: str | Path | LeagueConfig, store: Any) -> LeagueConfig:
    """Store the league of ``file`` (a path, or a parsed :class:`LeagueConfig`);
    idempotent: the same file again changes nothing.

    :raises ConfigError: for an invalid file.
    :raises LeagueError: if the id exists with another file.
    """
    return create_league(file if isinstance(file, LeagueConfig) else load_league(file), store)[0]


def create_league(cfg: LeagueConfig, store: Any) -> tuple[LeagueConfig, bool]:
    """:func:`create` of a parsed league; returns it and whether this call stored it.

    :raises LeagueError: if the id exists with another file.
    """
    from sqlalchemy import insert

    from arena.store.models import LeagueRow, utcnow

    try:
        row = _row(store, cfg.id)
    except LeagueNotFoundError:
        row = None
    if row is not None:
        if row["config"] != cfg.raw:
            raise LeagueExistsError(f"league {cfg.id!r} exists with another file "
                                    "(to change it between seasons: arena league update FILE)")
        return cfg, False
    members, start = [], 0
    for d in cfg.divisions:
        members.append({"name": d.name, "entrants": [str(e["id"]) for e in cfg.entrants[start:start + d.size]]})
        start += d.size
    now = utcnow()
    with store.engine.begin() as conn:
        conn.execute(insert(LeagueRow).values(
            id=cfg.id, name=cfg.name, game=cfg.game, config=cfg.raw, created=now, updated=now, season=0,
            state="between", divisions={"divisions": members}, history={"seasons": []}))
    return cfg, True


_FIXED = ("game", "preset", "options")
"""``[league]`` keys that may not change between seasons (ratings are per ruleset)."""


def update(file: str | Path | LeagueConfig, store: Any) -> dict[str, Any]:
    """Entrants join or leave between seasons: apply a new version of the league's
    file (see the module docstring). Returns ``league, season, joined, left,
    changed, divisions`` (the next season's).

    :raises ConfigError: for an invalid file, or a change that is not allowed
        (game, preset, options, an entrant's bot), naming the field.
    :raises LeagueNotFoundError: if no league has the file's id.
    :raises LeagueError: while a season runs (nothing changed).
    """
    cfg = file if isinstance(file, LeagueConfig) else load_league(file)
    row = _row(store, cfg.id)
    if row["state"] == "running":
        raise LeagueError(f"season {row['season']} of {cfg.id!r} is running: entrants join or leave "
                          f"between seasons (arena league season end {cfg.id} first)")
    old = parse_league(row["config"])
    if row["config"] == cfg.raw:
        return {"league": cfg.id, "season": row["season"], "joined": [], "left": [], "changed": False,
                "divisions": row["divisions"]["divisions"]}
    for key in _FIXED:
        if getattr(old, key) != getattr(cfg, key):
            raise ConfigError(f"league.{key}", f"cannot change between seasons ({getattr(old, key)!r} -> "
                                               f"{getattr(cfg, key)!r}): ratings are kept per ruleset; "
                                               "create a new league")
    before = {str(e["id"]): e for e in old.entrants}
    after = {str(e["id"]): e for e in cfg.entrants}
    for i, e in enumerate(cfg.entrants):
        prev = before.get(str(e["id"]))
        if prev is not None and {k: v for k, v in prev.items() if k != "id"} != \
                {k: v for k, v in e.items() if k != "id"}:
            raise ConfigError(f"entrants[{i}]", f"entrant {e['id']!r} keeps its id but changes its bot; "
                                                "give the new bot a new id (ratings are per entrant)")
    order = [e for d in row["divisions"]["divisions"] for e in d["entrants"]]
    left = [e for e in order if e not in after]
    joined = [str(e["id"]) for e in cfg.entrants if str(e["id"]) not in before]
    ranked = [e for e in order if e in after] + joined
    divisions, start = [], 0
    for d in cfg.divisions:
        divisions.append({"name": d.name, "entrants": ranked[start:start + d.size]})
        start += d.size
    assert start == len(ranked)  # parse_league: the sizes add up to the entrants
    history = dict(row["history"])
    updates = list(history.get("updates", []))
    updates.append({"after_season": row["season"], "joined": joined, "left": left,
                    "divisions": divisions})
    history["updates"] = updates
    _update(store, cfg.id, "between", int(row["season"]), config=cfg.raw, name=cfg.name,
            divisions={"divisions": divisions}, history=history)
    return {"league": cfg.id, "season": row["season"], "joined": joined, "left": left, "changed": True,
            "divisions": divisions}


def season_start(store: Any, league_id: str) -> dict[str, Any]:
    """Start the next season: one tournament per division with its first round.

    :raises LeagueError: if a season is running.
    """
    from arena.tournaments.rounds import make_format

    row = _row(store, league_id)
    if row["state"] == "running":
        raise LeagueError(f"season {row['season']} of {league_id!r} is running: end it first "
                          f"(arena league season end {league_id})")
    cfg = parse_league(row["config"])
    season = int(row["season"]) + 1
    divisions = row["divisions"]["divisions"]
    out = []
    now = time.time()
    for i, div in enumerate(divisions):
        doc = _tournament_doc(cfg, season, i, list(div["entrants"]), start_at=now)
        tcfg = parse_config(doc, source=f"league:{league_id}")
        specs = make_format(tcfg).first_round(tcfg.entrants)
        store.add_tournament(tcfg.id, tcfg.name, tcfg.game, doc, specs)
        out.append({"division": div["name"], "tournament": tcfg.id, "entrants": list(div["entrants"]),
                    "matches": len(specs)})
    _update(store, league_id, "between", season - 1, season=season, state="running")
    return {"league": league_id, "season": season, "divisions": out}


def running_season(store: Any, league_id: str) -> tuple[dict[str, Any], list[str]]:
    """The stored league and its running season's division tournaments.

    :raises LeagueError: between seasons.
    """
    row = _row(store, league_id)
    if row["state"] != "running":
        what = "no season has started" if not row["season"] else f"season {row['season']} has ended"
        raise LeagueError(f"league {league_id!r} is between seasons ({what}): "
                          f"start one with arena league season start {league_id}")
    tids = [division_tournament_id(league_id, row["season"], d["name"]) for d in row["divisions"]["divisions"]]
    return row, tids


def play_round(store: Any, league_id: str, *, all_rounds: bool = False, jobs: int = 1,
               settings: Any = None) -> dict[str, Any]:
    """Play the next round of every unfinished division (``all_rounds``: to its end),
    in this process (``jobs`` processes for ``all_rounds``).

    :raises LeagueError: between seasons, or when every division has finished.
    """
    from arena.tournaments.conductor import Conductor, ConductorSettings, owner_id
    from arena.tournaments.executors import EmbeddedExecutor
    from arena.tournaments.runner import play_spec

    row, tids = running_season(store, league_id)
    open_ = [t for t in tids if store.tournament(t).status not in ("done", "stopped")]
    if not open_:
        raise LeagueError(f"season {row['season']} of {league_id!r} is played out: "
                          f"arena league season end {league_id}")
    settings = settings or ConductorSettings.from_env()
    conductor = Conductor(store, None, settings)
    played = []
    for tid in open_:
        if all_rounds:
            executor = EmbeddedExecutor(store.url, jobs, settings=settings)
            executor.run(tid)
            played.append({"tournament": tid, "round": store.tournament(tid).round,
                           "finished": executor.finished})
            continue
        conductor.reconcile(tid)
        owner = owner_id("league")
        specs = store.lease_next(tid, owner, settings.lease_seconds, limit=1_000_000)
        rnd = store.tournament(tid).round
        for spec in specs:
            try:
                store.record_result(play_spec(spec))
            except Exception as exc:  # noqa: BLE001 - kept as a failed match, like any executor
                store.mark_failed(spec.match_id, owner, f"{type(exc).__name__}: {exc}")
        reports = conductor.reconcile(tid)
        played.append({"tournament": tid, "round": rnd, "matches": len(specs),
                       "finished": reports[0].finished if reports else store.tournament(tid).status})
    return {"league": league_id, "season": row["season"], "played": played}


def submit_season(store: Any, league_id: str, dispatcher: Any, settings: Any = None) -> dict[str, Any]:
    """Offer every unfinished division of the running season to the Celery workers
    (their conductors play it round by round to the end; then ``season end``).

    :raises LeagueError: between seasons.
    """
    from arena.tournaments.stored import submit

    row, tids = running_season(store, league_id)
    offered = {t: submit(store, t, dispatcher, settings) for t in tids
               if store.tournament(t).status not in ("done", "stopped")}
    return {"league": league_id, "season": row["season"], "offered": offered}


def _division_table(store: Any, tid: str) -> Any:
    from arena.tournaments.stored import standings

    return standings(store, tid)


def season_end(store: Any, league_id: str) -> dict[str, Any]:
    """End the running season: rank the divisions, promote and relegate.

    :raises LeagueError: between seasons, or while a division has matches left.
    """
    row, tids = running_season(store, league_id)
    cfg = parse_league(row["config"])
    unfinished = [t for t in tids if store.tournament(t).status not in ("done", "stopped")]
    if unfinished:
        raise LeagueError(f"season {row['season']} is not finished: {', '.join(unfinished)} "
                          f"have matches left (arena league round {league_id})")
    divisions = row["divisions"]["divisions"]
    ranked: list[list[str]] = []
    tables = []
    for d, tid in zip(divisions, tids):
        st = _division_table(store, tid)
        order = [r["entrant"] for r in st.rows]
        ranked.append(order)
        tables.append({"division": d["name"], "tournament": tid, "ranking": order,
                       "rows": st.rows, "columns": [list(c) for c in st.columns]})
    new = [list(r) for r in ranked]
    moves = []
    for i in range(len(cfg.divisions) - 1):
        n = cfg.divisions[i].relegate
        if not n:
            continue
        down, up = ranked[i][-n:], ranked[i + 1][:n]
        new[i] = [e for e in new[i] if e not in down] + up
        new[i + 1] = down + [e for e in new[i + 1] if e not in up]
        moves += [{"entrant": e, "from": divisions[i]["name"], "to": divisions[i + 1]["name"], "move": "down"}
                  for e in down]
        moves += [{"entrant": e, "from": divisions[i + 1]["name"], "to": divisions[i]["name"], "move": "up"}
                  for e in up]
    history = dict(row["history"])
    seasons = list(history.get("seasons", []))
    seasons.append({"season": row["season"], "divisions": tables, "moves": moves})
    next_divs = [{"name": d["name"], "entrants": members} for d, members in zip(divisions, new)]
    _update(store, league_id, "running", row["season"], state="between",
            divisions={"divisions": next_divs}, history={**history, "seasons": seasons})
    return {"league": league_id, "season": row["season"], "moves": moves, "divisions": next_divs}


def table(store: Any, league_id: str, season: int | None = None) -> dict[str, Any]:
    """A season's division tables (default: the running or last season) with their
    zones (``up``, ``down``), plus the all-time table and the league's ratings.

    The all-time table holds every entrant of an ended season, ranked by its best
    finish (the highest division reached, then its best place there), then by
    seasons played, then by id; each row has ``best_division``, ``best_place``,
    ``seasons`` and the ``history`` of its places."""
    row = _row(store, league_id)
    cfg = parse_league(row["config"])
    last = int(row["season"])
    season = last if season is None else season
    if season < 1 or season > last:
        raise SeasonNotFoundError(f"league {league_id!r} has seasons 1..{last}, not {season}" if last else
                                  f"league {league_id!r} has no season yet")
    past = {s["season"]: s for s in row["history"].get("seasons", [])}
    ended = past.get(season)
    moved = {(m["entrant"], m["from"]): m["move"] for m in (ended or {}).get("moves", [])}
    divisions = []
    for i, (name, tid) in enumerate(season_tournaments(row, season)):
        st = _division_table(store, tid)
        if ended is None:  # the running season: the zones its end will apply
            up, down = cfg.divisions[i].promote, cfg.divisions[i].relegate
        rows = []
        for k, r in enumerate(st.rows):
            if ended is not None:
                zone = moved.get((r["entrant"], name), "")
            else:
                zone = "up" if k < up else "down" if k >= len(st.rows) - down else ""
            rows.append({**r, "zone": zone})
        divisions.append({"division": name, "tournament": tid, "status": store.tournament(tid).status,
                          "title": st.title, "columns": [list(c) for c in st.columns], "rows": rows})
    alltime: dict[str, dict[str, Any]] = {}
    for s in sorted(past.values(), key=lambda x: x["season"]):
        for i, d in enumerate(s["divisions"]):
            for place, e in enumerate(d["ranking"], 1):
                a = alltime.setdefault(e, {"entrant": e, "seasons": 0, "best": (i, place, d["division"]),
                                           "history": []})
                a["seasons"] += 1
                a["best"] = min(a["best"], (i, place, d["division"]))
                a["history"].append({"season": s["season"], "division": d["division"], "place": place})
    # best finish first (the higher division, then the better place in it), then seasons played
    ranking = sorted(alltime.values(), key=lambda a: (a["best"][0], a["best"][1], -a["seasons"], a["entrant"]))
    for a in ranking:
        a["best_place"] = a["best"][1]
        a["best_division"] = a.pop("best")[2]
    return {"league": league_id, "name": row["name"], "season": season, "state": row["state"],
            "current_season": last, "divisions": divisions,
            "moves": (ended or {}).get("moves", []), "all_time": ranking,
            "updates": row["history"].get("updates", []),
            "ratings": league_ratings(store, league_id)}


def season_tournaments(row: dict[str, Any], season: int) -> list[tuple[str, str]]:
    """``(division name, tournament id)`` of every division of ``season`` (1-based)
    of a stored league (:func:`league_info`), best first: an ended season's from its
    history, the running one's from the league's divisions."""
    for s in row["history"].get("seasons", []):
        if s["season"] == season:
            return [(d["division"], d["tournament"]) for d in s["divisions"]]
    if season == int(row["season"]) and row["state"] == "running":
        return [(d["name"], division_tournament_id(row["id"], season, d["name"]))
                for d in row["divisions"]["divisions"]]
    raise SeasonNotFoundError(f"league {row['id']!r} has no season {season}")


def league_ratings(store: Any, league_id: str) -> list[dict[str, Any]]:
    """A Bradley-Terry fit (Elo, 95% intervals) over every season's records of the
    league: ratings persist across seasons and divisions."""
    from arena.ratings import MatchResult, fit_bradley_terry

    row = _row(store, league_id)
    results = []
    for season in range(1, int(row["season"]) + 1):
        for _, tid in season_tournaments(row, season):
            for rec in store.records(tid):
                sides: dict[str, list[int]] = {}
                for s, e in enumerate(rec.seats):
                    sides.setdefault(e, []).append(s)
                results.append(MatchResult(rec.ruleset, list(rec.seats), list(rec.returns),
                                           teams=[tuple(v) for v in sides.values()], match_id=rec.match_id))
    if not results:
        return []
    try:
        fit = fit_bradley_terry(results)
    except Exception as exc:  # noqa: BLE001 - e.g. divisions that never met: reported, not raised
        return [{"error": str(exc)}]
    return [dict(r) for r in fit.table()]
