"""``arena league``: create a league, start, play and end its seasons, read its table.

Presentation only (typer + rich); the logic is :mod:`arena.tournaments.league`,
called through :mod:`arena.tournaments.service`.
It sits beside :mod:`arena.cli` (not in the tournaments package) because it may
reach the Celery workers (``round --all --redis-url``), which the tournaments
package must not import.
Every command takes ``--store URL`` (default ``$ARENA_STORE_URL`` or
``sqlite:///arena.db``) and ``--json``. Errors follow :mod:`arena.cli`: one line on
stderr, ``arena league CMD: error: ...``, exit status 2, and nothing is created by
a command that fails: the league file is read and checked before the store is
opened, ``table`` only reads (the store is opened read-only), and the commands on
a league (``season start|end``, ``round``, ``update``) look it up read-only before
they open the store for writing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, Optional, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from arena.tournaments.service import DEFAULT_STORE_URL

__all__ = ["app"]

app = typer.Typer(help="Leagues: seasons of divisions with promotion and relegation.", no_args_is_help=True)
season_app = typer.Typer(help="Start or end a league's season.", no_args_is_help=True)
app.add_typer(season_app, name="season")

T = TypeVar("T")
STORE = typer.Option(DEFAULT_STORE_URL, "--store", envvar="ARENA_STORE_URL",
                     help="Store URL (SQLite file or PostgreSQL).")
JSON = typer.Option(False, "--json", help="Print JSON instead of tables.")
FILE = typer.Argument(..., exists=True, dir_okay=False, metavar="FILE.toml", help="League file (TOML).")


def _console() -> Console:
    return Console()


def _fail(message: str) -> NoReturn:
    """A user error of ``arena league ...`` (:func:`arena.cli_common.fail`: one line, exit 2)."""
    from arena.cli_common import fail

    fail(message)


def _run(fn: Callable[[], T]) -> T:
    from arena.tournaments import service

    try:
        return fn()
    except (service.ConfigError, service.LeagueError) as exc:
        _fail(str(exc))


def _load(file: Path) -> Any:
    """The league of ``file``, checked (before any store is opened)."""
    from arena.tournaments import service

    try:
        return _run(lambda: service.load_league(file))
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}")


def _store(url: str) -> Any:
    """The store for writing (made and migrated if need be; see :func:`arena.cli_common.open_store`)."""
    from arena.cli_common import open_store as _open_store

    return _open_store(url)


def _league_store(url: str, league_id: str, *, write: bool) -> Any:
    """The store of an existing league: looked up read-only first, so an unknown
    league or store is one line and creates nothing; ``write``: then the store
    opened for writing."""
    from arena.cli_common import open_store as _open_store
    from arena.cli_common import safe_url as _safe_url
    from arena.store import Store
    from arena.store.engine import StoreNotFoundError, StoreURLError
    from arena.tournaments import service

    try:
        Store(url, readonly=True).dispose()
    except StoreNotFoundError:
        _fail(f"no league {league_id!r}: nothing is stored at {_safe_url(url)} yet "
              "(arena league create FILE.toml stores a league), or give --store URL")
    except StoreURLError as exc:
        _fail(f"--store: {exc}")
    ro = _open_store(url, readonly=True)
    try:
        _run(lambda: service.league_info(ro, league_id))
    finally:
        if write:
            ro.dispose()
    return _store(url) if write else ro


def _emit(data: dict[str, Any], as_json: bool, text: Callable[[dict[str, Any]], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2, default=str, allow_nan=False))
    else:
        text(data)


@app.command("create")
def create_cmd(file: Path = FILE, store: str = STORE, as_json: bool = JSON) -> None:
    """Store a league (the same file again changes nothing)."""
    from arena.tournaments import service

    parsed = _load(file)
    db = _store(store)
    cfg = _run(lambda: service.create_league_file(parsed, db))
    data = {"league": cfg.id, "name": cfg.name, "game": cfg.game,
            "divisions": [{"name": d.name, "size": d.size, "format": d.format, "promote": d.promote,
                           "relegate": d.relegate} for d in cfg.divisions]}
    _emit(data, as_json, lambda d: _console().print(
        f"league [bold]{d['league']}[/] ({d['game']}): "
        + ", ".join(f"{x['name']} ({x['size']}, {x['format']})" for x in d["divisions"])))


@app.command("update")
def update_cmd(file: Path = typer.Argument(..., exists=True, dir_okay=False, metavar="FILE.toml",
                                           help="The league's file, changed (TOML)."),
               store: str = STORE, as_json: bool = JSON) -> None:
    """Between seasons: entrants join or leave (a new version of the league's file)."""
    from arena.tournaments import service

    parsed = _load(file)
    db = _league_store(store, parsed.id, write=True)
    data = _run(lambda: service.update_league(parsed, db))

    def text(d: dict[str, Any]) -> None:
        c = _console()
        if not d["changed"]:
            c.print(f"{d['league']}: unchanged")
            return
        c.print(f"{d['league']} after season {d['season']}: joined {', '.join(d['joined']) or '-'}; "
                f"left {', '.join(d['left']) or '-'}")
        for x in d["divisions"]:
            c.print(f"  next season {x['name']}: {', '.join(x['entrants'])}")
    _emit(data, as_json, text)


@season_app.command("start")
def season_start_cmd(league_id: str = typer.Argument(..., metavar="LEAGUE"), store: str = STORE,
                     as_json: bool = JSON) -> None:
    """Start the next season: one tournament per division."""
    from arena.tournaments import service

    db = _league_store(store, league_id, write=True)
    data = _run(lambda: service.season_start(db, league_id))

    def text(d: dict[str, Any]) -> None:
        c = _console()
        c.print(f"{d['league']}: season {d['season']} started")
        for x in d["divisions"]:
            c.print(f"  {x['division']}: {x['tournament']} ({', '.join(x['entrants'])}; {x['matches']} matches)")
    _emit(data, as_json, text)


@season_app.command("end")
def season_end_cmd(league_id: str = typer.Argument(..., metavar="LEAGUE"), store: str = STORE,
                   as_json: bool = JSON) -> None:
    """End the season: promotion and relegation."""
    from arena.tournaments import service

    db = _league_store(store, league_id, write=True)
    data = _run(lambda: service.season_end(db, league_id))

    def text(d: dict[str, Any]) -> None:
        c = _console()
        c.print(f"{d['league']}: season {d['season']} ended")
        for m in d["moves"]:
            c.print(f"  {m['entrant']}: {m['from']} -> {m['to']} ({m['move']})")
        for x in d["divisions"]:
            c.print(f"  next season {x['name']}: {', '.join(x['entrants'])}")
    _emit(data, as_json, text)


@app.command("round")
def round_cmd(league_id: str = typer.Argument(..., metavar="LEAGUE"), store: str = STORE,
              all_rounds: bool = typer.Option(False, "--all", help="Play every division to its end."),
              jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Processes (with --all)."),
              redis_url: Optional[str] = typer.Option(None, "--redis-url",
                                                      help="With --all: offer the divisions to the Celery "
                                                           "workers on this Redis instead."),
              as_json: bool = JSON) -> None:
    """Play the next round of every division of the running season."""
    from arena.tournaments import service

    if jobs is not None and jobs < 1:
        _fail(f"--jobs must be at least 1, got {jobs}")
    if redis_url is not None:
        if not all_rounds:
            _fail("--redis-url goes with --all (the workers play every round)")
        from arena.cli_common import need as _need

        _need("distributed", "arena league round --redis-url")
        db = _league_store(store, league_id, write=True)
        from workers.celery import make_app
        from workers.dispatch import CeleryDispatcher

        dispatcher = CeleryDispatcher(make_app(redis_url, db.url), store_url=db.url)
        sub = _run(lambda: service.submit_season(db, league_id, dispatcher))
        _emit(sub, as_json, lambda d: _console().print(
            f"{d['league']} season {d['season']}: offered " + ", ".join(f"{t} ({n})" for t, n in d["offered"].items())))
        return
    db = _league_store(store, league_id, write=True)
    data = _run(lambda: service.play_round(db, league_id, all_rounds=all_rounds, jobs=jobs or 1))

    def text(d: dict[str, Any]) -> None:
        c = _console()
        for p in d["played"]:
            done = f", {p['finished']}" if p.get("finished") else ""
            matches = f", {p['matches']} matches" if "matches" in p else ""
            c.print(f"{p['tournament']}: round {p['round'] + 1}{matches}{done}")
    _emit(data, as_json, text)


@app.command("table")
def table_cmd(league_id: str = typer.Argument(..., metavar="LEAGUE"), store: str = STORE,
              season: Optional[int] = typer.Option(None, "--season", help="Season (default: the newest)."),
              as_json: bool = JSON) -> None:
    """The divisions' tables with promotion and relegation zones, and the all-time table."""
    from arena.tournaments import service

    db = _league_store(store, league_id, write=False)  # read only: nothing is created
    data = _run(lambda: service.league_table(db, league_id, season))

    def text(d: dict[str, Any]) -> None:
        c = _console()
        c.print(f"[bold]{d['name']}[/]: season {d['season']} ({d['state']})")
        for div in d["divisions"]:
            t = Table(title=f"{div['division']} ({div['status']})")
            cols = [k for k, _ in div["columns"]]
            for _, label in div["columns"]:
                t.add_column(label)
            t.add_column("zone")
            for r in div["rows"]:
                cells = [_cell(r.get(k)) for k in cols]
                style = "green" if r["zone"] == "up" else "red" if r["zone"] == "down" else None
                t.add_row(*cells, r["zone"], style=style)
            c.print(t)
        if d["all_time"]:
            t = Table(title="all time")
            for label in ("entrant", "seasons", "best finish", "seasons (division, place)"):
                t.add_column(label)
            for a in d["all_time"]:
                t.add_row(a["entrant"], str(a["seasons"]), f"{a['best_division']} {a['best_place']}",
                          "; ".join(f"{h['season']}: {h['division']} {h['place']}" for h in a["history"]))
            c.print(t)
        if d["ratings"] and "error" not in d["ratings"][0]:
            t = Table(title="ratings over every season (Bradley-Terry, 95%)")
            for label in ("bot", "rating", "+-", "games"):
                t.add_column(label)
            for r in d["ratings"]:
                t.add_row(str(r["bot"]), f"{r['rating']:.0f}", f"{r['error']:.0f}", f"{r['games']:.0f}")
            c.print(t)
    _emit(data, as_json, text)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)
